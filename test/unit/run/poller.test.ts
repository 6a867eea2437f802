import * as assert from 'node:assert/strict';
import * as FakeTimers from '@sinonjs/fake-timers';
import { ApiError, type ApiErrorKind } from '../../../src/api/errors';
import { isTerminalStatus, type Agent, type RunStatus } from '../../../src/api/types';
import {
  DEFAULT_POLLER_SETTINGS,
  NOT_FOUND_RETRY_DELAYS_MS,
  OFFLINE_AFTER_FAILURES,
  Poller,
  RATE_LIMIT_STAGGER_MS,
  clampPollerSettings,
  type Clock,
  type PollerSettings,
} from '../../../src/run/common/polling/poller';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

function apiError(kind: ApiErrorKind, extra: { retryAfterMs?: number; status?: number } = {}): ApiError {
  return new ApiError({ kind, message: `fake ${kind}`, mayHaveReachedServer: kind !== 'network', ...extra });
}

/** What the fake service does with one read. */
type Reply =
  | { status: RunStatus; afterMs?: number }
  | { error: unknown; afterMs?: number }
  /** Never answers on its own; ignores the abort signal too (a fetch that does not honour it). */
  | { hang: true };

interface Call {
  id: string;
  at: number;
  signal: AbortSignal;
  resolve(status: RunStatus): void;
  reject(error: unknown): void;
  settled: boolean;
}

interface HarnessOptions {
  settings?: Partial<PollerSettings>;
  random?: () => number;
  reply?: (id: string, n: number) => Reply;
  /** What onResult answers; default: finished on a terminal status. */
  verdict?: (agent: Agent) => boolean | 'dormant';
  /** What `behind` answers after the run's n-th read (0-based); default: no `behind` at all. */
  behind?: (id: string, n: number) => boolean;
}

/** A poller wired to a fake clock and a scriptable fake service that records everything. */
class Harness {
  // In Node the fake clock's timer handles are objects, like the real ones.
  readonly fake = FakeTimers.createClock(0) as FakeTimers.NodeClock;
  readonly clock: Clock = {
    now: () => this.fake.now,
    setTimeout: (fn, ms) => this.fake.setTimeout(fn, ms),
    clearTimeout: (handle) => this.fake.clearTimeout(handle as FakeTimers.NodeTimer),
  };
  readonly calls: Call[] = [];
  readonly results: { id: string; status: RunStatus | undefined; at: number }[] = [];
  readonly errors: { id: string; error: unknown; retry: number | undefined; at: number }[] = [];
  readonly unauthorized: unknown[] = [];
  readonly connectivity: { online: boolean; at: number }[] = [];
  readonly logs: string[] = [];
  reply: (id: string, n: number) => Reply;
  onResultThrows = false;
  peakInFlight = 0;
  overlapped = false;
  private current = 0;
  private readonly perRun = new Map<string, number>();
  readonly poller: Poller;

  constructor(options: HarnessOptions = {}) {
    this.reply = options.reply ?? (() => ({ status: 'running' }));
    this.poller = new Poller({
      clock: this.clock,
      settings: options.settings,
      random: options.random ?? (() => 0),
      log: (m) => this.logs.push(m),
      fetchRun: (id, signal) => this.fetchRun(id, signal),
      onResult: (id, agent) => {
        this.results.push({ id, status: agent.status, at: this.fake.now });
        if (this.onResultThrows) {
          throw new Error('listener bug');
        }
        return options.verdict ? options.verdict(agent) : isTerminalStatus(agent.status);
      },
      ...(options.behind ? { behind: (id: string) => options.behind?.(id, this.calls.filter((c) => c.id === id).length - 1) === true } : {}),
      onError: (id, error, retry) => {
        this.errors.push({ id, error, retry, at: this.fake.now });
      },
      onUnauthorized: (error) => {
        this.unauthorized.push(error);
      },
      onConnectivityChange: (online) => {
        this.connectivity.push({ online, at: this.fake.now });
      },
    });
  }

  private fetchRun(id: string, signal: AbortSignal): Promise<Agent> {
    const n = this.calls.filter((c) => c.id === id).length;
    const reply = this.reply(id, n);
    this.current++;
    this.peakInFlight = Math.max(this.peakInFlight, this.current);
    const mine = (this.perRun.get(id) ?? 0) + 1;
    this.perRun.set(id, mine);
    if (mine > 1) {
      this.overlapped = true;
    }
    return new Promise<Agent>((resolve, reject) => {
      let timer: FakeTimers.NodeTimer | undefined;
      const finish = (): boolean => {
        if (call.settled) {
          return false;
        }
        call.settled = true;
        if (timer !== undefined) {
          this.fake.clearTimeout(timer);
        }
        this.current--;
        this.perRun.set(id, (this.perRun.get(id) ?? 1) - 1);
        return true;
      };
      const call: Call = {
        id,
        at: this.fake.now,
        signal,
        settled: false,
        resolve: (status) => finish() && resolve({ agentId: id, status }),
        reject: (error) => finish() && reject(error instanceof Error ? error : new Error(String(error))),
      };
      this.calls.push(call);
      if ('hang' in reply) {
        return;
      }
      signal.addEventListener('abort', () => call.reject(apiError('aborted')));
      const answer = (): void => ('status' in reply ? call.resolve(reply.status) : call.reject(reply.error));
      if (reply.afterMs === undefined) {
        answer();
      } else {
        timer = this.fake.setTimeout(answer, reply.afterMs);
      }
    });
  }

  tick(ms: number): Promise<number> {
    return this.fake.tickAsync(ms);
  }

  /** Advances to an absolute fake time. */
  tickTo(at: number): Promise<number> {
    return this.fake.tickAsync(at - this.fake.now);
  }

