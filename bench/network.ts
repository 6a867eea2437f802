/**
 * Requests per minute per active run at each cadence, and requests while only finished runs
 * are known. The real Poller (src/run/common/polling/poller.ts) and the real API client (src/api, undici)
 * talk real HTTP to the service emulator on 127.0.0.1; only the poller's injected clock is
 * virtual (@sinonjs/fake-timers, not installed globally: undici, the emulator and Node keep
 * real timers), so ten minutes of polling take a few seconds. The virtual clock never moves
 * while a request is in flight, so each request costs no virtual time and the counts are the
 * cadence's own, with no slack from slow responses. The emulator's clock is manual and never
 * advanced during a measurement: active runs stay active.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as FakeTimers from '@sinonjs/fake-timers';
import { createClient, isTerminalStatus, type AgentRunsApi } from '../src/api/index';
import type { Agent } from '../src/api/types';
import { Poller, clampPollerSettings, type Clock, type PollerSettings } from '../src/run/common/polling/poller';
import { startEmulator, type Emulator } from '../test/emulator/index';
import { paths } from '../test/support/paths';
import { registerCleanup } from '../test/support/processes';
import { measureHistoryBytes } from './historyBytes';
import { measureServiceTestReads } from './serviceTestReads';
import type { Report } from './report';

/** Active runs followed at once in each cadence measurement. */
const RUNS = 4;
/** Virtual minutes measured per cadence. */
const WINDOW_MINUTES = 10;
/** Virtual minutes of the idle measurement. */
const IDLE_MINUTES = 5;

interface ConfigurationProperty {
  readonly default?: unknown;
}

interface Manifest {
  readonly contributes?: { readonly configuration?: { readonly properties?: Readonly<Record<string, ConfigurationProperty>> } };
}

/** The cadences a user gets without touching settings: package.json's defaults, as the glue maps them. */
export function configuredSettings(): PollerSettings {
  const manifest = JSON.parse(fs.readFileSync(path.join(paths.repoRoot, 'package.json'), 'utf8')) as Manifest;
  const props = manifest.contributes?.configuration?.properties ?? {};
  const seconds = (key: string): number | undefined => {
    const value = props[`agentRuns.polling.${key}`]?.default;
    return typeof value === 'number' ? value * 1000 : undefined;
  };
  return clampPollerSettings({ panelMs: seconds('panelSeconds'), backgroundMs: seconds('backgroundSeconds'), unfocusedMs: seconds('unfocusedSeconds') });
}

type Cadence = 'panel' | 'background' | 'unfocused';

/** How a rig reads and takes in a run; by default a bare getAgent and "finished" from the status. */
export interface RigReads {
  fetchRun(agentId: string, signal: AbortSignal): Promise<Agent>;
  onResult(agentId: string, agent: Agent): boolean | 'dormant';
  /** The run outran its latest read (see PollerDeps.behind). */
  behind?(agentId: string): boolean;
}

/** One poller on a virtual clock, its requests counted at the emulator. */
export class Rig {
  readonly fake = FakeTimers.createClock(Date.now()) as FakeTimers.NodeClock;
  /** Due time of each pending poller timer, so the clock can jump exactly to the next one. */
  private readonly due = new Map<FakeTimers.NodeTimer, number>();
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
  readonly poller: Poller;
  private readonly inFlight = new Set<Promise<unknown>>();
  readonly errors: string[] = [];

  constructor(client: AgentRunsApi, settings: PollerSettings, reads?: RigReads) {
    this.poller = new Poller({
      fetchRun: (agentId, signal) => {
        const read = reads ? reads.fetchRun(agentId, signal) : client.getAgent(agentId, { signal });
        this.inFlight.add(read);
        void read.then(
          () => this.inFlight.delete(read),
          () => this.inFlight.delete(read),
        );
        return read;
      },
      onResult: (agentId, agent) => (reads ? reads.onResult(agentId, agent) : isTerminalStatus(agent.status)),
      behind: (agentId) => reads?.behind?.(agentId) === true,
      onError: (agentId, error) => this.errors.push(`${agentId}: ${error instanceof Error ? error.message : String(error)}`),
      onUnauthorized: () => this.errors.push('401'),
      clock: this.clock,
      settings,
      random: () => 0.5,
    });
  }

  get pendingTimers(): number {
    return this.due.size;
  }

