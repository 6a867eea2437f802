import * as vscode from 'vscode';
import type { GlueDeps } from '../glueDeps';
import { refreshRuns } from './refreshRun';

/** The view's Refresh: reads every unfinished run now and redraws the list. */
export function registerRefresh(context: vscode.ExtensionContext, deps: GlueDeps): void {
  context.subscriptions.push(vscode.commands.registerCommand('agentRuns.refresh', async () => {
    deps.view.provider.refreshAll();
    await refreshRuns(deps, deps.ledgers.current.active().map((r) => r.agentId));
  }));
}
