import * as assert from 'node:assert/strict';
import * as FakeTimers from '@sinonjs/fake-timers';
import type { AgentRunsApi } from '../../../src/api/contract';
import { ApiError, type ApiErrorKind } from '../../../src/api/errors';
import type { Agent, AgentMessage, FollowUpAck } from '../../../src/api/types';
import { plainL10n } from '../../../src/base/common/l10n';
import { RunLedger, runState } from '../../../src/run/common/ledger/ledger';
import { Poller, type Clock } from '../../../src/run/common/polling/poller';
import { applyRead } from '../../../src/run/common/polling/runReads';
import { describeFollowUpFailure, FOLLOW_UP_SENDS_KEY, FollowUpSends, UNCERTAIN_READ_MS, type SendMemento } from '../../../src/run/followUpSends';
import { Sender } from '../../../src/run/sender';
import * as sendPosts from '../../../src/run/sendPosts';
import { UnconfirmedStarts } from '../../../src/run/unconfirmedStarts';
import { MemoryStore } from '../fixtures/memoryStore';

function memento(initial: Record<string, unknown> = {}): SendMemento & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>(Object.entries(initial));
  return {
    data,
    get: <T>(key: string): T | undefined => data.get(key) as T | undefined,
    update: (key: string, value: unknown) => {
      if (value === undefined) {
        data.delete(key);
      } else {
        data.set(key, JSON.parse(JSON.stringify(value)));
      }
      return Promise.resolve();
    },
  };
}

function apiError(kind: ApiErrorKind, extra: Partial<{ status: number; mayHaveReachedServer: boolean }> = {}): ApiError {
  return new ApiError({ kind, message: `${kind} happened.`, mayHaveReachedServer: true, ...extra });
}

