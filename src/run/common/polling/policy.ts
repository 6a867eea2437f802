/**
 * What the poller does about each answer (the timing is scheduler.ts's): a 401 pauses all; a 429, or a 503
 * with Retry-After, holds all; a 404 is retried quickly (a new run can answer 404 at first), then dropped;
 * other failures back off per run; a `behind` run is read fast, as its next messages may be lost.
 */
import { isApiError } from '../../../api/errors';
import {
  BACKOFF_JITTER, dormantDelay, NOT_FOUND_RETRY_DELAYS_MS, OFFLINE_AFTER_FAILURES, RATE_LIMIT_DEFAULT_MS, RATE_LIMIT_MAX_MS,
  RATE_LIMIT_MIN_MS, type PollerSettings,
} from './settings';

/** What the policy keeps per run (the scheduler adds its timer, queue and request state). */
export interface PollState {
  readonly id: string;
  /** Polled on its own schedule. False for a one-off `pollNow` of a finished or unknown run. */
  tracked: boolean;
  /** When the last request ended (any outcome): cadences and backoff count from here. */
  lastDoneAt: number | undefined;
  burstUntil: number;
  /** Re-tracked by burst(): a terminal read inside the burst is the state from before the POST. */
  reopening: boolean;
  /** Consecutive failures other than 401/404/429. */
  failures: number;
  /** Consecutive dormant reads (see DORMANT_MAX_MS). */
  dormant: number;
  /** The latest read came back with a full window of new messages: read again at the fast cadence. */
  behind: boolean;
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
}

/** Where the run is looked at from: focus and panel state (the scheduler's). */
export interface Attention {
  isFocused(): boolean;
  panelOpen(agentId: string): boolean;
}

/** What a failed read means, for the scheduler to carry out. */
export interface FailureVerdict {
  /** 401: pause everything. */
  readonly unauthorized: boolean;
  /** A service-wide hold (429, 503 with Retry-After) until then, and how long it is. */
  readonly serviceHold?: { readonly until: number; readonly wait: number };
  /** Consecutive network-class failures just made the service unreachable. */
  readonly goneOffline: boolean;
  /** A tracked run's 404 outlived its retries: no longer followed. */
  readonly giveUp: boolean;
}

const NETWORK_CLASS = new Set<string>(['network', 'timeout', 'server']);

export class ReadPolicy {
  online = true;
  /** No request starts before this (a service-wide hold). */
  holdUntil = 0;
  private networkFailures = 0;
  private rateLimitStreak = 0;

  constructor(
    private readonly settings: () => PollerSettings,
    private readonly random: () => number,
  ) {}

  /** Forgets what was learnt about the service (another base URL). */
  reset(runs: Iterable<PollState>): void {
    this.online = true;
    this.networkFailures = 0;
    this.rateLimitStreak = 0;
    this.holdUntil = 0;
    for (const run of runs) {
      run.failures = 0;
      run.notFound = 0;
      run.holdUntil = 0;
    }
  }

  cadence(run: PollState, now: number, a: Attention): number {
    const s = this.settings();
    // A full window: what the run writes meanwhile may fall out of reach, focused or not.
    if (now < run.burstUntil || run.behind) {
      return s.burstMs;
    }
    if (!a.isFocused()) {
      return Math.max(s.unfocusedMs, this.dormantDelay(run));
    }
    if (run.dormant > 0) {
      return Math.max(s.backgroundMs, this.dormantDelay(run));
    }
    return a.panelOpen(run.id) ? s.panelMs : s.backgroundMs;
  }

  /** When the run would next be read, ignoring a service-wide hold. */
  naturalDue(run: PollState, now: number, a: Attention): number {
    const last = run.lastDoneAt;
    if (last === undefined) {
      return Math.max(now, run.holdUntil);
    }
    let due = now;
    if (!run.skipCadence) {
      const wait = run.notFound > 0 ? NOT_FOUND_RETRY_DELAYS_MS[run.notFound - 1] : this.cadence(run, now, a);
      due = Math.max(due, last + wait);
    }
    if (!run.skipBackoff && run.failures > 0) {
      due = Math.max(due, last + this.backoffDelay(run, now, a));
    }
    // The service said when; not even a refresh reads sooner.
    return Math.max(due, run.holdUntil);
  }

  /** A read succeeded (before the listener hears of it): the service is reachable, the run's failures are over. Returns whether it was unreachable. */
  readOk(run: PollState, runs: Iterable<PollState>): boolean {
    const backOnline = !this.online;
    this.online = true;
    this.networkFailures = 0;
    this.rateLimitStreak = 0;
    run.failures = 0;
    run.notFound = 0;
    if (backOnline) {
      // Everyone backed off while it was down; back to normal cadences now.
      for (const r of runs) {
        r.failures = 0;
      }
    }
    return backOnline;
  }

  /** What the listener made of a read (finished, dormant, or neither): whether to stop following the run. */
  finished(run: PollState, verdict: boolean | 'dormant', now: number): boolean {
    run.dormant = verdict === 'dormant' ? run.dormant + 1 : 0;
    if (verdict !== true) {
      run.reopening = false;
      return false;
    }
    // Inside the burst after the person's own POST, a terminal read is the state from before it.
    return !(run.reopening && now < run.burstUntil);
  }

  failed(run: PollState, error: unknown, now: number): FailureVerdict {
    const kind = isApiError(error) ? error.kind : undefined;
    if (kind === 'unauthorized') {
      return { unauthorized: true, goneOffline: false, giveUp: false };
    }
    let goneOffline = false;
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
    let serviceHold: FailureVerdict['serviceHold'];
    let giveUp = false;
    if (kind === 'rate_limited' || (retryAfter !== undefined && isApiError(error) && error.status === 503)) {
      // Said by the service as a whole (too many requests, unavailable): every run waits.
      serviceHold = this.serviceHold(retryAfter, now);
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
      run.holdUntil = now + boundedRetryAfter(retryAfter);
    }
    return { unauthorized: false, serviceHold, goneOffline, giveUp };
  }

  private dormantDelay(run: PollState): number {
    return dormantDelay(run.dormant, this.settings().backgroundMs);
  }

  /** Exponential from the run's own cadence (errors never make polling faster), jittered, capped. */
  private backoffDelay(run: PollState, now: number, a: Attention): number {
    const cadence = this.cadence(run, now, a);
    const grown = Math.min(this.settings().maxBackoffMs, cadence * 2 ** Math.min(run.failures, 30));
    return Math.max(cadence, Math.round(grown * run.jitter));
  }

  /** Retry-After within bounds, or 30 s doubling while holds repeat; undefined when an existing hold already covers it. */
  private serviceHold(retryAfter: number | undefined, now: number): FailureVerdict['serviceHold'] {
    if (now >= this.holdUntil) {
      this.rateLimitStreak++;
    }
    const maxBackoff = this.settings().maxBackoffMs;
    const wait = retryAfter !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0
      ? boundedRetryAfter(retryAfter)
      : Math.min(Math.max(maxBackoff, RATE_LIMIT_DEFAULT_MS), RATE_LIMIT_DEFAULT_MS * 2 ** Math.min(this.rateLimitStreak - 1, 30));
    const until = now + wait;
    if (until <= this.holdUntil) {
      return undefined;
    }
    this.holdUntil = until;
    return { until, wait };
  }
}

/** A Retry-After is honoured within these bounds (a zero would hammer, a day would look dead). */
function boundedRetryAfter(ms: number): number {
  return Math.min(RATE_LIMIT_MAX_MS, Math.max(RATE_LIMIT_MIN_MS, ms));
}

function clampUnit(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}
