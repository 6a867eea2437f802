/**
 * The app's versions (service-api-wider.md §7, deployed shapes): snapshots of a branch that the
 * service stores, indexes and compares in code reviews. Each project starts with twelve versions
 * over three branches, two hours apart before the clock's start, in every stage, and a fourth
 * branch that was never synced; `POST /versions/sync` adds one that moves pending → stored →
 * indexing → completed, one stage per step of the clock (or fails when told to). `GET /versions`
 * is the only cursor-paginated list of the API; under C it needs a branch and lists only that
 * branch's completed versions, with C's item fields.
 */
import { createHash } from 'node:crypto';
import type { Project, VersionRecord, Workspace } from './domain';
import { ServiceError } from './errors';
import type { WiderVersion } from './testDomain';

const HOUR_MS = 60 * 60 * 1000;

export const VERSION_STAGES = ['pending', 'stored', 'indexing', 'completed', 'failed'] as const;
export const SYNC_SOURCES = ['manual', 'automatic'] as const;

/** The branches every seeded project has: id (`version`) and label; the last one was never synced (no versions). */
export const VERSION_BRANCHES = [
  { version: 'main', label: 'Main' },
  { version: 'feature/request-timeouts', label: 'Request timeouts' },
  { version: 'fix/login-redirect', label: 'Login redirect fix' },
  { version: 'feature/dark-mode', label: 'Dark mode' },
] as const;

/** The seeded branch without a synced version: a review or a test run on it needs a sync first. */
export const NEVER_SYNCED_BRANCH = VERSION_BRANCHES[3];

export type Branch = (typeof VERSION_BRANCHES)[number];

/** The seeded versions of a project, oldest first: [branch index, stage, sync source, last change]. */
const SEEDED: readonly (readonly [number, string, string, string])[] = [
  [0, 'completed', 'automatic', 'Initial import'],
  [0, 'completed', 'automatic', 'List, add and remove items'],
  [1, 'completed', 'manual', 'A 10 s timeout on every request'],
  [0, 'completed', 'automatic', 'Merged the settings page'],
  [2, 'failed', 'manual', 'Redirect to the page asked for after sign-in'],
  [1, 'completed', 'manual', 'Retry a timed-out request once'],
  [0, 'completed', 'automatic', 'Dependency updates'],
  [2, 'completed', 'manual', 'Keep the query string on redirect'],
  [1, 'stored', 'manual', 'A timeout per endpoint'],
  [0, 'completed', 'automatic', 'Faster list rendering'],
  [1, 'indexing', 'automatic', 'Show a timed-out request in the list'],
  [0, 'pending', 'automatic', 'Copy changes on the home page'],
];

/** Versions per page of `GET /versions` without `limit`, and the largest `limit`. */
export const VERSIONS_PAGE = { default: 10, max: 100 } as const;

const SYNC_STAGES = ['pending', 'stored', 'indexing', 'completed'] as const;
/** Steps of the clock a sync takes to complete, and one told to fail takes to fail. */
export const SYNC_STEPS = SYNC_STAGES.length - 1;
const FAILING_SYNC_STEPS = 1;
/** How long before its sync a seeded version's branch last changed. */
const LAST_CHANGE_BEFORE_SYNC_MS = 7 * 60 * 1000;

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function versionId(appId: string, n: number): string {
  return `ver_${appId.replace(/^app_/, '')}_${String(n).padStart(3, '0')}`;
}

/** A branch of the app by its id or display label. */
export function branchOf(query: string): Branch | undefined {
  return VERSION_BRANCHES.find((b) => b.version === query || b.label === query);
}

/** A project's seeded versions, the newest created an hour before `now`. */
export function seedVersions(project: Project, now: number): VersionRecord[] {
  return SEEDED.map(([branch, stage, syncSource, lastChange], i) => {
    const n = i + 1;
    const createdAt = now - (SEEDED.length - i) * 2 * HOUR_MS + HOUR_MS;
    const syncedAt = stage === 'pending' ? null : createdAt + 30_000;
    const id = versionId(project.appId, n);
    return {
      versionId: id,
      appId: project.appId,
      version: VERSION_BRANCHES[branch].version,
      branchLabel: VERSION_BRANCHES[branch].label,
      number: n,
      stage,
      syncSource,
      lastChange,
      lastChangeAt: createdAt - LAST_CHANGE_BEFORE_SYNC_MS,
      createdAt,
      syncedAt,
      completedAt: stage === 'completed' && syncedAt !== null ? syncedAt + 90_000 : null,
      errorMessage: stage === 'failed' ? 'The app export timed out after 120 s; sync again.' : null,
      fileSha256: sha256(id),
      fileSizeBytes: 180_000 + n * 7_340,
    };
  });
}

