// Stale reads, on the poller's virtual clock with real HTTP, against the emulator's stale-read
// habits (test/emulator/staleReads.ts): a deployed service may answer a read from a copy of the
// run that lags behind what it accepted. The product's own pipeline (client, Poller, RunLedger,
// RunReader/applyRead, afterPost; test/faults/support/pipeline.ts) follows the run, and every
// verdict is the ledger's own notion of a run's state (`runState`).
//
// 1. A follow-up on a finished run is accepted, and for a while reads already hold its prompt
//    but still carry the previous turn's completion. The prompt arriving proves the follow-up
//    arrived, not that its turn ended: the run must not count as finished, polling must go on
//    until the turn's real end is read, and the follow-up is POSTed once.
// 2. Reads come from a replica a few poll intervals behind (every read, or every other one
//    behind a load balancer): the shown status never goes backwards and the final state is read.
//
// Both clocks move together one second at a time: the emulator's (the run progresses) and the
// poller's (reads happen); both start at 2026-01-01T00:00:00Z, so their timestamps agree.
import * as assert from 'node:assert/strict';
import { isTerminalStatus, type StartAgentRequest } from '../../../src/api/types';
import type { LedgerEntry } from '../../../src/run/common/ledger/ledger';
import { runState } from '../../../src/run/common/ledger/runState';
import { afterPost } from '../../../src/run/afterPost';
import type { Emulator } from '../../emulator/index';
import { ApiCaller, type Json } from '../../emulator/testing';
import { scenario, type Scenario } from '../registry';
import { admin, requests, useEmulator } from '../support/emulatorFixture';
import { Pipeline } from '../support/pipeline';

const SECOND = 1_000;
/**
 * How long reads keep the previous completion after the follow-up. Longer than the poller's
 * burst after a POST (15 s), inside which a finished read never stops a re-opened run: past it,
 * only the ledger's verdict keeps the run followed, and that verdict is what is tested.
 */
const FOLLOW_UP_LAG_MS = 30 * SECOND;
/** The panel is open: one read every 2 s; the replica is 3 such intervals behind. */
const PANEL_POLL_MS = 2 * SECOND;
const REPLICA_LAG_MS = 3 * PANEL_POLL_MS;

interface Stored {
  status: string;
  completedAt?: number;
  history: { sequence: number; role: string; content: string }[];
}

/** The run as the emulator really holds it (the admin view is never stale). */
async function stored(e: Emulator, id: string): Promise<Stored> {
  return (await admin(e, 'GET', `/agents/${encodeURIComponent(id)}`)) as Stored;
}

async function emulatorNow(e: Emulator): Promise<number> {
  return ((await admin(e, 'GET', '/clock')) as { now: number }).now;
}

/** Starts a run through the real client and afterPost, as the launch flow does, with its panel open. */
async function start(p: Pipeline, prompt: string): Promise<string> {
  const request: StartAgentRequest = { appId: 'app_todo', prompt, model: 'hosted/fast' };
  const run = await p.client.startAgent(request);
  afterPost(p.ledger, p.poller, { kind: 'start', run, request }, p.clock.now());
  p.poller.setPanelOpen(run.agentId, true);
  return run.agentId;
}

function record(p: Pipeline, id: string): LedgerEntry {
  const r = p.ledger.get(id);
  assert.ok(r, `run ${id} is not in the ledger`);
  return r;
}

/** One second on both clocks: the emulator's first (the run moves), then the poller's (it reads). */
async function tick(e: Emulator, p: Pipeline): Promise<void> {
  await e.advance(SECOND);
  await p.runFor(SECOND);
}

async function tickUntil(e: Emulator, p: Pipeline, what: string, probe: () => boolean, maxMs: number): Promise<void> {
  for (let waited = 0; !probe(); waited += SECOND) {
    if (waited >= maxMs) {
      throw new Error(`${what} did not happen within ${maxMs / SECOND} s`);
    }
    await tick(e, p);
  }
}

/** The transcript holds a reply (any role but `user`) after the prompt. */
function replyAfter(p: Pipeline, id: string, prompt: string): boolean {
  const entries = p.transcripts.get(id).snapshot().entries;
  const at = entries.findIndex((x) => x.message.role === 'user' && x.message.content === prompt);
  return at >= 0 && entries.slice(at + 1).some((x) => x.message.role !== 'user');
}

