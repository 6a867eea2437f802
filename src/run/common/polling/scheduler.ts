/**
 * The poller's timing, apart from its policy: at most one timer and one request per run, due runs in one
 * FIFO queue before a global concurrency limit, start slots `RATE_LIMIT_STAGGER_MS` apart during a hold.
 */
import type { Clock } from '../../../base/common/clock';
import type { PollState } from './policy';
import { RATE_LIMIT_STAGGER_MS } from './settings';

export interface InFlightRequest {
  readonly controller: AbortController;
}

export interface RunTimer {
  handle: unknown;
  readonly dueAt: number;
  /** A start slot handed out during a 429 hold. */
  readonly slot: boolean;
}

export interface PollEntry extends PollState {
  timer: RunTimer | undefined;
  queued: boolean;
  request: InFlightRequest | undefined;
  /** pollNow() callers waiting for the next read to end. */
  waiters: (() => void)[];
}

/** What the scheduler asks of the poller around it. */
export interface SchedulerHost {
  /** Not disposed, not paused. */
  active(): boolean;
  /** When the run would next be read by the policy, ignoring a service-wide hold. */
  due(run: PollEntry, now: number): number;
  /** The end of the service-wide hold (0: none). */
  holdUntil(): number;
  maxConcurrent(): number;
  /** Starts the read of a run taken off the queue. */
  start(run: PollEntry): void;
}

export class Scheduler {
  readonly runs = new Map<string, PollEntry>();
  readonly queue: PollEntry[] = [];
  inFlight = 0;
  /** The latest start slot handed out after a hold. */
  lastSlot = 0;

  constructor(
    private readonly clock: Clock,
    private readonly host: SchedulerHost,
  ) {}

  ensure(agentId: string): PollEntry {
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
        behind: false,
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

  allocateSlot(): number {
    this.lastSlot = Math.max(this.host.holdUntil(), this.lastSlot + RATE_LIMIT_STAGGER_MS);
    return this.lastSlot;
  }

  /**
   * (Re)sets the run's single timer for its next read. Called whenever anything that affects
   * the delay changes, so an opened panel is read soon rather than after the old long delay,
   * but never sooner than the new cadence allows since the last request ended.
   */
  schedule(run: PollEntry): void {
    if (!this.host.active() || run.request || run.queued) {
      return;
    }
    if (!run.tracked && run.waiters.length === 0) {
      this.clearTimer(run);
      return;
    }
    const now = this.clock.now();
    let due = this.host.due(run, now);
    let slot = false;
    if (due < this.host.holdUntil()) {
      // Keep a slot already handed out, so rescheduling during a hold does not push runs back.
      slot = true;
      due = run.timer?.slot && run.timer.dueAt >= this.host.holdUntil() ? run.timer.dueAt : this.allocateSlot();
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
  rescheduleAll(): void {
    const idle = [...this.runs.values()].filter((r) => !r.request && !r.queued);
    idle.sort((a, b) => (a.timer?.dueAt ?? Infinity) - (b.timer?.dueAt ?? Infinity));
    for (const run of idle) {
      this.schedule(run);
    }
  }

  clearTimer(run: PollEntry): void {
    if (run.timer) {
      this.clock.clearTimeout(run.timer.handle);
      run.timer = undefined;
    }
  }

  enqueue(run: PollEntry, front: boolean): void {
    if (!this.host.active() || run.queued || run.request) {
      return;
    }
    if (this.clock.now() < this.host.holdUntil()) {
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
  pump(): void {
    while (this.host.active() && this.inFlight < this.host.maxConcurrent() && this.queue.length > 0) {
      if (this.clock.now() < this.host.holdUntil()) {
        this.requeueIntoSlots();
        return;
      }
      const run = this.queue.shift();
      if (run) {
        run.queued = false;
        this.host.start(run);
      }
    }
  }

  requeueIntoSlots(): void {
    for (const run of this.queue.splice(0)) {
      run.queued = false;
      this.schedule(run);
    }
  }

  abort(run: PollEntry): void {
    if (run.request) {
      run.request.controller.abort();
      run.request = undefined;
      this.inFlight--;
    }
  }

  forget(run: PollEntry): void {
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
  haltAll(): void {
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
}
