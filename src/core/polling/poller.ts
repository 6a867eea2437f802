/**
 * The run poller. The service has no push and no list endpoint, so live runs are followed by
 * reading `GET /agents/{agentId}` on a schedule that costs as little as the user's attention
 * allows: fast while a panel is open or right after the user's own POST, slow in the
 * background, slower still when the window is unfocused, and not at all once a run is finished.
 *
 * Every run has at most one timer (a recursive `setTimeout` through the injected clock, never
 * `setInterval`) and at most one request in flight. Due runs wait in one FIFO queue in front of
 * a global concurrency limit. Nothing is scheduled when nothing is tracked.
 *
 * Failures:
 * - 401 pauses everything (one `onUnauthorized`) until `resume()`;
 * - 429, and 503 with Retry-After, are a hold on ALL requests until Retry-After (or 30 s,
 *   doubling while 429s repeat), after which the waiting runs are let through one slot at a
 *   time, `RATE_LIMIT_STAGGER_MS` apart; any other answer with Retry-After holds that run;
 * - 404 is retried a few times quickly (the service can answer 404 right after a start), then
 *   reported once and the run is dropped;
 * - everything else backs off per run, exponentially from the run's own cadence, with jitter,
 *   capped at `maxBackoffMs`; consecutive network-class failures flip reachability once.
 * A run whose status the reference does not list and that has no `completedAt` ("dormant") is
 * read at the background cadence, doubling per such read up to `DORMANT_MAX_MS`.
 */
import { isApiError } from '../../api/errors';
import type { Agent } from '../../api/types';
import { systemClock, type Clock } from '../clock';
import type { Disposable } from '../events';

export { systemClock, type Clock } from '../clock';

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

export interface PollerDeps {
  /** Reads one run; rejects with ApiError (or anything). Must honour `signal`. */
  fetchRun(agentId: string, signal: AbortSignal): Promise<Agent>;
  /**
   * Called with each successful read. Return true if the run is now finished (stop polling it),
   * `'dormant'` for a run that is not finished but not known to be moving either (read slowly).
   */
  onResult(agentId: string, agent: Agent): boolean | 'dormant';
  /**
   * Called for each failed read, after the poller decided what to do (e.g. to mark the run stale).
   * `willRetryInMs` is undefined when the poller will not read the run again on its own
   * (a 404 that outlived its retries: the run is no longer tracked; or a one-off `pollNow`).
   * Not called for 401 (that is `onUnauthorized`).
   */
  onError(agentId: string, error: unknown, willRetryInMs: number | undefined): void;
  /** Called ONCE when a 401 stops all polling; polling stays paused until resume(). */
  onUnauthorized(error: unknown): void;
  /** Called when reachability changes: offline after consecutive network/5xx failures across runs, online on the next success. Once per transition, never per poll. */
  onConnectivityChange?(online: boolean, error?: unknown): void;
  clock?: Clock;
  settings?: Partial<PollerSettings>;
  /** `error` for a callback that threw or a bug in the poller itself; `info` for the rest. */
  log?(message: string, level?: 'info' | 'error'): void;
  /** Source of jitter in [0, 1); defaults to Math.random. Tests pass a constant. */
  random?(): number;
}

interface InFlightRequest {
  readonly controller: AbortController;
}

interface RunTimer {
  handle: unknown;
  readonly dueAt: number;
  /** A start slot handed out during a 429 hold. */
  readonly slot: boolean;
}

interface Run {
  readonly id: string;
  /** Polled on its own schedule. False for a one-off `pollNow` of a finished or unknown run. */
  tracked: boolean;
  timer: RunTimer | undefined;
  queued: boolean;
  request: InFlightRequest | undefined;
  /** When the last request ended (any outcome): cadences and backoff count from here. */
  lastDoneAt: number | undefined;
  burstUntil: number;
  /** Re-tracked by burst(): a terminal read inside the burst is the state from before the follow-up. */
  reopening: boolean;
  /** Consecutive failures other than 401/404/429. */
  failures: number;
  /** Consecutive dormant reads (see DORMANT_MAX_MS). */
  dormant: number;
  /** The service asked (Retry-After) not to read this run before then. */
  holdUntil: number;
  /** Jitter factor drawn at the latest failure, in (1 - BACKOFF_JITTER, 1]. */
  jitter: number;
  /** 404 retries used. */
  notFound: number;
  /** The next read ignores the cadence (refocus catch-up, resume, pollNow). */
  skipCadence: boolean;
  /** The next read ignores error backoff (resume, pollNow). */
  skipBackoff: boolean;
  /** pollNow() callers waiting for the next read to end. */
  waiters: (() => void)[];
}

