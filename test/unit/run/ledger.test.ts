import * as assert from 'node:assert/strict';
import { RunLedger, runState, storageKeyFor, type KeyValueStore, type LedgerChange, type LedgerProblem, type LedgerEntry } from '../../../src/run/common/ledger/ledger';
import type { Agent } from '../../../src/api/types';
import { MemoryStore } from '../fixtures/memoryStore';


const BASE = 'http://127.0.0.1:1/api/public/v1';

function agent(overrides: Partial<Agent> = {}): Agent {
  return { agentId: 'a1', status: 'running', appId: 'app-1', model: 'm', history: [], ...overrides };
}

describe('RunLedger', () => {
  it('persists runs per base URL and restores them', async () => {
    const store = new MemoryStore();
    const l1 = new RunLedger(store, BASE);
    l1.upsert({ agentId: 'a1', source: 'started', status: 'queued', prompt: 'Fix the bug\nplease' }, 1000);
    await l1.flush();
    const other = new RunLedger(store, 'http://127.0.0.1:2/api/public/v1');
    assert.equal(other.all().length, 0);
    const l2 = new RunLedger(store, BASE);
    assert.deepEqual(l2.all().map((r) => [r.agentId, r.prompt, r.source, r.addedAt]), [['a1', 'Fix the bug\nplease', 'started', 1000]]);
  });

  it('lists newest first by creation time, falling back to when it was added', () => {
    const l = new RunLedger(new MemoryStore(), BASE);
    l.upsert({ agentId: 'old', source: 'started', status: 'queued', createdAt: 10 }, 50);
    l.upsert({ agentId: 'new', source: 'started', status: 'queued', createdAt: 30 }, 51);
    l.upsert({ agentId: 'mid', source: 'tracked', status: 'queued' }, 20);
    assert.deepEqual(l.all().map((r) => r.agentId), ['new', 'mid', 'old']);
  });

  it('applyAgent reports status changes, terminal transitions and marks unread when not viewing', () => {
    const l = new RunLedger(new MemoryStore(), BASE);
    l.upsert({ agentId: 'a1', source: 'started', status: 'queued' }, 0);
    const changes: LedgerChange[] = [];
    l.onDidChange((c) => changes.push(c));

    const r1 = l.applyAgent(agent({ status: 'running' }), { now: 1 });
    assert.deepEqual(r1, { changed: true, previousStatus: 'queued', statusChanged: true, becameFinished: false });
    assert.equal(l.get('a1')!.unread, true);

    const r2 = l.applyAgent(agent({ status: 'completed', completedAt: 5 }), { now: 2, viewing: true });
    assert.equal(r2.becameFinished, true);
    assert.equal(l.get('a1')!.unread, false, 'viewing the run clears unread');
    assert.equal(l.get('a1')!.seenAt, 2);
    assert.deepEqual(changes.map((c) => c.agentIds), [['a1'], ['a1']]);
    assert.equal(l.active().length, 0);
  });

  it('an identical read changes nothing the views see', () => {
    const store = new MemoryStore();
    const l = new RunLedger(store, BASE);
    l.applyAgent(agent(), { now: 1 });
    l.markSeen('a1', 1);
    let fired = 0;
    l.onDidChange(() => fired++);
    const r = l.applyAgent(agent(), { now: 2 });
    assert.equal(r.changed, false);
    assert.equal(fired, 0);
    assert.equal(l.get('a1')!.unread, false);
    assert.equal(l.get('a1')!.lastCheckedAt, 2);
  });

  it('keeps unknown status values as they are and never treats them as terminal', () => {
    const l = new RunLedger(new MemoryStore(), BASE);
    l.applyAgent(agent({ status: 'paused_for_review' }), { now: 1 });
    assert.equal(l.get('a1')!.status, 'paused_for_review');
    assert.equal(l.active().length, 1);
  });

  it('a poll error is recorded once and cleared by the next success', () => {
    const l = new RunLedger(new MemoryStore(), BASE);
    l.applyAgent(agent(), { now: 1 });
    let fired = 0;
    l.onDidChange(() => fired++);
    l.recordPollError('a1', 'offline');
    l.recordPollError('a1', 'offline');
    assert.equal(fired, 1);
    l.applyAgent(agent(), { now: 2 });
    assert.equal(l.get('a1')!.pollError, undefined);
    assert.equal(fired, 2, 'clearing the error is a visible change');
  });

  it('takes the prompt of a tracked run from its first user message', () => {
    const l = new RunLedger(new MemoryStore(), BASE);
    l.applyAgent(agent({ history: [{ id: 'm1', sequence: 1, role: 'user', content: 'Add tests' }] }), { now: 1 });
    assert.equal(l.get('a1')!.prompt, 'Add tests');
    assert.equal(l.get('a1')!.source, 'tracked');
  });

  it('clearFinished removes only completed and error runs', () => {
    const l = new RunLedger(new MemoryStore(), BASE);
    l.upsert({ agentId: 'q', source: 'started', status: 'queued' });
    l.upsert({ agentId: 'c', source: 'started', status: 'completed' });
    l.upsert({ agentId: 'e', source: 'started', status: 'error' });
    l.upsert({ agentId: 'u', source: 'started', status: 'mystery' });
    assert.equal(l.clearFinished(), 2);
    assert.deepEqual(l.all().map((r) => r.agentId).sort(), ['q', 'u']);
  });

  it('resets unreadable stored state with a warning instead of failing', async () => {
    const store = new MemoryStore();
    store.data.set(storageKeyFor(BASE), 'garbage');
    const warnings: string[] = [];
    const problems: LedgerProblem[] = [];
    const l = new RunLedger(store, BASE, (m, p) => {
      warnings.push(m);
      problems.push(p);
    });
    assert.equal(l.all().length, 0);
    assert.equal(warnings.length, 1);
    assert.deepEqual(problems, [{ kind: 'reset' }]);
    await l.flush();
    assert.deepEqual(store.data.get(storageKeyFor(BASE)), { version: 1, runs: [] });
  });

  it('drops malformed entries but keeps the good ones, with well-typed fields only', () => {
    const store = new MemoryStore();
    store.data.set(storageKeyFor(BASE), {
      version: 1,
      runs: [
        { agentId: 'ok', source: 'started', addedAt: 5, status: 'running', prompt: 42, permittedBranches: ['main'], unread: true },
        { noId: true },
        null,
      ],
    });
    const warnings: string[] = [];
    const problems: LedgerProblem[] = [];
    const l = new RunLedger(store, BASE, (m, p) => {
      warnings.push(m);
      problems.push(p);
    });
    const r = l.get('ok')!;
    assert.deepEqual(problems, [{ kind: 'dropped', count: 2 }]);
    assert.equal(r.prompt, undefined);
    assert.deepEqual(r.permittedBranches, ['main']);
    assert.equal(r.unread, true);
    assert.match(warnings[0], /2 unreadable entries/);
  });

  it('a store that throws on save produces a warning, not an unhandled rejection', async () => {
    const warnings: string[] = [];
    const store: KeyValueStore = { get: () => undefined, update: () => Promise.reject(new Error('disk full')) };
    const l = new RunLedger(store, BASE, (m) => warnings.push(m));
    l.upsert({ agentId: 'a', source: 'started', status: 'queued' });
    await l.flush();
    assert.match(warnings[0], /disk full/);
  });
});

