/**
 * Bytes on the wire while a run writes 2,000 messages (tool calls included) with its panel
 * open, against an emulator that caps histories like a real deployment (20 unless asked, at
 * most 500). Two followers read the same run on the same virtual schedule, each through the
 * extension's own read path (run/common/polling/runReads.ts: real Poller, real client, ledger,
 * transcript, afterPost for the follow-ups) and each through its own byte-counting TCP relay:
 * one with the history windows the extension uses, one asking for the maximum on every read.
 * Reported: bytes received (headers included) per byte of message content, and messages the
 * transcript lacks at the end.
 */
import * as net from 'node:net';
import { createClient, type AgentRunsApi } from '../src/api/index';
import type { AgentMessage } from '../src/api/types';
import { RunLedger, type KeyValueStore } from '../src/run/common/ledger/ledger';
import type { PollerSettings } from '../src/run/common/polling/poller';
import { HistoryWindows } from '../src/run/common/polling/historyWindow';
import { RunReader, applyRead } from '../src/run/common/polling/runReads';
import { TranscriptStore } from '../src/run/common/transcript/store';
import { afterPost } from '../src/run/afterPost';
import { startEmulator, type Emulator } from '../test/emulator/index';
import { adminOk } from '../test/emulator/testing';
import { registerCleanup } from '../test/support/processes';
import { Rig } from './network';
import type { Report } from './report';

const MESSAGES = 2_000;
const BUDGET_RATIO = 3;
/** Each turn: a few hundred messages, many of them tool calls (see the emulator's runs.ts). */
const TURN_PROMPT = 'bench history [[long]] [[tools]]';

/** A TCP relay to the emulator that counts the bytes sent back to the client. */
class CountingRelay {
  received = 0;
  private readonly sockets = new Set<net.Socket>();
  private readonly server: net.Server;

  private constructor(targetPort: number) {
    this.server = net.createServer((client) => {
      const upstream = net.connect(targetPort, '127.0.0.1');
      this.sockets.add(client).add(upstream);
      upstream.on('data', (chunk: Buffer) => {
        this.received += chunk.length;
      });
      client.pipe(upstream);
      upstream.pipe(client);
      const close = (): void => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
    });
  }