type Outcome = { ok: true; agent: Agent } | { ok: false; error: unknown };

const NETWORK_CLASS = new Set<string>(['network', 'timeout', 'server']);

export class Poller implements Disposable {
  private readonly clock: Clock;
  private readonly random: () => number;
  private settings: PollerSettings;
  private readonly runs = new Map<string, Run>();
  private readonly openPanels = new Set<string>();
  private readonly queue: Run[] = [];
  private inFlightCount = 0;
  private focused = true;
  private isPaused = false;
  private unauthorizedReported = false;
  private disposed = false;
  private online = true;
  private networkFailures = 0;
  private rateLimitStreak = 0;
  /** No request starts before this (a 429 hold). */
  private holdUntil = 0;
  /** The latest start slot handed out after a hold. */
  private lastSlot = 0;

  constructor(private readonly deps: PollerDeps) {
    this.clock = deps.clock ?? systemClock;
    this.random = () => (this.deps.random ? this.deps.random() : Math.random());
    this.settings = clampPollerSettings(deps.settings ?? {});
  }

  get paused(): boolean {
    return this.isPaused;
  }

  get trackedCount(): number {
    let n = 0;
    for (const run of this.runs.values()) {
      if (run.tracked) {
        n++;
      }
    }
    return n;
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  isTracked(agentId: string): boolean {
    return this.runs.get(agentId)?.tracked === true;
  }

  /** Begins polling an active run (idempotent). The first read comes on the next timer turn, never synchronously. */
  track(agentId: string): void {
    if (this.disposed) {
      return;
    }
    const run = this.ensure(agentId);
    if (run.tracked) {
      return;
    }
    run.tracked = true;
    this.schedule(run);
  }

  /** Stops and forgets the run; aborts its request in flight. */
  untrack(agentId: string): void {
    const run = this.runs.get(agentId);
    if (run) {
      this.forget(run);
      this.pump();
    }
  }

  setPanelOpen(agentId: string, open: boolean): void {
    if (this.disposed) {
      return;
    }
    if (open) {
      this.openPanels.add(agentId);
    } else {
      this.openPanels.delete(agentId);
    }
    const run = this.runs.get(agentId);
    if (run?.tracked) {
      this.schedule(run);
    }
  }

  /**
   * After the user's own POST (start, follow-up): fast reads for `burstDurationMs`, even when
   * unfocused. Re-tracks a finished run. With `reopening` (a follow-up), or for a run that was
   * not tracked, a terminal read inside the burst does not stop it until the run has been seen
   * active again: it is the state from before the POST (the follow-up may not show yet).
   */
  burst(agentId: string, options: { reopening?: boolean } = {}): void {
    if (this.disposed) {
      return;
    }
    const run = this.ensure(agentId);
    // Callers track first, so "not tracked" alone cannot tell a follow-up: they say so.
    run.reopening ||= options.reopening === true || !run.tracked;
    run.tracked = true;
    run.burstUntil = this.clock.now() + this.settings.burstDurationMs;
    // The POST just went through: the service is reachable and the run exists.
    run.failures = 0;
    run.notFound = 0;
    this.schedule(run);
  }

  setFocused(focused: boolean): void {
    if (this.disposed || focused === this.focused) {
      return;
    }
    this.focused = focused;
    if (focused) {
      const now = this.clock.now();
      for (const run of this.runs.values()) {
        // Catch up every run not read moments ago; error backoff and any 429 hold still apply.
        if (run.tracked && !run.request && !run.queued && (run.lastDoneAt === undefined || now - run.lastDoneAt >= this.settings.panelMs)) {
          run.skipCadence = true;
        }
      }
    }
    this.rescheduleAll();
  }

  /**
   * Manual refresh: reads the run now, even a finished one (joining a read already under way),
   * respecting only a 429 hold. Resolves when that read is done; never rejects (errors go to
   * onError). A one-off read of an untracked run that finds it active starts tracking it.
   * While paused it resolves at once without a request.
   */
  pollNow(agentId: string): Promise<void> {
    if (this.disposed) {
      return Promise.resolve();
    }
    if (this.isPaused) {
      this.log(`Refresh of ${agentId} skipped: polling is paused.`);
      return Promise.resolve();
    }
    const run = this.ensure(agentId);
    const done = new Promise<void>((resolve) => run.waiters.push(resolve));
    if (run.request) {
      return done;
    }
    run.skipCadence = true;
    run.skipBackoff = true;
    if (run.queued) {
      this.queue.splice(this.queue.indexOf(run), 1);
      this.queue.unshift(run);
    } else if (this.clock.now() >= Math.max(this.holdUntil, run.holdUntil)) {
      this.clearTimer(run);
      this.enqueue(run, true);
    } else {
      this.schedule(run);
    }
    return done;
  }

  /** Stops every request and timer; tracking and panel state are kept for resume(). */
  pause(): void {
    if (this.disposed) {
      return;
    }
    this.isPaused = true;
    this.haltAll();
  }

  /** False after consecutive network-class failures, until a read succeeds or {@link resetConnectivity}. */
  get reachable(): boolean {
    return this.online;
  }

  /**
   * Another service (a new base URL): what was learnt about the old one no longer applies.
   * Reads under way (answers of the old service) are dropped, reachability, backoff and any
   * 429 hold are forgotten; tracked runs keep their cadence. Does not call
   * `onConnectivityChange`: nothing has been heard from the new service yet.
   */
  resetConnectivity(): void {
    if (this.disposed) {
      return;
    }
    this.haltAll();
    this.online = true;
    this.networkFailures = 0;
    this.rateLimitStreak = 0;
    this.holdUntil = 0;
    this.lastSlot = 0;
    for (const run of this.runs.values()) {
      run.failures = 0;
      run.notFound = 0;
      run.holdUntil = 0;
    }
    this.rescheduleAll();
  }

  /** After a new token: reads every tracked run once promptly (within maxConcurrent and any 429 hold). */
  resume(): void {
    if (this.disposed) {
      return;
    }
    this.isPaused = false;
    this.unauthorizedReported = false;
    for (const run of this.runs.values()) {
      if (run.tracked && !run.request && !run.queued) {
        run.skipCadence = true;
        run.skipBackoff = true;
      }
    }
    this.rescheduleAll();
  }

  /** Merges the given (defined) fields into the current settings, clamps, and reschedules. */
  updateSettings(partial: Partial<PollerSettings>): void {
    if (this.disposed) {
      return;
    }
    const merged: Partial<PollerSettings> = { ...this.settings };
    for (const key of Object.keys(partial) as (keyof PollerSettings)[]) {
      const v = partial[key];
      if (v !== undefined) {
        merged[key] = v;
      }
    }
    this.settings = clampPollerSettings(merged);
    this.rescheduleAll();
    this.pump();
  }

  /** Clears every timer and aborts requests in flight; no callback fires afterwards. */
  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    this.haltAll();
    this.runs.clear();
    this.openPanels.clear();
  }

