// Virtual time for the poller (its injected `Clock`), while HTTP stays real: time only moves
// when the test says so, and it never moves while a request is in flight, so "ten minutes
// without the service" takes a second and every timing is exact.
import type { Clock } from '../../../src/base/common/clock';

interface Timer {
  id: number;
  due: number;
  fn: () => void;
}

export class VirtualClock implements Clock {
  private t: number;
  private nextId = 1;
  private readonly timers = new Map<number, Timer>();

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer: Timer = { id: this.nextId++, due: this.t + Math.max(0, ms), fn };
    this.timers.set(timer.id, timer);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    if (typeof handle === 'number') {
      this.timers.delete(handle);
    }
  }

  get pendingTimers(): number {
    return this.timers.size;
  }

  private next(): Timer | undefined {
    let best: Timer | undefined;
    for (const timer of this.timers.values()) {
      if (!best || timer.due < best.due || (timer.due === best.due && timer.id < best.id)) {
        best = timer;
      }
    }
    return best;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due in order; after each, waits
   * (in real time) for `settle` — e.g. "no request in flight" — before going on.
   */
  async advance(ms: number, settle: () => Promise<void>): Promise<void> {
    const end = this.t + ms;
    await settle();
    for (;;) {
      const timer = this.next();
      if (!timer || timer.due > end) {
        break;
      }
      this.timers.delete(timer.id);
      this.t = Math.max(this.t, timer.due);
      timer.fn();
      await settle();
    }
    this.t = end;
  }
}