/** Versions of every project of the workspaces (newest last), by app id. */
export function seedAllVersions(workspaces: Iterable<Workspace>, now: number): Map<string, VersionRecord[]> {
  const map = new Map<string, VersionRecord[]>();
  for (const ws of workspaces) for (const project of ws.projects) map.set(project.appId, seedVersions(project, now));
  return map;
}

/** A version as the clock has it: a synced one moves one stage per step. */
export function currentVersion(record: VersionRecord, now: number, stepMs: number): VersionRecord {
  if (record.syncing !== true) return record;
  const steps = Math.max(0, Math.floor((now - record.createdAt) / stepMs));
  if (record.failWith !== undefined && steps >= FAILING_SYNC_STEPS) {
    return { ...record, stage: 'failed', syncedAt: null, completedAt: null, errorMessage: record.failWith };
  }
  const stage = SYNC_STAGES[Math.min(steps, SYNC_STAGES.length - 1)];
  const syncedAt = steps >= 1 ? record.createdAt + stepMs : null;
  const completedAt = stage === 'completed' ? record.createdAt + 3 * stepMs : null;
  return { ...record, stage, syncedAt, completedAt };
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** When a sync started now ends (completed or failed), by the clock. */
export function syncEndsAt(record: VersionRecord, stepMs: number): number {
  return record.createdAt + (record.failWith !== undefined ? FAILING_SYNC_STEPS : SYNC_STEPS) * stepMs;
}

/** The public JSON of a version: times as ISO strings and as milliseconds; C's item has a numeric `lastChange` and no error or file fields. */
export function versionView(v: VersionRecord, wider: WiderVersion): Record<string, unknown> {
  const times = {
    createdAt: iso(v.createdAt),
    createdAtMs: v.createdAt,
    syncedAt: iso(v.syncedAt),
    syncedAtMs: v.syncedAt,
    completedAt: iso(v.completedAt),
    completedAtMs: v.completedAt,
  };
  const head = { versionId: v.versionId, version: v.version, versionDisplay: versionLabel(v), stage: v.stage, syncSource: v.syncSource };
  if (wider === 'C') return { ...head, lastChange: v.lastChangeAt, ...times };
  return { ...head, lastChange: v.lastChange, ...times, errorMessage: v.errorMessage, fileSha256: v.fileSha256, fileSizeBytes: v.fileSizeBytes };
}

/** The branch's newest completed version (newest sync first), if it has one. */
export function newestCompleted(versions: readonly VersionRecord[], branch: string): VersionRecord | undefined {
  return versions
    .filter((v) => v.version === branch && v.stage === 'completed')
    .sort((a, b) => (b.syncedAt ?? b.createdAt) - (a.syncedAt ?? a.createdAt) || b.number - a.number)[0];
}

/** How a version is shown (its `versionDisplay`, a review's `fromVersionLabel`/`toVersionLabel`). */
export function versionLabel(v: VersionRecord): string {
  return `${v.branchLabel} #${v.number}`;
}

// ---------------------------------------------------------------- queries

function positiveInteger(query: URLSearchParams, name: string): number | undefined {
  const values = query.getAll(name);
  if (values.length === 0) return undefined;
  if (values.length > 1 || !/^[0-9]+$/.test(values[0]) || Number(values[0]) < 1) {
    throw ServiceError.invalid(name, `\`${name}\` must be an integer of at least 1, given once.`);
  }
  return Number(values[0]);
}

/** `syncedAfter`/`syncedBefore`: Unix milliseconds or an ISO 8601 date. */
function timeParameter(query: URLSearchParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === null) return undefined;
  const ms = /^[0-9]+$/.test(text) ? Number(text) : /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms)) throw ServiceError.invalid(name, `\`${name}\` must be Unix milliseconds or an ISO 8601 date, got "${text.slice(0, 40)}".`);
  return ms;
}

const encodeCursor = (offset: number): string => Buffer.from(`o:${offset}`, 'utf8').toString('base64url');

function decodeCursor(text: string | null): number {
  if (text === null || text === '') return 0;
  const match = /^o:([0-9]+)$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (match === null) throw ServiceError.invalid('cursor', '`cursor` is not one this service gave out.');
  return Number(match[1]);
}

/**
 * `GET /versions`: newest first, filtered by branch (`version`: id or label) and sync time
 * (`syncedAfter` exclusive, `syncedBefore` exclusive; unsynced versions drop out), `limit` per
 * page (default 10, at most 100: more is a 400), `nextCursor` null on the last page. Under C
 * `version` is required and only completed versions are listed (newest sync first); a branch
 * the app does not have lists nothing, as one never synced does.
 */
