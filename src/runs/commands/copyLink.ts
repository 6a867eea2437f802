import * as vscode from 'vscode';
import type { GlueDeps } from '../glueDeps';
import { buildRunLink } from '../../core/runs/deepLink';
import { resolveRun } from './pickRun';

/** A `vscode://` link that opens the run in any editor with this extension. Never holds the token. */
export function registerCopyLink(context: vscode.ExtensionContext, deps: GlueDeps): void {
  context.subscriptions.push(vscode.commands.registerCommand('agentRuns.copyLink', async (arg?: unknown) => {
    const agentId = await resolveRun(deps, arg, vscode.l10n.t('Copy Link'));
    const baseUrl = deps.conn.current.baseUrl;
    if (!agentId || !baseUrl) {
      return;
    }
    await vscode.env.clipboard.writeText(buildRunLink(vscode.env.uriScheme, context.extension.id, agentId, baseUrl));
    void vscode.window.setStatusBarMessage(vscode.l10n.t('$(check) Link to the run copied'), 3000);
  }));
}