function countFollowUpPosts(s: Scenario, e: Emulator, id: string, problems: string[]): void {
  const posts = requests(e, 'POST', new RegExp(`/agents/${id}/messages$`)).length;
  s.duplicatePosts(posts - 1, 'follow-up POSTs for one Send');
  if (posts !== 1) problems.push(`(c) ${posts} follow-up POSTs reached the service, expected exactly 1`);
}

describe('faults: stale reads (a copy of the run that lags behind the service)', function () {
  this.timeout(120_000);
  const emu = useEmulator();

  scenario('stale-reads', `a follow-up on a finished run whose reads hold its prompt but the last completion for ${FOLLOW_UP_LAG_MS / SECOND} s: not finished meanwhile, followed until its turn's end is read, POSTed once`, async (s) => {
    const e = emu();
    await admin(e, 'PATCH', '/settings', { staleStatusAfterFollowUpMs: FOLLOW_UP_LAG_MS });
    const p = new Pipeline({ baseUrl: e.baseUrl, token: e.tokens.default });
    const problems: string[] = [];
    try {
      const id = await start(p, 'Write the release notes');
      await tickUntil(e, p, 'the first turn to finish', () => runState(record(p, id)).finished, 60 * SECOND);
      const first = { ...record(p, id) };
      assert.equal(first.completedAt, (await stored(e, id)).completedAt, 'harness: the first completion was read');
      assert.equal(p.poller.isTracked(id), false, 'harness: a finished run is no longer polled');
      assert.equal(await emulatorNow(e), p.clock.now(), 'harness: the two clocks agree');

      // The person sends a follow-up from the panel; the service acknowledges it.
      const prompt = 'Also add the migration guide';
      const ack = await p.client.sendFollowUp(id, { prompt });
      p.followedUp(id, prompt, ack.status);
      const readsBefore = p.readsOf(id).length;

      // Harness: a read now (outside the pipeline) is the stale read under test: the prompt, then nothing, and the last completion.
      const served = await new ApiCaller(e, e.tokens.default).agent(id);
      const lastMessage = (served.history as Json[]).at(-1);
      assert.deepEqual([served.status, served.completedAt, lastMessage?.role, lastMessage?.content], ['completed', first.completedAt, 'user', prompt], 'harness: the read is stale');
      assert.equal((await stored(e, id)).status, 'queued', 'harness: the service took the follow-up');

      let finishedWhileStale: string | undefined;
      let stoppedAt: number | undefined;
      let staleReads = 0;
      for (let t = SECOND; t <= FOLLOW_UP_LAG_MS + 30 * SECOND; t += SECOND) {
        const readsBeforeStep = p.readsOf(id).length;
        await tick(e, p);
        const r = record(p, id);
        const state = runState(r);
        // Reads in this step were answered t after the follow-up was accepted (the clocks agree).
        const stale = t < FOLLOW_UP_LAG_MS;
        const read = p.readsOf(id).length > readsBeforeStep;
        if (stale && read) {
          staleReads++;
          if ((state.finished || isTerminalStatus(state.status)) && finishedWhileStale === undefined) {
            const completion = r.completedAt === first.completedAt ? 'the previous turn\'s' : String(r.completedAt);
            finishedWhileStale = `+${t / SECOND} s: ${state.finished ? 'finished' : 'not finished'}, shown ${state.status} (completedAt ${completion}) after a read that held the prompt but the last completion`;
          }
        }
        const newCompletion = r.completedAt !== undefined && r.completedAt !== first.completedAt;
        if (!p.poller.isTracked(id) && !newCompletion && stoppedAt === undefined) {
          stoppedAt = t;
        }
      }
      if (finishedWhileStale !== undefined) problems.push(`(a) ${finishedWhileStale}`);
      if (stoppedAt !== undefined) problems.push(`(b) polling stopped at +${stoppedAt / SECOND} s, before the follow-up's turn was read to its end`);

      const truth = await stored(e, id);
      const final = record(p, id);
      assert.equal(truth.status, 'completed', 'harness: the follow-up\'s turn has ended on the service');
      assert.ok(truth.completedAt !== undefined && truth.completedAt > (first.completedAt ?? 0), 'harness: with a new completedAt');
      if (final.completedAt !== truth.completedAt) {
        problems.push(`(b) the ledger holds completedAt ${final.completedAt === first.completedAt ? 'of the previous turn' : String(final.completedAt)}, not the follow-up turn's ${truth.completedAt}`);
      }
      if (!replyAfter(p, id, prompt)) problems.push('(b) the transcript has no reply after the follow-up\'s prompt');
      if (!runState(final).finished) problems.push('(b) the run is not finished after its follow-up turn ended');
      if (p.finishedNotices.length !== 2) problems.push(`(b) ${p.finishedNotices.length} "finished" notice(s), expected one per turn (2)`);
      countFollowUpPosts(s, e, id, problems);
      s.note(`${p.readsOf(id).length - readsBefore} reads after the follow-up, ${staleReads} of them stale; polling ${stoppedAt === undefined ? 'went on' : `stopped at +${stoppedAt / SECOND} s`}`);
      p.check(s);
      if (problems.length > 0) assert.fail(problems.join('\n'));
    } finally {
      await p.dispose();
    }
  });

  for (const replica of [
    { every: 1, what: 'every read from a replica' },
    { every: 2, what: 'reads alternating between the primary and a replica' },
  ]) {
    scenario('stale-reads', `${replica.what} ${REPLICA_LAG_MS / PANEL_POLL_MS} poll intervals behind, through a run and a follow-up: the shown status never goes backwards, the final state is read`, async (s) => {
      const e = emu();
      await admin(e, 'PATCH', '/settings', { staleReadMs: REPLICA_LAG_MS, staleReadEvery: replica.every });
      const p = new Pipeline({ baseUrl: e.baseUrl, token: e.tokens.default, settings: { panelMs: PANEL_POLL_MS } });
      const problems: string[] = [];
      const shown: string[] = [];
      const epoch = p.clock.now();
      // Within a turn a status only moves forward; leaving a finished state takes an acknowledged follow-up, once.
      const rank = (x: { status: string; finished: boolean }): number => (x.finished ? 2 : x.status === 'running' ? 1 : 0);
      const label = (x: { status: string; finished: boolean }): string => `${x.status}${x.finished ? ' (finished)' : ''}`;
      let last: { status: string; finished: boolean } | undefined;
      let reopenAllowed = false;
      let id = '';
      // Every change of the ledger, not only the state after each second: a status shown for one read counts.
      const observe = (): void => {
        const r = id === '' ? undefined : p.ledger.get(id);
        if (!r) return;
        const now = runState(r);
        if (last !== undefined && label(now) === label(last)) return;
        const at = `+${(p.clock.now() - epoch) / SECOND} s`;
        shown.push(`${at} ${label(now)}`);
        if (last !== undefined) {
          const reopening = last.finished && !now.finished;
          if (reopening && reopenAllowed) reopenAllowed = false;
          else if (reopening || rank(now) < rank(last)) problems.push(`${at}: the shown status went back from ${label(last)} to ${label(now)}`);
        }
        last = { status: now.status, finished: now.finished };
      };
      const watch = p.ledger.onDidChange(observe);
      try {
        id = await start(p, 'Tidy the todo list');
        observe();
        await tickUntil(e, p, 'the first turn to be read finished', () => runState(record(p, id)).finished && !p.poller.isTracked(id), 90 * SECOND);
        const prompt = 'Now sort it by due date';
        const ack = await p.client.sendFollowUp(id, { prompt });
        reopenAllowed = true;
        p.followedUp(id, prompt, ack.status);
        await tickUntil(e, p, 'the follow-up\'s turn to be read finished', () => runState(record(p, id)).finished && !p.poller.isTracked(id), 120 * SECOND)
          .catch((error: unknown) => problems.push(`the final state: ${error instanceof Error ? error.message : String(error)}`));
        // Time for anything still scheduled to happen, then the verdict on what the ledger holds.
        for (let t = 0; t < 30; t++) await tick(e, p);

        const truth = await stored(e, id);
        const final = record(p, id);
        assert.equal(truth.status, 'completed', 'harness: both turns ended on the service');
        if (final.status !== truth.status || final.completedAt !== truth.completedAt) {
          problems.push(`final state: the ledger holds ${final.status} / completedAt ${final.completedAt}, the service ${truth.status} / ${truth.completedAt}`);
        }
        if (!replyAfter(p, id, prompt)) problems.push('final state: the transcript has no reply after the follow-up\'s prompt');
        const have = new Set(p.transcripts.get(id).snapshot().entries.map((x) => x.sequence));
        const lost = truth.history.filter((m) => !have.has(m.sequence));
        s.lostMessages(lost.length, `sequences ${lost.map((m) => m.sequence).join(', ')} of ${truth.history.length}`);
        countFollowUpPosts(s, e, id, problems);
        s.note(`shown: ${shown.join(' → ')}; ${p.readsOf(id).length} reads`);
        p.check(s);
        if (problems.length > 0) assert.fail(problems.join('\n'));
      } finally {
        watch.dispose();
        await p.dispose();
      }
    });
  }
});