export function listVersions(all: readonly VersionRecord[], query: URLSearchParams, wider: WiderVersion): { versions: Record<string, unknown>[]; nextCursor: string | null } {
  if (wider === 'C' && (query.get('version') ?? '').trim() === '') {
    throw ServiceError.invalid('version', '`version` is required: a branch ID or display label, e.g. `main`.');
  }
  const limit = positiveInteger(query, 'limit') ?? VERSIONS_PAGE.default;
  if (limit > VERSIONS_PAGE.max) throw ServiceError.invalid('limit', `\`limit\` must be at most ${VERSIONS_PAGE.max}.`);
  const after = timeParameter(query, 'syncedAfter');
  const before = timeParameter(query, 'syncedBefore');
  const offset = decodeCursor(query.get('cursor'));
  const branch = query.get('version');
  const wanted = branch === null || branch === '' ? undefined : branchOf(branch)?.version ?? branch;
  const newestSyncFirst = (v: VersionRecord): number => (wider === 'C' ? v.syncedAt ?? v.createdAt : v.createdAt);
  const matching = [...all]
    .sort((a, b) => newestSyncFirst(b) - newestSyncFirst(a) || b.number - a.number)
    .filter((v) => wider !== 'C' || v.stage === 'completed')
    .filter((v) => wanted === undefined || v.version === wanted)
    .filter((v) => after === undefined || (v.syncedAt !== null && v.syncedAt > after))
    .filter((v) => before === undefined || (v.syncedAt !== null && v.syncedAt < before));
  const page = matching.slice(offset, offset + limit);
  const next = offset + limit;
  return { versions: page.map((v) => versionView(v, wider)), nextCursor: next < matching.length ? encodeCursor(next) : null };
}

/** `GET /versions/status` and `POST /versions/sync` answer this (C adds `appVersion`, an alias of `version`). */
export function syncStatus(v: VersionRecord, wider: WiderVersion): Record<string, unknown> {
  const status = v.stage === 'completed' ? 'completed' : v.stage === 'failed' ? 'failed' : 'in_progress';
  const message = status === 'completed' ? `${versionLabel(v)} is synced and indexed.`
    : status === 'failed' ? `${versionLabel(v)} could not be synced.` : `${versionLabel(v)} is ${v.stage}.`;
  return {
    ok: status !== 'failed',
    status,
    stage: v.stage,
    versionId: v.versionId,
    version: v.version,
    ...(wider === 'C' ? { appVersion: v.version } : {}),
    message,
    ...(v.errorMessage !== null ? { error: v.errorMessage } : {}),
  };
}

/**
 * The answer to a sync of a branch the app does not have: it fails at once, no version is created
 * (`versionId` null: nothing to poll), `version` as it was asked for.
 */
export function unknownBranchSync(name: string, wider: WiderVersion): Record<string, unknown> {
  return {
    ok: false,
    status: 'failed',
    stage: 'failed',
    versionId: null,
    version: name,
    ...(wider === 'C' ? { appVersion: name } : {}),
    message: `Branch '${name}' could not be synced.`,
    error: `Branch '${name}' was not found in the app`,
  };
}

/**
 * `POST /versions/sync` of a branch of the app: its newest version still syncing answers for it;
 * otherwise a new version is created, `pending`, and moves on the clock (or fails after a step
 * with `failWith`, an admin's `PUT /__admin/sync-failure`).
 */
export function startSync(list: VersionRecord[], appId: string, branch: Branch, now: number, stepMs: number, failWith?: string): VersionRecord {
  const running = list.map((v) => currentVersion(v, now, stepMs)).filter((v) => v.version === branch.version && v.syncing === true && v.stage !== 'completed' && v.stage !== 'failed');
  if (running.length > 0) return list.find((v) => v.versionId === running[running.length - 1].versionId) as VersionRecord;
  const n = list.reduce((max, v) => Math.max(max, v.number), 0) + 1;
  const id = versionId(appId, n);
  const record: VersionRecord = {
    versionId: id, appId, version: branch.version, branchLabel: branch.label, number: n, stage: 'pending', syncSource: 'manual',
    lastChange: 'Synced on request', lastChangeAt: now, createdAt: now, syncedAt: null, completedAt: null, errorMessage: null,
    fileSha256: sha256(id), fileSizeBytes: 180_000 + n * 7_340, syncing: true, ...(failWith !== undefined ? { failWith } : {}),
  };
  list.push(record);
  return record;
}
