/**
 * The models the launch and code review forms offer: the reference does not list them, so they
 * come from the served `/openapi.json`, cached per base URL with its fingerprint; the settings'
 * list is the last resort.
 */
import type { ServiceSchemaInfo } from '../../api/types';
import { plainL10n, type L10n } from '../../base/common/l10n';

export interface CachedSchemaInfo {
  models: string[];
  fingerprint: string;
  version?: string;
  /** When the schema was read (Unix ms). */
  fetchedAt: number;
}

export type ModelSource =
  /** Read from the service just now. */
  | 'live'
  /** The service could not be asked; the last list read from it. */
  | 'cache'
  /** Neither: `agentRuns.models.fallback`. */
  | 'fallback'
  /** Nothing known: the person types a model ID. */
  | 'none';

export interface SchemaChange {
  previousVersion?: string;
  version?: string;
  added: string[];
  removed: string[];
}

export interface ModelCatalog {
  models: string[];
  source: ModelSource;
  /** For `live` and `cache`: when the list was read. */
  fetchedAt?: number;
  /** Why the live list is not used (user-facing, already sanitised by the API client). */
  problem?: string;
  /** Set once, on the read that first saw a new schema fingerprint. */
  schemaChange?: SchemaChange;
}

const CACHE_PREFIX = 'agentRuns.schemaInfo.v1:';

export function schemaCacheKey(baseUrl: string): string {
  return CACHE_PREFIX + baseUrl;
}

function cleanIds(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const out: string[] = [];
  for (const v of value) {
    if (typeof v !== 'string') continue;
    const id = v.trim();
    if (id !== '' && !/\s/.test(id) && !out.includes(id)) out.push(id);
  }
  return out;
}

/** A cache entry from storage, or undefined when it is missing or unusable. */
export function reviveCachedSchema(raw: unknown): CachedSchemaInfo | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.fingerprint !== 'string' || r.fingerprint === '') return undefined;
  const out: CachedSchemaInfo = {
    models: cleanIds(r.models),
    fingerprint: r.fingerprint,
    fetchedAt: typeof r.fetchedAt === 'number' && Number.isFinite(r.fetchedAt) ? r.fetchedAt : 0,
  };
  if (typeof r.version === 'string') out.version = r.version;
  return out;
}

/** The `agentRuns.models.fallback` setting as a clean list (anything unusable dropped). */
export function normalizeFallback(raw: unknown): string[] {
  return cleanIds(raw);
}

export interface ResolveInput {
  /** The schema read just now, when the read succeeded. */
  live?: ServiceSchemaInfo;
  /** Why the read failed (user-facing), when it did. */
  error?: string;
  cached?: CachedSchemaInfo;
  fallback: readonly string[];
  now: number;
  l10n?: L10n;
}

export interface ResolveResult {
  catalog: ModelCatalog;
  /** What to store as the new cache entry, when it changed. */
  cacheUpdate?: CachedSchemaInfo;
}

/**
 * Which list the form offers and what to cache; a schema change is reported once (the cache then
 * has the new fingerprint), and a live schema without models is not cached over the last good list.
 */
export function resolveCatalog(input: ResolveInput): ResolveResult {
  const { live, cached } = input;
  const fallback = cleanIds(input.fallback);
  if (!live) return { catalog: fallbackCatalog(cached, fallback, input.error) };
  const models = cleanIds(live.models);
  if (models.length === 0) {
    return { catalog: fallbackCatalog(cached, fallback, (input.l10n ?? plainL10n).t('The service\'s schema (openapi.json) lists no models.')) };
  }
  const catalog: ModelCatalog = { models, source: 'live', fetchedAt: input.now };
  if (cached && cached.fingerprint !== live.fingerprint) {
    const change: SchemaChange = {
      added: models.filter((m) => !cached.models.includes(m)),
      removed: cached.models.filter((m) => !models.includes(m)),
    };
    if (cached.version !== undefined) change.previousVersion = cached.version;
    if (live.version !== undefined) change.version = live.version;
    catalog.schemaChange = change;
  }
  // Rewriting storage on every flow only to move a timestamp is not worth it.
  if (cached && cached.fingerprint === live.fingerprint && sameList(cached.models, models)) return { catalog };
  const cacheUpdate: CachedSchemaInfo = { models, fingerprint: live.fingerprint, fetchedAt: input.now };
  if (live.version !== undefined) cacheUpdate.version = live.version;
  return { catalog, cacheUpdate };
}

function fallbackCatalog(cached: CachedSchemaInfo | undefined, fallback: string[], problem: string | undefined): ModelCatalog {
  const withProblem = (c: ModelCatalog): ModelCatalog => (problem === undefined ? c : { ...c, problem });
  if (cached && cached.models.length > 0) return withProblem({ models: [...cached.models], source: 'cache', fetchedAt: cached.fetchedAt });
  if (fallback.length > 0) return withProblem({ models: fallback, source: 'fallback' });
  return withProblem({ models: [], source: 'none' });
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** True when the list came from the service (now or before), so a model missing from it is really not offered. */
export function isAuthoritative(catalog: ModelCatalog): boolean {
  return (catalog.source === 'live' || catalog.source === 'cache') && catalog.models.length > 0;
}

/**
 * The ids to pass to request validation: only a list the service gave. A hand-written
 * fallback list may be stale or incomplete, and then the service should decide.
 */
export function knownModelsForValidation(catalog: ModelCatalog): string[] | undefined {
  return isAuthoritative(catalog) ? catalog.models : undefined;
}

// ---------------------------------------------------------------- learned facts

const EMAIL_MODELS_PREFIX = 'agentRuns.emailModels.v1:';

/** Storage key of the models the service said need `userEmail`, per base URL. */
export function emailModelsKey(baseUrl: string): string {
  return EMAIL_MODELS_PREFIX + baseUrl;
}

export function reviveIdList(raw: unknown): string[] {
  return cleanIds(raw);
}

/** Adds `id` at the front of a most-recent-first list of at most `max` entries. */
export function pushRecent(list: readonly string[], id: string, max: number): string[] {
  const v = id.trim();
  if (v === '') return [...list];
  return [v, ...list.filter((x) => x !== v)].slice(0, max);
}

/** The provider part of a model id (`openai/gpt-5`), for messages only: the reference defines no id structure. */
export function providerHint(modelId: string): string | undefined {
  const slash = modelId.indexOf('/');
  if (slash <= 0) return undefined;
  return modelId.slice(0, slash);
}
