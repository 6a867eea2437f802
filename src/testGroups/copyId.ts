/**
 * "Copy Test Group ID". Its own module: the view command (activation) and the create flow
 * (the lazily loaded test-groups bundle) both use it, and it holds no state.
 */
import * as vscode from 'vscode';

export async function copyGroupId(groupId: string): Promise<void> {
  await vscode.env.clipboard.writeText(groupId);
  vscode.window.setStatusBarMessage(vscode.l10n.t('Copied test group ID {0}', groupId), 3000);
}