  // ------------------------------------------------------------------ scheduling

  private ensure(agentId: string): Run {
    let run = this.runs.get(agentId);
    if (!run) {
      run = {
        id: agentId,
        tracked: false,
        timer: undefined,
        queued: false,
        request: undefined,
        lastDoneAt: undefined,
        burstUntil: 0,
        reopening: false,
        failures: 0,
        dormant: 0,
        holdUntil: 0,
        jitter: 1,
        notFound: 0,
        skipCadence: false,
        skipBackoff: false,
        waiters: [],
      };
      this.runs.set(agentId, run);
    }
    return run;
  }

  private cadence(run: Run, now: number): number {
    const s = this.settings;
    if (now < run.burstUntil) {
      return s.burstMs;
    }
    if (!this.focused) {
      return Math.max(s.unfocusedMs, this.dormantDelay(run));
    }
    if (run.dormant > 0) {
      return Math.max(s.backgroundMs, this.dormantDelay(run));
    }
    return this.openPanels.has(run.id) ? s.panelMs : s.backgroundMs;
  }

  /** Background cadence doubling per dormant read, at most DORMANT_MAX_MS (never faster than the background cadence). */
  private dormantDelay(run: Run): number {
    if (run.dormant === 0) {
      return 0;
    }
    const bg = this.settings.backgroundMs;
    return Math.max(bg, Math.min(DORMANT_MAX_MS, bg * 2 ** Math.min(run.dormant - 1, 30)));
  }

