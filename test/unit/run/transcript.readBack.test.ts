import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent, AgentMessage } from '../../../src/api/types';
import { RunLedger } from '../../../src/run/common/ledger/ledger';
import { Poller } from '../../../src/run/common/polling/poller';
import { RunReader, applyRead, type ReadClient } from '../../../src/run/common/polling/runReads';
import { HistoryWindows } from '../../../src/run/common/polling/historyWindow';
import { TranscriptFiles } from '../../../src/run/common/transcript/transcriptFiles';
import { VirtualClock } from '../../faults/support/virtualClock';
import { BASE, range } from '../fixtures/transcriptMessages';
import { MemoryStore } from '../fixtures/memoryStore';

const log = { info: () => undefined, warn: () => undefined };
const RUN = 'run-1';

/** A capped service over `written`: the newest `limit` (20 unless asked, at most 500). */
function service(written: AgentMessage[], asked: (number | undefined)[]): ReadClient {
  return {
    baseUrl: BASE,
    getSchemaInfo: () => Promise.resolve({ models: [], fingerprint: 'f', historyLimit: { name: 'historyLimit', defaultLimit: 20, maximum: 500 } }),
    getAgent: (agentId, options) => {
      asked.push(options?.history?.limit);
      const agent: Agent = { agentId, status: 'running', history: written.slice(-Math.min(options?.history?.limit ?? 20, 500)) };
      return Promise.resolve(agent);
    },
  };
}

describe('transcript files: reading back what the journal lacks, with no panel open', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-runs-readback-'));
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('journal up to 10, run list up to 50, service at 55: three background reads fill the 36 the service still returns, no gap', async () => {
    // The last session: its journal got messages 1-10 written, its run list saw up to 50.
    const before = new TranscriptFiles({ fsPath: root }, log, BASE, { saveDelayMs: 60_000 });
    before.merge(RUN, range(1, 11));
    await before.flush();
    before.dispose();
    const ledger = new RunLedger(new MemoryStore(), BASE);
    ledger.upsert({ agentId: RUN, source: 'started', status: 'running', lastSequence: 50 });

    const written = range(1, 56);
    const asked: (number | undefined)[] = [];
    const client = service(written, asked);
    const files = new TranscriptFiles({ fsPath: root }, log, BASE, { saveDelayMs: 60_000 });
    const reader = new RunReader({ windows: () => new HistoryWindows(),
      lastSequence: (id) => ledger.get(id)?.lastSequence,
      resumeAfter: (id) => files.resumeAfter(id),
      resumed: (id) => files.resumed(id),
    });
    const clock = new VirtualClock();
    let reads = 0;
    let inFlight = 0;
    const poller = new Poller({
      clock,
      random: () => 0,
      fetchRun: async (id) => {
        inFlight++;
        try {
          return await reader.read(client, id);
        } finally {
          inFlight--;
        }
      },
      onResult: (id, agent) => {
        reads++;
        return applyRead(ledger, id, agent, { viewing: false, now: clock.now(), merge: (runId, history) => files.merge(runId, history), finished: () => undefined });
      },
      onError: () => undefined,
      onUnauthorized: () => undefined,
    });
    const settle = async (): Promise<void> => {
      while (inFlight > 0) await new Promise((r) => setTimeout(r, 1));
      // What the save timer would do between two background reads (seconds apart).
      await files.flush();
    };
    try {
      poller.track(RUN);
      while (reads < 3) {
        await clock.advance(5_000, settle);
      }
      await settle();
      const t = await files.load(RUN);
      const have = new Set(t.snapshot().entries.map((e) => e.sequence));
      const lost = written.filter((m) => !have.has(m.sequence)).map((m) => m.sequence);
      assert.deepEqual(lost, [], `windows asked: ${asked.join(', ')}`);
      assert.equal(t.snapshotInfo().missingMessageCount, 0);
      assert.equal(t.snapshotInfo().earlierMessagesUnavailable, false);
    } finally {
      poller.dispose();
      files.dispose();
    }
  });
});
