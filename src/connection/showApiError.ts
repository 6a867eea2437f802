/**
 * One way to tell the user that something the service did went wrong: the API module's
 * message (says what happened and what to do), plus the button that helps.
 */
import * as vscode from 'vscode';
import { runOwnCommand } from './ownCommands';
import { isApiError } from '../api/errors';
import type { UnauthorizedGate } from './unauthorizedGate';
import type { Connection } from './connection';

/** `conn`: anything that loads the API module (the connection, or `Deps`). */
export function describeError(conn: Pick<Connection, 'api'>, error: unknown): string {
  if (isApiError(error)) {
    try {
      return conn.api().describeApiError(error);
    } catch {
      return error.message;
    }
  }
  return error instanceof Error ? error.message : String(error);
}

export async function showApiError(
  conn: Connection,
  gate: UnauthorizedGate,
  log: vscode.LogOutputChannel,
  error: unknown,
  extraButtons: readonly string[] = [],
): Promise<string | undefined> {
  if (isApiError(error) && error.kind === 'unauthorized') {
    gate.report(error, { interactive: true });
    return undefined;
  }
  if (isApiError(error) && error.kind === 'aborted') {
    return undefined;
  }
  const text = describeError(conn, error);
  log.warn(text);
  const showLogs = vscode.l10n.t('Show Logs');
  const setBaseUrl = vscode.l10n.t('Set Base URL');
  const builtIn: string[] = [];
  if (isApiError(error) && error.kind === 'invalid_base_url') {
    builtIn.push(setBaseUrl);
  } else if (isApiError(error) && (error.kind === 'network' || error.kind === 'timeout' || error.kind === 'server' || error.kind === 'invalid_response')) {
    builtIn.push(showLogs);
  }
  const pick = await vscode.window.showErrorMessage(text, ...extraButtons, ...builtIn);
  if (pick === showLogs) {
    log.show(true);
  } else if (pick === setBaseUrl) {
    await runOwnCommand('agentRuns.setBaseUrl');
  }
  return pick;
}