  /** Exponential from the run's own cadence (errors never make polling faster), jittered, capped. */
  private backoffDelay(run: Run, now: number): number {
    const cadence = this.cadence(run, now);
    const grown = Math.min(this.settings.maxBackoffMs, cadence * 2 ** Math.min(run.failures, 30));
    return Math.max(cadence, Math.round(grown * run.jitter));
  }

  /** When the run would next be read, ignoring a 429 hold. */
  private naturalDue(run: Run, now: number): number {
    const last = run.lastDoneAt;
    if (last === undefined) {
      return now;
    }
    let due = now;
    if (!run.skipCadence) {
      const wait = run.notFound > 0 ? NOT_FOUND_RETRY_DELAYS_MS[run.notFound - 1] : this.cadence(run, now);
      due = Math.max(due, last + wait);
    }
    if (!run.skipBackoff && run.failures > 0) {
      due = Math.max(due, last + this.backoffDelay(run, now));
    }
    // The service said when; not even a refresh reads sooner.
    return Math.max(due, run.holdUntil);
  }

  private allocateSlot(): number {
    this.lastSlot = Math.max(this.holdUntil, this.lastSlot + RATE_LIMIT_STAGGER_MS);
    return this.lastSlot;
  }

  /**
   * (Re)sets the run's single timer for its next read. Called whenever anything that affects
   * the delay changes, so an opened panel is read soon rather than after the old long delay,
   * but never sooner than the new cadence allows since the last request ended.
   */
  private schedule(run: Run): void {
    if (this.disposed || this.isPaused || run.request || run.queued) {
      return;
    }
    if (!run.tracked && run.waiters.length === 0) {
      this.clearTimer(run);
      return;
    }
    const now = this.clock.now();
    let due = this.naturalDue(run, now);
    let slot = false;
    if (due < this.holdUntil) {
      // Keep a slot already handed out, so rescheduling during a hold does not push runs back.
      slot = true;
      due = run.timer?.slot && run.timer.dueAt >= this.holdUntil ? run.timer.dueAt : this.allocateSlot();
    }
    if (run.timer?.dueAt === due) {
      return;
    }
    this.clearTimer(run);
    const timer: RunTimer = { handle: undefined, dueAt: due, slot };
    timer.handle = this.clock.setTimeout(() => {
      if (run.timer === timer) {
        run.timer = undefined;
        this.enqueue(run, false);
      }
    }, Math.max(0, due - now));
    run.timer = timer;
  }

  /** Reschedules every idle run, earliest first (so post-hold slots follow the old order). */
  private rescheduleAll(): void {
    const idle = [...this.runs.values()].filter((r) => !r.request && !r.queued);
    idle.sort((a, b) => (a.timer?.dueAt ?? Infinity) - (b.timer?.dueAt ?? Infinity));
    for (const run of idle) {
      this.schedule(run);
    }
  }

  private clearTimer(run: Run): void {
    if (run.timer) {
      this.clock.clearTimeout(run.timer.handle);
      run.timer = undefined;
    }
  }

  private enqueue(run: Run, front: boolean): void {
    if (this.disposed || this.isPaused || run.queued || run.request) {
      return;
    }
    if (this.clock.now() < this.holdUntil) {
      this.schedule(run);
      return;
    }
    run.queued = true;
    if (front) {
      this.queue.unshift(run);
    } else {
      this.queue.push(run);
    }
    this.pump();
  }

  /** Starts queued reads, first come first served, up to maxConcurrent. */
  private pump(): void {
    while (!this.disposed && !this.isPaused && this.inFlightCount < this.settings.maxConcurrent && this.queue.length > 0) {
      if (this.clock.now() < this.holdUntil) {
        this.requeueIntoSlots();
        return;
      }
      const run = this.queue.shift();
      if (run) {
        run.queued = false;
        this.start(run);
      }
    }
  }

  private requeueIntoSlots(): void {
    for (const run of this.queue.splice(0)) {
      run.queued = false;
      this.schedule(run);
    }
  }

  // ------------------------------------------------------------------ requests

