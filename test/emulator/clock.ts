/**
 * The emulator's time: a clock and a task scheduler in one.
 *
 * - `real`: time is the wall clock (plus whatever `advance` added); tasks fire from one
 *   timer armed for the earliest task. Async tasks are not awaited, so a slow webhook
 *   receiver never holds up run progress.
 * - `manual`: time starts at `MANUAL_EPOCH` and moves only on `advance(ms)`, which runs
 *   every task that falls due, in time order, awaiting each one (including webhook
 *   deliveries), so a test sees a settled state when `advance` resolves.
 */

export type ClockMode = 'real' | 'manual';

/** Where a manual clock starts (and restarts on reset): 2026-01-01T00:00:00Z. */
export const MANUAL_EPOCH = Date.UTC(2026, 0, 1);

type Task = () => void | Promise<void>;

interface Scheduled {
  id: number;
  at: number;
  task: Task;
}

export interface TaskHandle {
  readonly id: number;
}

export class Scheduler {
  readonly mode: ClockMode;
  private manualNow = MANUAL_EPOCH;
  private offset = 0;
  private tasks: Scheduled[] = [];
  private nextId = 1;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(mode: ClockMode, private readonly onTaskError: (error: unknown) => void) {
    this.mode = mode;
  }

  now(): number {
    return this.mode === 'manual' ? this.manualNow : Date.now() + this.offset;
  }

  /** Runs `task` once `delayMs` of emulator time has passed. */
  schedule(delayMs: number, task: Task): TaskHandle {
    const entry: Scheduled = { id: this.nextId++, at: this.now() + Math.max(0, delayMs), task };
    if (this.closed) return entry;
    // Keep the list sorted by time, FIFO among equal times.
    let i = this.tasks.length;
    while (i > 0 && this.tasks[i - 1].at > entry.at) i--;
    this.tasks.splice(i, 0, entry);
    this.arm();
    return entry;
  }

  cancel(handle: TaskHandle | undefined): void {
    if (handle === undefined) return;
    this.tasks = this.tasks.filter((t) => t.id !== handle.id);
    this.arm();
  }

  get pendingCount(): number {
    return this.tasks.length;
  }

  /** Moves time forward by `ms` and runs every task that falls due (awaited in manual mode). */
  advance(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) return Promise.reject(new RangeError('advance(ms) needs a finite, non-negative number'));
    const step = async (): Promise<void> => {
      if (this.mode === 'manual') {
        const target = this.manualNow + ms;
        await this.drain(target);
        this.manualNow = Math.max(this.manualNow, target);
      } else {
        this.offset += ms;
        await this.drain(this.now());
        await this.settleInFlight();
      }
    };
    return this.serialize(step);
  }

  /** Drops every task and restarts a manual clock at its epoch. */
  reset(): void {
    this.tasks = [];
    this.disarm();
    this.manualNow = MANUAL_EPOCH;
  }

  /** Drops every task and waits for the ones already running. */
  async close(): Promise<void> {
    this.closed = true;
    this.tasks = [];
    this.disarm();
    await this.running.catch(() => undefined);
    await this.settleInFlight();
  }

  private serialize(step: () => Promise<void>): Promise<void> {
    const next = this.running.then(step, step);
    this.running = next.catch(() => undefined);
    return next;
  }

  private async drain(until: number): Promise<void> {
    for (;;) {
      const next = this.tasks[0];
      if (next === undefined || next.at > until || this.closed) break;
      this.tasks.shift();
      if (this.mode === 'manual') {
        this.manualNow = Math.max(this.manualNow, next.at);
        await this.run(next.task);
      } else {
        this.track(this.run(next.task));
      }
    }
    this.arm();
  }

  private async run(task: Task): Promise<void> {
    try {
      await task();
    } catch (error) {
      this.onTaskError(error);
    }
  }

  private track(promise: Promise<void>): void {
    this.inFlight.add(promise);
    void promise.finally(() => this.inFlight.delete(promise));
  }

  private async settleInFlight(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private arm(): void {
    this.disarm();
    if (this.mode !== 'real' || this.closed || this.tasks.length === 0) return;
    const delay = Math.max(0, this.tasks[0].at - this.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.serialize(() => this.drain(this.now()));
    }, delay);
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
