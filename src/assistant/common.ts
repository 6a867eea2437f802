/**
 * What the tools and the chat participant share: a quiet client (a missing setting is said as
 * text, not a notification), defaults from the settings, and every failure as one short
 * actionable sentence, never a stack or the token.
 */
import * as vscode from 'vscode';
import type { AgentRunsApi } from '../api/contract';
import type { Deps } from '../run/deps';
import { ToolInputError } from './common/schemas';
import { describeNoClient } from '../connection/common/describeNoClient';

/** A failure already worded for the person (missing setup, bad input). */
export class Refusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Refusal';
  }
}

export async function clientOrRefuse(deps: Deps): Promise<AgentRunsApi> {
  const client = await deps.getClient({ quiet: true });
  if (client) return client;
  throw new Refusal(notConnectedText(deps));
}

/** Why there is no client, as the person reads it everywhere (connection/common/describeNoClient.ts). */
export function notConnectedText(deps: Deps): string {
  return describeNoClient(deps.connection(), vscode.l10n);
}

/** The models the service's own schema offers for a start; empty when it cannot be read (the service decides then). */
export function modelsOffered(client: AgentRunsApi, signal?: AbortSignal): Promise<string[]> {
  return client.getSchemaInfo({ signal }).then((s) => s.models, () => []);
}

export function setting(key: 'appId' | 'defaultModel'): string {
  const value = vscode.workspace.getConfiguration('agentRuns').get<unknown>(key);
  return typeof value === 'string' ? value.trim() : '';
}

/** One sentence for any failure; a refused token also goes to the shared 401 gate. */
export function failureText(deps: Deps, e: unknown): string {
  if (e instanceof Refusal || e instanceof ToolInputError) return e.message;
  const api = deps.api();
  if (api.isApiError(e)) {
    if (e.kind === 'unauthorized' && e.status !== undefined) deps.reportUnauthorized(e);
    return api.describeApiError(e);
  }
  if (e instanceof vscode.CancellationError) return vscode.l10n.t('Cancelled.');
  deps.log.error(`Agent Runs assistant: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  return vscode.l10n.t('Something unexpected went wrong; the details are in the Agent Runs log (Agent Runs: Show Logs).');
}

/** An AbortSignal that follows a cancellation token. */
export function signalOf(token: vscode.CancellationToken): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  const sub = token.onCancellationRequested(() => controller.abort());
  return { signal: controller.signal, dispose: () => { sub.dispose(); } };
}
