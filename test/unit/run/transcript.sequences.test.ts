import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { maxSequence, sequenceCeiling } from '../../../src/api/sequence';
import type { Agent, AgentMessage } from '../../../src/api/types';
import { RunLedger } from '../../../src/run/common/ledger/ledger';
import { RunReader, applyRead, type ReadClient } from '../../../src/run/common/polling/runReads';
import { HistoryWindows } from '../../../src/run/common/polling/historyWindow';
import { Transcript } from '../../../src/run/common/transcript/transcript';
import { TranscriptFiles } from '../../../src/run/common/transcript/transcriptFiles';
import { BASE, message } from '../fixtures/transcriptMessages';
import { MemoryStore } from '../fixtures/memoryStore';

/** The largest safe integer: a number no run reaches. */
const ABSURD = 2 ** 53 - 1;
const log = { info: () => undefined, warn: () => undefined };

/** A run of 30 messages as the service returns them: 1…29, and the 16th written carries 2^53−1. */
function thirty(): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (let s = 1; s <= 29; s++) {
    out.push(message(s));
    if (s === 15) out.push(message(ABSURD, { id: 'odd', content: 'a message with a confused number', createdAt: message(15).createdAt! + 500 }));
  }
  return out;
}

describe('transcript: a sequence no run could reach', () => {
  it('the ceiling leaves a lone outlier out, and a run that moved far between two reads in', () => {
    const seqs = thirty().map((m) => m.sequence!);
    assert.ok(sequenceCeiling(seqs) < ABSURD);
    assert.equal(maxSequence(thirty()), 29);
    assert.equal(maxSequence([message(29), message(ABSURD)], 29), 29, 'a window of two: the number known before is the base');
    const far = Array.from({ length: 500 }, (_, i) => message(19_601 + i));
    assert.equal(maxSequence(far, 100), 20_100, 'a run 20,000 messages further on, read in a full window');
    const spaced = Array.from({ length: 100 }, (_, i) => message(1_700_000_000_000 + i * 7_000));
    assert.equal(maxSequence(spaced), spaced[99].sequence, 'sequences far apart: the step is the read\'s own');
  });

  it('keeps all 30 messages, claims no gap, and shows the odd one where it came; its number counts for nothing', () => {
    const t = new Transcript();
    const r = t.merge(thirty());
    assert.equal(t.size, 30);
    assert.equal(r.missingMessageCount, 0);
    assert.equal(r.earlierMessagesUnavailable, false);
    const entries = t.snapshot().entries;
    assert.deepEqual(entries.filter((e) => e.gapBefore !== undefined).map((e) => e.key), []);
    const at = entries.findIndex((e) => e.key === 'id:odd');
    assert.equal(entries[at - 1].message.sequence, 15, 'shown after the message it came after');
    assert.equal(entries[at + 1].message.sequence, 16);
    assert.equal(entries[at].message.sequence, ABSURD, 'the message itself is kept as the service sent it');
    // The run goes on: later messages come after it, nothing changes for it, and no gap appears.
    const next = t.merge([...thirty(), message(30), message(31)]);
    assert.deepEqual(next.added.map((e) => e.sequence), [30, 31]);
    assert.equal(next.changed.length, 0);
    assert.equal(next.missingMessageCount, 0);
    assert.equal(t.snapshot().entries.at(-1)?.sequence, 31);
  });

  it('after a reload from the journal: the same 30, no gap, and the read-back point is the real newest', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-runs-seq-'));
    try {
      const first = new TranscriptFiles({ fsPath: root }, log, BASE, { saveDelayMs: 60_000 });
      first.merge('run-1', thirty());
      await first.flush();
      first.dispose();
      const again = new TranscriptFiles({ fsPath: root }, log, BASE, { saveDelayMs: 60_000 });
      try {
        const t = await again.load('run-1');
        assert.equal(t.size, 30);
        assert.equal(t.snapshotInfo().missingMessageCount, 0);
        assert.equal(t.snapshotInfo().earlierMessagesUnavailable, false);
        assert.equal(again.resumeAfter('run-1'), 29);
        const source = await again.exportSource('run-1');
        assert.equal(source.count, 30);
        assert.equal(source.missingMessageCount, 0, 'the export from the journal claims no gap either');
      } finally {
        again.dispose();
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('followed through windowed reads: every later window still reaches back, and nothing the service returns is lost', async () => {
    // The service: messages in the order written; a read returns the newest `limit` (default 20, at most 500).
    const written = thirty();
    const asked: (number | undefined)[] = [];
    const client: ReadClient = {
      baseUrl: BASE,
      getSchemaInfo: () => Promise.resolve({ models: [], fingerprint: 'f', historyLimit: { name: 'historyLimit', defaultLimit: 20, maximum: 500 } }),
      getAgent: (agentId, options) => {
        const limit = Math.min(options?.history?.limit ?? 20, 500);
        asked.push(options?.history?.limit);
        const agent: Agent = { agentId, status: 'running', history: written.slice(-limit) };
        return Promise.resolve(agent);
      },
    };
    const ledger = new RunLedger(new MemoryStore(), BASE);
    ledger.upsert({ agentId: 'run-1', source: 'started', status: 'running' });
    const reader = new RunReader({ windows: () => new HistoryWindows(), lastSequence: (id) => ledger.get(id)?.lastSequence });
    const t = new Transcript();
    const poll = async (): Promise<void> => {
      const agent = await reader.read(client, 'run-1');
      applyRead(ledger, 'run-1', agent, { viewing: false, merge: (_id, history) => t.merge(history), finished: () => undefined });
    };
    await poll();
    assert.equal(t.size, 30);
    let next = 30;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 30; i++) written.push(message(next++));
      await poll();
    }
    const have = new Set(t.snapshot().entries.map((e) => e.key));
    const lost = written.filter((m) => !have.has(`id:${m.id}`));
    assert.deepEqual(lost.map((m) => m.sequence), [], `windows asked: ${asked.join(', ')}`);
    assert.equal(ledger.get('run-1')?.lastSequence, next - 1, 'the run list\'s high-water mark is the real newest');
    assert.equal(t.snapshotInfo().missingMessageCount, 0);
  });
});
