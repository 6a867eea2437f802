// "Copy Link": a link that opens a run in this extension.
import * as vscode from 'vscode';
import type { Deps } from '../../run/deps';
import { buildRunLink } from '../common/deepLink';
import { resolveRunHere } from './pickRun';

/**
 * A link that opens the run in an editor with this extension; never holds the token. Built with
 * `asExternalUri` so a remote editor (code-server, Codespaces) gives one a browser can open.
 */
export async function copyLinkCommand(deps: Deps, arg?: unknown): Promise<string | undefined> {
  const agentId = await resolveRunHere(deps, arg, vscode.l10n.t('Copy Link'));
  const baseUrl = deps.connection().baseUrl;
  if (!agentId || !baseUrl) {
    return undefined;
  }
  const raw = buildRunLink(vscode.env.uriScheme, deps.context.extension.id, agentId, baseUrl);
  const link = vscode.Uri.parse(raw);
  const mapped = await vscode.env.asExternalUri(link);
  // Unchanged (desktop): the link as built. Otherwise the editor's link as it gave it: its
  // query is already encoded, and encoding it again (toString()) would break it.
  const external = mapped.toString() === link.toString() ? raw : mapped.toString(true);
  await vscode.env.clipboard.writeText(external);
  deps.log.info(`Copied the link to run ${agentId}: ${external}`);
  void vscode.window.setStatusBarMessage(vscode.l10n.t('$(check) Link to the run copied'), 3000);
  return external;
}
