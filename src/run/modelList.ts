/**
 * The model list for the launch form: the live `/openapi.json`, cached per base URL (with a
 * warning when the served schema changed), else the cache, else `agentRuns.models.fallback`.
 */
import * as vscode from 'vscode';
import { isApiError } from '../api/errors';
import type { AgentRunsApi } from '../api/contract';
import { normalizeFallback, resolveCatalog, reviveCachedSchema, schemaCacheKey, type ModelCatalog, type SchemaChange } from './common/models';

const l10n = vscode.l10n;

export interface LoadedCatalog {
  /** What is known right now (cache or fallback), if anything. */
  initial: ModelCatalog | undefined;
  /** The list to use once the service answered (or did not). */
  promise: Promise<ModelCatalog>;
}

export function loadModelCatalog(
  globalState: vscode.Memento,
  log: vscode.LogOutputChannel,
  client: Pick<AgentRunsApi, 'baseUrl' | 'getSchemaInfo'>,
): LoadedCatalog {
  const key = schemaCacheKey(client.baseUrl);
  const fallback = normalizeFallback(vscode.workspace.getConfiguration('agentRuns').get<unknown>('models.fallback'));
  const cached = reviveCachedSchema(globalState.get(key));
  const initial = cached || fallback.length > 0 ? resolveCatalog({ cached, fallback, now: Date.now(), l10n }).catalog : undefined;
  const promise = client.getSchemaInfo().then(
    (live) => ({ live, error: undefined }),
    (err: unknown) => ({ live: undefined, error: isApiError(err) ? err.message : String(err) }),
  ).then(async ({ live, error }) => {
    // Read the cache again: another flow may have updated it meanwhile (one warning, not two).
    const current = reviveCachedSchema(globalState.get(key));
    const { catalog, cacheUpdate } = resolveCatalog({ live, error, cached: current, fallback, now: Date.now(), l10n });
    if (cacheUpdate) await globalState.update(key, cacheUpdate);
    if (error !== undefined) log.warn(`Model list: the service's schema could not be read (${error}); using ${catalog.source}.`);
    if (catalog.schemaChange) warnSchemaChange(log, catalog.schemaChange);
    return catalog;
  });
  return { initial, promise };
}

function warnSchemaChange(log: vscode.LogOutputChannel, change: SchemaChange): void {
  const parts: string[] = [];
  parts.push(change.previousVersion !== undefined && change.version !== undefined && change.previousVersion !== change.version
    ? l10n.t('The service\'s API schema changed (version {0} → {1}).', change.previousVersion, change.version)
    : l10n.t('The service\'s API schema changed since it was last read.'));
  if (change.added.length > 0) parts.push(l10n.t('New models: {0}.', change.added.join(', ')));
  if (change.removed.length > 0) parts.push(l10n.t('Models no longer offered: {0}. Presets that use them will ask for another model.', change.removed.join(', ')));
  if (change.added.length === 0 && change.removed.length === 0) parts.push(l10n.t('The model list is unchanged. The API is in beta; if something stops working, check the extension\'s logs.'));
  const message = parts.join(' ');
  log.warn(message);
  void vscode.window.showWarningMessage(message);
}
