// The extension's URI handler: a run link opens the run.
import * as vscode from 'vscode';
import { runOwnCommand } from '../../connection/ownCommands';
import type { Deps } from '../../run/deps';
import { normalizeBaseUrl } from '../../api/baseUrl';
import { parseRunLink } from '../common/deepLink';
import { trackRun } from './trackRun';

/**
 * `vscode://agent-runs-team.agent-runs/run?id=<agentId>&base=<base url>` opens the run,
 * tracking it first when it is not in the list. A link naming another service only switches
 * the base URL after a modal confirmation; the token is never part of a link.
 */
export async function handleRunUri(deps: Deps, uri: vscode.Uri): Promise<void> {
  // uri.query is already decoded: re-read the encoded form so "&" and "=" inside values survive.
  const url = new URL(uri.toString());
  const parsed = parseRunLink(url.pathname, url.search);
  if (!parsed.ok) {
    deps.log.warn(`Ignored a link the extension does not understand: ${url.pathname}`);
    void vscode.window.showWarningMessage(parsed.problem === 'id'
      ? vscode.l10n.t('The link does not carry a valid agent ID.')
      : vscode.l10n.t('Agent Runs cannot open this link.'));
    return;
  }
  const { agentId, baseUrl: linkBase } = parsed.link;
  if (linkBase !== undefined) {
    let target: string;
    try {
      target = normalizeBaseUrl(linkBase);
    } catch {
      void vscode.window.showWarningMessage(vscode.l10n.t('The link names a service address that is not valid: {0}', linkBase));
      return;
    }
    const current = deps.connection().baseUrl;
    if (target !== current) {
      const switchTo = vscode.l10n.t('Switch Service');
      const pick = await vscode.window.showWarningMessage(
        vscode.l10n.t('This link opens run {0} on {1}.', agentId, target),
        {
          modal: true,
          detail: current
            ? vscode.l10n.t('Agent Runs is connected to {0}. Switch the agentRuns.baseUrl setting to the link\'s service? Your token for {0} is not sent there; that service needs its own token.', current)
            : vscode.l10n.t('Set the agentRuns.baseUrl setting to the link\'s service? It needs its own API token.'),
        },
        switchTo,
      );
      if (pick !== switchTo) {
        return;
      }
      await vscode.workspace.getConfiguration('agentRuns').update('baseUrl', target, vscode.ConfigurationTarget.Global);
      await deps.refreshSignedIn();
      if (deps.connection().baseUrl !== target) {
        // A workspace setting overrides the user one.
        void vscode.window.showWarningMessage(vscode.l10n.t('The workspace settings set a different base URL; change it there to open this run.'));
        return;
      }
    }
  }
  if (!deps.ledger().has(agentId)) {
    if (!deps.connection().signedIn) {
      await runOwnCommand('agentRuns.setToken');
      if (!deps.connection().signedIn) {
        return;
      }
    }
    if (!(await trackRun(deps, agentId))) {
      return;
    }
  }
  await deps.view.reveal(agentId, { select: true });
  await deps.openRun(agentId);
}
