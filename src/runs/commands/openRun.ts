// "Open Run": a run's panel.
import * as vscode from 'vscode';
import type { Deps } from '../../run/deps';
import { resolveRun } from './pickRun';

export async function openRunCommand(deps: Deps, arg?: unknown) {
  const agentId = await resolveRun(deps, arg, vscode.l10n.t('Open Run'));
  if (!agentId) {
    return;
  }
  if (!deps.ledger().has(agentId)) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Run {0} is not in the list. Use "Track Run by ID" to add it.', agentId));
    return;
  }
  await deps.openRun(agentId);
}
