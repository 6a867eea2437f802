/**
 * Following a branch's sync: where an answer says it stands, how long to wait before asking again
 * (`Retry-After` honoured, bounded) and what a failed sync says. It only reads: the POST is the sender's. Pure.
 */
import type { VersionSync } from '../../../api/reviewTypes';
import { oneLine } from '../../../api/sanitize';
import type { L10n } from '../../../base/common/l10n';

export type SyncPhase = 'running' | 'completed' | 'failed' | 'unknown';

const RUNNING_STAGES = new Set(['pending', 'stored', 'indexing']);

/** Where a sync stands by its answer: `status` first, else its `stage`, else the HTTP status (202: running). */
export function syncPhase(s: VersionSync): SyncPhase {
  if (s.status === 'completed') return s.stage === 'failed' ? 'failed' : 'completed';
  if (s.status === 'failed' || s.ok === false && s.error !== undefined) return 'failed';
  if (s.status === 'in_progress') return 'running';
  if (s.stage === 'completed') return 'completed';
  if (s.stage === 'failed') return 'failed';
  if ((s.stage !== undefined && RUNNING_STAGES.has(s.stage)) || s.httpStatus === 202) return 'running';
  return 'unknown';
}

export interface SyncLimits {
  /** The first wait before asking again. */
  firstMs: number;
  /** The longest wait between two reads of our own choosing. */
  maxDelayMs: number;
  /** The longest `Retry-After` honoured as given (longer ones are cut to this). */
  maxRetryAfterMs: number;
  /** How long a sync is followed before the person is told it is still running. */
  maxWaitMs: number;
  /** Reads that fail one after another before following stops. */
  maxFailedReads: number;
}

export const SYNC_LIMITS: SyncLimits = { firstMs: 1_000, maxDelayMs: 10_000, maxRetryAfterMs: 60_000, maxWaitMs: 10 * 60_000, maxFailedReads: 3 };

/** The wait before read `attempt` (0-based): growing by half each time, or the service's `Retry-After`. */
export function nextSyncDelay(attempt: number, retryAfterMs: number | undefined, limits: SyncLimits = SYNC_LIMITS): number {
  if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs)) return Math.min(Math.max(retryAfterMs, limits.firstMs), limits.maxRetryAfterMs);
  return Math.min(limits.firstMs * 1.5 ** Math.max(0, attempt), limits.maxDelayMs);
}

export type SyncOutcome =
  | { kind: 'completed'; sync: VersionSync }
  | { kind: 'failed'; sync: VersionSync }
  /** Followed for `maxWaitMs`: it may still complete. */
  | { kind: 'stillRunning'; sync: VersionSync }
  /** The answer says neither done nor running, or gives no version to ask about. */
  | { kind: 'unknown'; sync: VersionSync }
  /** `maxFailedReads` reads failed one after another. */
  | { kind: 'readFailed'; sync: VersionSync; error: unknown }
  /** The person stopped waiting (the sync goes on at the service). */
  | { kind: 'stopped'; sync: VersionSync };

export interface SyncIo {
  /** `GET /versions/status` of the sync's version. */
  read(versionId: string): Promise<VersionSync>;
  /** Waits `ms`; false when the person stopped waiting. */
  sleep(ms: number): Promise<boolean>;
  now(): number;
  /** Each answer read, for progress. */
  progress?(sync: VersionSync): void;
  /** The `Retry-After` of a failed read, when it had one. */
  retryAfterOf?(error: unknown): number | undefined;
}

/** Follows a sync from its first answer (the POST's) until it completed, failed, or waiting ends. */
export async function followSync(first: VersionSync, io: SyncIo, limits: SyncLimits = SYNC_LIMITS): Promise<SyncOutcome> {
  let last = first;
  const started = io.now();
  let attempt = 0;
  let failedReads = 0;
  let retryAfter = first.retryAfterMs;
  for (;;) {
    const phase = syncPhase(last);
    if (phase === 'completed' || phase === 'failed') return { kind: phase, sync: last };
    const versionId = last.versionId ?? first.versionId;
    if (phase === 'unknown' || versionId === undefined) return { kind: 'unknown', sync: last };
    const delay = nextSyncDelay(attempt, retryAfter);
    if (io.now() - started + delay > limits.maxWaitMs) return { kind: 'stillRunning', sync: last };
    if (!await io.sleep(delay)) return { kind: 'stopped', sync: last };
    attempt++;
    try {
      const read = await io.read(versionId);
      // A status read without the version it is about is still about the one asked for.
      last = read.versionId === undefined ? { ...read, versionId } : read;
      retryAfter = read.retryAfterMs;
      failedReads = 0;
      io.progress?.(last);
    } catch (error) {
      failedReads++;
      retryAfter = io.retryAfterOf?.(error);
      if (failedReads >= limits.maxFailedReads) return { kind: 'readFailed', sync: last, error };
    }
  }
}

/** Why a sync failed, in the service's words when it gave any. */
export function syncFailureText(branch: string, s: VersionSync, l10n: L10n): string {
  // The service's words, as data: one line, bounded.
  const why = [s.error, s.message].map((t) => (typeof t === 'string' ? oneLine(t, 300) : '')).find((t) => t !== '');
  return why !== undefined
    ? l10n.t('The sync of branch {0} failed: {1}', branch, why)
    : l10n.t('The sync of branch {0} failed; the service gave no reason.', branch);
}
