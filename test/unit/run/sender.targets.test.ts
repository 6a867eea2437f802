// Issue 22: the sender's entries for the app's tests, groups and automations, with the real
// client against a scripted server: each sent once and never again on its own; a second send
// for the same target while one is under way is `busy` and sends nothing; a cut after the body
// arrived is "may have arrived"; a 409 is a refusal with the service's reason.
import type * as http from 'node:http';
import * as assert from 'node:assert/strict';
import { createClient, type ApiError, type AgentRunsApi } from '../../../src/api';
import { RunLedger } from '../../../src/run/common/ledger/ledger';
import { refusalWords } from '../../../src/run/common/sends/outcome';
import { FollowUpSends } from '../../../src/run/followUpSends';
import { TARGET_SENDS_KEY, UNCERTAIN_TARGET_MS } from '../../../src/run/common/sends/targetSends';
import { uncertainText } from '../../../src/run/common/sends/uncertainText';
import { plainL10n } from '../../../src/base/common/l10n';
import { Sender } from '../../../src/run/sender';
import * as sendPosts from '../../../src/run/sendPosts';
import { UnconfirmedStarts } from '../../../src/run/unconfirmedStarts';
import { json, startServer, TOKEN, type TestServer } from '../fixtures/apiServers';
import { MemoryStore } from '../fixtures/memoryStore';

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 50));

