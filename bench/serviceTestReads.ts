/**
 * Reads of the app's test runs (the Test Explorer's test-run store, src/serviceTests/common/store.ts):
 * 0 requests while no test run is active, and at most one read per fast interval while one is.
 * The real store and the real API client (undici) talk real HTTP to the emulator's deployed
 * profile; only the store's clock is virtual (like network.ts), and the emulator's clock is
 * manual: a run it was not told to move on stays active.
 */
import * as FakeTimers from '@sinonjs/fake-timers';
import { createClient } from '../src/api/index';
import type { Clock } from '../src/base/common/clock';
import { plainL10n } from '../src/base/common/l10n';
import { DEFAULT_POLLER_SETTINGS } from '../src/run/common/polling/settings';
import { TestRunStore, type TestRunReads } from '../src/serviceTests/common/store';
import { startEmulator } from '../test/emulator/index';
import { SEEDED_TESTS } from '../test/emulator/testSeed';
import { registerCleanup } from '../test/support/processes';
import type { Report } from './report';

const IDLE_MINUTES = 5;
const ACTIVE_MINUTES = 5;

/** The store on a virtual clock; `advance` jumps timer to timer, letting each read finish in real time. */
class StoreRig {
  readonly fake = FakeTimers.createClock(Date.now()) as FakeTimers.NodeClock;
  private readonly due = new Map<FakeTimers.NodeTimer, number>();
  private readonly inFlight = new Set<Promise<unknown>>();
  readonly clock: Clock = {
    now: () => this.fake.now,
    setTimeout: (fn, ms) => {
      const handle: FakeTimers.NodeTimer = this.fake.setTimeout(() => {
        this.due.delete(handle);
        fn();
      }, ms);
      this.due.set(handle, this.fake.now + Math.max(0, ms));
      return handle;
    },
    clearTimeout: (handle) => {
      this.due.delete(handle as FakeTimers.NodeTimer);
      this.fake.clearTimeout(handle as FakeTimers.NodeTimer);
    },
  };
  readonly store: TestRunStore;

  constructor(client: TestRunReads) {
    const track = <T>(p: Promise<T>): Promise<T> => {
      this.inFlight.add(p);
      const done = (): void => void this.inFlight.delete(p);
      p.then(done, done);
      return p;
    };
    const reads: TestRunReads = { getTestRun: (id) => track(client.getTestRun(id)), getTestGroupRun: (id) => track(client.getTestGroupRun(id)) };
    this.store = new TestRunStore({
      reads: () => Promise.resolve(reads),
      clock: this.clock,
      cadence: () => ({ fastMs: DEFAULT_POLLER_SETTINGS.burstMs, maxBackoffMs: DEFAULT_POLLER_SETTINGS.maxBackoffMs, backgroundMs: DEFAULT_POLLER_SETTINGS.backgroundMs }),
      l10n: plainL10n,
      describe: (e) => (e instanceof Error ? e.message : String(e)),
    });
  }

  get timers(): number {
    return this.due.size;
  }

  private async settle(): Promise<void> {
    for (let i = 0; i < 10 || this.inFlight.size > 0; i++) {
      await Promise.allSettled([...this.inFlight]);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  async advance(ms: number): Promise<void> {
    const end = this.fake.now + ms;
    for (;;) {
      await this.settle();
      const next = Math.min(...this.due.values());
      if (next > end) {
        this.fake.tick(end - this.fake.now);
        await this.settle();
        return;
      }
      this.fake.tick(Math.max(0, next - this.fake.now));
    }
  }
}

export async function measureServiceTestReads(report: Report): Promise<void> {
  const emulator = await startEmulator({ port: 0, clock: 'manual', stepMs: 1000, preset: 'deployed' });
  registerCleanup('stop the service tests emulator', () => emulator.close());
  const client = createClient({ baseUrl: emulator.baseUrl, token: emulator.tokens.default });
  const count = (from: number): number => emulator.requests.slice(from).filter((r) => /\/test(-group)?-runs\//.test(r.path)).length;
  try {
    // Idle: a run that ended was read once, seen ended and let go; then nothing is active.
    const ended = await client.startTestRun({ testId: SEEDED_TESTS.add, branchId: 'main' });
    await emulator.advance(120_000);
    const idle = new StoreRig(client);
    idle.store.followTest(ended.runId, { update: () => undefined, end: () => undefined });
    await idle.advance(0);
    const fromIdle = emulator.requests.length;
    await idle.advance(IDLE_MINUTES * 60_000);
    report.add('network', {
      name: `Test-run reads in ${IDLE_MINUTES} minutes with no test run active (Test Explorer)`,
      value: count(fromIdle),
      unit: '',
      budget: { op: '==', limit: 0 },
      note: `store timers pending: ${idle.timers}; runs followed: ${idle.store.active}`,
    });

    // One run active (the emulator's clock stands still): one read per fast interval.
    const active = await client.startTestRun({ testId: SEEDED_TESTS.filter, branchId: 'main' });
    const rig = new StoreRig(client);
    const following = rig.store.followTest(active.runId, { update: () => undefined, end: () => undefined });
    await rig.advance(0);
    const from = emulator.requests.length;
    await rig.advance(ACTIVE_MINUTES * 60_000);
    const perMinute = count(from) / ACTIVE_MINUTES;
    following.stop();
    report.add('network', {
      name: `Test-run reads per minute, one test run active (every ${DEFAULT_POLLER_SETTINGS.burstMs / 1000} s)`,
      value: perMinute,
      unit: '/min',
      budget: { op: '<=', limit: 60_000 / DEFAULT_POLLER_SETTINGS.burstMs },
      note: `${count(from)} GET /test-runs/{id} over ${ACTIVE_MINUTES} virtual minutes; store timers after stop: ${rig.timers}`,
    });
  } finally {
    await client.dispose();
    await emulator.close();
  }
}
