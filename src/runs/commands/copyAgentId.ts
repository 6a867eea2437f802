import * as vscode from 'vscode';
import type { GlueDeps } from '../glueDeps';
import { resolveRunHere } from './pickRun';

export function registerCopyAgentId(context: vscode.ExtensionContext, deps: GlueDeps): void {
  context.subscriptions.push(vscode.commands.registerCommand('agentRuns.copyAgentId', async (arg?: unknown) => {
    const agentId = await resolveRunHere(deps, arg, vscode.l10n.t('Copy Agent ID'));
    if (!agentId) {
      return;
    }
    await vscode.env.clipboard.writeText(agentId);
    void vscode.window.setStatusBarMessage(vscode.l10n.t('$(check) Agent ID copied'), 3000);
  }));
}