describe('the sender\'s test, group and automation entries (issue 22)', function () {
  this.timeout(10_000);
  let server: TestServer;
  let client: AgentRunsApi | undefined;
  let sender: Sender;
  let store: MemoryStore;
  /** The marks' clock (the sender's other parts keep the real one). */
  let now: number;
  /** A sender over the same workspace state, as after a reload or in another window. */
  let senderOver: (state: MemoryStore) => Sender;
  let lines: string[];
  /** Responses held until released (to keep a send under way). */
  let held: (() => void)[];
  const cleanups: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    held = [];
    server = await startServer((_req, res) => json(res, 500, { error: 'no handler' }));
    const real = createClient({ baseUrl: server.baseUrl, token: TOKEN, timeouts: { connectMs: 2_000, headersMs: 2_000, bodyMs: 2_000 } });
    client = real;
    store = new MemoryStore();
    now = 1_000_000;
    lines = [];
    senderOver = (state) => new Sender({
      client: () => Promise.resolve(client),
      ledger: () => new RunLedger(state, real.baseUrl),
      poller: { track: () => undefined, burst: () => undefined },
      starts: new UnconfirmedStarts(state),
      sends: new FollowUpSends(state), targetState: state, now: () => now,
      log: { info: (m) => void lines.push(`info ${m}`), warn: (m) => void lines.push(`warn ${m}`) },
    }, () => sendPosts);
    sender = senderOver(store);
    cleanups.push(() => real.dispose());
  });
  afterEach(async () => {
    for (const release of held) release();
    for (const f of cleanups.splice(0)) await f();
    await server.close();
  });

  /** Answers `status`/`body` once released. */
  const holding = (status: number, body: unknown) => (_req: http.IncomingMessage, res: http.ServerResponse): void => {
    held.push(() => json(res, status, body));
  };
  const o = { from: 'test', quiet: true };

  it('a test run: one POST, started with its runId and the base URL, logged', async () => {
    server.handle((_req, res) => json(res, 201, { runId: 'trun_1' }));
    const r = await sender.startTestRun({ testId: 'test_login', branchId: 'live' }, o);
    assert.deepEqual(r, { kind: 'started', started: { runId: 'trun_1' }, baseUrl: server.baseUrl });
    assert.equal(server.requests.length, 1);
    assert.ok(lines.includes('info Started test run trun_1 of test test_login on live from the test.'), lines.join('\n'));
  });

  it('busy: a second run of the same test while the first is under way sends nothing; another test is sent; the lock ends with the send', async () => {
    server.handle(holding(201, { runId: 'trun_1' }));
    const first = sender.startTestRun({ testId: 'test_login', branchId: 'live' }, o);
    const second = await sender.startTestRun({ testId: 'test_login', branchId: 'br_2' }, o);
    assert.deepEqual(second, { kind: 'busy' });
    const other = sender.startTestRun({ testId: 'test_cart', branchId: 'live' }, o);
    while (held.length < 2) await settle();
    assert.equal(server.requests.length, 2, 'the first run and the other test; not the busy one');
    held.splice(0).forEach((release) => release());
    assert.equal((await first).kind, 'started');
    assert.equal((await other).kind, 'started');
    server.handle((_req, res) => json(res, 201, { runId: 'trun_3' }));
    assert.equal((await sender.startTestRun({ testId: 'test_login', branchId: 'live' }, o)).kind, 'started', 'free again once answered');
    assert.ok(lines.some((l) => l.startsWith('info Not sent from the test: a send for test:test_login is under way')), lines.join('\n'));
  });

  it('a group\'s edit and delete share its lock; a run of the group is another target', async () => {
    server.handle(holding(200, { ok: true }));
    const edit = sender.updateTestGroup('grp_1', { name: 'G', testIds: ['a'] }, o);
    assert.deepEqual(await sender.deleteTestGroup('grp_1', o), { kind: 'busy' });
    assert.deepEqual(await sender.updateTestGroup('grp_1', { name: 'H', testIds: [] }, o), { kind: 'busy' });
    const run = sender.startTestGroupRun({ groupId: 'grp_1', branchId: 'live' }, o);
    while (held.length < 2) await settle();
    held.splice(0).forEach((release) => release());
    assert.deepEqual(await edit, { kind: 'done', baseUrl: server.baseUrl });
    assert.equal((await run).kind, 'failed', 'the held answer was { ok: true }, not a groupRunId');
    assert.deepEqual(server.requests.map((r) => r.method), ['PUT', 'POST']);
    server.handle((_req, res) => json(res, 200, { ok: true }));
    assert.deepEqual(await sender.deleteTestGroup('grp_1', o), { kind: 'done', baseUrl: server.baseUrl });
  });

  it('tells the lists of groups when a group was changed, deleted or created, or may have been; not when nothing was', async () => {
    const told: Array<{ groupId?: string }> = [];
    const sub = sender.onDidChangeTestGroups((e) => void told.push(e));
    server.handle((_req, res) => json(res, 200, { ok: true }));
    await sender.updateTestGroup('grp_1', { name: 'G', testIds: ['a'] }, o);
    await sender.deleteTestGroup('grp_2', o);
    server.handle((_req, res) => json(res, 201, { groupId: 'grp_3', name: 'New', appId: 'app_x', testCount: 1 }));
    assert.equal((await sender.createTestGroup({ name: 'New', appId: 'app_x', testIds: ['a'] }, o)).kind, 'created');
    assert.deepEqual(told, [{ groupId: 'grp_1' }, { groupId: 'grp_2' }, {}]);
    server.handle((_req, res) => json(res, 409, { error: 'Conflict' }));
    await sender.updateTestGroup('grp_1', { name: 'H', testIds: [] }, o);
    await sender.startTestGroupRun({ groupId: 'grp_1', branchId: 'live' }, o);
    assert.equal(told.length, 3, 'a refusal changed nothing; a group run is not a change of the group');
    server.handle((req) => req.socket.destroy());
    await sender.deleteTestGroup('grp_4', o);
    assert.deepEqual(told.at(-1), { groupId: 'grp_4' }, 'a delete that may have arrived: read the list again');
    sub.dispose();
  });

  it('an automation run: one POST, queued with what the service said', async () => {
    server.handle((_req, res) => json(res, 202, { automationId: 'auto_1', status: 'queued', queuedAt: 5 }));
    assert.deepEqual(await sender.runAutomation('auto_1', o), { kind: 'queued', queued: { automationId: 'auto_1', status: 'queued', queuedAt: 5 }, baseUrl: server.baseUrl });
    assert.ok(lines.includes('info Queued a run of automation auto_1 (queued) from the test.'), lines.join('\n'));
  });

  for (const [name, send] of [
    ['a test run', (d: Sender) => d.startTestRun({ testId: 't', branchId: 'live' }, o)],
    ['a group run', (d: Sender) => d.startTestGroupRun({ groupId: 'g', branchId: 'live' }, o)],
    ['a group edit', (d: Sender) => d.updateTestGroup('g', { name: 'G', testIds: [] }, o)],
    ['a group delete', (d: Sender) => d.deleteTestGroup('g', o)],
    ['an automation run', (d: Sender) => d.runAutomation('a', o)],
  ] as const) {
    it(`${name} cut after its body arrived: failed, may have arrived, sent once; the next one is uncertain and not sent`, async () => {
      server.handle((req) => req.socket.destroy());
      const r = await send(sender);
      assert.equal(r.kind, 'failed');
      assert.equal(r.kind === 'failed' && r.mayHaveArrived, true);
      await settle();
      assert.equal(server.requests.length, 1);
      assert.ok(lines.some((l) => l.startsWith('warn ') && l.includes('(it may have arrived; it is not sent again)')), lines.join('\n'));
      server.handle((_req, res) => json(res, 409, { error: 'Conflict' }));
      assert.deepEqual(await send(sender), { kind: 'uncertain', since: 1_000_000 });
      await settle();
      assert.equal(server.requests.length, 1, 'the second one was not sent');
    });

    it(`${name} refused with 409: failed, nothing arrived, the service's reason in the words`, async () => {
      server.handle((_req, res) => json(res, 409, { error: 'Conflict', code: 'concurrency_limit', reason: 'Too many test runs in progress' }));
      const r = await send(sender);
      assert.equal(r.kind, 'failed');
      if (r.kind !== 'failed') return;
      assert.equal(r.mayHaveArrived, false);
      assert.equal(refusalWords(r.error as ApiError), 'Too many test runs in progress');
      await settle();
      assert.equal(server.requests.length, 1);
    });
  }

  describe('a target whose send may have arrived stays uncertain (issue 31, defect 6)', () => {
    const run = (testId: string): Promise<unknown> => sender.startTestRun({ testId, branchId: 'live' }, o);

    it('a second run of the same test is not sent and says when the first began; another test is sent', async () => {
      server.handle((req) => req.socket.destroy());
      assert.equal(((await run('test_login')) as { kind: string }).kind, 'failed');
      now += 30_000;
      server.handle((_req, res) => json(res, 201, { runId: 'trun_2' }));
      assert.deepEqual(await run('test_login'), { kind: 'uncertain', since: 1_000_000 });
      assert.equal(((await run('test_cart')) as { kind: string }).kind, 'started', 'another test is another target');
      await settle();
      assert.deepEqual(server.requests.map((r) => JSON.parse(r.body) as unknown), [{ testId: 'test_login', branchId: 'live' }, { testId: 'test_cart', branchId: 'live' }]);
      assert.ok(lines.some((l) => l.startsWith('info Not sent from the test: a send for test:test_login may have arrived')), lines.join('\n'));
    });

    it(`once ${UNCERTAIN_TARGET_MS / 60_000} minutes passed after the failure, the same test is sent again`, async () => {
      server.handle((req) => req.socket.destroy());
      await run('test_login');
      now += UNCERTAIN_TARGET_MS - 1;
      assert.equal(((await run('test_login')) as { kind: string }).kind, 'uncertain');
      now += 1;
      server.handle((_req, res) => json(res, 201, { runId: 'trun_2' }));
      assert.equal(((await run('test_login')) as { kind: string }).kind, 'started');
      assert.equal(server.requests.length, 2);
    });

    it('an answered send, a success or a refusal, leaves no mark', async () => {
      server.handle((_req, res) => json(res, 409, { error: 'Conflict' }));
      assert.equal(((await run('test_login')) as { kind: string }).kind, 'failed');
      server.handle((_req, res) => json(res, 201, { runId: 'trun_2' }));
      assert.equal(((await run('test_login')) as { kind: string }).kind, 'started');
      assert.equal(store.get(TARGET_SENDS_KEY), undefined);
      server.handle((req) => req.socket.destroy());
      await sender.runAutomation('auto_1', o);
      assert.deepEqual(Object.keys(store.get<Record<string, unknown>>(TARGET_SENDS_KEY) ?? {}), ['automation:auto_1']);
    });

    it('kept in workspace state: a new sender over the same state (a reload, another window) does not send it either', async () => {
      server.handle((req) => req.socket.destroy());
      await run('test_login');
      server.handle((_req, res) => json(res, 201, { runId: 'trun_2' }));
      assert.deepEqual(await senderOver(store).startTestRun({ testId: 'test_login', branchId: 'br_2' }, o), { kind: 'uncertain', since: 1_000_000 });
      assert.equal(server.requests.length, 1);
    });

    it('a reload while a send was under way: the new sender finds it uncertain', async () => {
      server.handle(holding(201, { runId: 'trun_1' }));
      void run('test_login');
      while (held.length < 1) await settle();
      now += 5_000;
      assert.deepEqual(await senderOver(store).startTestRun({ testId: 'test_login', branchId: 'live' }, o), { kind: 'uncertain', since: 1_000_000 });
      assert.equal(server.requests.length, 1);
    });

    it('the words: when it began, and what to do', () => {
      const text = uncertainText('a run of test t', new Date(2026, 11, 6, 14, 5).getTime(), plainL10n);
      assert.match(text, /^An earlier request for a run of test t may have reached the service at 14:05; check it before sending again\.$/);
    });
  });

  it('no client: not connected, nothing sent, the lock released', async () => {
    client = undefined;
    assert.deepEqual(await sender.startTestRun({ testId: 't', branchId: 'live' }, o), { kind: 'notConnected' });
    assert.deepEqual(await sender.startTestRun({ testId: 't', branchId: 'live' }, o), { kind: 'notConnected' });
    assert.equal(server.requests.length, 0);
  });

  it('the refusal words: the service\'s sentence before a machine code, the reason first', () => {
    assert.equal(refusalWords({ reason: ' Limit ', serverMessage: 'Conflict' }), 'Limit');
    assert.equal(refusalWords({ serverMessage: 'Update conflict' }), 'Update conflict');
    assert.equal(refusalWords({ reason: 'workspace_concurrent_test_run_limit_reached', serverMessage: 'Too many test runs' }), 'Too many test runs');
    assert.equal(refusalWords({ reason: 'automation_run_in_progress' }), 'automation_run_in_progress');
    assert.equal(refusalWords({}), undefined);
  });
});