/** A POST the test answers when it wants, counting calls. */
class Post {
  calls = 0;
  private settle: ((e?: Error) => void) | undefined;
  readonly fn = (): Promise<FollowUpAck> => {
    this.calls++;
    return new Promise<FollowUpAck>((resolve, reject) => {
      this.settle = (e) => (e === undefined ? resolve({ agentId: 'r1', status: 'queued' }) : reject(e));
    });
  };
  answer(error?: Error): void {
    this.settle?.(error);
  }
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('follow-up sends: one POST per follow-up, whatever the page, box or button does', () => {
  it('a second send while one is under way (double click, Enter twice, tree button) sends nothing', async () => {
    const sends = new FollowUpSends(memento(), () => 1_000);
    const post = new Post();
    const first = sends.send('r1', { prompt: 'go on' }, post.fn);
    const second = await sends.send('r1', { prompt: 'go on' }, post.fn);
    assert.deepEqual(second, { kind: 'busy', send: { state: 'sending', prompt: 'go on', since: 1_000 } });
    // A deliberate resend is only for a send that may have arrived, not for one under way.
    assert.equal((await sends.send('r1', { prompt: 'go on' }, post.fn, { resend: true })).kind, 'busy');
    assert.equal(post.calls, 1);
    post.answer();
    assert.equal((await first).kind, 'sent');
    assert.equal(sends.get('r1'), undefined, 'the run is free again after the acknowledgement');
  });

  it('the state outlives the page: whoever asks during the POST sees "sending", and hears when it ends', async () => {
    const sends = new FollowUpSends(memento(), () => 5);
    const heard: string[] = [];
    sends.onDidChange((id) => heard.push(`${id}:${sends.get(id)?.state ?? 'idle'}`));
    const post = new Post();
    const sending = sends.send('r1', { prompt: 'p' }, post.fn);
    assert.equal(sends.get('r1')?.state, 'sending');
    assert.equal(sends.get('other'), undefined);
    post.answer();
    await sending;
    assert.deepEqual(heard, ['r1:sending', 'r1:idle']);
  });

  it('a reload mid-POST leaves an "uncertain" send: nothing resends it, the history settles it', async () => {
    const state = memento();
    let now = 10_000;
    const before = new FollowUpSends(state, () => now);
    const post = new Post();
    void before.send('r1', { prompt: 'Also fix the footer', permission: 'allow_edits' }, post.fn, { knownIds: ['old'], afterSequence: 7, before: { completedAt: 9_000, updatedAt: 9_500 } });
    await tick();
    // The window reloads: the POST's answer is lost with the old extension host.
    now = 20_000;
    const after = new FollowUpSends(state, () => now);
    assert.deepEqual(after.get('r1'), { state: 'uncertain', prompt: 'Also fix the footer', since: 10_000 });
    assert.deepEqual(after.uncertain(), ['r1']);
    const again = new Post();
    assert.equal((await after.send('r1', { prompt: 'Also fix the footer' }, again.fn)).kind, 'busy');
    assert.equal(again.calls, 0);
    // Reads that do not show it keep it uncertain: a message with the same text known at the
    // send, one at or before the newest sequence known then, another role, other text.
    assert.equal(after.observe('r1', [
      { id: 'old', sequence: 9, role: 'user', content: 'Also fix the footer', createdAt: 10_500 },
      { id: 'm0', sequence: 7, role: 'user', content: 'Also fix the footer', createdAt: 10_000 },
      { id: 'm1', sequence: 10, role: 'assistant', content: 'Also fix the footer', createdAt: 11_000 },
      { id: 'm2', sequence: 11, role: 'user', content: 'Something else', createdAt: 11_000 },
    ]), undefined);
    assert.equal(after.get('r1')?.state, 'uncertain');
    // The service's clock plays no part: a prompt stamped an hour before the send still counts.
    assert.deepEqual(after.observe('r1', [{ id: 'm3', sequence: 12, role: 'user', content: 'Also fix the footer\n', createdAt: 10_000 - 3_600_000 }]),
      // With what the run was when it was sent (kept across the reload): its act must move past that, not past the run as it is when found.
      { prompt: 'Also fix the footer', sequence: 12, before: { completedAt: 9_000, lastSequence: 7, updatedAt: 9_500 }, permission: 'allow_edits', permittedBranches: undefined });
    assert.equal(after.get('r1'), undefined);
    assert.equal(state.data.has(FOLLOW_UP_SENDS_KEY), false, 'nothing left in storage');
  });

  it('only the person resends an uncertain follow-up, with what was sent; discard gives the text back', async () => {
    const sends = new FollowUpSends(memento({ [FOLLOW_UP_SENDS_KEY]: { r1: { state: 'uncertain', prompt: 'p', since: 1, permission: 'allow_edits', permittedBranches: ['main'] }, r2: { state: 'uncertain', prompt: 'q', since: 2 } } }));
    assert.deepEqual(sends.input('r1'), { prompt: 'p', permission: 'allow_edits', permittedBranches: ['main'] });
    const post = new Post();
    const resent = sends.send('r1', { prompt: 'p' }, post.fn, { resend: true });
    assert.equal(sends.get('r1')?.state, 'sending');
    post.answer();
    assert.equal((await resent).kind, 'sent');
    assert.equal(post.calls, 1);
    assert.equal(sends.discard('r2'), 'q');
    assert.equal(sends.get('r2'), undefined);
    assert.equal(sends.discard('r2'), undefined);
  });

  for (const c of [
    { title: 'a timeout after the body was sent', error: apiError('timeout'), uncertain: true },
    { title: 'a connection cut after the body was sent', error: apiError('network'), uncertain: true },
    { title: 'a 502 from a proxy', error: apiError('server', { status: 502 }), uncertain: true },
    { title: 'an aborted request', error: apiError('aborted'), uncertain: true },
    { title: 'a refused connection', error: apiError('network', { mayHaveReachedServer: false }), uncertain: false },
    { title: 'a 402', error: apiError('insufficient_credits', { status: 402 }), uncertain: false },
    { title: 'a 401', error: apiError('unauthorized', { status: 401 }), uncertain: false },
  ]) {
    it(`${c.title}: ${c.uncertain ? 'kept as "may have arrived", never offered as a bare Retry' : 'the run is free again, Retry offered'}`, async () => {
      const sends = new FollowUpSends(memento());
      const post = new Post();
      const sending = sends.send('r1', { prompt: 'p' }, post.fn);
      post.answer(c.error);
      const outcome = await sending;
      assert.equal(outcome.kind, 'failed');
      assert.equal(outcome.kind === 'failed' && outcome.mayHaveArrived, c.uncertain);
      assert.equal(sends.get('r1')?.state, c.uncertain ? 'uncertain' : undefined);
      const failure = describeFollowUpFailure(c.error, c.uncertain, c.error.message, plainL10n);
      if (c.uncertain) {
        assert.deepEqual(failure.actions, ['openRun', 'resend']);
        assert.match(failure.message, /may have reached the service/);
      } else {
        assert.ok(!failure.actions.includes('resend'));
      }
    });
  }

  it('402 insufficient_paid_credits on a follow-up: advice that works there (credits, or a clone on another model)', () => {
    const failure = describeFollowUpFailure(apiError('insufficient_credits', { status: 402 }), false, 'Not enough paid credits for this model (402). Choose a connected-provider model or add credits.', plainL10n);
    assert.equal(failure.actions[0], 'cloneRun');
    assert.match(failure.message, /add credits/);
    assert.match(failure.message, /clone the run/);
    assert.doesNotMatch(failure.message, /Choose a connected-provider model/, 'a follow-up cannot choose a model');
  });

  it('stored entries that make no sense are dropped, never turned into a lock', () => {
    const sends = new FollowUpSends(memento({ [FOLLOW_UP_SENDS_KEY]: { a: { state: 'sending', prompt: '  ', since: 1 }, b: 'x', c: { state: 'done', prompt: 'p', since: 1 }, d: { state: 'uncertain', prompt: 'p' } } }));
    assert.deepEqual(['a', 'b', 'c', 'd'].map((id) => sends.get(id)), [undefined, undefined, undefined, undefined]);
    assert.deepEqual(new FollowUpSends(memento({ [FOLLOW_UP_SENDS_KEY]: [1, 2] })).uncertain(), []);
  });

  it('forget drops the state of a run that left the list', async () => {
    const sends = new FollowUpSends(memento({ [FOLLOW_UP_SENDS_KEY]: { r1: { state: 'uncertain', prompt: 'p', since: 1 } } }));
    sends.forget('r1');
    assert.equal(sends.get('r1'), undefined);
    assert.equal((await sends.send('r1', { prompt: 'p' }, () => Promise.resolve({ agentId: 'r1', status: 'queued' }))).kind, 'sent');
  });
});

// Issue 20: a follow-up to a finished run, cut after its body left; the service took it, but
// its reads show the prompt (and the re-opened run) only after the burst of reads that follows
// the send. The run is read on, the way RunSync wires it (the sender looks first, `awaiting` keeps
// a finished read from ending the following), until the prompt shows or UNCERTAIN_READ_MS passed.
describe('follow-up sends: a prompt that shows late is still found', () => {
  const ID = 'r1';
  const PROMPT = 'Also fix the footer';

  function rig(showsAfterMs: number) {
    const fake = FakeTimers.createClock(Date.UTC(2026, 5, 1)) as FakeTimers.NodeClock;
    const clock: Clock = {
      now: () => fake.now,
      setTimeout: (fn, ms) => fake.setTimeout(fn, ms),
      clearTimeout: (handle) => fake.clearTimeout(handle as FakeTimers.NodeTimer),
    };
    const store = new MemoryStore();
    const ledger = new RunLedger(store, 'https://svc.example/api/public/v1');
    const sends = new FollowUpSends(store, () => fake.now);
    let sentAt = Infinity;
    const reads: number[] = [];
    // The service, its clock an hour behind ours: finished; the follow-up shows `showsAfterMs` after it was sent.
    const service = (): Agent => {
      const shown = fake.now >= sentAt + showsAfterMs;
      const history: AgentMessage[] = [
        { id: 'm1', sequence: 1, role: 'user', content: 'Write the notes', createdAt: 1_000 },
        { id: 'm2', sequence: 2, role: 'assistant', content: 'Done.', createdAt: 2_000 },
      ];
      if (shown) history.push({ id: 'm3', sequence: 3, role: 'user', content: PROMPT, createdAt: sentAt - 3_600_000 });
      return { agentId: ID, status: shown ? 'running' : 'completed', ...(shown ? {} : { completedAt: 2_000 }), updatedAt: shown ? sentAt - 3_600_000 : 2_000, history };
    };
    const client = {
      baseUrl: 'https://svc.example/api/public/v1',
      sendFollowUp: (): Promise<FollowUpAck> => Promise.reject(apiError('network')),
    } as unknown as AgentRunsApi;
    const poller: Poller = new Poller({
      clock,
      random: () => 0,
      fetchRun: () => {
        reads.push(fake.now);
        return Promise.resolve(service());
      },
      onResult: (id, agent) => {
        sender.observeRead(id, agent);
        return applyRead(ledger, id, agent, { viewing: false, now: fake.now, merge: () => undefined, finished: () => undefined, awaiting: sends.awaiting(id) });
      },
      onError: () => undefined,
      onUnauthorized: () => undefined,
    });
    const sender: Sender = new Sender({
      client: () => Promise.resolve(client),
      ledger: () => ledger,
      poller,
      starts: new UnconfirmedStarts(store, () => fake.now),
      sends, targetState: store,
      log: { info: () => undefined, warn: () => undefined },
      now: () => fake.now,
    }, () => sendPosts);
    ledger.upsert({ agentId: ID, source: 'started', status: 'queued' }, fake.now);
    applyRead(ledger, ID, service(), { viewing: false, now: fake.now, merge: () => undefined, finished: () => undefined });
    const send = async (): Promise<void> => {
      sentAt = fake.now;
      const r = await sender.followUp(ID, { prompt: PROMPT }, { from: 'panel', quiet: true });
      assert.equal(r.kind === 'failed' && r.mayHaveArrived, true);
    };
    return { fake, ledger, sends, poller, reads, send, sentAt: () => sentAt };
  }

  it('shown 2 minutes after the send (the burst of reads long over): the run was still read, and the send is settled then', async () => {
    const r = rig(2 * 60_000);
    assert.equal(runState(r.ledger.get(ID) ?? { status: 'queued' }).finished, true);
    await r.send();
    await r.fake.tickAsync(5 * 60_000);
    assert.equal(r.sends.get(ID), undefined, 'still "may have arrived": reads had stopped before the prompt showed');
    assert.equal(runState(r.ledger.get(ID) ?? { status: 'queued' }).followUp?.arrived, true);
    assert.ok(r.reads.some((t) => t >= r.sentAt() + 2 * 60_000), 'read after the prompt showed');
    r.poller.dispose();
  });

  it('never shown: read for UNCERTAIN_READ_MS at the run\'s own cadence, then no more; the send waits for the person', async () => {
    const r = rig(Infinity);
    await r.send();
    await r.fake.tickAsync(UNCERTAIN_READ_MS + 5 * 60_000);
    const after = r.reads.filter((t) => t > r.sentAt());
    const last = Math.max(...after);
    assert.ok(last >= r.sentAt() + UNCERTAIN_READ_MS - 60_000 && last <= r.sentAt() + UNCERTAIN_READ_MS + 60_000, `reads until about ${UNCERTAIN_READ_MS / 60_000} min after the send (last at +${(last - r.sentAt()) / 1000} s)`);
    assert.ok(after.length <= 15 + Math.ceil(UNCERTAIN_READ_MS / 15_000) + 1, `${after.length} reads: the burst, then the background cadence`);
    assert.equal(r.poller.isTracked(ID), false);
    assert.equal(r.sends.get(ID)?.state, 'uncertain');
    assert.equal(r.sends.awaiting(ID), false);
    r.poller.dispose();
  });
});
