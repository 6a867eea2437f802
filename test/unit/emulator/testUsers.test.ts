// The emulator's test users and who a test run signs in as, under C (the default) and B:
// GET /test-users (C wrapped, B a bare array), a run with no test user starts without a login,
// a disabled, missing or wrong-database one fails it before its first step, and C's run shape.
import assert from 'node:assert/strict';
import { MANUAL_EPOCH, NEVER_SYNCED_BRANCH, SEED, SEEDED_TESTS as T, startEmulator, VERSION_REASONS, type Emulator } from '../../emulator/index';
import { ApiCaller, obj, testAdmin, testRunToEnd, type CallResult, type Json } from '../../emulator/testing';

const STEP = 1000;

describe('emulator: test users and who a test run signs in as (deployed shapes)', () => {
  let emu: Emulator;
  let api: ApiCaller;

  const startRun = async (testId: string, branchId: string, extra: Json = {}): Promise<string> => {
    const result = await api.startTestRun({ testId, branchId, ...extra });
    assert.equal(result.status, 201, result.text);
    return String(obj(result).runId);
  };
  const toEnd = async (runId: string): Promise<{ run: Json; steps: Json[] }> => (await testRunToEnd(emu, api, runId)) as { run: Json; steps: Json[] };
  const users = (result: CallResult): unknown => {
    assert.equal(result.status, 200, result.text);
    return result.json;
  };

  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: STEP, preset: 'deployed' });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('GET /test-users?appId: C wraps the list in {testUsers} (nullable description and email); B answers a bare array; GET /test-users/{id}', async () => {
    const c = users(await api.request('GET', `/test-users?appId=${T.appId}`)) as { testUsers: Json[] };
    assert.deepEqual(Object.keys(c), ['testUsers']);
    assert.deepEqual(c.testUsers.map((u) => [u.id, u.database, u.isDisabled]), [[T.users.test, 'test', false], [T.users.live, 'live', false], [T.users.disabled, 'test', true]]);
    assert.deepEqual(Object.keys(c.testUsers[0]), ['id', 'name', 'description', 'email', 'database', 'isDisabled', 'createdAt']);
    assert.deepEqual([c.testUsers[2].description, c.testUsers[2].email], [null, null]);
    assert.deepEqual(obj(await api.request('GET', `/test-users/${T.users.live}`)), c.testUsers[1]);
    assert.deepEqual(users(await api.request('GET', `/test-users?appId=${SEED.apps.shop}`)), { testUsers: [] });
    await testAdmin(emu.adminUrl).setWider('B');
    assert.deepEqual(users(await api.request('GET', `/test-users?appId=${T.appId}`)), c.testUsers, 'B: the same items, not wrapped');

    const unknown = await api.request('GET', '/test-users/tu_nope');
    assert.deepEqual([unknown.status, obj(unknown).code], [404, 'test_user_not_found']);
    assert.equal((await new ApiCaller(emu, emu.tokens.noCredits).request('GET', `/test-users/${T.users.test}`)).status, 404, 'another workspace');
    assert.equal(obj(await api.request('GET', '/test-users')).field, 'appId');
    assert.equal((await new ApiCaller(emu, null).request('GET', `/test-users?appId=${T.appId}`)).status, 401);
  });

  it('a test with no test user for the environment starts without a login and runs normally (assignedTestUser null)', async () => {
    const live = await toEnd(await startRun(T.share, 'live'));
    assert.deepEqual([live.run.status, live.run.assignedTestUser, live.steps.map((s) => s.status)], ['passed', null, ['passed', 'passed']]);
    const test = emu.state.appTests.get(T.add);
    assert.ok(test);
    test.testVersionTestUserId = null;
    const branch = await toEnd(await startRun(T.add, 'main'));
    assert.deepEqual([branch.run.status, branch.run.assignedTestUser], ['passed', null]);
  });

  it('a disabled, missing or wrong-database test user fails the run before its first step; the summary says which and why', async () => {
    const disabled = await toEnd(await startRun(T.share, 'main'));
    assert.deepEqual([disabled.run.status, disabled.run.startedAt, disabled.run.completedAt, disabled.run.assignedTestUser], ['error', MANUAL_EPOCH + STEP, MANUAL_EPOCH + STEP, null]);
    assert.match(String(disabled.run.summary), /test-version test user "Former test user" is disabled/);
    assert.ok(disabled.steps.every((s) => s.status === 'pending'), 'no step ran');

    const test = emu.state.appTests.get(T.add);
    assert.ok(test);
    test.liveTestUserId = T.users.test;
    const wrongLive = await toEnd(await startRun(T.add, 'live'));
    assert.equal(wrongLive.run.status, 'error');
    assert.match(String(wrongLive.run.summary), /live test user "Test user" \(test-user@todo\.example\) belongs to the test database, and a live run signs in to the live one/);
    test.testVersionTestUserId = T.users.live;
    assert.match(String((await toEnd(await startRun(T.add, 'main'))).run.summary), /belongs to the live database, and a branch run signs in to the test one/);
    test.testVersionTestUserId = 'tu_deleted';
    assert.match(String((await toEnd(await startRun(T.add, 'main'))).run.summary), /test-version test user "tu_deleted" no longer exists/);
  });

  it('the assigned test user: C {id, name, email, database}; B {id, name, email}', async () => {
    const runId = await startRun(T.add, 'live');
    await emu.advance(STEP);
    assert.deepEqual(((await api.testRun(runId)).run as Json).assignedTestUser, { id: T.users.live, name: 'Live test user', email: 'live-user@todo.example', database: 'live' });
    await testAdmin(emu.adminUrl).setWider('B');
    assert.deepEqual(((await api.testRun(runId)).run as Json).assignedTestUser, { id: T.users.live, name: 'Live test user', email: 'live-user@todo.example' });
  });

  it('C\'s run: B\'s timing, user and app fields without the graph; app fields null while queued; model null when the start named none', async () => {
    const runId = await startRun(T.filter, 'Main');
    const queued = await api.testRun(runId);
    assert.deepEqual(Object.keys(queued).sort(), ['run', 'steps', 'test']);
    const run = queued.run as Json;
    assert.deepEqual(Object.keys(run).sort(), [
      'appBaseUrl', 'artifacts', 'assignedTestUser', 'branchCacheId', 'branchDisplay', 'branchId', 'bubbleAppName', 'completedAt', 'conversationId', 'createdAt',
      'environment', 'groupRunId', 'id', 'model', 'projectId', 'startedAt', 'status', 'summary', 'testId', 'testName',
    ]);
    assert.deepEqual([run.model, run.appBaseUrl, run.bubbleAppName, run.startedAt, run.summary, run.branchCacheId], [null, null, null, null, null, 'ver_todo_010']);
    assert.deepEqual(Object.keys((queued.steps as Json[])[0]).sort(), [
      'artifacts', 'comment', 'completedAt', 'details', 'id', 'instruction', 'onFailure', 'position', 'sourceComponentId', 'sourceComponentName', 'sourceKind', 'status',
    ]);
    await emu.advance(STEP);
    const started = (await api.testRun(runId)).run as Json;
    assert.deepEqual([started.appBaseUrl, started.bubbleAppName], ['https://main--todo-app.preview.apps.example', 'todo-app']);
    await testAdmin(emu.adminUrl).setWider('B');
    assert.equal(((await api.testRun(runId)).run as Json).model, 'hosted/auto', 'B names the default model');
    assert.equal(((await api.testRun(await startRun(T.add, 'main', { model: 'my-model' }))).run as Json).model, 'my-model');
  });

  it('a branch never synced cannot be run on: 400 version_not_synced (single and group runs); after a sync it can', async () => {
    for (const [path, body] of [['/test-runs', { testId: T.add, branchId: NEVER_SYNCED_BRANCH.label }], ['/test-group-runs', { groupId: T.groups.smoke, branchId: NEVER_SYNCED_BRANCH.version }]] as const) {
      const refused = await api.request('POST', path, { body });
      assert.deepEqual([refused.status, obj(refused).field, obj(refused).reason], [400, 'branchId', VERSION_REASONS.notSynced], path);
      assert.match(String(obj(refused).error), /sync it first/);
    }
    assert.equal(emu.state.testRuns.size, 0);
    const sync = obj(await api.request('POST', '/versions/sync', { body: { appId: T.appId, version: NEVER_SYNCED_BRANCH.version } }));
    await emu.advance(3 * STEP);
    const run = (await api.testRun(await startRun(T.add, NEVER_SYNCED_BRANCH.label))).run as Json;
    assert.deepEqual([run.branchId, run.branchDisplay, run.branchCacheId], [NEVER_SYNCED_BRANCH.version, NEVER_SYNCED_BRANCH.label, sync.versionId]);
  });
});