  private start(run: Run): void {
    run.skipCadence = false;
    run.skipBackoff = false;
    const request: InFlightRequest = { controller: new AbortController() };
    run.request = request;
    this.inFlightCount++;
    this.read(run.id, request.controller.signal)
      .then(
        (agent) => this.settle(run, request, { ok: true, agent }),
        (error: unknown) => this.settle(run, request, { ok: false, error }),
      )
      .catch((err: unknown) => this.log(`Poller bug while handling a read of ${run.id}: ${errorText(err)}`, 'error'));
  }

  /** Turns a synchronous throw of fetchRun into a rejection. */
  private async read(agentId: string, signal: AbortSignal): Promise<Agent> {
    return await this.deps.fetchRun(agentId, signal);
  }

  private abort(run: Run): void {
    if (run.request) {
      run.request.controller.abort();
      run.request = undefined;
      this.inFlightCount--;
    }
  }

  private settle(run: Run, request: InFlightRequest, outcome: Outcome): void {
    // Aborted (untrack, pause, 401, dispose) or superseded: its answer no longer matters.
    if (this.disposed || run.request !== request) {
      return;
    }
    run.request = undefined;
    this.inFlightCount--;
    run.lastDoneAt = this.clock.now();
    // Waiters of this read only: a pollNow made from inside a callback waits for its own read.
    const waiters = run.waiters.splice(0);
    if (outcome.ok) {
      this.succeeded(run, outcome.agent);
    } else {
      this.failed(run, outcome.error);
    }
    for (const resolve of waiters) {
      resolve();
    }
    this.pump();
  }

  private succeeded(run: Run, agent: Agent): void {
    const now = this.clock.now();
    const wasOffline = !this.online;
    this.online = true;
    this.networkFailures = 0;
    this.rateLimitStreak = 0;
    run.failures = 0;
    run.notFound = 0;
    const verdict = this.guard<boolean | 'dormant'>('onResult', () => this.deps.onResult(run.id, agent), false);
    let finished = verdict === true;
    run.dormant = verdict === 'dormant' ? run.dormant + 1 : 0;
    if (this.disposed) {
      return;
    }
    if (this.runs.get(run.id) === run) {
      if (!finished) {
        run.reopening = false;
      } else if (run.reopening && now < run.burstUntil) {
        finished = false;
      }
      if (finished) {
        run.tracked = false;
        run.reopening = false;
        run.burstUntil = 0;
      } else if (!run.tracked) {
        this.log(`Run ${run.id} is active again; following it.`);
        run.tracked = true;
      }
    }
    if (wasOffline) {
      this.log('The service is reachable again.');
      // Everyone backed off while it was down; back to normal cadences now.
      for (const r of this.runs.values()) {
        r.failures = 0;
      }
      this.guard('onConnectivityChange', () => this.deps.onConnectivityChange?.(true), undefined);
      if (this.disposed) {
        return;
      }
    }
    this.afterRead(run);
    if (wasOffline) {
      this.rescheduleAll();
    }
  }

  private failed(run: Run, error: unknown): void {
    const kind = isApiError(error) ? error.kind : undefined;
    if (kind === 'unauthorized') {
      this.unauthorized(error);
      return;
    }
    const now = this.clock.now();
    let goneOffline = false;
    let giveUp = false;
    if (kind !== undefined && NETWORK_CLASS.has(kind)) {
      this.networkFailures++;
      if (this.online && this.networkFailures >= OFFLINE_AFTER_FAILURES) {
        this.online = false;
        goneOffline = true;
      }
    } else if (kind !== undefined && kind !== 'invalid_response' && kind !== 'aborted') {
      // The service answered: it is reachable, whatever it said.
      this.networkFailures = 0;
    }

    const retryAfter = isApiError(error) ? error.retryAfterMs : undefined;
    if (kind === 'rate_limited' || (retryAfter !== undefined && isApiError(error) && error.status === 503)) {
      // Said by the service as a whole (too many requests, unavailable): every run waits.
      this.rateLimited(error);
    } else if (kind === 'not_found') {
      if (run.tracked && run.notFound < NOT_FOUND_RETRY_DELAYS_MS.length) {
        run.notFound++;
      } else {
        giveUp = run.tracked;
        run.tracked = false;
      }
    } else {
      run.failures++;
      run.jitter = 1 - BACKOFF_JITTER * clampUnit(this.random());
    }
    if (kind !== 'rate_limited' && retryAfter !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0) {
      run.holdUntil = now + Math.min(RATE_LIMIT_MAX_MS, Math.max(RATE_LIMIT_MIN_MS, retryAfter));
    }

    this.afterRead(run);
    const retryIn = run.tracked && run.timer ? run.timer.dueAt - now : undefined;
    this.log(`Reading ${run.id} failed (${kind ?? errorText(error)}); ${retryIn === undefined ? 'not retrying' : `retrying in ${Math.round(retryIn / 1000)} s`}.`);
    if (giveUp) {
      this.log(`Run ${run.id} was not found after ${NOT_FOUND_RETRY_DELAYS_MS.length} retries; no longer following it.`);
    }
    this.guard('onError', () => this.deps.onError(run.id, error, retryIn), undefined);
    if (goneOffline && !this.disposed && !this.online) {
      this.log('The service looks unreachable; backing off.');
      this.guard('onConnectivityChange', () => this.deps.onConnectivityChange?.(false, error), undefined);
    }
  }

