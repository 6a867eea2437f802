// Capped histories and stale reads, on the poller's virtual clock with real HTTP: a run that
// writes more between two polls than the service's default window loses nothing; a follow-up
// on a finished run is not taken for a completion while reads still show the last turn.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentMessage } from '../../../src/api/types';
import { scenario } from '../registry';
import type { Emulator } from '../../emulator/index';
import { admin, requests, startRun, useEmulator } from '../support/emulatorFixture';
import { Pipeline } from '../support/pipeline';
import { runState, type LedgerEntry } from '../../../src/run/common/ledger/ledger';

const SECOND = 1_000;

/** A real deployment's caps: 20 messages unless asked, never more than 500. */
const CAPPED = { historyDefault: 20, historyMax: 500 };

describe('faults: capped histories and stale reads', function () {
  this.timeout(120_000);
  const emu = useEmulator();

  scenario('histories', 'a run writes up to 150 messages between two polls of its open panel (default window 20): messages lost between polls = 0', async (s) => {
    const e = emu();
    await admin(e, 'PATCH', '/settings', CAPPED);
    const id = await startRun(e, 'many');
    const p = new Pipeline({ baseUrl: e.baseUrl, token: e.tokens.default });
    try {
      p.poller.setPanelOpen(id, true);
      p.follow(id);
      await p.runFor(SECOND);
      let written = 0;
      // Between two panel polls (2 s): nothing, a few, more than the default, far more.
      for (const burst of [0, 3, 25, 0, 60, 1, 150, 40, 0, 90, 2, 130]) {
        for (let i = 0; i < burst; i++, written++) {
          await admin(e, 'POST', `/agents/${id}/messages`, i % 3 === 0
            ? { role: 'tool', content: `output ${written}`, toolName: 'run_command', toolParameters: { command: `step ${written}` } }
            : { role: 'assistant', content: `message ${written}` });
        }
        await p.runFor(2 * SECOND);
      }
      const whole = (await admin(e, 'GET', `/agents/${id}`)) as { history: AgentMessage[] };
      const have = new Set(p.transcripts.get(id).snapshot().entries.map((x) => x.sequence));
      const lost = whole.history.filter((m) => !have.has(m.sequence));
      s.lostMessages(lost.length, `sequences ${lost.slice(0, 10).map((m) => m.sequence).join(', ')}${lost.length > 10 ? ', ...' : ''} of ${whole.history.length}`);
      s.note(`${written} messages written, ${whole.history.length} in the run, ${p.reads.length} reads`);
      assert.equal(p.transcripts.get(id).snapshotInfo().earlierMessagesUnavailable, false, 'a gap the client could fill is reported');
      for (const text of p.store.writes) {
        s.sink('persisted ledger', text);
      }
    } finally {
      await p.dispose();
    }
  });

  scenario('histories', 'the window closed after the run list was saved and before the transcript was: the next session reads back what the saved transcript lacks (messages lost = 0)', async (s) => {
    const e = emu();
    await admin(e, 'PATCH', '/settings', CAPPED);
    const id = await startRun(e, 'a long run');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-runs-resume-'));
    const newest = (p: Pipeline): number => Math.max(...p.transcripts.get(id).snapshot().entries.map((x) => x.sequence ?? -1));
    try {
      const first = new Pipeline({ baseUrl: e.baseUrl, token: e.tokens.default, journalDir: dir });
      let saved: number;
      let seen: number | undefined;
      try {
        first.files!.setInUse(id, true);
        first.poller.setPanelOpen(id, true);
        first.follow(id);
        await writeMessages(e, id, 10, 0);
        await first.runFor(4 * SECOND);
        await first.files!.flush();
        saved = newest(first);
        // The journal's writer is gone (the window is closing); the run list is still saved.
        first.files!.dispose();
        for (let round = 0; round < 4; round++) {
          await writeMessages(e, id, 30, 10 + round * 30);
          await first.runFor(2 * SECOND);
        }
        seen = first.ledger.get(id)?.lastSequence;
        assert.ok(seen !== undefined && seen >= saved + 120, `the run list saw ${seen}, the journal holds up to ${saved}`);
      } finally {
        await first.dispose();
      }
      // The run goes on while no window is open; then the window comes back with its panel.
      await writeMessages(e, id, 3, 130);
      const readsBefore = requests(e, 'GET', /\/agents\/[^/?]+(?:\?|$)/).length;
      const second = new Pipeline({ baseUrl: e.baseUrl, token: e.tokens.default, journalDir: dir, store: first.store });
      try {
        second.files!.setInUse(id, true);
        // The journal is read in milliseconds, polls come seconds apart: on virtual time, wait for it.
        await second.files!.load(id);
        second.poller.setPanelOpen(id, true);
        second.poller.track(id);
        await second.runFor(6 * SECOND);
        const whole = (await admin(e, 'GET', `/agents/${id}`)) as { history: AgentMessage[] };
        const have = new Set(second.transcripts.get(id).snapshot().entries.map((x) => x.sequence));
        const lost = whole.history.filter((m) => !have.has(m.sequence));
        s.lostMessages(lost.length, `sequences ${lost.slice(0, 10).map((m) => m.sequence).join(', ')}${lost.length > 10 ? ', ...' : ''} of ${whole.history.length} (journal up to ${saved}, run list up to ${seen})`);
        assert.equal(second.transcripts.get(id).snapshotInfo().earlierMessagesUnavailable, false, 'a gap the client could fill is reported');
        const windows = requests(e, 'GET', /\/agents\/[^/?]+(?:\?|$)/).slice(readsBefore).map((r) => /historyLimit=(\d+)/.exec(r.path)?.[1] ?? '-');
        s.note(`journal up to ${saved}, run list up to ${seen}, ${whole.history.length} messages; windows of the next session's reads: ${windows.join(', ')}`);
        second.check(s);
      } finally {
        await second.dispose();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  scenario('responses', 'a follow-up on a finished run: reads that still say completed are no completion; one notice per turn', async (s) => {
    const e = emu();
    const id = await startRun(e, 'first turn');
    await admin(e, 'PATCH', `/agents/${id}`, { status: 'completed', completedAt: 'now', updatedAt: 'now' });
    const p = new Pipeline({ baseUrl: e.baseUrl, token: e.tokens.default });
    try {
      p.follow(id);
      await p.runUntil('the first completion', () => p.finishedNotices.length === 1, 30 * SECOND);
      assert.equal(p.poller.isTracked(id), false);
      // Acknowledged, but the service does not show the new turn yet: every read is stale.
      p.followedUp(id, 'second turn', 'queued');
      const from = p.reads.length;
      await p.runFor(60 * SECOND);
      assert.equal(p.finishedNotices.length, 1, 'a stale read was announced as a completion');
      assert.equal(p.poller.isTracked(id), true, 'polling stopped on a stale read');
      assert.equal(p.ledger.active().length, 1, 'the run is active again');
      assert.ok(p.reads.length - from >= 10, `kept reading (${p.reads.length - from} reads)`);
      // Now the service takes the turn (the same prompt, as the extension sent it) and ends it.
      await p.client.sendFollowUp(id, { prompt: 'second turn' });
      await e.advance(1_000);
      await p.runUntil('the follow-up to show', () => shown(p.ledger.get(id)), 60 * SECOND);
      for (let i = 0; i < 10; i++) {
        await e.advance(1_000);
      }
      await p.runUntil('the second completion', () => p.finishedNotices.length === 2, 120 * SECOND);
      await p.runFor(60 * SECOND);
      assert.equal(p.finishedNotices.length, 2);
      assert.equal(p.poller.isTracked(id), false);
      s.note(`${p.reads.length} reads in all`);
    } finally {
      await p.dispose();
    }
  });
});

async function writeMessages(e: Emulator, id: string, count: number, from: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await admin(e, 'POST', `/agents/${id}/messages`, { role: 'assistant', content: `message ${from + i}` });
  }
}

/** The acknowledged follow-up shows in a read (arrived), or its turn was already read as ended. */
function shown(r: LedgerEntry | undefined): boolean {
  const followUp = r ? runState(r).followUp : undefined;
  return r !== undefined && (followUp === undefined || followUp.arrived);
}
