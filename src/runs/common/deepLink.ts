/**
 * `vscode://<publisher>.<name>/run?id=<agentId>&base=<base url>` opens a run from a webhook or
 * chat link. It never carries a token; switching to its base URL is confirmed by the user.
 */
import { isPlausibleAgentId } from './agentId';

export const RUN_LINK_PATH = '/run';

export interface RunLink {
  agentId: string;
  /** The base URL the link names, as written (normalise before comparing). */
  baseUrl?: string;
}

export type RunLinkParse = { ok: true; link: RunLink } | { ok: false; problem: 'path' | 'id' };

/** Builds the link for `scheme://extensionId/run?...` (scheme: `vscode.env.uriScheme`). */
export function buildRunLink(scheme: string, extensionId: string, agentId: string, baseUrl: string): string {
  const query = new URLSearchParams({ id: agentId, base: baseUrl }).toString();
  return `${scheme}://${extensionId.toLowerCase()}${RUN_LINK_PATH}?${query}`;
}

/** Parses the path and (still encoded) query of a `vscode.Uri` handed to the UriHandler. */
export function parseRunLink(path: string, query: string): RunLinkParse {
  if (path.replace(/\/+$/, '') !== RUN_LINK_PATH) {
    return { ok: false, problem: 'path' };
  }
  const params = new URLSearchParams(query);
  const id = params.get('id')?.trim() ?? '';
  if (!isPlausibleAgentId(id)) {
    return { ok: false, problem: 'id' };
  }
  const base = params.get('base')?.trim();
  return { ok: true, link: base ? { agentId: id, baseUrl: base } : { agentId: id } };
}
