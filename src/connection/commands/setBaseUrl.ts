// "Set Base URL": the service's address, checked before it is saved.
import * as vscode from 'vscode';
import { runOwnCommand } from '../ownCommands';
import { BASE_URL_EXAMPLE, normalizeBaseUrl } from '../../api/baseUrl';
import type { ConnectionServices } from '../connection';

export function baseUrlProblem(value: string): string | undefined {
  try {
    normalizeBaseUrl(value);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

export async function setBaseUrl(deps: ConnectionServices): Promise<void> {
  const config = vscode.workspace.getConfiguration('agentRuns');
  const inspected = config.inspect<string>('baseUrl');
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('Set Base URL'),
    prompt: vscode.l10n.t('The service address followed by /api/public/v1. Tokens are stored per base URL.'),
    placeHolder: BASE_URL_EXAMPLE,
    value: config.get<string>('baseUrl', ''),
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? vscode.l10n.t('Enter the base URL.') : baseUrlProblem(v)),
  });
  if (value === undefined) {
    return;
  }
  const normalized = normalizeBaseUrl(value);
  // A workspace value would override the user one: update where it is actually set.
  const target = inspected?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await config.update('baseUrl', normalized, target);
  deps.log.info(`Base URL set to ${normalized}.`);
  if (!(await deps.auth.has(normalized))) {
    const setToken = vscode.l10n.t('Set API Token');
    const pick = await vscode.window.showInformationMessage(vscode.l10n.t('Base URL saved. Now set the API token for {0}.', new URL(normalized).host), setToken);
    if (pick === setToken) {
      await runOwnCommand('agentRuns.setToken');
    }
  }
}
