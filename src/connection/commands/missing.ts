/**
 * What a request that cannot be made says: no base URL, no token, or a token about to travel
 * over plain http to another machine. Loaded with dist/runCommands.js when one is needed, not
 * at activation; the connection (../connection.ts) keeps what was answered.
 */
import * as vscode from 'vscode';
import { runOwnCommand } from '../ownCommands';
import type { ConnectionState } from '../connection';

/** Offers the command that fixes what is missing: the base URL, else the token. */
export async function explainMissing({ baseUrl, baseUrlProblem, signedIn }: ConnectionState): Promise<void> {
  if (!baseUrl) {
    const setUrl = vscode.l10n.t('Set Base URL');
    const pick = await vscode.window.showWarningMessage(
      baseUrlProblem ?? vscode.l10n.t('Set the service base URL first (the agentRuns.baseUrl setting).'),
      setUrl,
    );
    if (pick === setUrl) {
      await runOwnCommand('agentRuns.setBaseUrl');
    }
    return;
  }
  if (!signedIn) {
    const setToken = vscode.l10n.t('Set API Token');
    const pick = await vscode.window.showWarningMessage(vscode.l10n.t('No API token is set for {0}.', baseUrl), setToken);
    if (pick === setToken) {
      await runOwnCommand('agentRuns.setToken');
    }
  }
  // Otherwise the user declined sending the token over http: nothing more to say.
}

/** Asks (modal) whether the token may go over plain http to `baseUrl`; true when the person allowed it. */
export async function askInsecure(baseUrl: string): Promise<boolean> {
  const send = vscode.l10n.t('Send Over HTTP');
  const pick = await vscode.window.showWarningMessage(
    vscode.l10n.t('The base URL {0} uses plain http to another machine.', baseUrl),
    {
      modal: true,
      detail: vscode.l10n.t('Your API token would travel unencrypted and could be read on the way. Use an https:// base URL unless this network is trusted. Send the token anyway?'),
    },
    send,
  );
  return pick === send;
}
