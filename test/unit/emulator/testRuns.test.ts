import assert from 'node:assert/strict';
import { MANUAL_EPOCH, SEED, SEEDED_TESTS as T, startEmulator, type Emulator } from '../../emulator/index';
import { admin, ApiCaller, obj, testAdmin, testRunToEnd, type CallResult, type Json } from '../../emulator/testing';

const STEP = 1000;

describe('emulator: test runs on the clock (deployed shapes)', () => {
  let emu: Emulator;
  let api: ApiCaller;

  const startRun = async (testId: string, branchId = 'main', extra: Json = {}): Promise<string> => {
    const result = await api.startTestRun({ testId, branchId, ...extra });
    assert.equal(result.status, 201, result.text);
    assert.deepEqual(Object.keys(obj(result)), ['runId']);
    return String(obj(result).runId);
  };
  const read = async (runId: string): Promise<{ run: Json; test: Json; steps: Json[]; graph?: Json }> => {
    const result = await api.request('GET', `/test-runs/${runId}`);
    assert.equal(result.status, 200, result.text);
    return obj(result) as { run: Json; test: Json; steps: Json[]; graph?: Json };
  };
  const statuses = (steps: Json[]): unknown[] => steps.map((s) => s.status);
  const toEnd = async (runId: string): Promise<{ run: Json; steps: Json[]; graph?: Json }> => (await testRunToEnd(emu, api, runId, false, STEP)) as { run: Json; steps: Json[]; graph?: Json };

  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: STEP, preset: 'deployed', wider: 'B' });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('queued, then running on the next tick with the test user, then one step per tick: pending → passed; the component\'s steps carry its name', async () => {
    const runId = await startRun(T.add, 'Main', { model: 'my-own-model' });
    let detail = await read(runId);
    assert.deepEqual(
      { status: detail.run.status, branchId: detail.run.branchId, branchDisplay: detail.run.branchDisplay, environment: detail.run.environment, model: detail.run.model, startedAt: detail.run.startedAt, createdAt: detail.run.createdAt },
      { status: 'queued', branchId: 'main', branchDisplay: 'Main', environment: 'test', model: 'my-own-model', startedAt: null, createdAt: MANUAL_EPOCH },
      'a branch given by its label is stored by its id',
    );
    assert.deepEqual(detail.test, { id: T.add, name: 'Add a todo', description: 'A new todo goes to the end of the list.' });
    assert.deepEqual(statuses(detail.steps), ['pending', 'pending', 'pending', 'pending']);
    assert.deepEqual(detail.steps.slice(0, 2).map((s) => [s.sourceKind, s.sourceComponentId, s.sourceComponentName]), [['component', T.component, 'Sign in'], ['component', T.component, 'Sign in']]);
    assert.deepEqual(detail.steps.slice(2).map((s) => s.sourceKind), ['step', 'step']);

    await emu.advance(STEP);
    detail = await read(runId);
    assert.deepEqual({ status: detail.run.status, startedAt: detail.run.startedAt, user: detail.run.assignedTestUser, next: detail.run.nextPendingStepId }, {
      status: 'running', startedAt: MANUAL_EPOCH + STEP, user: { id: T.users.test, name: 'Test user', email: 'test-user@todo.example' }, next: detail.steps[0].id,
    });
    assert.deepEqual(statuses(detail.steps), ['pending', 'pending', 'pending', 'pending']);

    await emu.advance(STEP);
    detail = await read(runId);
    assert.deepEqual(statuses(detail.steps), ['passed', 'pending', 'pending', 'pending']);
    assert.equal(detail.steps[0].completedAt, MANUAL_EPOCH + 2 * STEP);
    assert.match(String(detail.steps[0].comment), /Open the sign-in page/);
    const artifacts = detail.steps[0].artifacts as Json[];
    assert.equal(artifacts.length, 1);
    assert.match(String(artifacts[0].url), /^https:\/\//);
    assert.equal(detail.run.nextPendingStepId, detail.steps[1].id);
    assert.deepEqual(detail.run.readyStepIds, [detail.steps[1].id]);

    const end = await toEnd(runId);
    assert.deepEqual(statuses(end.steps), ['passed', 'passed', 'passed', 'passed']);
    assert.deepEqual({ status: end.run.status, completedAt: end.run.completedAt, next: end.run.nextPendingStepId }, { status: 'passed', completedAt: MANUAL_EPOCH + 5 * STEP, next: null });
    assert.equal(end.run.summary, '4 of 4 steps run passed.');
    assert.deepEqual(end.run.counts, { total: 4, pending: 0, passed: 4, warning: 0, error: 0, cancelled: 0, skipped: 0 });
    assert.ok((end.run.artifacts as Json[]).every((a) => /^https:\/\//.test(String(a.url))));
  });

  it('a condition: the taken branch runs, the other is skipped; a [warn] step with onFailure continue ends the run warning', async () => {
    const end = await toEnd(await startRun(T.filter));
    const by = (instruction: RegExp): Json | undefined => end.steps.find((s) => instruction.test(String(s.instruction)));
    const condition = by(/at least one todo/);
    assert.deepEqual([condition?.stepType, condition?.status, condition?.conditionResult], ['condition', 'passed', 'met']);
    assert.deepEqual([by(/Choose the Completed/)?.status, by(/only completed/)?.status], ['passed', 'passed']);
    const skipped = by(/Mark the first/);
    assert.deepEqual([skipped?.status, skipped?.parentGraphNodeKey, skipped?.parentConditionOutcome, skipped?.completedAt], ['skipped', 'any', 'not_met', null]);
    assert.equal(by(/Clear the filter/)?.status, 'warning');
    assert.match(String(by(/Clear the filter/)?.comment), /warning/);
    assert.equal(end.run.status, 'warning');
    assert.match(String(end.run.summary), /1 with a warning.*1 skipped.*First problem: step 6/);
    assert.deepEqual(by(/Choose the Completed/)?.dependsOnStepIds, [condition?.id], 'a branch\'s first step waits for its condition');
    const edges = (end.graph?.edges as Json[]).filter((e) => e.from === 'any');
    assert.deepEqual(edges.map((e) => [e.to, e.outcome ?? null]), [['choose', 'met'], ['mark', 'not_met'], ['clear', null]]);
  });

  it('[not met] takes the other branch', async () => {
    const test = emu.state.appTests.get(T.filter);
    const condition = test?.steps.find((s) => s.stepType === 'condition');
    assert.ok(condition);
    condition.instruction = 'Is at least one todo marked as completed? [not met]';
    const end = await toEnd(await startRun(T.filter));
    assert.deepEqual(end.steps.map((s) => [s.graphNodeKey, s.status]), [['open', 'passed'], ['any', 'passed'], ['choose', 'skipped'], ['only', 'skipped'], ['mark', 'passed'], ['clear', 'warning']]);
  });

  it('a [fail] step with onFailure stop: the rest cancelled (two l), the run error', async () => {
    const end = await toEnd(await startRun(T.remove));
    assert.deepEqual(statuses(end.steps), ['passed', 'error', 'cancelled', 'cancelled']);
    assert.equal(end.run.status, 'error');
    assert.match(String(end.run.summary), /1 of 2 steps run passed, 1 failed, 2 cancelled\. First problem: step 2, "Delete the first todo"/);
    assert.match(String(end.steps[2].comment), /step 2/);
  });

  it('a disabled test user fails a branch run before its first step, saying why; with no live test user a live run starts without a login', async () => {
    const branch = await toEnd(await startRun(T.share));
    assert.equal(branch.run.status, 'error');
    assert.match(String(branch.run.summary), /test-version test user "Former test user" is disabled/);
    assert.deepEqual(statuses(branch.steps), ['pending', 'pending'], 'no step ran');
    assert.equal(branch.run.completedAt, MANUAL_EPOCH + STEP);
    const live = await toEnd(await startRun(T.share, 'live'));
    assert.deepEqual([live.run.status, live.run.assignedTestUser, statuses(live.steps)], ['passed', null, ['passed', 'passed']]);
  });

  it('live runs use the live test user and no branch cache', async () => {
    const runId = await startRun(T.add, 'live');
    await emu.advance(STEP);
    const { run } = await read(runId);
    assert.deepEqual([run.environment, run.branchId, run.branchDisplay, run.branchCacheId, (run.assignedTestUser as Json).id], ['live', 'live', 'Live', null, T.users.live]);
    const main = await read(await startRun(T.add, 'main'));
    assert.equal(main.run.branchCacheId, 'ver_todo_010', 'the branch\'s newest completed version');
  });

  it('400 for a component (with the reason), an unknown branch, a bad body; 404 for an unknown test, one outside the token\'s scope or workspace; 401', async () => {
    const post = (body: unknown, caller = api): Promise<CallResult> => caller.request('POST', '/test-runs', { body });
    const component = await post({ testId: T.component, branchId: 'main' });
    assert.deepEqual([component.status, obj(component).code, obj(component).field, obj(component).reason], [400, 'invalid_request', 'testId', 'test_is_component']);
    const branch = await post({ testId: T.add, branchId: 'nope' });
    assert.deepEqual([branch.status, obj(branch).field, obj(branch).reason], [400, 'branchId', 'unknown_branch']);
    for (const [body, field] of [[{ branchId: 'main' }, 'testId'], [{ testId: T.add }, 'branchId'], [{ testId: T.add, branchId: 'main', model: 5 }, 'model'], [{ testId: T.add, branchId: 'main', extra: 1 }, 'extra']] as const) {
      const result = await post(body);
      assert.deepEqual([result.status, obj(result).field], [400, field], JSON.stringify(body));
    }
    assert.equal((await post({ testId: 'tst_nope', branchId: 'main' })).status, 404);
    assert.equal(obj(await post({ testId: 'tst_nope', branchId: 'main' })).code, 'test_not_found');
    const token = obj(await admin(emu, 'POST', '/tokens', { workspaceId: SEED.workspaces.main, projects: [SEED.apps.shop] })).token as string;
    assert.equal((await post({ testId: T.add, branchId: 'main' }, new ApiCaller(emu, token))).status, 404, 'outside the token\'s scope');
    assert.equal((await post({ testId: T.add, branchId: 'main' }, new ApiCaller(emu, emu.tokens.noCredits))).status, 404, 'another workspace');
    assert.equal((await post({ testId: T.add, branchId: 'main' }, new ApiCaller(emu, null))).status, 401);
    assert.equal((await api.request('GET', '/test-runs/trn_nope')).status, 404);
    assert.equal(emu.state.testRuns.size, 0, 'nothing started');
  });

  it('409 concurrency_limit at the workspace\'s limit of active runs (a group run counts once); room again when one ends; the limit is the admin\'s', async () => {
    const limited = await testAdmin(emu.adminUrl).setTestRunLimit(2);
    assert.deepEqual(limited, { workspaceId: SEED.workspaces.main, limit: 2, active: 0 });
    await startRun(T.add);
    const group = await api.request('POST', '/test-group-runs', { body: { groupId: T.groups.smoke, branchId: 'main' } });
    assert.equal(group.status, 201, group.text);
    const refused = await api.request('POST', '/test-runs', { body: { testId: T.remove, branchId: 'main' } });
    assert.deepEqual([refused.status, obj(refused).code, obj(refused).reason], [409, 'concurrency_limit', 'workspace_concurrent_test_run_limit_reached']);
    assert.equal((await api.request('POST', '/test-group-runs', { body: { groupId: T.groups.smoke, branchId: 'main' } })).status, 409);
    await emu.advance(6 * STEP); // Add a todo: 1 + 4 steps
    await startRun(T.remove);
    await testAdmin(emu.adminUrl).setTestRunLimit(null);
    assert.equal((await admin(emu, 'PUT', '/test-run-limit', { limit: 0 })).status, 400);
  });

  it('admin hold keeps a run at its step until released; cancel ends it canceled (one l) with the steps not run cancelled', async () => {
    const ops = testAdmin(emu.adminUrl);
    const runId = await startRun(T.add);
    await emu.advance(2 * STEP);
    await ops.hold(runId);
    await emu.advance(10 * STEP);
    let detail = await read(runId);
    assert.deepEqual([detail.run.status, ...statuses(detail.steps)], ['running', 'passed', 'pending', 'pending', 'pending']);
    await ops.release(runId);
    await emu.advance(STEP);
    detail = await read(runId);
    assert.deepEqual(statuses(detail.steps), ['passed', 'passed', 'pending', 'pending']);
    await ops.cancel(runId);
    detail = await read(runId);
    assert.deepEqual([detail.run.status, ...statuses(detail.steps)], ['canceled', 'passed', 'passed', 'cancelled', 'cancelled']);
    assert.equal(detail.run.completedAt, MANUAL_EPOCH + 13 * STEP, 'when it was canceled');
    await emu.advance(5 * STEP);
    assert.equal((await read(runId)).run.status, 'canceled', 'stays canceled');
    assert.equal((await admin(emu, 'POST', '/test-runs/trn_nope/hold')).status, 404);
  });

  it('a group run: one child per test (not the component), each progressing; the group\'s status follows them', async () => {
    const started = await api.startTestGroupRun({ groupId: T.groups.regression, branchId: 'main' });
    assert.equal(started.status, 201, started.text);
    assert.deepEqual(Object.keys(obj(started)), ['groupRunId']);
    const groupRunId = String(obj(started).groupRunId);
    const readGroup = async (): Promise<{ run: Json; childRuns: Json[] }> => (await api.testRun(groupRunId, true)) as { run: Json; childRuns: Json[] };
    let group = await readGroup();
    assert.deepEqual([group.run.groupId, group.run.groupName, group.run.status], [T.groups.regression, 'Regression', 'queued']);
    assert.deepEqual(group.childRuns.map((c) => [c.testId, c.status]), [[T.add, 'queued'], [T.filter, 'queued'], [T.remove, 'queued']]);
    const child = await read(String(group.childRuns[0].id));
    assert.equal(child.run.groupRunId, groupRunId);
    await emu.advance(STEP);
    group = await readGroup();
    assert.deepEqual([group.run.status, group.run.startedAt, group.run.completedAt], ['running', MANUAL_EPOCH + STEP, null]);
    for (let i = 0; i < 10; i++) await emu.advance(STEP);
    group = await readGroup();
    assert.deepEqual(group.childRuns.map((c) => c.status), ['passed', 'warning', 'error']);
    assert.equal(group.run.status, 'error');
    assert.equal(group.run.completedAt, Math.max(...group.childRuns.map((c) => Number(c.completedAt))));
    assert.deepEqual(group.run.counts, { total: 3, queued: 0, running: 0, passed: 1, warning: 1, error: 1, canceled: 0 });
  });

  it('a group run: 404 for an unknown or archived group, 400 for one without a runnable test; an admin cancel cancels its children', async () => {
    assert.equal((await api.request('POST', '/test-group-runs', { body: { groupId: 'tg_nope', branchId: 'main' } })).status, 404);
    const only = await api.createGroup({ appId: T.appId, name: 'Only the component', testIds: [T.component, 'tst_unknown'] });
    const empty = await api.request('POST', '/test-group-runs', { body: { groupId: obj(only).groupId, branchId: 'main' } });
    assert.deepEqual([empty.status, obj(empty).reason], [400, 'group_has_no_runnable_tests']);
    const started = await api.request('POST', '/test-group-runs', { body: { groupId: T.groups.smoke, branchId: 'live' } });
    const groupRunId = String(obj(started).groupRunId);
    await emu.advance(STEP);
    await testAdmin(emu.adminUrl).cancel(groupRunId);
    const group = obj(await api.request('GET', `/test-group-runs/${groupRunId}`)) as { run: Json; childRuns: Json[] };
    assert.deepEqual([group.run.status, group.run.environment, ...group.childRuns.map((c) => c.status)], ['canceled', 'live', 'canceled', 'canceled']);
    await api.request('DELETE', `/test-groups/${T.groups.smoke}`);
    assert.equal((await api.request('POST', '/test-group-runs', { body: { groupId: T.groups.smoke, branchId: 'main' } })).status, 404);
  });

  it('version A: the run and its steps without B\'s fields, no graph; group runs without counts', async () => {
    await testAdmin(emu.adminUrl).setWider('A');
    const detail = await read(await startRun(T.filter));
    assert.deepEqual(Object.keys(detail).sort(), ['run', 'steps', 'test']);
    assert.deepEqual(Object.keys(detail.run).sort(), [
      'branchCacheId', 'branchDisplay', 'branchId', 'conversationId', 'createdAt', 'environment', 'id', 'model', 'projectId', 'status', 'summary', 'testId',
    ]);
    assert.deepEqual(Object.keys(detail.steps[0]).sort(), [
      'artifacts', 'comment', 'completedAt', 'details', 'id', 'instruction', 'onFailure', 'position', 'sourceComponentId', 'sourceComponentName', 'sourceKind', 'status',
    ]);
    const group = obj(await api.request('POST', '/test-group-runs', { body: { groupId: T.groups.smoke, branchId: 'main' } }));
    const run = (obj(await api.request('GET', `/test-group-runs/${String(group.groupRunId)}`)).run as Json);
    assert.equal('counts' in run, false);
  });
});