  times(id?: string): number[] {
    return this.calls.filter((c) => id === undefined || c.id === id).map((c) => c.at);
  }

  countIn(from: number, to: number, id?: string): number {
    return this.times(id).filter((t) => t >= from && t < to).length;
  }

  timers(): number {
    return this.fake.countTimers();
  }
}

function diffs(xs: number[]): number[] {
  return xs.slice(1).map((x, i) => x - xs[i]);
}

function range(from: number, to: number, step: number): number[] {
  const out: number[] = [];
  for (let t = from; t < to; t += step) {
    out.push(t);
  }
  return out;
}

describe('Poller', () => {
  describe('cadences', () => {
    it('reads a background run every 15 s (4 per minute), the first read soon but not synchronously', async () => {
      const h = new Harness();
      h.poller.track('a');
      assert.equal(h.calls.length, 0);
      assert.equal(h.poller.isTracked('a'), true);
      await h.tick(0);
      assert.deepEqual(h.times('a'), [0]);
      await h.tickTo(10 * MINUTE - 1);
      assert.deepEqual(h.times('a'), range(0, 10 * MINUTE, 15 * SECOND));
      assert.equal(h.countIn(5 * MINUTE, 6 * MINUTE), 4);
      h.poller.dispose();
    });

    it('reads a run with an open panel every 2 s (30 per minute)', async () => {
      const h = new Harness();
      h.poller.setPanelOpen('a', true);
      h.poller.track('a');
      await h.tickTo(10 * MINUTE - 1);
      assert.deepEqual(h.times('a'), range(0, 10 * MINUTE, 2 * SECOND));
      assert.equal(h.countIn(3 * MINUTE, 4 * MINUTE), 30);
      h.poller.dispose();
    });

    it('slows every run, panel-open ones too, to 5 min while the window is unfocused', async () => {
      const h = new Harness();
      h.poller.setFocused(false);
      h.poller.setPanelOpen('a', true);
      h.poller.track('a');
      h.poller.track('b');
      await h.tickTo(30 * MINUTE - 1);
      assert.deepEqual(h.times('a'), range(0, 30 * MINUTE, 5 * MINUTE));
      assert.deepEqual(h.times('b'), range(0, 30 * MINUTE, 5 * MINUTE));
      h.poller.dispose();
    });

    it('bursts at 1 s for 15 s after the user\'s own POST, then falls back to the background cadence', async () => {
      const h = new Harness();
      h.poller.track('a');
      h.poller.burst('a');
      await h.tickTo(MINUTE - 1);
      assert.deepEqual(h.times('a'), [...range(0, 16 * SECOND, SECOND), 30 * SECOND, 45 * SECOND]);
      h.poller.dispose();
    });

    it('bursts even while unfocused (the user just clicked), then goes back to the unfocused cadence', async () => {
      const h = new Harness();
      h.poller.setFocused(false);
      h.poller.track('a');
      await h.tickTo(2 * MINUTE);
      h.poller.burst('a');
      await h.tickTo(10 * MINUTE);
      assert.deepEqual(h.times('a'), [0, ...range(2 * MINUTE, 2 * MINUTE + 16 * SECOND, SECOND), 2 * MINUTE + 15 * SECOND + 5 * MINUTE]);
      h.poller.dispose();
    });

    it('reads again at the fast cadence while reads come back with full windows (the run outruns them), focused or not, then at its own cadence', async () => {
      const full = new Set([1, 2, 5]);
      const h = new Harness({ behind: (_id, n) => full.has(n) });
      h.poller.track('a');
      await h.tickTo(47.5 * SECOND);
      assert.deepEqual(diffs(h.times('a')), [15 * SECOND, SECOND, SECOND, 15 * SECOND, 15 * SECOND]);
      // Read 5 (at 47 s) was full: the next comes 1 s after it although the window lost focus;
      // read 6 was not: then the unfocused cadence.
      h.poller.setFocused(false);
      await h.tickTo(10 * MINUTE);
      assert.deepEqual(h.times('a').slice(5), [47 * SECOND, 48 * SECOND, 48 * SECOND + 5 * MINUTE]);
      h.poller.dispose();
    });

    it('a full window of a run that finished with that read does not keep it read', async () => {
      const h = new Harness({ behind: () => true, reply: () => ({ status: 'completed' }) });
      h.poller.track('a');
      await h.tickTo(MINUTE);
      assert.deepEqual(h.times('a'), [0]);
      h.poller.dispose();
    });

    it('reads soon when a panel opens, but never sooner than the panel cadence since the last read', async () => {
      const h = new Harness();
      h.poller.track('a');
      h.poller.track('b');
      await h.tickTo(1 * SECOND);
      h.poller.setPanelOpen('b', true); // last read at 0: next at 2 s, not now
      await h.tickTo(10 * SECOND);
      h.poller.setPanelOpen('a', true); // last read 10 s ago: now, not at 15 s
      await h.tick(0);
      assert.deepEqual(h.times('a'), [0, 10 * SECOND]);
      assert.deepEqual(h.times('b'), [0, 2 * SECOND, 4 * SECOND, 6 * SECOND, 8 * SECOND, 10 * SECOND]);
      await h.tickTo(13 * SECOND);
      assert.deepEqual(h.times('a'), [0, 10 * SECOND, 12 * SECOND]);
      h.poller.setPanelOpen('a', false); // back to 15 s after the last read
      await h.tickTo(30 * SECOND);
      assert.deepEqual(h.times('a'), [0, 10 * SECOND, 12 * SECOND, 27 * SECOND]);
      h.poller.dispose();
    });

    it('does not poll for an open panel of a run it does not track', async () => {
      const h = new Harness();
      h.poller.setPanelOpen('x', true);
      await h.tickTo(MINUTE);
      assert.equal(h.calls.length, 0);
      assert.equal(h.timers(), 0);
    });

    it('catches up every tracked run at once on refocus, then resumes the focused cadence', async () => {
      const h = new Harness();
      for (const id of ['a', 'b', 'c']) {
        h.poller.track(id);
      }
      await h.tickTo(SECOND);
      h.poller.setFocused(false);
      await h.tickTo(100 * SECOND);
      assert.equal(h.calls.length, 3, 'nothing while unfocused before the 5 min cadence');
      h.poller.setFocused(true);
      await h.tick(0);
      assert.deepEqual(h.times().filter((t) => t === 100 * SECOND).length, 3);
      await h.tickTo(116 * SECOND);
      assert.equal(h.countIn(115 * SECOND, 116 * SECOND), 3);
      h.poller.setFocused(true); // repeated focus events are no-ops
      await h.tick(0);
      assert.equal(h.calls.length, 9);
      h.poller.dispose();
    });

    it('refocus catch-up respects maxConcurrent', async () => {
      const h = new Harness({ settings: { maxConcurrent: 2 }, reply: () => ({ status: 'running', afterMs: 500 }) });
      const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
      ids.forEach((id) => h.poller.track(id));
      await h.tickTo(5 * SECOND);
      h.poller.setFocused(false);
      await h.tickTo(60 * SECOND);
      const before = h.calls.length;
      h.peakInFlight = 0;
      h.poller.setFocused(true);
      await h.tickTo(62 * SECOND);
      assert.equal(h.calls.length - before, 6);
      assert.equal(h.peakInFlight, 2);
      assert.deepEqual(h.times().slice(before), [60000, 60000, 60500, 60500, 61000, 61000]);
      h.poller.dispose();
    });
  });

  describe('finished runs and timers', () => {
    it('stops on a terminal status and leaves no timer; pollNow still reads it once', async () => {
      const h = new Harness({ reply: (_id, n) => ({ status: n === 0 ? 'running' : 'completed' }) });
      h.poller.track('a');
      await h.tickTo(10 * MINUTE);
      assert.deepEqual(h.times('a'), [0, 15 * SECOND]);
      assert.equal(h.poller.isTracked('a'), false);
      assert.equal(h.poller.trackedCount, 0);
      assert.equal(h.timers(), 0);
      await h.poller.pollNow('a');
      assert.deepEqual(h.times('a'), [0, 15 * SECOND, 10 * MINUTE]);
      assert.equal(h.poller.isTracked('a'), false);
      assert.equal(h.timers(), 0);
      await h.tickTo(20 * MINUTE);
      assert.equal(h.calls.length, 3);
    });

    it('has zero timers when nothing is tracked', async () => {
      const h = new Harness();
      assert.equal(h.timers(), 0);
      h.poller.track('a');
      h.poller.track('b');
      h.poller.setPanelOpen('a', true);
      assert.ok(h.timers() > 0);
      await h.tickTo(30 * SECOND);
      h.poller.untrack('a');
      h.poller.untrack('b');
      assert.equal(h.timers(), 0);
      assert.equal(h.poller.trackedCount, 0);
      h.poller.setFocused(false);
      h.poller.setFocused(true);
      h.poller.updateSettings({ panelMs: 1000 });
      h.poller.resume();
      assert.equal(h.timers(), 0);
      await h.tickTo(10 * MINUTE);
      assert.equal(h.countIn(30 * SECOND + 1, 10 * MINUTE), 0);
    });

    it('track is idempotent and does not reset the schedule', async () => {
      const h = new Harness();
      h.poller.track('a');
      await h.tickTo(10 * SECOND);
      h.poller.track('a');
      h.poller.track('a');
      await h.tickTo(MINUTE - 1);
      assert.deepEqual(h.times('a'), [0, 15 * SECOND, 30 * SECOND, 45 * SECOND]);
      assert.equal(h.poller.trackedCount, 1);
      h.poller.dispose();
    });

    it('burst re-tracks a finished run a follow-up re-opened, ignoring a stale terminal read inside the burst', async () => {
      const statuses: RunStatus[] = ['completed', 'completed', 'running', 'running', 'completed'];
      const h = new Harness({ reply: (_id, n) => ({ status: statuses[Math.min(n, statuses.length - 1)] }) });
      h.poller.track('a');
      await h.tickTo(5 * SECOND);
      assert.equal(h.poller.isTracked('a'), false);
      h.poller.burst('a');
      assert.equal(h.poller.isTracked('a'), true);
      await h.tickTo(MINUTE);
      // stale 'completed' at 5 s is ignored; 'running' at 6 and 7 s; 'completed' at 8 s ends it.
      assert.deepEqual(h.times('a'), [0, 5 * SECOND, 6 * SECOND, 7 * SECOND, 8 * SECOND]);
      assert.equal(h.poller.isTracked('a'), false);
      assert.equal(h.timers(), 0);
    });

    it('a re-opened run that never shows activity stops when the burst ends', async () => {
      const h = new Harness({ reply: () => ({ status: 'completed' }) });
      h.poller.burst('a');
      await h.tickTo(MINUTE);
      assert.deepEqual(h.times('a'), range(0, 16 * SECOND, SECOND));
      assert.equal(h.poller.isTracked('a'), false);
      assert.equal(h.timers(), 0);
    });

    it('a follow-up on a tracked finished run: a stale terminal read inside the burst does not stop it', async () => {
      const h = new Harness({ reply: (_id, n) => ({ status: n < 3 ? 'completed' : n < 5 ? 'running' : 'completed' }) });
      h.poller.track('a');
      h.poller.burst('a', { reopening: true });
      await h.tickTo(MINUTE);
      assert.deepEqual(h.times('a'), [0, SECOND, 2 * SECOND, 3 * SECOND, 4 * SECOND, 5 * SECOND]);
      assert.equal(h.poller.isTracked('a'), false);
    });

    it('a terminal read right after a start stops at once (the run was already tracked)', async () => {
      const h = new Harness({ reply: () => ({ status: 'error' }) });
      h.poller.track('a');
      h.poller.burst('a');
      await h.tickTo(MINUTE);
      assert.deepEqual(h.times('a'), [0]);
      assert.equal(h.timers(), 0);
    });
  });

  describe('pollNow', () => {
    it('reads immediately, resolves when done, and keeps the cadence going', async () => {
      const h = new Harness();
      h.poller.track('a');
      await h.tickTo(5 * SECOND);
      const p = h.poller.pollNow('a');
      assert.deepEqual(h.times('a'), [0, 5 * SECOND], 'the read starts synchronously');
      await p;
      assert.equal(h.results.length, 2);
      await h.tickTo(MINUTE - 1);
      assert.deepEqual(h.times('a'), [0, 5 * SECOND, 20 * SECOND, 35 * SECOND, 50 * SECOND]);
      h.poller.dispose();
    });

    it('never rejects: errors go through onError', async () => {
      const h = new Harness({ reply: () => ({ error: apiError('server', { status: 503 }) }) });
      await h.poller.pollNow('x');
      assert.equal(h.errors.length, 1);
      assert.equal(h.errors[0].retry, undefined, 'a one-off read of an untracked run is not retried');
      assert.equal(h.timers(), 0);
      const h2 = new Harness({ reply: () => ({ error: new Error('boom') }) });
      await h2.poller.pollNow('x');
      assert.equal(h2.errors.length, 1);
    });

    it('joins a read already under way instead of overlapping it', async () => {
      const h = new Harness({ reply: () => ({ status: 'running', afterMs: 3 * SECOND }) });
      h.poller.track('a');
      await h.tick(SECOND);
      let done = false;
      void h.poller.pollNow('a').then(() => {
        done = true;
      });
      await h.tick(0);
      assert.equal(h.calls.length, 1);
      assert.equal(done, false);
      await h.tickTo(3 * SECOND);
      assert.equal(done, true);
      assert.equal(h.overlapped, false);
      h.poller.dispose();
    });

    it('starts following a run that a one-off read finds active', async () => {
      const h = new Harness();
      await h.poller.pollNow('a');
      assert.equal(h.poller.isTracked('a'), true);
      await h.tickTo(16 * SECOND);
      assert.deepEqual(h.times('a'), [0, 15 * SECOND]);
      h.poller.dispose();
    });
  });

  describe('401', () => {
    it('pauses everything with one onUnauthorized, aborts reads in flight, and resumes on a new token', async () => {
      const h = new Harness({
        reply: (id, n) => {
          if (n === 1) {
            return id === 'a' ? { error: apiError('unauthorized', { status: 401 }), afterMs: 100 } : { hang: true };
          }
          return { status: 'running' };
        },
      });
      for (const id of ['a', 'b', 'c']) {
        h.poller.track(id);
      }
      await h.tickTo(15 * SECOND + 100);
      assert.equal(h.unauthorized.length, 1);
      assert.equal(h.errors.length, 0, '401 goes to onUnauthorized only');
      assert.equal(h.poller.paused, true);
      assert.equal(h.poller.inFlight, 0);
      const hung = h.calls.filter((c) => c.at === 15 * SECOND && c.id !== 'a');
      assert.equal(hung.length, 2);
      assert.ok(hung.every((c) => c.signal.aborted));
      hung.forEach((c) => c.resolve('running')); // answers after the abort are ignored
      await h.tick(0);
      assert.equal(h.results.filter((r) => r.at > 0).length, 0);
      assert.equal(h.timers(), 0);
      const count = h.calls.length;
      await h.poller.pollNow('a'); // paused: no request
      h.poller.burst('b');
      h.poller.setFocused(false);
      h.poller.setFocused(true);
      await h.tick(60 * MINUTE);
      assert.equal(h.calls.length, count);
      assert.equal(h.unauthorized.length, 1);
      assert.equal(h.poller.trackedCount, 3, 'tracking survives the pause');

      h.poller.resume();
      assert.equal(h.poller.paused, false);
      await h.tick(0);
      assert.equal(h.calls.length, count + 3, 'every tracked run is read promptly after resume');
      h.poller.dispose();
    });

    it('reports again after resume when the new token is refused too', async () => {
      const h = new Harness({ reply: () => ({ error: apiError('unauthorized', { status: 401 }) }) });
      ['a', 'b', 'c'].forEach((id) => h.poller.track(id));
      await h.tickTo(MINUTE);
      assert.equal(h.unauthorized.length, 1);
      h.poller.resume();
      await h.tickTo(2 * MINUTE);
      assert.equal(h.unauthorized.length, 2);
      assert.equal(h.timers(), 0);
    });

    it('pause() stops every timer and read until resume()', async () => {
      const h = new Harness({ reply: (_id, n) => (n === 1 ? { hang: true } : { status: 'running' }) });
      h.poller.track('a');
      await h.tickTo(15 * SECOND);
      h.poller.pause();
      assert.equal(h.calls[1].signal.aborted, true);
      assert.equal(h.timers(), 0);
      await h.tickTo(10 * MINUTE);
      assert.equal(h.calls.length, 2);
      h.poller.resume();
      await h.tick(0);
      assert.equal(h.calls.length, 3);
      h.poller.dispose();
    });
  });

  describe('Retry-After on other answers', () => {
    it('a 502 with Retry-After holds that run (not the others) until then, longer than its backoff', async () => {
      const h = new Harness({
        reply: (id, n) => (id === 'a' && n === 1 ? { error: apiError('server', { status: 502, retryAfterMs: 2 * MINUTE }) } : { status: 'running' }),
      });
      h.poller.track('a');
      h.poller.track('b');
      await h.tickTo(5 * MINUTE);
      const a = h.times('a');
      // Read at 0 and 15 s (502), then not before 15 s + 2 min.
      assert.deepEqual(a.slice(0, 3), [0, 15 * SECOND, 15 * SECOND + 2 * MINUTE]);
      assert.deepEqual(h.times('b').slice(0, 4), [0, 15 * SECOND, 30 * SECOND, 45 * SECOND], 'another run is not held');
      h.poller.dispose();
    });

    it('a refresh does not read a held run sooner either', async () => {
      const h = new Harness({
        reply: (_id, n) => (n === 0 ? { error: apiError('client', { status: 409, retryAfterMs: MINUTE }) } : { status: 'running' }),
      });
      h.poller.track('a');
      await h.tick(0);
      void h.poller.pollNow('a');
      await h.tickTo(30 * SECOND);
      assert.deepEqual(h.times('a'), [0]);
      await h.tickTo(MINUTE + 1);
      assert.deepEqual(h.times('a'), [0, MINUTE]);
      h.poller.dispose();
    });

    it('a 503 with Retry-After holds the whole service, like a 429', async () => {
      const h = new Harness({
        reply: (id, n) => (id === 'a' && n === 1 ? { error: apiError('server', { status: 503, retryAfterMs: MINUTE }) } : { status: 'running' }),
      });
      h.poller.track('a');
      await h.tickTo(10 * SECOND);
      h.poller.track('b');
      await h.tickTo(16 * SECOND);
      assert.deepEqual(h.times('b'), [10 * SECOND]);
      await h.tickTo(15 * SECOND + MINUTE - 1);
      assert.deepEqual(h.times('b'), [10 * SECOND], 'b waited for the service-wide hold');
      await h.tickTo(2 * MINUTE);
      assert.ok(h.times('b').some((t) => t >= 15 * SECOND + MINUTE));
      h.poller.dispose();
    });
  });

  describe('dormant runs (a status the reference does not list, no completedAt)', () => {
    it('are read at the background cadence doubling to at most every 10 minutes, even with a panel open', async () => {
      const h = new Harness({ reply: () => ({ status: 'paused' }), verdict: (a) => (a.status === 'paused' ? 'dormant' : isTerminalStatus(a.status)) });
      h.poller.setPanelOpen('a', true);
      h.poller.track('a');
      await h.tickTo(60 * MINUTE);
      const gaps = diffs(h.times('a'));
      assert.deepEqual(gaps.slice(0, 7), [15, 30, 60, 120, 240, 480, 600].map((x) => x * SECOND));
      assert.ok(gaps.every((g) => g <= 10 * MINUTE), String(gaps));
      assert.equal(h.poller.isTracked('a'), true);
      h.poller.dispose();
    });

    it('speed up again once the run moves', async () => {
      let status: RunStatus = 'paused';
      const h = new Harness({ reply: () => ({ status }), verdict: (a) => (a.status === 'paused' ? 'dormant' : isTerminalStatus(a.status)) });
      h.poller.track('a');
      await h.tickTo(10 * MINUTE);
      status = 'running';
      const next = h.times('a').length;
      await h.tickTo(30 * MINUTE);
      const after = diffs(h.times('a').slice(next));
      assert.ok(after.length > 10 && after.slice(1).every((g) => g === 15 * SECOND), String(after));
      h.poller.dispose();
    });
  });

  describe('429', () => {
    it('holds every run until Retry-After, then lets them through one at a time', async () => {
      const ids = ['a', 'b', 'c', 'd', 'e'];
      const h = new Harness({
        reply: (id, n) => (id === 'a' && n === 1 ? { error: apiError('rate_limited', { status: 429, retryAfterMs: 20 * SECOND }) } : { status: 'running' }),
      });
      ids.forEach((id) => h.poller.track(id));
      await h.tickTo(15 * SECOND);
      assert.equal(h.calls.length, 6, 'the first 429 stops the others at once');
      await h.tickTo(35 * SECOND - 1);
      assert.equal(h.countIn(15 * SECOND + 1, 35 * SECOND), 0, 'nothing before Retry-After');
      await h.tickTo(2 * MINUTE);
      const after = h.times().filter((t) => t >= 35 * SECOND);
      const firstRound = after.slice(0, 5);
      assert.equal(firstRound[0], 35 * SECOND);
      assert.ok(diffs(firstRound).every((d) => d >= RATE_LIMIT_STAGGER_MS), `staggered: ${String(firstRound)}`);
      // Everyone got read after the hold; no 1 s window holds more than one read.
      for (const id of ids) {
        assert.ok(h.times(id).some((t) => t >= 35 * SECOND), id);
      }
      for (let t = 35 * SECOND; t < 2 * MINUTE; t += SECOND) {
        assert.ok(h.countIn(t, t + SECOND) <= 1, `at ${t}`);
      }
      const err = h.errors.find((e) => e.id === 'a');
      assert.ok(err?.retry !== undefined && err.retry >= 20 * SECOND);
      h.poller.dispose();
    });

    it('without Retry-After holds 30 s, doubling while 429s repeat', async () => {
      const h = new Harness({
        reply: (_id, n) => (n >= 1 && n <= 2 ? { error: apiError('rate_limited', { status: 429 }) } : { status: 'running' }),
      });
      h.poller.track('a');
      await h.tickTo(10 * MINUTE);
      // 15 s: 429 -> 30 s hold; 45 s: 429 -> 60 s hold; 105 s: fine, then every 15 s.
      assert.deepEqual(h.times('a').slice(0, 5), [0, 15 * SECOND, 45 * SECOND, 105 * SECOND, 120 * SECOND]);
      assert.deepEqual(h.errors.map((e) => e.retry), [30 * SECOND, 60 * SECOND]);
      h.poller.dispose();
    });

    it('a refocus during a hold catches up right after it, not at the old unfocused time', async () => {
      const h = new Harness({
        reply: (id, n) => (id === 'b' && n === 1 ? { error: apiError('rate_limited', { status: 429, retryAfterMs: 20 * SECOND }) } : { status: 'running' }),
      });
      h.poller.track('a');
      h.poller.track('b');
      await h.tickTo(SECOND);
      h.poller.setFocused(false);
      await h.tickTo(2 * SECOND);
      h.poller.burst('b'); // read at 2 s: 429, hold until 22 s
      await h.tickTo(5 * SECOND);
      h.poller.setFocused(true);
      await h.tickTo(30 * SECOND);
      assert.deepEqual(h.times('b').slice(0, 3), [0, 2 * SECOND, 22 * SECOND]);
      assert.deepEqual(h.times('a'), [0, 22 * SECOND + RATE_LIMIT_STAGGER_MS]);
      h.poller.dispose();
    });

    it('a manual refresh during the hold waits for it', async () => {
      const h = new Harness({
        reply: (id, n) => (id === 'a' && n === 1 ? { error: apiError('rate_limited', { status: 429, retryAfterMs: 10 * SECOND }) } : { status: 'running' }),
      });
      h.poller.track('a');
      h.poller.track('b');
      await h.tickTo(16 * SECOND);
      let done = false;
      void h.poller.pollNow('b').then(() => {
        done = true;
      });
      await h.tickTo(25 * SECOND - 1);
      assert.equal(done, false);
      assert.equal(h.countIn(15 * SECOND + 1, 25 * SECOND), 0);
      await h.tickTo(30 * SECOND);
      assert.equal(done, true);
      h.poller.dispose();
    });
  });

  describe('errors and backoff', () => {
    it('backs off exponentially from the cadence on network errors, capped at maxBackoffMs', async () => {
      let down = true;
      const h = new Harness({ reply: (_id, n) => (n > 0 && down ? { error: apiError('network') } : { status: 'running' }) });
      h.poller.track('a');
      await h.tickTo(60 * MINUTE);
      const t = h.times('a');
      assert.deepEqual(diffs(t).slice(0, 7), [15000, 30000, 60000, 120000, 240000, 300000, 300000]);
      assert.deepEqual(h.errors.slice(0, 6).map((e) => e.retry), [30000, 60000, 120000, 240000, 300000, 300000]);
      down = false;
      const last = t[t.length - 1];
      await h.tickTo(last + 5 * MINUTE + MINUTE);
      const recovered = h.times('a').filter((x) => x > last);
      assert.equal(recovered[0], last + 5 * MINUTE, 'the next probe succeeds');
      assert.deepEqual(diffs(recovered), [15000, 15000, 15000, 15000], 'back to the normal cadence');
      h.poller.dispose();
    });

    it('jitters the backoff deterministically with the injected random source, within [80 %, 100 %]', async () => {
      const h = new Harness({ random: () => 0.5, settings: { maxBackoffMs: 100_000 }, reply: (_id, n) => (n > 0 ? { error: apiError('timeout') } : { status: 'running' }) });
      h.poller.track('a');
      await h.tickTo(20 * MINUTE);
      assert.deepEqual(diffs(h.times('a')).slice(0, 6), [15000, 27000, 54000, 90000, 90000, 90000]);
      h.poller.dispose();
    });

    it('backs off from the panel cadence too, and a burst after a successful POST clears the backoff', async () => {
      const h = new Harness({ reply: (_id, n) => (n >= 1 && n <= 3 ? { error: apiError('server', { status: 502 }) } : { status: 'running' }) });
      h.poller.setPanelOpen('a', true);
      h.poller.track('a');
      await h.tickTo(20 * SECOND);
      assert.deepEqual(h.times('a'), [0, 2000, 6000, 14000]); // next would be 30 s
      h.poller.burst('a');
      await h.tick(0);
      assert.deepEqual(h.times('a'), [0, 2000, 6000, 14000, 20000]);
      h.poller.dispose();
    });

    it('retries a 404 right after a start a few times, then carries on', async () => {
      const h = new Harness({ reply: (_id, n) => (n < 2 ? { error: apiError('not_found', { status: 404 }) } : { status: 'queued' }) });
      h.poller.track('a');
      h.poller.burst('a');
      await h.tickTo(5 * SECOND);
      assert.deepEqual(h.times('a').slice(0, 3), [0, NOT_FOUND_RETRY_DELAYS_MS[0], NOT_FOUND_RETRY_DELAYS_MS[0] + NOT_FOUND_RETRY_DELAYS_MS[1]]);
      assert.deepEqual(h.errors.map((e) => e.retry), [NOT_FOUND_RETRY_DELAYS_MS[0], NOT_FOUND_RETRY_DELAYS_MS[1]]);
      assert.equal(h.results.length > 0, true);
      assert.equal(h.poller.isTracked('a'), true);
      h.poller.dispose();
    });

    it('gives up on a run that stays 404: reports it once without a retry and stops', async () => {
      const h = new Harness({ reply: () => ({ error: apiError('not_found', { status: 404 }) }) });
      h.poller.track('a');
      await h.tickTo(10 * MINUTE);
      assert.deepEqual(h.times('a'), [0, 1000, 3000, 7000]);
      assert.deepEqual(h.errors.map((e) => e.retry), [1000, 2000, 4000, undefined]);
      assert.equal(h.poller.isTracked('a'), false);
      assert.equal(h.timers(), 0);
    });

    it('reports offline once after consecutive network failures and online once on the next success', async () => {
      let down = false;
      const h = new Harness({ reply: () => (down ? { error: apiError('network') } : { status: 'running' }) });
      h.poller.track('a');
      h.poller.track('b');
      await h.tickTo(10 * SECOND);
      down = true;
      await h.tickTo(20 * MINUTE);
      assert.deepEqual(h.connectivity.map((c) => c.online), [false]);
      assert.ok(h.errors.length > OFFLINE_AFTER_FAILURES);
      assert.equal(h.connectivity[0].at, 45 * SECOND, '3rd failure: a and b at 15 s, a at 45 s');
      // Service back after 20 minutes: polling resumes on its own within maxBackoffMs.
      down = false;
      const back = h.fake.now;
      await h.tickTo(back + DEFAULT_POLLER_SETTINGS.maxBackoffMs);
      assert.deepEqual(h.connectivity.map((c) => c.online), [false, true]);
      const firstOk = h.results.find((r) => r.at >= back);
      assert.ok(firstOk && firstOk.at <= back + DEFAULT_POLLER_SETTINGS.maxBackoffMs);
      // Both runs back at the background cadence, without waiting out their own backoff.
      await h.tickTo(back + DEFAULT_POLLER_SETTINGS.maxBackoffMs + MINUTE);
      assert.ok(h.countIn(back + DEFAULT_POLLER_SETTINGS.maxBackoffMs, back + DEFAULT_POLLER_SETTINGS.maxBackoffMs + MINUTE, 'a') >= 4);
      assert.ok(h.countIn(back + DEFAULT_POLLER_SETTINGS.maxBackoffMs, back + DEFAULT_POLLER_SETTINGS.maxBackoffMs + MINUTE, 'b') >= 4);
      assert.deepEqual(h.connectivity.map((c) => c.online), [false, true]);
      h.poller.dispose();
    });

    it('resetConnectivity (a new base URL) forgets the old outage and its backoff without reporting a transition', async () => {
      let down = true;
      const h = new Harness({ reply: () => (down ? { error: apiError('network') } : { status: 'running' }) });
      h.poller.track('a');
      await h.tickTo(10 * MINUTE);
      assert.equal(h.poller.reachable, false);
      assert.deepEqual(h.connectivity.map((c) => c.online), [false]);
      const before = h.calls.length;
      h.poller.resetConnectivity();
      assert.equal(h.poller.reachable, true);
      assert.deepEqual(h.connectivity.map((c) => c.online), [false], 'nothing heard from the new service yet: no "reachable again"');
      // Back to the plain background cadence, not the old service's backoff.
      down = false;
      const at = h.fake.now;
      await h.tickTo(at + MINUTE);
      assert.ok(h.calls.length - before >= 4, `${h.calls.length - before} reads in the minute after the switch`);
      assert.ok(h.calls[before].at <= at + DEFAULT_POLLER_SETTINGS.backgroundMs);
      h.poller.dispose();
    });

    it('resetConnectivity drops the old service\'s read in flight and its 429 hold', async () => {
      let n = 0;
      const h = new Harness({ reply: () => (n++ === 0 ? { error: apiError('rate_limited', { retryAfterMs: 10 * MINUTE, status: 429 }) } : { hang: true }) });
      h.poller.track('a');
      await h.tick(0);
      await h.tickTo(MINUTE);
      assert.equal(h.calls.length, 1, 'held by Retry-After');
      h.poller.resetConnectivity();
      await h.tickTo(MINUTE + DEFAULT_POLLER_SETTINGS.backgroundMs);
      assert.equal(h.calls.length, 2, 'the hold of the old service does not apply to the new one');
      const hung = h.calls[1];
      h.poller.resetConnectivity();
      assert.equal(hung.signal.aborted, true, 'the read of the old service is aborted');
      assert.equal(h.poller.inFlight, 0);
      h.poller.dispose();
    });

    it('a throwing onResult does not stop polling', async () => {
      const h = new Harness();
      h.onResultThrows = true;
      h.poller.track('a');
      await h.tickTo(MINUTE - 1);
      assert.equal(h.calls.length, 4);
      assert.ok(h.logs.some((l) => l.includes('onResult threw')));
      h.poller.dispose();
    });
  });

  describe('concurrency', () => {
    it('never has more than maxConcurrent reads in flight with 50 runs, and serves them fairly', async () => {
      const h = new Harness({ reply: () => ({ status: 'running', afterMs: 200 }) });
      const ids = Array.from({ length: 50 }, (_, i) => `run-${i}`);
      ids.forEach((id) => h.poller.track(id));
      await h.tick(0);
      assert.equal(h.poller.inFlight, 4);
      await h.tickTo(10 * MINUTE);
      assert.equal(h.peakInFlight, 4);
      assert.equal(h.overlapped, false);
      assert.deepEqual(h.calls.slice(0, 50).map((c) => c.id), ids, 'first come, first served');
      for (const id of ids) {
        const n = h.times(id).length;
        assert.ok(n >= 39 && n <= 41, `${id}: ${n} reads in 10 min`);
      }
      h.poller.dispose();
    });

    it('untrack aborts the read in flight, frees its slot and ignores its late answer', async () => {
      const h = new Harness({ settings: { maxConcurrent: 1 }, reply: (id) => (id === 'a' ? { hang: true } : { status: 'running' }) });
      h.poller.track('a');
      h.poller.track('b');
      await h.tick(0);
      assert.deepEqual(h.calls.map((c) => c.id), ['a']);
      h.poller.untrack('a');
      assert.equal(h.calls[0].signal.aborted, true);
      assert.equal(h.poller.isTracked('a'), false);
      await h.tick(0);
      assert.deepEqual(h.calls.map((c) => c.id), ['a', 'b'], 'b takes the freed slot');
      h.calls[0].resolve('running');
      await h.tick(0);
      assert.deepEqual(h.results.map((r) => r.id), ['b']);
      h.poller.untrack('b');
      assert.equal(h.timers(), 0);
    });

    it('never overlaps reads of one run, whatever happens while one is slow', async () => {
      const h = new Harness({ reply: () => ({ status: 'running', afterMs: 5 * SECOND }) });
      h.poller.setPanelOpen('a', true);
      h.poller.track('a');
      await h.tick(SECOND);
      h.poller.setPanelOpen('a', false);
      h.poller.setPanelOpen('a', true);
      h.poller.burst('a');
      h.poller.setFocused(false);
      h.poller.setFocused(true);
      h.poller.resume();
      void h.poller.pollNow('a');
      h.poller.updateSettings({ panelMs: 1000 });
      await h.tickTo(MINUTE);
      assert.equal(h.overlapped, false);
      assert.ok(diffs(h.times('a')).every((d) => d >= 5 * SECOND));
      h.poller.dispose();
    });
  });

  describe('dispose', () => {
    it('clears every timer, aborts reads in flight, and calls nothing afterwards', async () => {
      const h = new Harness({ reply: (id) => (id === 'a' ? { hang: true } : { status: 'running' }) });
      ['a', 'b', 'c'].forEach((id) => h.poller.track(id));
      h.poller.setPanelOpen('b', true);
      await h.tick(SECOND);
      const pending = h.poller.pollNow('a');
      h.poller.dispose();
      await pending; // resolved by dispose
      assert.equal(h.calls[0].signal.aborted, true);
      assert.equal(h.timers(), 0);
      assert.equal(h.poller.inFlight, 0);
      const results = h.results.length;
      h.calls[0].resolve('completed');
      h.poller.track('d');
      h.poller.burst('e');
      await h.poller.pollNow('f');
      await h.tick(10 * MINUTE);
      assert.equal(h.results.length, results);
      assert.equal(h.errors.length, 0);
      assert.equal(h.calls.length, 3);
      assert.equal(h.timers(), 0);
    });
  });

  describe('settings', () => {
    it('reschedules with new cadences at once', async () => {
      const h = new Harness();
      h.poller.track('a');
      await h.tickTo(SECOND);
      h.poller.updateSettings({ backgroundMs: 60 * SECOND });
      await h.tickTo(70 * SECOND);
      assert.deepEqual(h.times('a'), [0, 60 * SECOND]);
      h.poller.updateSettings({ backgroundMs: 5 * SECOND }); // last read 10 s ago: read now
      await h.tick(0);
      await h.tickTo(80 * SECOND);
      assert.deepEqual(h.times('a'), [0, 60 * SECOND, 70 * SECOND, 75 * SECOND, 80 * SECOND]);
      h.poller.updateSettings({ maxConcurrent: undefined }); // undefined fields keep the current value
      await h.tickTo(90 * SECOND);
      assert.deepEqual(h.times('a').slice(-2), [85 * SECOND, 90 * SECOND]);
      h.poller.dispose();
    });

    it('clamps user settings to sane bounds', () => {
      assert.deepEqual(clampPollerSettings({}), DEFAULT_POLLER_SETTINGS);
      assert.deepEqual(DEFAULT_POLLER_SETTINGS, {
        panelMs: 2000, backgroundMs: 15000, unfocusedMs: 300000, burstMs: 1000, burstDurationMs: 15000, maxBackoffMs: 300000, maxConcurrent: 4,
      });
      const low = clampPollerSettings({ panelMs: 10, backgroundMs: 1, unfocusedMs: 1000, burstMs: 1, burstDurationMs: -5, maxBackoffMs: 0, maxConcurrent: 0 });
      assert.deepEqual(low, { panelMs: 1000, backgroundMs: 5000, unfocusedMs: 30000, burstMs: 500, burstDurationMs: 0, maxBackoffMs: 10000, maxConcurrent: 1 });
      const high = clampPollerSettings({ panelMs: 1e9, backgroundMs: 1e9, unfocusedMs: 1e12, burstMs: 1e9, burstDurationMs: 1e9, maxBackoffMs: 1e12, maxConcurrent: 1000 });
      assert.deepEqual(high, { panelMs: 60000, backgroundMs: 600000, unfocusedMs: 3600000, burstMs: 10000, burstDurationMs: 120000, maxBackoffMs: 3600000, maxConcurrent: 16 });
      const junk = clampPollerSettings({ panelMs: Number.NaN, backgroundMs: Infinity, maxConcurrent: 2.6 });
      assert.equal(junk.panelMs, 2000);
      assert.equal(junk.backgroundMs, 15000);
      assert.equal(junk.maxConcurrent, 3);
      // Cadences stay ordered: burst <= panel <= background <= unfocused.
      const odd = clampPollerSettings({ burstMs: 5000, panelMs: 3000, backgroundMs: 6000, unfocusedMs: 30000 });
      assert.equal(odd.burstMs, 3000);
      const inverted = clampPollerSettings({ panelMs: 30000, backgroundMs: 10000, unfocusedMs: 30000 });
      assert.equal(inverted.backgroundMs, 30000);
      const slowBackground = clampPollerSettings({ backgroundMs: 600000, unfocusedMs: 60000 });
      assert.equal(slowBackground.unfocusedMs, 600000);
    });

    it('applies clamped constructor settings (a panel cadence below 1 s becomes 1 s)', async () => {
      const h = new Harness({ settings: { panelMs: 10 } });
      h.poller.setPanelOpen('a', true);
      h.poller.track('a');
      await h.tickTo(MINUTE - 1);
      assert.equal(h.calls.length, 60);
      h.poller.dispose();
    });
  });
});
