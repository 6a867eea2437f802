/**
 * The run poller: the service has no push and no list, so live runs are read on a schedule that costs as
 * little as the person's attention allows (fast with a panel open or after their POST, slow in the
 * background, not at all once finished). Timing: scheduler.ts; what an answer means: policy.ts.
 */
import { isApiError } from '../../../api/errors';
import type { Agent } from '../../../api/types';
import { systemClock, type Clock } from '../../../base/common/clock';
import type { Disposable } from '../../../base/common/events';
import { errorText, guarded, logSafely, type LogLevel, type PollerDeps } from './callbacks';
import { ReadPolicy, type Attention } from './policy';
import { Scheduler, type InFlightRequest, type PollEntry } from './scheduler';
import { clampPollerSettings, RATE_LIMIT_STAGGER_MS, NOT_FOUND_RETRY_DELAYS_MS, type PollerSettings } from './settings';

export { systemClock, type Clock } from '../../../base/common/clock';
export * from './settings';
export type { PollerDeps } from './callbacks';

type Outcome = { ok: true; agent: Agent } | { ok: false; error: unknown };

export class Poller implements Disposable {
  private readonly clock: Clock;
  private readonly random: () => number;
  private settings: PollerSettings;
  private readonly openPanels = new Set<string>();
  private focused = true;
  private isPaused = false;
  private unauthorizedReported = false;
  private disposed = false;
  private readonly policy: ReadPolicy;
  private readonly s: Scheduler;
  private readonly attention: Attention = {
    isFocused: () => this.focused,
    panelOpen: (agentId) => this.openPanels.has(agentId),
  };

  constructor(private readonly deps: PollerDeps) {
    this.clock = deps.clock ?? systemClock;
    this.random = () => (this.deps.random ? this.deps.random() : Math.random());
    this.settings = clampPollerSettings(deps.settings ?? {});
    this.policy = new ReadPolicy(() => this.settings, this.random);
    this.s = new Scheduler(this.clock, {
      active: () => !this.disposed && !this.isPaused,
      due: (run, now) => this.policy.naturalDue(run, now, this.attention),
      holdUntil: () => this.policy.holdUntil,
      maxConcurrent: () => this.settings.maxConcurrent,
      start: (run) => this.start(run),
    });
  }

  get paused(): boolean {
    return this.isPaused;
  }

  get trackedCount(): number {
    let n = 0;
    for (const run of this.s.runs.values()) {
      if (run.tracked) {
        n++;
      }
    }
    return n;
  }

  get inFlight(): number {
    return this.s.inFlight;
  }

  isTracked(agentId: string): boolean {
    return this.s.runs.get(agentId)?.tracked === true;
  }

  /** Begins polling an active run (idempotent). The first read comes on the next timer turn, never synchronously. */
  track(agentId: string): void {
    if (this.disposed) {
      return;
    }
    const run = this.s.ensure(agentId);
    if (run.tracked) {
      return;
    }
    run.tracked = true;
    this.s.schedule(run);
  }

  /** Stops and forgets the run; aborts its request in flight. */
  untrack(agentId: string): void {
    const run = this.s.runs.get(agentId);
    if (run) {
      this.s.forget(run);
      this.s.pump();
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
    const run = this.s.runs.get(agentId);
    if (run?.tracked) {
      this.s.schedule(run);
    }
  }

  /**
   * After the person's own POST: fast reads for `burstDurationMs`, even unfocused; re-tracks a finished run.
   * With `reopening`, or for an untracked run, a terminal read in the burst is the state from before the
   * POST (the follow-up may not show yet): it stops nothing until the run was seen active again.
   */
  burst(agentId: string, options: { reopening?: boolean } = {}): void {
    if (this.disposed) {
      return;
    }
    const run = this.s.ensure(agentId);
    // Callers track first, so "not tracked" alone cannot tell a follow-up: they say so.
    run.reopening ||= options.reopening === true || !run.tracked;
    run.tracked = true;
    run.burstUntil = this.clock.now() + this.settings.burstDurationMs;
    // The POST just went through: the service is reachable and the run exists.
    run.failures = 0;
    run.notFound = 0;
    this.s.schedule(run);
  }

  setFocused(focused: boolean): void {
    if (this.disposed || focused === this.focused) {
      return;
    }
    this.focused = focused;
    if (focused) {
      const now = this.clock.now();
      for (const run of this.s.runs.values()) {
        // Catch up every run not read moments ago; error backoff and any 429 hold still apply.
        if (run.tracked && !run.request && !run.queued && (run.lastDoneAt === undefined || now - run.lastDoneAt >= this.settings.panelMs)) {
          run.skipCadence = true;
        }
      }
    }
    this.s.rescheduleAll();
  }

  /**
   * Manual refresh: reads the run now, even finished (joining a read under way), held only by a 429; never
   * rejects (errors go to onError). An untracked run found active is tracked; while paused, resolves at once.
   */
  pollNow(agentId: string): Promise<void> {
    if (this.disposed) {
      return Promise.resolve();
    }
    if (this.isPaused) {
      this.log(`Refresh of ${agentId} skipped: polling is paused.`);
      return Promise.resolve();
    }
    const run = this.s.ensure(agentId);
    const done = new Promise<void>((resolve) => run.waiters.push(resolve));
    if (run.request) {
      return done;
    }
    run.skipCadence = true;
    run.skipBackoff = true;
    if (run.queued) {
      this.s.queue.splice(this.s.queue.indexOf(run), 1);
      this.s.queue.unshift(run);
    } else if (this.clock.now() >= Math.max(this.policy.holdUntil, run.holdUntil)) {
      this.s.clearTimer(run);
      this.s.enqueue(run, true);
    } else {
      this.s.schedule(run);
    }
    return done;
  }

  /** Stops every request and timer; tracking and panel state are kept for resume(). */
  pause(): void {
    if (this.disposed) {
      return;
    }
    this.isPaused = true;
    this.s.haltAll();
  }

  /** False after consecutive network-class failures, until a read succeeds or {@link resetConnectivity}. */
  get reachable(): boolean {
    return this.policy.online;
  }

  /**
   * Another service: reads under way are dropped, reachability, backoff and holds forgotten; tracked runs
   * keep their cadence. No `onConnectivityChange`: nothing has been heard from the new service yet.
   */
  resetConnectivity(): void {
    if (this.disposed) {
      return;
    }
    this.s.haltAll();
    this.policy.reset(this.s.runs.values());
    this.s.lastSlot = 0;
    this.s.rescheduleAll();
  }

  /** After a new token: reads every tracked run once promptly (within maxConcurrent and any 429 hold). */
  resume(): void {
    if (this.disposed) {
      return;
    }
    this.isPaused = false;
    this.unauthorizedReported = false;
    for (const run of this.s.runs.values()) {
      if (run.tracked && !run.request && !run.queued) {
        run.skipCadence = true;
        run.skipBackoff = true;
      }
    }
    this.s.rescheduleAll();
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
    this.s.rescheduleAll();
    this.s.pump();
  }

  /** Clears every timer and aborts requests in flight; no callback fires afterwards. */
  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    this.s.haltAll();
    this.s.runs.clear();
    this.openPanels.clear();
  }

