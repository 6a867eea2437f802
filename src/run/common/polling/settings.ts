/**
 * The poller's settings (cadences, backoff cap, concurrency) and the fixed figures of its
 * policy. Pure data; the scheduler (poller.ts) and the policy (policy.ts) read them.
 */

export interface PollerSettings {
  /** A run whose panel is open. */
  panelMs: number;
  /** Other active runs. */
  backgroundMs: number;
  /** Window not focused (panel-open runs too; a burst still wins). */
  unfocusedMs: number;
  /** Right after the user's own POST ... */
  burstMs: number;
  /** ... for this long. */
  burstDurationMs: number;
  /** Cap for error backoff. */
  maxBackoffMs: number;
  /** Requests in flight at once across all runs. */
  maxConcurrent: number;
}

export const DEFAULT_POLLER_SETTINGS: PollerSettings = Object.freeze({
  panelMs: 2_000,
  backgroundMs: 15_000,
  unfocusedMs: 300_000,
  burstMs: 1_000,
  burstDurationMs: 15_000,
  maxBackoffMs: 300_000,
  maxConcurrent: 4,
});

/** Inclusive [min, max] of each setting; values outside are pulled in, non-numbers fall back to the default. */
export const POLLER_SETTING_BOUNDS: Readonly<Record<keyof PollerSettings, readonly [number, number]>> = Object.freeze({
  panelMs: [1_000, 60_000],
  backgroundMs: [5_000, 600_000],
  unfocusedMs: [30_000, 3_600_000],
  burstMs: [500, 10_000],
  burstDurationMs: [0, 120_000],
  maxBackoffMs: [10_000, 3_600_000],
  maxConcurrent: [1, 16],
});

/** Retries of a 404 before giving up on a run, and the wait before each (the start race settles in seconds). */
export const NOT_FOUND_RETRY_DELAYS_MS: readonly number[] = Object.freeze([1_000, 2_000, 4_000]);
/** Hold after a 429 without Retry-After; doubles while 429s keep coming (capped at max(maxBackoffMs, this)). */
export const RATE_LIMIT_DEFAULT_MS = 30_000;
/** A Retry-After is honoured within these bounds (a zero would hammer, a day would look dead). */
export const RATE_LIMIT_MIN_MS = 1_000;
export const RATE_LIMIT_MAX_MS = 3_600_000;
/** After a hold, the waiting runs are let through one at a time, this far apart. */
export const RATE_LIMIT_STAGGER_MS = 1_000;
/** The slowest a dormant run (unknown status, no completedAt) is read: it may still move. */
export const DORMANT_MAX_MS = 600_000;
/**
 * The wait before the next read of a run read `dormant` times in a row with an unlisted status and no
 * `completedAt`: the background cadence doubled per such read, up to DORMANT_MAX_MS; 0 when not dormant.
 */
export function dormantDelay(dormant: number, backgroundMs: number): number {
  if (dormant <= 0) {
    return 0;
  }
  return Math.max(backgroundMs, Math.min(DORMANT_MAX_MS, backgroundMs * 2 ** Math.min(dormant - 1, 30)));
}

/** Consecutive network/timeout/5xx failures (across runs) before reporting offline. */
export const OFFLINE_AFTER_FAILURES = 3;
/** Error backoff is shortened by up to this fraction, at random, so runs that failed together drift apart. */
export const BACKOFF_JITTER = 0.2;

/**
 * Sane settings from user input: every field present, whole numbers, within
 * `POLLER_SETTING_BOUNDS`, and ordered so that burst <= panel <= background <= unfocused.
 */
export function clampPollerSettings(partial: Partial<PollerSettings>): PollerSettings {
  const pick = (key: keyof PollerSettings): number => {
    const raw = partial[key];
    const [min, max] = POLLER_SETTING_BOUNDS[key];
    if (typeof raw !== 'number' || !Number.isFinite(raw)) {
      return DEFAULT_POLLER_SETTINGS[key];
    }
    return Math.min(max, Math.max(min, Math.round(raw)));
  };
  const panelMs = pick('panelMs');
  const backgroundMs = Math.max(pick('backgroundMs'), panelMs);
  const unfocusedMs = Math.max(pick('unfocusedMs'), backgroundMs);
  return {
    panelMs,
    backgroundMs,
    unfocusedMs,
    burstMs: Math.min(pick('burstMs'), panelMs),
    burstDurationMs: pick('burstDurationMs'),
    maxBackoffMs: pick('maxBackoffMs'),
    maxConcurrent: pick('maxConcurrent'),
  };
}
