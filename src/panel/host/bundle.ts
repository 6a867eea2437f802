/**
 * The run panel's lazy bundle (dist/panel.js), loaded when a panel is opened or restored. The live
 * objects of dist/extension.js come in as parameters, so nothing stateful exists twice.
 */
import * as vscode from 'vscode';
import { isApiError } from '../../api/errors';
import type { CodeReviewDetail } from '../../api/reviewTypes';
import { describeNoClient } from '../../connection/common/describeNoClient';
import type { Deps } from '../../run/deps';
import { RunPanelManager, type RunPanelHost, type RunPanelManagerOptions } from './manager';

export { followUpNotSent } from '../../run/followUp';

/** The panel manager, for a caller that registered the webview serializer itself. */
export function createRunPanelManager(extensionUri: vscode.Uri, host: RunPanelHost, options: RunPanelManagerOptions): RunPanelManager {
  return new RunPanelManager(extensionUri, host, { ...options, registerSerializer: false });
}

/** Opens an http(s) or mailto link from the run's output in the browser, once the person agreed. */
export async function openExternalLink(url: string): Promise<void> {
  let target: vscode.Uri;
  try {
    target = vscode.Uri.parse(url, true);
  } catch {
    return;
  }
  if (target.scheme !== 'http' && target.scheme !== 'https' && target.scheme !== 'mailto') {
    return;
  }
  // Links come from agent output: say where they go before leaving the editor.
  const open = vscode.l10n.t('Open Link');
  const pick = await vscode.window.showInformationMessage(
    vscode.l10n.t('Open this link from the run in your browser?'),
    { modal: true, detail: url },
    open,
  );
  if (pick === open) {
    await vscode.env.openExternal(target);
  }
}

/** `GET /code-reviews/{id}` for the review's panel; a 401 goes to the shared gate. */
export async function readCodeReview(d: Deps, reviewId: string): Promise<CodeReviewDetail> {
  const client = await d.getClient({ quiet: true });
  if (!client) {
    throw new Error(describeNoClient(d.connection(), vscode.l10n));
  }
  try {
    // The conversation comes from the run's own reads: one message is enough here.
    return await client.getCodeReview(reviewId, { historyLimit: 1 });
  } catch (e) {
    if (isApiError(e) && e.kind === 'unauthorized') {
      d.reportUnauthorized(e);
    }
    throw e;
  }
}