  static async start(targetPort: number): Promise<CountingRelay> {
    const relay = new CountingRelay(targetPort);
    await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get port(): number {
    const a = this.server.address();
    return typeof a === 'object' && a !== null ? a.port : 0;
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

class MemoryStore implements KeyValueStore {
  private readonly data = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }
  update(key: string, value: unknown): Promise<void> {
    this.data.set(key, value);
    return Promise.resolve();
  }
}

/** One follower of the run: its relay, client, ledger, transcripts and poller. */
class Follower {
  readonly ledger: RunLedger;
  readonly transcripts = new TranscriptStore(5);
  readonly rig: Rig;

  private constructor(readonly relay: CountingRelay, readonly client: AgentRunsApi, baseUrl: string, settings: PollerSettings, widest: boolean) {
    this.ledger = new RunLedger(new MemoryStore(), baseUrl);
    // Without a last sequence every read asks for the widest window: the comparison row.
    const reader = new RunReader({ windows: () => new HistoryWindows(), lastSequence: (id) => (widest ? undefined : this.ledger.get(id)?.lastSequence), now: () => this.rig.clock.now() });
    this.rig = new Rig(client, settings, {
      fetchRun: (id, signal) => reader.read(client, id, signal),
      onResult: (id, agent) => applyRead(this.ledger, id, agent, {
        viewing: true,
        now: this.rig.clock.now(),
        merge: (runId, history) => this.transcripts.get(runId).merge(history),
        finished: () => undefined,
      }),
      behind: (id) => reader.behind(id),
    });
  }

  static async start(emulator: Emulator, settings: PollerSettings, widest: boolean): Promise<Follower> {
    const relay = await CountingRelay.start(Number(new URL(emulator.baseUrl).port));
    const baseUrl = emulator.baseUrl.replace(/:\d+\//, `:${relay.port}/`);
    return new Follower(relay, createClient({ baseUrl, token: emulator.tokens.default }), baseUrl, settings, widest);
  }

  lost(whole: readonly AgentMessage[], agentId: string): number {
    const have = new Set(this.transcripts.get(agentId).snapshot().entries.map((e) => e.sequence));
    return whole.filter((m) => !have.has(m.sequence)).length;
  }

  async dispose(): Promise<void> {
    this.rig.dispose();
    await this.client.dispose();
    await this.relay.close();
  }
}

export async function measureHistoryBytes(report: Report, settings: PollerSettings): Promise<void> {
  const emulator = await startEmulator({ port: 0, clock: 'manual', stepMs: 1000, settings: { historyDefault: 20, historyMax: 500 } });
  registerCleanup('stop the history bytes emulator', () => emulator.close());
  const direct = createClient({ baseUrl: emulator.baseUrl, token: emulator.tokens.default });
  const followers: Follower[] = [];
  try {
    const windowed = await Follower.start(emulator, settings, false);
    const widest = await Follower.start(emulator, settings, true);
    followers.push(windowed, widest);
    const request = { appId: 'app_todo', prompt: TURN_PROMPT, model: 'hosted/auto' };
    const run = await direct.startAgent(request);
    for (const f of followers) {
      f.rig.poller.setPanelOpen(run.agentId, true);
      afterPost(f.ledger, f.rig.poller, { kind: 'start', run, request });
    }
    const whole = async (): Promise<{ status: string; history: AgentMessage[] }> =>
      (await adminOk(emulator.adminUrl, 'GET', `/agents/${run.agentId}`)) as { status: string; history: AgentMessage[] };
    let seconds = 0;
    for (let state = await whole(); state.history.length < MESSAGES; state = await whole()) {
      if (state.status === 'completed' || state.status === 'error') {
        // The next turn, sent the way the composer sends it.
        const ack = await direct.sendFollowUp(run.agentId, { prompt: TURN_PROMPT });
        for (const f of followers) {
          afterPost(f.ledger, f.rig.poller, { kind: 'followUp', agentId: run.agentId, ack, prompt: TURN_PROMPT });
        }
      }
      await emulator.advance(1000);
      for (const f of followers) await f.rig.advance(1000);
      if (++seconds > 3_600) throw new Error('the run did not reach 2,000 messages within an hour of virtual time');
    }
    // Let both followers read what was written last.
    for (const f of followers) await f.rig.advance(5_000);
    const final = (await whole()).history;
    const content = final.reduce((n, m) => n + Buffer.byteLength(JSON.stringify(m)), 0);
    const lost = windowed.lost(final, run.agentId);
    const ratio = windowed.relay.received / content;
    const widestRatio = widest.relay.received / content;
    const kb = (n: number): string => `${Math.round(n / 1024)} KB`;
    report.add('network', {
      name: `Bytes downloaded per byte of new message content: a run writing ${final.length} messages with its panel open, history capped at 20 (max 500)`,
      value: ratio,
      unit: '×',
      budget: { op: '<=', limit: BUDGET_RATIO },
      note: `${kb(windowed.relay.received)} received for ${kb(content)} of messages over ${seconds} virtual seconds (headers and the schema read included)`,
    });
    report.add('network', {
      name: 'Messages lost between polls in that run',
      value: lost,
      unit: '',
      budget: { op: '==', limit: 0 },
      note: `the maximum-window follower lost ${widest.lost(final, run.agentId)}`,
    });
    report.add('network', {
      name: 'The same run read with the maximum window (500) every time, for comparison',
      value: widestRatio,
      unit: '×',
      note: `${kb(widest.relay.received)} received: ${(widestRatio / ratio).toFixed(1)} times the windowed reads`,
    });
  } finally {
    for (const f of followers) await f.dispose();
    await direct.dispose();
    await emulator.close();
  }
}
