import * as assert from 'node:assert/strict';
import * as FakeTimers from '@sinonjs/fake-timers';
import { ApiError } from '../../../src/api/errors';
import type { TestGroupRunDetail, TestRunDetail, TestRunStatus, TestRunStep, TestStepStatus } from '../../../src/api/testTypes';
import type { Clock } from '../../../src/base/common/clock';
import { plainL10n } from '../../../src/base/common/l10n';
import { TestRunStore, type GroupRunUpdate, type ReadEnd, type TestRunReads, type TestRunUpdate } from '../../../src/serviceTests/common/store';

const FAST = 1_000;
const BACKGROUND = 15_000;

function step(id: string, position: number, status: TestStepStatus, extra: Partial<TestRunStep> = {}): TestRunStep {
  return { id, position, status, artifacts: [], ...extra };
}

function run(id: string, status: TestRunStatus, steps: TestRunStep[], extra: Partial<TestRunDetail['run']> = {}): TestRunDetail {
  return { run: { id, status, artifacts: [], ...extra }, steps };
}

/** A fake service: each run answers from a script that the test moves on; every read recorded. */
class Harness {
  readonly fake = FakeTimers.createClock(0) as FakeTimers.NodeClock;
  readonly clock: Clock = {
    now: () => this.fake.now,
    setTimeout: (fn, ms) => this.fake.setTimeout(fn, ms),
    clearTimeout: (handle) => this.fake.clearTimeout(handle as FakeTimers.NodeTimer),
  };
  readonly reads: { path: string; at: number }[] = [];
  readonly runs = new Map<string, TestRunDetail | Error>();
  readonly groups = new Map<string, TestGroupRunDetail | Error>();
  unauthorized = 0;
  readonly client: TestRunReads = {
    getTestRun: (id) => {
      this.reads.push({ path: `/test-runs/${id}`, at: this.fake.now });
      const r = this.runs.get(id);
      return r instanceof Error || r === undefined ? Promise.reject(r ?? new ApiError({ kind: 'not_found', status: 404, message: 'not found', mayHaveReachedServer: true })) : Promise.resolve(r);
    },
    getTestGroupRun: (id) => {
      this.reads.push({ path: `/test-group-runs/${id}`, at: this.fake.now });
      const r = this.groups.get(id);
      return r instanceof Error || r === undefined ? Promise.reject(r ?? new Error('none')) : Promise.resolve(r);
    },
  };
  readonly store = new TestRunStore({
    reads: () => Promise.resolve(this.client),
    clock: this.clock,
    cadence: () => ({ fastMs: FAST, maxBackoffMs: 60_000, backgroundMs: BACKGROUND }),
    l10n: plainL10n,
    describe: (e) => (e instanceof Error ? e.message : String(e)),
    onUnauthorized: () => this.unauthorized++,
  });

  sink<U>(): { updates: U[]; ends: ReadEnd[]; update(u: U): void; end(e: ReadEnd): void } {
    const s = { updates: [] as U[], ends: [] as ReadEnd[], update: (u: U) => s.updates.push(u), end: (e: ReadEnd) => s.ends.push(e) };
    return s;
  }

  tick(ms: number): Promise<number> {
    return this.fake.tickAsync(ms);
  }
}