  /** Waits (real time) until no read is in flight and the poller has taken every answer in. */
  async settle(): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (this.inFlight.size > 0 || this.poller.inFlight > 0) {
      if (Date.now() > deadline) {
        throw new Error('a read did not finish within 30 s');
      }
      await Promise.allSettled([...this.inFlight]);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Moves the virtual clock by `ms` (0: runs what is due now), jumping from one poller timer
   * to the next and letting the reads each one starts finish (in real time) before going on.
   */
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

  dispose(): void {
    this.poller.dispose();
  }
}

function readsOf(emulator: Emulator, ids: ReadonlySet<string>, from: number): number {
  let n = 0;
  for (const r of emulator.requests.slice(from)) {
    const id = /\/agents\/([^/?]+)(?:\?|$)/.exec(r.path)?.[1];
    if (r.method === 'GET' && id !== undefined && ids.has(decodeURIComponent(id))) {
      n++;
    }
  }
  return n;
}

async function startRuns(client: AgentRunsApi, n: number, label: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const run = await client.startAgent({ appId: 'app_todo', prompt: `bench ${label} ${i + 1}`, model: 'hosted/auto' });
    ids.push(run.agentId);
  }
  return ids;
}

export async function measureNetwork(report: Report): Promise<void> {
  const emulator = await startEmulator({ port: 0, clock: 'manual', stepMs: 1000 });
  registerCleanup('stop the network emulator', () => emulator.close());
  const client = createClient({ baseUrl: emulator.baseUrl, token: emulator.tokens.default });
  try {
    const settings = configuredSettings();
    const cadenceMs: Record<Cadence, number> = { panel: settings.panelMs, background: settings.backgroundMs, unfocused: settings.unfocusedMs };
    const labels: Record<Cadence, string> = {
      panel: 'panel open, window focused',
      background: 'background (no panel), window focused',
      unfocused: 'window unfocused',
    };
    for (const cadence of ['panel', 'background', 'unfocused'] as const) {
      const ids = await startRuns(client, RUNS, cadence);
      const rig = new Rig(client, settings);
      try {
        rig.poller.setFocused(cadence !== 'unfocused');
        for (const id of ids) {
          if (cadence === 'panel') {
            rig.poller.setPanelOpen(id, true);
          }
          rig.poller.track(id);
        }
        // The first read of each run comes at once; the window starts after it.
        await rig.advance(0);
        const from = emulator.requests.length;
        await rig.advance(WINDOW_MINUTES * 60_000);
        const reads = readsOf(emulator, new Set(ids), from);
        const perRunPerMinute = reads / (RUNS * WINDOW_MINUTES);
        const allowed = 60_000 / cadenceMs[cadence];
        report.add('network', {
          name: `Requests per active run per minute: ${labels[cadence]} (every ${cadenceMs[cadence] / 1000} s)`,
          value: perRunPerMinute,
          unit: '/min',
          budget: { op: '<=', limit: allowed },
          note: `${reads} GETs for ${RUNS} active runs over ${WINDOW_MINUTES} virtual minutes${rig.errors.length > 0 ? `; errors: ${rig.errors.slice(0, 3).join('; ')}` : ''}`,
        });
      } finally {
        rig.dispose();
      }
    }

    // Idle: the runs finished; the poller read each once more, saw it finished and let go.
    const finished = await startRuns(client, RUNS, 'idle');
    await emulator.advance(60_000);
    const rig = new Rig(client, settings);
    try {
      for (const id of finished) {
        rig.poller.setPanelOpen(id, true); // the most eager cadence, were anything polled
        rig.poller.track(id);
      }
      await rig.advance(0);
      const statuses = await Promise.all(finished.map(async (id) => (await client.getAgent(id)).status));
      if (!statuses.every((s) => isTerminalStatus(s))) {
        throw new Error(`the idle runs did not finish: ${statuses.join(', ')}`);
      }
      const from = emulator.requests.length;
      const timersBefore = rig.pendingTimers;
      await rig.advance(IDLE_MINUTES * 60_000 / 2);
      rig.poller.setFocused(false);
      await rig.advance(IDLE_MINUTES * 60_000 / 2);
      const requests = emulator.requests.length - from;
      report.add('network', {
        name: `Requests in ${IDLE_MINUTES} idle minutes, only finished runs (panels open)`,
        value: requests,
        unit: '',
        budget: { op: '==', limit: 0 },
        note: `${RUNS} finished runs with open panels, focused then unfocused; ${timersBefore} poller timers pending at the start, ${rig.pendingTimers} at the end; tracked: ${rig.poller.trackedCount}`,
      });
    } finally {
      rig.dispose();
    }
    await measureHistoryBytes(report, settings);
    await measureServiceTestReads(report);
  } finally {
    await client.dispose();
    await emulator.close();
  }
}
