/**
 * A run that writes more between two background reads than the widest history window holds:
 * 600 messages within one background interval, against an emulator that caps histories as the
 * deployed service documents (100 unless asked, at most 500). The run is followed through the
 * extension's own read path (run/common/polling/runReads.ts: real Poller on a virtual clock, real
 * client, run ledger, transcript), its panel closed, the window focused. Reported: messages
 * lost (only what the service no longer returns may be: the oldest 100), whether the
 * transcript's gap marker stands exactly where they are missing, and the delays of the reads
 * after the full window (the fast cadence until a window is no longer full).
 */
import { createClient } from '../src/api/index';
import type { AgentMessage } from '../src/api/types';
import { RunLedger, type KeyValueStore } from '../src/run/common/ledger/ledger';
import type { PollerSettings } from '../src/run/common/polling/poller';
import { HistoryWindows } from '../src/run/common/polling/historyWindow';
import { RunReader, applyRead } from '../src/run/common/polling/runReads';
import { TranscriptStore } from '../src/run/common/transcript/store';
import { startEmulator } from '../test/emulator/index';
import { adminOk } from '../test/emulator/testing';
import { registerCleanup } from '../test/support/processes';
import { Rig } from './network';
import type { Report } from './report';

/** What the run writes between two background reads. */
const BURST = 600;
/** The deployed service's documented window: default 100, at most 500 (service-api-wider.md §1). */
const CAPS = { historyDefault: 100, historyMax: 500 };
/** Messages the run has before the burst (read normally). */
const BEFORE = 12;

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

export async function measureFullWindow(report: Report, settings: PollerSettings): Promise<void> {
  const emulator = await startEmulator({ port: 0, clock: 'manual', stepMs: 1000, settings: CAPS });
  registerCleanup('stop the full-window emulator', () => emulator.close());
  const client = createClient({ baseUrl: emulator.baseUrl, token: emulator.tokens.default });
  const ledger = new RunLedger(new MemoryStore(), client.baseUrl);
  const transcripts = new TranscriptStore(5);
  const readAt: number[] = [];
  const reader = new RunReader({ windows: () => new HistoryWindows(), lastSequence: (id) => ledger.get(id)?.lastSequence, now: () => rig.clock.now() });
  const rig: Rig = new Rig(client, settings, {
    fetchRun: (id, signal) => {
      readAt.push(rig.clock.now());
      return reader.read(client, id, signal);
    },
    onResult: (id, agent) => applyRead(ledger, id, agent, {
      viewing: false,
      now: rig.clock.now(),
      merge: (runId, history) => transcripts.get(runId).merge(history),
      finished: () => undefined,
    }),
    behind: (id) => reader.behind(id),
  });
  try {
    // The emulator's clock stays still: the run stays queued (active) and only what is written here is in it.
    const run = await client.startAgent({ appId: 'app_todo', prompt: 'bench full window', model: 'hosted/auto' });
    const id = run.agentId;
    const write = async (count: number, from: number): Promise<void> => {
      for (let i = 0; i < count; i++) {
        await adminOk(emulator.adminUrl, 'POST', `/agents/${id}/messages`, (from + i) % 4 === 0
          ? { role: 'tool', content: `output ${from + i}`, toolName: 'run_command', toolParameters: { command: `step ${from + i}` } }
          : { role: 'assistant', content: `message ${from + i}` });
      }
    };
    ledger.upsert({ agentId: id, source: 'started', status: 'queued' });
    rig.poller.setFocused(true);
    rig.poller.track(id);
    await rig.advance(0);
    await write(BEFORE, 0);
    await rig.advance(settings.backgroundMs);
    const lastBefore = ledger.get(id)?.lastSequence ?? 0;
    const burstAfterRead = readAt.length;
    // All of it between two background reads (the virtual clock does not move while it is written).
    await write(BURST, BEFORE);
    await rig.advance(settings.backgroundMs);
    await rig.advance(3 * settings.backgroundMs);
    if (rig.errors.length > 0) {
      throw new Error(`reads failed: ${rig.errors.slice(0, 3).join('; ')}`);
    }

    const whole = ((await adminOk(emulator.adminUrl, 'GET', `/agents/${id}`)) as { history: AgentMessage[] }).history;
    const entries = transcripts.get(id).snapshot().entries;
    const have = new Set(entries.map((e) => e.sequence));
    const missing = whole.map((m) => m.sequence).filter((s): s is number => s !== undefined && !have.has(s));
    // Where the transcript says messages are missing: the `gapBefore` sequences just before each marked entry.
    const claimed: number[] = [];
    for (const e of entries) {
      if (e.sequence !== undefined && (e.gapBefore ?? 0) > 0) {
        for (let s = e.sequence - (e.gapBefore ?? 0); s < e.sequence; s++) claimed.push(s);
      }
    }
    const misplaced = [...missing.filter((s) => !claimed.includes(s)), ...claimed.filter((s) => !missing.includes(s))];
    const marks = entries.filter((e) => (e.gapBefore ?? 0) > 0).map((e) => `${e.gapBefore} before ${e.sequence}`);

    const after = readAt.slice(burstAfterRead);
    const delays = after.slice(1).map((t, i) => t - after[i]);
    if (delays.length < 2) {
      throw new Error(`only ${after.length} read(s) after the burst`);
    }
    report.add('history', {
      name: `Messages lost: a run writing ${BURST} messages within one background interval (${settings.backgroundMs / 1000} s), history capped at ${CAPS.historyMax}`,
      value: missing.length,
      unit: '',
      budget: { op: '<=', limit: BURST - CAPS.historyMax },
      note: `missing sequences ${range(missing)} of ${whole.length}; the last one read before the burst: ${lastBefore}`,
    });
    report.add('history', {
      name: 'Messages the transcript\'s gap marker puts elsewhere than where they are missing',
      value: misplaced.length,
      unit: '',
      budget: { op: '==', limit: 0 },
      note: `marked: ${marks.join(', ') || 'none'}; missing: ${range(missing)}`,
    });
    report.add('history', {
      name: `Delay of the read after the full window (the fast cadence, ${settings.burstMs / 1000} s)`,
      value: delays[0],
      unit: 'ms',
      budget: { op: '<=', limit: settings.burstMs },
      note: `delays of the reads from the one after the burst on: ${delays.map((d) => `${d / 1000} s`).join(', ')}`,
    });
    report.add('history', {
      name: 'Delay of the read after the first window no longer full (back to the background cadence)',
      value: delays[1],
      unit: 'ms',
      budget: { op: '==', limit: settings.backgroundMs },
    });
  } finally {
    rig.dispose();
    ledger.dispose();
    await client.dispose();
    await emulator.close();
  }
}

/** "a–b" runs of consecutive sequences. */
function range(xs: readonly number[]): string {
  if (xs.length === 0) return 'none';
  const parts: string[] = [];
  let start = xs[0];
  let prev = xs[0];
  for (const x of [...xs.slice(1), NaN]) {
    if (x === prev + 1) {
      prev = x;
      continue;
    }
    parts.push(start === prev ? String(start) : `${start}–${prev}`);
    start = x;
    prev = x;
  }
  return parts.join(', ');
}