  /** A global hold: nothing starts before it ends, then the waiting runs trickle out one slot at a time. */
  private rateLimited(error: unknown): void {
    const now = this.clock.now();
    if (now >= this.holdUntil) {
      this.rateLimitStreak++;
    }
    const retryAfter = isApiError(error) ? error.retryAfterMs : undefined;
    const wait = retryAfter !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0
      ? Math.min(RATE_LIMIT_MAX_MS, Math.max(RATE_LIMIT_MIN_MS, retryAfter))
      : Math.min(Math.max(this.settings.maxBackoffMs, RATE_LIMIT_DEFAULT_MS), RATE_LIMIT_DEFAULT_MS * 2 ** Math.min(this.rateLimitStreak - 1, 30));
    const until = now + wait;
    if (until <= this.holdUntil) {
      return;
    }
    this.holdUntil = until;
    this.lastSlot = until - RATE_LIMIT_STAGGER_MS;
    this.log(`Rate limited by the service: no requests for ${Math.round(wait / 1000)} s.`);
    this.requeueIntoSlots();
    this.rescheduleAll();
  }

  private unauthorized(error: unknown): void {
    if (this.unauthorizedReported) {
      return;
    }
    this.unauthorizedReported = true;
    this.isPaused = true;
    this.haltAll();
    this.log('The service refused the token (401); polling paused until a new token is set.');
    this.guard('onUnauthorized', () => this.deps.onUnauthorized(error), undefined);
  }

  /** After a read: schedule the next one, or drop a run nobody needs any more. */
  private afterRead(run: Run): void {
    if (this.disposed || this.runs.get(run.id) !== run) {
      return;
    }
    if (!run.tracked && run.waiters.length === 0 && !run.request && !run.queued) {
      this.clearTimer(run);
      this.runs.delete(run.id);
      return;
    }
    this.schedule(run);
  }

  private forget(run: Run): void {
    this.clearTimer(run);
    if (run.queued) {
      this.queue.splice(this.queue.indexOf(run), 1);
      run.queued = false;
    }
    this.abort(run);
    this.runs.delete(run.id);
    for (const resolve of run.waiters.splice(0)) {
      resolve();
    }
  }

  /** Clears all timers, the queue and requests in flight; resolves every pollNow waiter. */
  private haltAll(): void {
    this.queue.length = 0;
    for (const run of [...this.runs.values()]) {
      this.clearTimer(run);
      this.abort(run);
      run.queued = false;
      run.skipCadence = false;
      run.skipBackoff = false;
      for (const resolve of run.waiters.splice(0)) {
        resolve();
      }
      if (!run.tracked) {
        this.runs.delete(run.id);
      }
    }
  }

  private guard<T>(what: string, fn: () => T, fallback: T): T {
    try {
      return fn();
    } catch (err) {
      this.log(`${what} threw: ${err instanceof Error && err.stack ? err.stack : errorText(err)}`, 'error');
      return fallback;
    }
  }

  private log(message: string, level: 'info' | 'error' = 'info'): void {
    if (this.deps.log) {
      try {
        this.deps.log(message, level);
      } catch {
        // A broken logger must not break polling.
      }
    }
  }
}

function clampUnit(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