  // ------------------------------------------------------------------ requests

  private start(run: PollEntry): void {
    run.skipCadence = false;
    run.skipBackoff = false;
    const request: InFlightRequest = { controller: new AbortController() };
    run.request = request;
    this.s.inFlight++;
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

  private settle(run: PollEntry, request: InFlightRequest, outcome: Outcome): void {
    // Aborted (untrack, pause, 401, dispose) or superseded: its answer no longer matters.
    if (this.disposed || run.request !== request) {
      return;
    }
    run.request = undefined;
    this.s.inFlight--;
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
    this.s.pump();
  }

  private succeeded(run: PollEntry, agent: Agent): void {
    const wasOffline = this.policy.readOk(run, this.s.runs.values());
    const verdict = this.guard<boolean | 'dormant'>('onResult', () => this.deps.onResult(run.id, agent), false);
    if (this.disposed) {
      return;
    }
    const finished = this.policy.finished(run, verdict, this.clock.now());
    run.behind = !finished && this.guard('behind', () => this.deps.behind?.(run.id) === true, false);
    if (this.disposed) {
      return;
    }
    if (this.s.runs.get(run.id) === run) {
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
      this.guard('onConnectivityChange', () => this.deps.onConnectivityChange?.(true), undefined);
      if (this.disposed) {
        return;
      }
    }
    this.afterRead(run);
    if (wasOffline) {
      this.s.rescheduleAll();
    }
  }

  private failed(run: PollEntry, error: unknown): void {
    const now = this.clock.now();
    const verdict = this.policy.failed(run, error, now);
    if (verdict.unauthorized) {
      this.unauthorized(error);
      return;
    }
    if (verdict.serviceHold) {
      this.holdService(verdict.serviceHold.until, verdict.serviceHold.wait);
    }
    this.afterRead(run);
    const retryIn = run.tracked && run.timer ? run.timer.dueAt - now : undefined;
    const kind = isApiError(error) ? error.kind : undefined;
    this.log(`Reading ${run.id} failed (${kind ?? errorText(error)}); ${retryIn === undefined ? 'not retrying' : `retrying in ${Math.round(retryIn / 1000)} s`}.`);
    if (verdict.giveUp) {
      this.log(`Run ${run.id} was not found after ${NOT_FOUND_RETRY_DELAYS_MS.length} retries; no longer following it.`);
    }
    this.guard('onError', () => this.deps.onError(run.id, error, retryIn), undefined);
    if (verdict.goneOffline && !this.disposed && !this.policy.online) {
      this.log('The service looks unreachable; backing off.');
      this.guard('onConnectivityChange', () => this.deps.onConnectivityChange?.(false, error), undefined);
    }
  }

  /** A service-wide hold: nothing starts before it ends, then the waiting runs trickle out one slot at a time. */
  private holdService(until: number, wait: number): void {
    this.s.lastSlot = until - RATE_LIMIT_STAGGER_MS;
    this.log(`Held by the service: no requests for ${Math.round(wait / 1000)} s.`);
    this.s.requeueIntoSlots();
    this.s.rescheduleAll();
  }

  private unauthorized(error: unknown): void {
    if (this.unauthorizedReported) {
      return;
    }
    this.unauthorizedReported = true;
    this.isPaused = true;
    this.s.haltAll();
    this.log('The service refused the token (401); polling paused until a new token is set.');
    this.guard('onUnauthorized', () => this.deps.onUnauthorized(error), undefined);
  }

  /** After a read: schedule the next one, or drop a run nobody needs any more. */
  private afterRead(run: PollEntry): void {
    if (this.disposed || this.s.runs.get(run.id) !== run) {
      return;
    }
    if (!run.tracked && run.waiters.length === 0 && !run.request && !run.queued) {
      this.s.clearTimer(run);
      this.s.runs.delete(run.id);
      return;
    }
    this.s.schedule(run);
  }

  private guard<T>(what: string, fn: () => T, fallback: T): T {
    return guarded((message, level) => this.log(message, level), what, fn, fallback);
  }

  private log(message: string, level: LogLevel = 'info'): void {
    logSafely(this.deps, message, level);
  }
}
