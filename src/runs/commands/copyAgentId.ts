// "Copy Agent ID": a run's ID to the clipboard.
import * as vscode from 'vscode';
import type { Deps } from '../../run/deps';
import { resolveRunHere } from './pickRun';

export async function copyAgentIdCommand(deps: Deps, arg?: unknown) {
  const agentId = await resolveRunHere(deps, arg, vscode.l10n.t('Copy Agent ID'));
  if (!agentId) {
    return;
  }
  await vscode.env.clipboard.writeText(agentId);
  void vscode.window.setStatusBarMessage(vscode.l10n.t('$(check) Agent ID copied'), 3000);
}