describe('RunLedger across windows (one shared store)', () => {
  /** Two windows: each has its own ledger over the same globalState. */
  function twoWindows(): { store: MemoryStore; a: RunLedger; b: RunLedger } {
    const store = new MemoryStore();
    return { store, a: new RunLedger(store, BASE), b: new RunLedger(store, BASE) };
  }
  const stored = (store: MemoryStore): string[] =>
    ((store.data.get(storageKeyFor(BASE)) as { runs: LedgerEntry[] } | undefined)?.runs ?? []).map((r) => r.agentId).sort();

  it('a save in one window keeps the runs another window added', async () => {
    const { store, a, b } = twoWindows();
    a.upsert({ agentId: 'x', source: 'started', status: 'running' });
    await a.flush();
    b.upsert({ agentId: 'y', source: 'started', status: 'running' });
    await b.flush();
    assert.deepEqual(stored(store), ['x', 'y'], 'the second window\'s save dropped the first one\'s run');
    // The second window took x in while saving, and said so.
    assert.equal(b.has('x'), true);
  });

  it('syncFromStore takes in another window\'s new runs, once, with a structural change', async () => {
    const { a, b } = twoWindows();
    const changes: LedgerChange[] = [];
    a.onDidChange((c) => changes.push(c));
    b.upsert({ agentId: 'y', source: 'tracked', status: 'queued' });
    await b.flush();
    assert.equal(a.syncFromStore(), true);
    assert.equal(a.get('y')?.status, 'queued');
    assert.deepEqual(changes, [{ agentIds: ['y'], structural: true }]);
    assert.equal(a.syncFromStore(), false, 'nothing new the second time');
    assert.equal(changes.length, 1);
  });

  it('a run removed in one window goes in the other and does not come back with its saves', async () => {
    const { store, a, b } = twoWindows();
    a.upsert({ agentId: 'x', source: 'started', status: 'completed' });
    a.upsert({ agentId: 'keep', source: 'started', status: 'running' });
    await a.flush();
    b.syncFromStore();
    assert.equal(b.has('x'), true);
    a.remove('x');
    await a.flush();
    // The other window writes before it looked again: its stale copy of x must not win.
    b.markSeen('keep');
    await b.flush();
    assert.deepEqual(stored(store), ['keep']);
    assert.equal(b.has('x'), false);
    // Clearing finished runs is a removal too.
    b.upsert({ agentId: 'done', source: 'tracked', status: 'error' });
    await b.flush();
    a.syncFromStore();
    assert.equal(b.clearFinished(), 1);
    await b.flush();
    a.syncFromStore();
    assert.equal(a.has('done'), false);
  });

  it('tracking a removed run again brings it back everywhere', async () => {
    const { a, b } = twoWindows();
    a.upsert({ agentId: 'x', source: 'started', status: 'running' }, Date.now() - 10_000);
    a.remove('x');
    await a.flush();
    b.syncFromStore();
    b.upsert({ agentId: 'x', source: 'tracked', status: 'running' }, Date.now() + 1);
    await b.flush();
    assert.equal(a.syncFromStore(), true);
    assert.equal(a.get('x')?.source, 'tracked');
  });

  it('the fresher read of a run both windows follow wins', async () => {
    const { a, b } = twoWindows();
    const t = Date.now();
    a.upsert({ agentId: 'x', source: 'started', status: 'running' }, t);
    await a.flush();
    b.syncFromStore();
    b.applyAgent({ agentId: 'x', status: 'completed' }, { now: t + 5_000 });
    await b.flush();
    // A read that changes something (an unchanged one writes nothing, see below).
    a.applyAgent({ agentId: 'x', status: 'running', updatedAt: 1 }, { now: t + 1_000 });
    // a's write merged first: b's later read of the same run is kept.
    await a.flush();
    assert.equal(a.get('x')?.status, 'completed');
  });

  it('a follow-up sent in one window is not undone by the other window\'s later read of the old completion', async () => {
    const { a, b } = twoWindows();
    const t = Date.now();
    a.upsert({ agentId: 'x', source: 'started', status: 'running' }, t);
    await a.flush();
    b.syncFromStore();
    const done = { agentId: 'x', status: 'completed', completedAt: 500, updatedAt: 500, history: [{ sequence: 1, role: 'user', content: 'go' }] };
    a.applyAgent(done, { now: t + 1_000 });
    await a.flush();
    // Window B, unfocused, read the same completion later: its record is the fresher read.
    b.applyAgent(done, { now: t + 9_000 });
    await b.flush();
    a.recordFollowUp('x', { prompt: 'next', ackStatus: 'queued' }, t + 10_000);
    await a.flush();
    // A's save merged B's fresher copy: the act of the person is kept, the read is B's.
    assert.equal(runState(a.get('x')!).finished, false, 'A\'s list went back to completed');
    assert.equal(runState(a.get('x')!).status, 'queued');
    assert.deepEqual(a.active().map((r) => r.agentId), ['x']);
    b.syncFromStore();
    assert.equal(runState(b.get('x')!).finished, false, 'B does not see the follow-up');
    // B reads the stale completion again and saves: A keeps the follow-up.
    b.applyAgent({ ...done, history: [] }, { now: t + 12_000, viewing: true });
    await b.flush();
    a.syncFromStore();
    assert.equal(runState(a.get('x')!).finished, false);
    // A reads the end of the new turn; B's older copy does not reopen it.
    a.applyAgent({ ...done, completedAt: 900, updatedAt: 900, history: [{ sequence: 2, role: 'user', content: 'next' }, { sequence: 3, role: 'assistant', content: 'ok' }] }, { now: t + 20_000 });
    await a.flush();
    assert.equal(runState(a.get('x')!).finished, true);
    b.syncFromStore();
    assert.equal(runState(b.get('x')!).finished, true, 'the settled act came back open in B');
    b.markSeen('x', t + 21_000);
    await b.flush();
    a.syncFromStore();
    assert.equal(runState(a.get('x')!).finished, true);
  });

  it('one "finished" notice per completion across windows, even where the other window\'s read is older', async () => {
    const { a, b } = twoWindows();
    const t = Date.now();
    a.upsert({ agentId: 'x', source: 'started', status: 'running' }, t);
    await a.flush();
    b.syncFromStore();
    const done = { agentId: 'x', status: 'completed', completedAt: 500 };
    assert.equal(a.applyAgent(done, { now: t + 1_000 }).becameFinished, true);
    assert.equal(a.claimFinishNotice('x'), true);
    assert.equal(a.claimFinishNotice('x'), false, 'the same window asked twice');
    await a.flush();
    // b read the same completion later (its record is the fresher one) and still says nothing.
    assert.equal(b.applyAgent(done, { now: t + 9_000 }).becameFinished, true);
    assert.equal(b.claimFinishNotice('x'), false, 'the second window announced it again');
    await b.flush();
    // The next turn's completion is news again, for exactly one window.
    const again = { agentId: 'x', status: 'completed', completedAt: 900 };
    a.applyAgent({ agentId: 'x', status: 'running', updatedAt: 600 }, { now: t + 10_000 });
    a.applyAgent(again, { now: t + 11_000 });
    b.applyAgent(again, { now: t + 12_000 });
    await a.flush();
    assert.equal(b.claimFinishNotice('x'), true);
    await b.flush();
    assert.equal(a.claimFinishNotice('x'), false);
  });

  it('an unchanged read writes nothing to storage, not even while its panel is open', async () => {
    const store = new MemoryStore();
    const l = new RunLedger(store, BASE);
    l.upsert({ agentId: 'a1', source: 'started', status: 'queued', prompt: 'p'.repeat(1000) }, 0);
    l.applyAgent(agent({ updatedAt: 5 }), { now: 1 });
    l.applyAgent(agent({ updatedAt: 5 }), { now: 2, viewing: true });
    await l.flush();
    const before = store.writes;
    for (let i = 0; i < 10; i++) {
      l.applyAgent(agent({ updatedAt: 5 }), { now: 3 + i, viewing: i % 2 === 0 });
    }
    await l.flush();
    assert.equal(store.writes, before);
    assert.equal(l.get('a1')?.lastCheckedAt, 12, 'the time of the read is still known in memory');
    l.applyAgent(agent({ updatedAt: 6 }), { now: 20 });
    await l.flush();
    assert.equal(store.writes, before + 1);
  });

  describe('statuses the reference does not list', () => {
    it('with completedAt: finished (not active, cleared, trimmed first); without: active', () => {
      const l = new RunLedger(new MemoryStore(), BASE);
      l.upsert({ agentId: 'c', source: 'started', status: 'running' }, 0);
      l.upsert({ agentId: 'p', source: 'started', status: 'running' }, 0);
      assert.equal(l.applyAgent({ agentId: 'c', status: 'cancelled', completedAt: 5 }, { now: 1 }).becameFinished, true);
      assert.equal(l.applyAgent({ agentId: 'p', status: 'paused' }, { now: 1 }).becameFinished, false);
      assert.deepEqual(l.active().map((r) => r.agentId), ['p']);
      assert.equal(l.clearFinished(), 1);
      assert.deepEqual(l.all().map((r) => r.agentId), ['p']);
    });

    it('the size cap drops old cancelled runs instead of keeping them forever', () => {
      const l = new RunLedger(new MemoryStore(), BASE);
      for (let i = 0; i < 500; i++) {
        l.upsert({ agentId: `r${i}`, source: 'started', status: 'cancelled', completedAt: i, createdAt: i }, i);
      }
      l.upsert({ agentId: 'new', source: 'started', status: 'running', createdAt: 10_000 }, 10_000);
      assert.equal(l.all().length, 500);
      assert.equal(l.has('r0'), false);
      assert.equal(l.has('new'), true);
    });
  });

  it('runs halted in an unknown status without completedAt do not hold the size cap (after finished ones go)', () => {
    const l = new RunLedger(new MemoryStore(), BASE);
    for (let i = 0; i < 499; i++) {
      l.upsert({ agentId: `p${i}`, source: 'started', status: 'paused', createdAt: i }, i);
    }
    l.upsert({ agentId: 'done', source: 'started', status: 'completed', createdAt: 1_000 }, 1_000);
    l.upsert({ agentId: 'live', source: 'started', status: 'running', createdAt: 2_000 }, 2_000);
    assert.equal(l.all().length, 500);
    assert.equal(l.has('done'), false, 'a finished run goes first');
    assert.equal(l.has('p0'), true);
    l.upsert({ agentId: 'live2', source: 'started', status: 'running', createdAt: 3_000 }, 3_000);
    assert.equal(l.all().length, 500);
    assert.equal(l.has('p0'), false, 'then the oldest halted one');
    assert.equal(l.has('live') && l.has('live2'), true);
  });

  describe('a follow-up on a finished run', () => {
    const turn1 = [{ sequence: 1, role: 'user', content: 'first' }, { sequence: 2, role: 'assistant', content: 'ok' }];
    function followedUp(): RunLedger {
      const l = new RunLedger(new MemoryStore(), BASE);
      l.upsert({ agentId: 'a1', source: 'started', status: 'running', prompt: 'first' }, 0);
      l.applyAgent(agent({ status: 'completed', completedAt: 10, updatedAt: 10, history: turn1 }), { now: 1 });
      // What the sender records on the acknowledgement.
      l.recordFollowUp('a1', { prompt: 'again', ackStatus: 'queued' }, 100);
      return l;
    }
    const stale = agent({ status: 'completed', completedAt: 10, updatedAt: 10, history: turn1 });
    const shown = (l: RunLedger) => runState(l.get('a1')!);

    it('is active again, and a stale completed read is not a completion', () => {
      const l = followedUp();
      assert.deepEqual(l.active().map((r) => r.agentId), ['a1']);
      const r = l.applyAgent(stale, { now: 101 });
      assert.equal(r.becameFinished, false);
      assert.equal(shown(l).status, 'queued');
      assert.equal(l.active().length, 1);
      assert.equal(shown(l).followUp?.prompt, 'again');
    });

    for (const [name, evidence] of [
      ['its prompt in the history', { history: [...turn1, { sequence: 3, role: 'user', content: 'again' }] }],
      ['a later updatedAt', { updatedAt: 11 }],
      ['a queued turn', { lifecycle: { queuedTurnCount: 1 } }],
    ] as [string, Partial<Agent>][]) {
      it(`${name} does not end its turn; a later completion does, once`, () => {
        const l = followedUp();
        l.applyAgent({ ...stale, ...evidence }, { now: 102 });
        assert.equal(shown(l).finished, false, 'the follow-up arrived (at most): its turn did not end');
        assert.notEqual(shown(l).status, 'completed');
        // A completion ends it once the prompt is seen: the window's last read may be older than the run it sent to.
        const r = l.applyAgent({ ...stale, ...evidence, history: [...turn1, { sequence: 3, role: 'user', content: 'again' }], lifecycle: { queuedTurnCount: 0 }, completedAt: 20, updatedAt: 20 }, { now: 103 });
        assert.equal(shown(l).status, 'completed');
        assert.equal(r.becameFinished, true);
        assert.equal(l.active().length, 0);
      });
    }

    it('a read with the prompt but no reply after it and the old completedAt: arrived, still working (polling goes on)', () => {
      const l = followedUp();
      const withPrompt = [...turn1, { sequence: 3, role: 'user', content: 'again' }];
      assert.equal(l.applyAgent({ ...stale, history: withPrompt }, { now: 102 }).becameFinished, false);
      assert.deepEqual(shown(l).followUp, { prompt: 'again', at: 100, arrived: true });
      assert.equal(shown(l).status, 'running');
      // A reply beside the old completion is a replica whose history runs ahead of its status.
      const replied = [...withPrompt, { sequence: 4, role: 'assistant', content: 'working on it' }];
      assert.equal(l.applyAgent({ ...stale, history: replied }, { now: 103 }).becameFinished, false);
      assert.equal(l.applyAgent({ ...stale, history: replied, completedAt: 30, updatedAt: 30 }, { now: 104 }).becameFinished, true);
    });

    it('a service that sends no completedAt: a reply after the prompt in a finished read ends the turn', () => {
      const l = new RunLedger(new MemoryStore(), BASE);
      l.upsert({ agentId: 'a1', source: 'started', status: 'running', prompt: 'first' }, 0);
      l.applyAgent(agent({ status: 'completed', history: turn1 }), { now: 1 });
      l.recordFollowUp('a1', { prompt: 'again', ackStatus: 'queued' }, 100);
      const withPrompt = [...turn1, { sequence: 3, role: 'user', content: 'again' }];
      assert.equal(l.applyAgent(agent({ status: 'completed', history: withPrompt }), { now: 101 }).becameFinished, false);
      assert.equal(l.applyAgent(agent({ status: 'completed', history: [...withPrompt, { sequence: 4, role: 'assistant', content: 'ok' }] }), { now: 102 }).becameFinished, true);
    });

    it('an old prompt of the same text earlier in the history does not count', () => {
      const l = new RunLedger(new MemoryStore(), BASE);
      l.upsert({ agentId: 'a1', source: 'started', status: 'running', prompt: 'again' }, 0);
      l.applyAgent(agent({ status: 'completed', completedAt: 10, updatedAt: 10, history: [{ sequence: 1, role: 'user', content: 'again' }] }), { now: 1 });
      l.recordFollowUp('a1', { prompt: 'again', ackStatus: 'queued' }, 100);
      l.applyAgent(agent({ status: 'completed', completedAt: 10, updatedAt: 10, history: [{ sequence: 1, role: 'user', content: 'again' }] }), { now: 101 });
      assert.equal(runState(l.get('a1')!).followUp?.arrived, false);
    });

    it('a read older than what is known (an earlier updatedAt) changes no status', () => {
      const l = followedUp();
      l.applyAgent(agent({ status: 'running', updatedAt: 30, history: [...turn1, { sequence: 3, role: 'user', content: 'again' }] }), { now: 102 });
      l.applyAgent(agent({ status: 'completed', completedAt: 10, updatedAt: 10, history: turn1 }), { now: 103 });
      assert.equal(l.get('a1')?.status, 'running');
      assert.equal(shown(l).finished, false);
    });

    // Found by the model-based test (runState.model.test.ts), each kept here as a plain case.
    it('sent while the run was going, on a service without message times: ends on a finished read written after the send, not on an older copy', () => {
      const l = new RunLedger(new MemoryStore(), BASE);
      l.upsert({ agentId: 'a1', source: 'started', status: 'running', prompt: 'first' }, 0);
      l.applyAgent(agent({ status: 'running', updatedAt: 10, history: turn1 }), { now: 1 });
      l.recordFollowUp('a1', { prompt: 'again', ackStatus: 'queued' }, 100);
      const withPrompt = [...turn1, { sequence: 3, role: 'user', content: 'again' }, { sequence: 4, role: 'assistant', content: 'done' }];
      l.applyAgent(agent({ status: 'running', updatedAt: 15, history: withPrompt.slice(0, 3) }), { now: 101 });
      assert.equal(shown(l).followUp?.arrived, true);
      // A copy older than the prompt (its history stops before it; the turn before ended at 12) proves nothing of its turn.
      l.applyAgent(agent({ status: 'completed', completedAt: 12, updatedAt: 12, history: turn1 }), { now: 101 });
      assert.equal(shown(l).followUp?.prompt, 'again', 'the follow-up is still open');
      assert.equal(l.applyAgent(agent({ status: 'completed', completedAt: 20, updatedAt: 20, history: withPrompt }), { now: 102 }).becameFinished, true);
    });

    it('a follow-up found in the history moves past the run as it was sent, not as it is when found', () => {
      const l = new RunLedger(new MemoryStore(), BASE);
      l.upsert({ agentId: 'a1', source: 'started', status: 'running', prompt: 'first' }, 0);
      // Sent while the run was unread; its turn ended before any read showed the prompt.
      const done = [...turn1, { sequence: 3, role: 'user', content: 'again' }, { sequence: 4, role: 'assistant', content: 'ok' }];
      l.applyAgent(agent({ status: 'completed', completedAt: 30, updatedAt: 30, history: done }), { now: 1 });
      l.recordFollowUp('a1', { prompt: 'again', ackStatus: 'queued', arrivedSeq: 3, before: {} }, 2);
      l.applyAgent(agent({ status: 'completed', completedAt: 30, updatedAt: 30, history: done }), { now: 3 });
      assert.equal(shown(l).finished, true, 'waits for a completion after its own');
    });

    it('an acknowledged follow-up survives a reload after another window saved a list built before it saw it', async () => {
      const shared = new MemoryStore();
      const mine = new MemoryStore();
      const a = new RunLedger(shared, BASE, undefined, mine);
      a.upsert({ agentId: 'a1', source: 'started', status: 'running' }, 0);
      a.applyAgent(agent({ status: 'completed', completedAt: 10, updatedAt: 10, history: turn1 }), { now: 1 });
      await a.flush();
      const b = new RunLedger(shared, BASE);
      const bStale = shared.data.get(storageKeyFor(BASE));
      a.recordFollowUp('a1', { prompt: 'again', ackStatus: 'queued' }, 100);
      await a.flush();
      // The other window writes what it built before it saw the follow-up: last writer wins.
      await shared.update(storageKeyFor(BASE), bStale);
      b.dispose();
      a.dispose();
      const reloaded = new RunLedger(shared, BASE, undefined, mine);
      assert.equal(runState(reloaded.get('a1')!).followUp?.prompt, 'again');
      assert.equal(runState(reloaded.get('a1')!).finished, false);
      // Its turn ends: it is no longer kept apart.
      reloaded.applyAgent(agent({ status: 'completed', completedAt: 20, updatedAt: 20, history: [...turn1, { sequence: 3, role: 'user', content: 'again' }] }), { now: 101 });
      await reloaded.flush();
      assert.equal(mine.data.size, 0, 'nothing left in the window\'s own storage');
    });

    it('a record stored by an earlier version with a pending follow-up keeps waiting for it', () => {
      const store = new MemoryStore();
      store.data.set(storageKeyFor(BASE), { version: 1, runs: [{ agentId: 'a1', source: 'started', addedAt: 0, status: 'queued', unread: false, completedAt: 10, lastSequence: 2, pendingFollowUpPrompt: 'again', pendingFollowUpAt: 100 }] });
      const l = new RunLedger(store, BASE);
      assert.equal(shown(l).finished, false);
      assert.equal(l.applyAgent(stale, { now: 101 }).becameFinished, false);
      assert.equal(l.applyAgent({ ...stale, completedAt: 20, updatedAt: 20 }, { now: 102 }).becameFinished, false, 'a completion without the prompt may be the turn before it');
      assert.equal(l.applyAgent({ ...stale, history: [...turn1, { sequence: 3, role: 'user', content: 'again' }], completedAt: 20, updatedAt: 20 }, { now: 103 }).becameFinished, true);
    });
  });

  it('the label comes from what was sent, or from a history that reaches back to the start', () => {
    const l = new RunLedger(new MemoryStore(), BASE);
    l.upsert({ agentId: 'sent', source: 'started', status: 'running', prompt: 'what I sent' }, 0);
    l.applyAgent({ agentId: 'sent', history: [{ sequence: 1, role: 'user', content: 'other' }] }, { now: 1 });
    assert.equal(l.get('sent')?.prompt, 'what I sent');
    // Tracked by ID, history capped to its tail: its first user message is a follow-up, not the prompt.
    l.applyAgent({ agentId: 'tail', history: [{ sequence: 40, role: 'user', content: 'a later follow-up' }] }, { now: 1 });
    assert.equal(l.get('tail')?.prompt, undefined);
    l.applyAgent({ agentId: 'whole', history: [{ sequence: 1, role: 'user', content: 'the start' }, { sequence: 2, role: 'user', content: 'later' }] }, { now: 1 });
    assert.equal(l.get('whole')?.prompt, 'the start');
  });
});
