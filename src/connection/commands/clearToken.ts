// "Clear API Token": removes the token of the configured service from secret storage.
import * as vscode from 'vscode';
import type { ConnectionServices } from '../connection';

export async function clearToken(deps: ConnectionServices): Promise<void> {
  const baseUrl = deps.conn.current.baseUrl;
  if (!baseUrl || !(await deps.auth.has(baseUrl))) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No API token is stored for the current base URL.'));
    return;
  }
  const clear = vscode.l10n.t('Clear Token');
  const pick = await vscode.window.showWarningMessage(
    vscode.l10n.t('Remove the API token for {0} from this editor?', new URL(baseUrl).host),
    { modal: true, detail: vscode.l10n.t('Runs stay in the list but are no longer updated until a token is set again.') },
    clear,
  );
  if (pick !== clear) {
    return;
  }
  await deps.auth.delete(baseUrl);
  await deps.conn.refreshSignedIn();
  deps.log.info(`The API token for ${baseUrl} was removed.`);
}
