// "Refresh Run": reads the selected runs now.
import * as vscode from 'vscode';
import type { Deps } from '../../run/deps';
import { selectedRunIds } from './pickRun';

/** Reads the selected runs now (finished ones too: a follow-up may have restarted them elsewhere). */
export async function refreshRunCommand(deps: Deps, arg?: unknown, selection?: unknown) {
  await refreshRuns(deps, selectedRunIds(arg, selection));
}

export async function refreshRuns(deps: Deps, agentIds: readonly string[]): Promise<void> {
  if (agentIds.length === 0) {
    return;
  }
  if (!(await ensureCanRead(deps))) {
    return;
  }
  await vscode.window.withProgress({ location: { viewId: 'agentRuns.runs' } }, () =>
    Promise.all(agentIds.map((id) => deps.sync.poller.pollNow(id))));
}

/** Explains why nothing can be read right now (no base URL, no token, token rejected). */
export async function ensureCanRead(deps: Deps): Promise<boolean> {
  if (deps.tokenRejected()) {
    deps.reportUnauthorized(undefined, { interactive: true });
    return false;
  }
  return (await deps.getClient()) !== undefined;
}