describe('serviceTests: the test-run store', () => {
  it('reads nothing, and holds no timer, while nothing is active', async () => {
    const h = new Harness();
    await h.tick(600_000);
    assert.equal(h.reads.length, 0);
    assert.equal(h.fake.countTimers(), 0);
    // ... and again once a run ended.
    h.runs.set('r1', run('r1', 'passed', []));
    h.store.followTest('r1', h.sink<TestRunUpdate>());
    await h.tick(10);
    assert.equal(h.reads.length, 1);
    await h.tick(600_000);
    assert.equal(h.reads.length, 1);
    assert.equal(h.fake.countTimers(), 0);
    assert.equal(h.store.active, 0);
  });

  it('reads an active run at the fast cadence, reports each step once as it ends, in run order, and stops when it ends', async () => {
    const h = new Harness();
    const s = h.sink<TestRunUpdate>();
    // B's `order` runs s3 before s2 (a condition reorders): reported in that order.
    const steps = (a: TestStepStatus, b: TestStepStatus, c: TestStepStatus): TestRunStep[] => [
      step('s1', 0, a, { order: 0 }), step('s2', 1, b, { order: 2 }), step('s3', 2, c, { order: 1, comment: 'button was grey' })];
    h.runs.set('r1', run('r1', 'running', steps('pending', 'pending', 'pending')));
    h.store.followTest('r1', s);
    await h.tick(0);
    assert.deepEqual(h.reads.map((r) => r.at), [0]);
    h.runs.set('r1', run('r1', 'running', steps('passed', 'pending', 'warning')));
    await h.tick(FAST);
    h.runs.set('r1', run('r1', 'warning', steps('passed', 'passed', 'warning'), { artifacts: [{ label: 'video', url: 'https://x.test/v.mp4' }, { label: 'local', url: 'file:///etc/passwd' }] }));
    await h.tick(FAST);
    await h.tick(10 * FAST);
    assert.deepEqual(h.reads.map((r) => r.at), [0, FAST, 2 * FAST]);
    assert.deepEqual(s.updates.map((u) => u.finished.map((f) => f.step.id)), [[], ['s1', 's3'], ['s2']]);
    assert.deepEqual(s.updates[1].steps.map((x) => x.id), ['s1', 's3', 's2']);
    const warned = s.updates[1].finished[1].outcome;
    assert.equal(warned.verdict, 'passed');
    assert.match(warned.message ?? '', /Warning \(the service says “warning”\)\.\nbutton was grey/);
    const last = s.updates[2];
    assert.equal(last.done, true);
    assert.equal(last.outcome.verdict, 'passed');
    assert.match(last.outcome.message ?? '', /warning/);
    assert.deepEqual(last.artifacts.map((a) => a.label), ['video']);
    assert.deepEqual(s.ends, [{ kind: 'done' }]);
    assert.equal(h.fake.countTimers(), 0);
  });

  it('one read per fast interval per active run: 10 reads in 10 s with one run', async () => {
    const h = new Harness();
    h.runs.set('r1', run('r1', 'running', []));
    h.store.followTest('r1', h.sink<TestRunUpdate>());
    await h.tick(9_999);
    assert.equal(h.reads.length, 10);
    assert.equal(h.store.requests, 10);
  });

  it('stop() (a cancelled TestRun) ends reading at once: no further request', async () => {
    const h = new Harness();
    const s = h.sink<TestRunUpdate>();
    h.runs.set('r1', run('r1', 'running', []));
    const f = h.store.followTest('r1', s);
    await h.tick(FAST);
    f.stop();
    const before = h.reads.length;
    await h.tick(60_000);
    assert.equal(h.reads.length, before);
    assert.deepEqual(s.ends, [{ kind: 'stopped' }]);
    assert.equal(h.fake.countTimers(), 0);
  });

  it('backs off after failures, honours Retry-After, and gives a run up after three 404s', async () => {
    const h = new Harness();
    h.runs.set('r1', new ApiError({ kind: 'server', status: 503, message: 'down', mayHaveReachedServer: true, retryAfterMs: 30_000 }));
    h.store.followTest('r1', h.sink<TestRunUpdate>());
    await h.tick(29_999);
    assert.equal(h.reads.length, 1);
    h.runs.set('r1', new Error('reset'));
    await h.tick(1);
    assert.equal(h.reads.length, 2);
    // 2nd failure: 4 s
    await h.tick(3_999);
    assert.equal(h.reads.length, 2);
    await h.tick(1);
    assert.equal(h.reads.length, 3);

    const s = h.sink<TestRunUpdate>();
    h.store.followTest('gone', s);
    await h.tick(120_000);
    assert.equal(h.reads.filter((r) => r.path === '/test-runs/gone').length, 3);
    assert.equal(s.ends.length, 1);
    assert.equal(s.ends[0].kind, 'lost');
  });

  it('a run with a status nobody lists and no completedAt backs off like a dormant agent run (15 s doubling, 10 min at most), then reads fast again once it moves', async () => {
    const h = new Harness();
    const s = h.sink<TestRunUpdate>();
    h.runs.set('r1', run('r1', 'paused_by_admin', []));
    h.store.followTest('r1', s);
    await h.tick(3_600_000);
    const gaps = h.reads.slice(1).map((r, i) => r.at - h.reads[i].at);
    // 15 s, 30 s, 60 s, … capped at DORMANT_MAX_MS: an hour holds 11 reads, not 3 600.
    assert.deepEqual(gaps.slice(0, 6), [15_000, 30_000, 60_000, 120_000, 240_000, 480_000]);
    assert.ok(gaps.slice(6).every((g) => g === 600_000), gaps.join());
    assert.equal(h.reads.length, 11);
    assert.equal(s.updates[0].outcome.dormant, true);
    assert.match(s.updates[0].outcome.message ?? '', /“paused_by_admin”, a status this extension does not know/);
    assert.equal(s.ends.length, 0);
    h.runs.set('r1', run('r1', 'running', []));
    await h.tick(600_000);
    const moved = h.reads.length;
    await h.tick(3 * FAST);
    assert.equal(h.reads.length, moved + 3, 'read at the fast cadence again once the status is known');
    h.runs.set('r1', run('r1', 'paused_by_admin', [], { completedAt: 5 }));
    await h.tick(FAST);
    assert.deepEqual(s.ends.map((e) => e.kind), ['done'], 'with completedAt it ended');
  });

  it('a group run with a status nobody lists backs off the same way', async () => {
    const h = new Harness();
    h.groups.set('g1', { run: { id: 'g1', status: 'on_hold' }, childRuns: [] });
    h.store.followGroup('g1', h.sink<GroupRunUpdate>());
    await h.tick(120_000);
    assert.deepEqual(h.reads.map((r) => r.at), [0, 15_000, 45_000, 105_000]);
  });

  it('three 404s reading one child run end that child, not the group run: the others are still read to their end', async () => {
    const h = new Harness();
    const s = h.sink<GroupRunUpdate>();
    const group = (status: TestRunStatus, b: TestRunStatus): TestGroupRunDetail => ({
      run: { id: 'g1', status }, childRuns: [{ id: 'gone', testId: 't1', status: 'running' }, { id: 'c2', testId: 't2', status: b }],
    });
    h.groups.set('g1', group('running', 'running'));
    h.runs.set('c2', run('c2', 'running', []));
    h.store.followGroup('g1', s);
    await h.tick(5 * FAST);
    assert.equal(h.reads.filter((r) => r.path === '/test-runs/gone').length, 3, 'the child is given up after three 404s');
    assert.deepEqual(s.ends, [], 'the group is still read');
    const lost = s.updates.flatMap((u) => u.lostChildren);
    assert.deepEqual(lost.map((c) => c.runId), ['gone']);
    assert.match(lost[0].message, /no longer knows run gone/);
    h.groups.set('g1', group('passed', 'passed'));
    h.runs.set('c2', run('c2', 'passed', []));
    await h.tick(3 * FAST);
    assert.deepEqual(s.ends, [{ kind: 'done' }]);
    assert.equal(s.updates[s.updates.length - 1].children.find((c) => c.runId === 'c2')?.outcome.verdict, 'passed');
  });

  it('a 401 goes to the one token handling and ends the read', async () => {
    const h = new Harness();
    const s = h.sink<TestRunUpdate>();
    h.runs.set('r1', new ApiError({ kind: 'unauthorized', status: 401, message: 'token refused', mayHaveReachedServer: true }));
    h.store.followTest('r1', s);
    await h.tick(60_000);
    assert.equal(h.reads.length, 1);
    assert.equal(h.unauthorized, 1);
    assert.deepEqual(s.ends, [{ kind: 'lost', message: 'token refused' }]);
  });

  it('a group run is read with its started child runs, until the group and every child ended', async () => {
    const h = new Harness();
    const s = h.sink<GroupRunUpdate>();
    const group = (status: TestRunStatus, a: TestRunStatus, b: TestRunStatus): TestGroupRunDetail => ({
      run: { id: 'g1', status }, childRuns: [{ id: 'c1', testId: 't1', status: a }, { id: 'c2', testId: 't2', status: b }],
    });
    h.groups.set('g1', group('running', 'running', 'queued'));
    h.runs.set('c1', run('c1', 'running', [step('a', 0, 'passed')]));
    h.store.followGroup('g1', s);
    await h.tick(0);
    assert.deepEqual(h.reads.map((r) => r.path), ['/test-group-runs/g1', '/test-runs/c1']);
    h.groups.set('g1', group('running', 'passed', 'running'));
    h.runs.set('c1', run('c1', 'passed', [step('a', 0, 'passed')]));
    h.runs.set('c2', run('c2', 'running', [step('b', 0, 'error', { comment: 'no cart' }), step('c', 1, 'cancelled')]));
    await h.tick(FAST);
    h.groups.set('g1', group('error', 'passed', 'error'));
    h.runs.set('c2', run('c2', 'error', [step('b', 0, 'error', { comment: 'no cart' }), step('c', 1, 'cancelled')], { rawStatus: 'error' }));
    await h.tick(FAST);
    await h.tick(10 * FAST);
    assert.deepEqual(h.reads.map((r) => r.path), [
      '/test-group-runs/g1', '/test-runs/c1',
      '/test-group-runs/g1', '/test-runs/c1', '/test-runs/c2',
      '/test-group-runs/g1', '/test-runs/c2',
    ]);
    const last = s.updates[2];
    assert.equal(last.done, true);
    assert.equal(last.outcome.verdict, 'failed');
    assert.deepEqual(s.updates[1].children.find((c) => c.runId === 'c2')?.finished.map((f) => [f.step.id, f.outcome.verdict]), [['b', 'failed'], ['c', 'skipped']]);
    assert.deepEqual(last.children.map((c) => [c.runId, c.finished.length, c.done]), [['c2', 0, true]]);
    assert.deepEqual(s.ends, [{ kind: 'done' }]);
    assert.equal(h.fake.countTimers(), 0);
  });
});
