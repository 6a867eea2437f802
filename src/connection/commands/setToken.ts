// "Set API Token": the token in a password box, straight into secret storage.
import * as vscode from 'vscode';
import { runOwnCommand } from '../ownCommands';
import { tokenShapeProblem } from '../common/tokenShape';
import type { ConnectionServices } from '../connection';

/**
 * Asks for the API token (password box) and stores it for the current base URL. Takes no
 * token argument on purpose: a command link must not be able to plant one.
 */
export async function setToken(deps: ConnectionServices): Promise<boolean> {
  let baseUrl = deps.conn.current.baseUrl;
  if (!baseUrl) {
    const setUrl = vscode.l10n.t('Set Base URL');
    const pick = await vscode.window.showInformationMessage(vscode.l10n.t('Set the service base URL first: the token is stored for that service only.'), setUrl);
    if (pick !== setUrl) {
      return false;
    }
    await runOwnCommand('agentRuns.setBaseUrl');
    baseUrl = deps.conn.current.baseUrl;
    if (!baseUrl) {
      return false;
    }
  }
  const host = new URL(baseUrl).host;
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('Set API Token'),
    prompt: vscode.l10n.t('Workspace REST API token for {0}. A workspace admin creates it in the service under Agent, Integrations, API. It is kept in the editor\'s secret storage.', host),
    placeHolder: vscode.l10n.t('prefix_secret'),
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => tokenShapeProblem(v.trim(), vscode.l10n),
  });
  if (value === undefined) {
    return false;
  }
  const token = value.trim();
  if (tokenShapeProblem(token, vscode.l10n) !== undefined) {
    return false;
  }
  if (!(await deps.conn.confirmInsecure(baseUrl, false))) {
    void vscode.window.showInformationMessage(vscode.l10n.t('The token was not stored. Switch the base URL to https:// and set it again.'));
    return false;
  }
  await deps.auth.set(baseUrl, token);
  await deps.conn.refreshSignedIn();
  deps.log.info(`An API token was stored for ${baseUrl}.`);
  void vscode.window.showInformationMessage(vscode.l10n.t('API token saved for {0}.', host));
  return true;
}
