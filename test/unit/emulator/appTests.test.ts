import assert from 'node:assert/strict';
import { MANUAL_EPOCH, SEED, SEEDED_TESTS as T, startEmulator, type Emulator } from '../../emulator/index';
import { admin, ApiCaller, obj, testAdmin, type CallResult, type Json } from '../../emulator/testing';

const STEP = 1000;
const list = (result: CallResult, key: string): Json[] => {
  assert.equal(result.status, 200, result.text);
  return obj(result)[key] as Json[];
};

describe('emulator: the app\'s tests, test groups and automations (deployed shapes)', () => {
  let emu: Emulator;
  let api: ApiCaller;

  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: STEP, preset: 'deployed', wider: 'B' });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('GET /tests?appId: the app\'s tests and its component, every field (B: timeoutMinutes); other apps have none', async () => {
    const tests = list(await api.request('GET', `/tests?appId=${T.appId}`), 'tests');
    assert.deepEqual(tests.map((t) => [t.id, t.isComponent]), [[T.component, true], [T.add, false], [T.filter, false], [T.remove, false], [T.share, false]]);
    assert.deepEqual(Object.keys(tests[1]), ['id', 'name', 'description', 'isComponent', 'viewportPreset', 'liveTestUserId', 'testVersionTestUserId', 'timeoutMinutes', 'createdAt', 'updatedAt']);
    assert.deepEqual([tests[0].liveTestUserId, tests[1].viewportPreset, tests[1].testVersionTestUserId], [null, 'desktop', T.users.test]);
    assert.deepEqual(list(await api.request('GET', `/tests?appId=${SEED.apps.shop}`), 'tests'), []);
  });

  it('GET /tests/{id} (B): steps with stepType, the condition\'s branches, the component reference with its name, graph keys and layout', async () => {
    const filter = obj(await api.request('GET', `/tests/${T.filter}`));
    assert.deepEqual([filter.projectId, filter.archivedAt], ['prj_01J8Z4T0D0K3V9', null]);
    const steps = filter.steps as Json[];
    assert.deepEqual(steps.map((s) => [s.position, s.stepType, s.graphNodeKey, s.parentGraphNodeKey, s.parentConditionOutcome]), [
      [0, 'test', 'open', null, null], [1, 'condition', 'any', null, null], [2, 'test', 'choose', 'any', 'met'], [3, 'test', 'only', 'any', 'met'],
      [4, 'test', 'mark', 'any', 'not_met'], [5, 'test', 'clear', null, null],
    ]);
    assert.equal('kind' in steps[0], false, 'B names the type stepType');
    assert.equal(typeof steps[2].positionX, 'number');
    const add = obj(await api.request('GET', `/tests/${T.add}`)).steps as Json[];
    assert.deepEqual([add[0].stepType, add[0].componentId, add[0].componentName, add[0].onFailure], ['component', T.component, 'Sign in', 'stop']);
  });

  it('GET /tests/{id} (A): flat steps with kind, no graph', async () => {
    await testAdmin(emu.adminUrl).setWider('A');
    const add = obj(await api.request('GET', `/tests/${T.add}`));
    assert.equal('timeoutMinutes' in add, false);
    const steps = add.steps as Json[];
    assert.deepEqual(steps[0], { id: steps[0].id, position: 0, kind: 'component', componentId: T.component, componentName: 'Sign in', onFailure: 'stop' });
    assert.deepEqual(Object.keys(steps[1]), ['id', 'position', 'kind', 'instruction', 'details', 'onFailure']);
    assert.equal(steps[1].kind, 'test');
  });

  it('auth, scope and errors: 401; 400 without appId; 404/403 for apps; 404 test_not_found for another workspace\'s or an unknown test', async () => {
    assert.equal((await new ApiCaller(emu, null).request('GET', `/tests?appId=${T.appId}`)).status, 401);
    assert.deepEqual(obj(await api.request('GET', '/tests')).field, 'appId');
    assert.equal(obj(await api.request('GET', '/tests?appId=app_nope')).code, 'app_not_found');
    assert.equal(obj(await api.request('GET', `/tests?appId=${SEED.apps.draft}`)).code, 'project_not_verified');
    const scoped = new ApiCaller(emu, emu.tokens.scoped);
    assert.equal((await scoped.request('GET', `/tests/${T.add}`)).status, 200);
    assert.equal(obj(await scoped.request('GET', `/automations?appId=${SEED.apps.shop}`)).code, 'app_outside_token_scope');
    const other = new ApiCaller(emu, emu.tokens.noCredits);
    for (const path of [`/tests/${T.add}`, `/test-groups/${T.groups.smoke}`]) {
      const result = await other.request('GET', path);
      assert.equal(result.status, 404, path);
    }
    const unknown = await api.request('GET', '/tests/tst_nope');
    assert.deepEqual([unknown.status, obj(unknown).code], [404, 'test_not_found']);
    assert.equal(obj(await api.request('GET', '/test-groups/tg_nope')).code, 'test_group_not_found');
  });

  it('GET /test-groups (B) lists the seeded groups and those POST /test-groups created, with counts of the members that are tests or components of the app', async () => {
    const created = await api.createGroup({ appId: T.appId, name: 'From files', testIds: [T.add, 'tst_not_here'] });
    assert.equal(created.status, 201);
    const groups = list(await api.request('GET', `/test-groups?appId=${T.appId}`), 'groups');
    assert.deepEqual(groups.map((g) => [g.id, g.name, g.testCount]), [[T.groups.smoke, 'Smoke', 2], [T.groups.regression, 'Regression', 4], [obj(created).groupId, 'From files', 1]]);
    assert.deepEqual(Object.keys(groups[0]), ['id', 'name', 'description', 'testCount', 'createdAt', 'updatedAt']);
    assert.deepEqual(list(await api.request('GET', `/test-groups?appId=${SEED.apps.crm}`), 'groups'), []);
  });

  it('GET /test-groups/{id}: members (B: isComponent; A: membershipId); A has no list (405, Allow: POST)', async () => {
    const detail = obj(await api.request('GET', `/test-groups/${T.groups.regression}`));
    assert.deepEqual([detail.projectId, detail.archivedAt, detail.testCount], ['prj_01J8Z4T0D0K3V9', null, 4]);
    const members = detail.members as Json[];
    assert.deepEqual(members.map((m) => [m.testId, m.isComponent]), [[T.add, false], [T.filter, false], [T.remove, false], [T.component, true]]);
    assert.deepEqual(Object.keys(members[0]), ['testId', 'name', 'description', 'liveTestUserId', 'testVersionTestUserId', 'updatedAt', 'isComponent']);
    await testAdmin(emu.adminUrl).setWider('A');
    const a = obj(await api.request('GET', `/test-groups/${T.groups.regression}`)).members as Json[];
    assert.equal('isComponent' in a[0], false);
    assert.equal(new Set(a.map((m) => m.membershipId)).size, 4);
    const listed = await api.request('GET', `/test-groups?appId=${T.appId}`);
    assert.deepEqual([listed.status, listed.headers.get('allow')], [405, 'POST']);
    for (const method of ['PUT', 'DELETE']) {
      const result = await api.request(method, `/test-groups/${T.groups.smoke}`, method === 'PUT' ? { body: { name: 'x', testIds: [] } } : {});
      assert.deepEqual([result.status, result.headers.get('allow')], [405, 'GET'], method);
    }
  });

  it('PUT /test-groups/{id} (B): 200 {ok: true}, the whole group replaced; 400 naming unknown test IDs (nothing changed); 404 for unknown', async () => {
    await emu.advance(5 * STEP);
    const put = await api.request('PUT', `/test-groups/${T.groups.smoke}`, { body: { name: 'Smoke (fast)', testIds: [T.remove, T.add] } });
    assert.deepEqual([put.status, obj(put)], [200, { ok: true }]);
    const detail = obj(await api.request('GET', `/test-groups/${T.groups.smoke}`));
    assert.deepEqual([detail.name, detail.description, detail.updatedAt, (detail.members as Json[]).map((m) => m.testId)], ['Smoke (fast)', 'Quick checks before a release.', MANUAL_EPOCH + 5 * STEP, [T.remove, T.add]]);
    await api.request('PUT', `/test-groups/${T.groups.smoke}`, { body: { name: 'Smoke', testIds: [], description: null } });
    assert.deepEqual([obj(await api.request('GET', `/test-groups/${T.groups.smoke}`)).description, emu.state.testGroups.get(T.groups.smoke)?.testIds], [null, []]);

    const unknown = await api.request('PUT', `/test-groups/${T.groups.regression}`, { body: { name: 'R', testIds: [T.add, 'tst_gone', 'tst_other'] } });
    assert.deepEqual([unknown.status, obj(unknown).code, obj(unknown).field, obj(unknown).reason], [400, 'invalid_request', 'testIds', 'unknown_test_ids']);
    assert.match(String(obj(unknown).error), /tst_gone, tst_other/);
    assert.equal(emu.state.testGroups.get(T.groups.regression)?.name, 'Regression');
    for (const body of [{ testIds: [] }, { name: 'x' }, { name: ' ', testIds: [] }, { name: 'x', testIds: [], extra: 1 }]) {
      assert.equal((await api.request('PUT', `/test-groups/${T.groups.smoke}`, { body })).status, 400, JSON.stringify(body));
    }
    assert.equal((await api.request('PUT', '/test-groups/tg_nope', { body: { name: 'x', testIds: [] } })).status, 404);
    assert.equal((await api.request('PUT', `/test-groups/${T.groups.smoke}`, { rawBody: 'name=x', contentType: 'text/plain' })).status, 415);
  });

  it('DELETE /test-groups/{id} (B): 200 {ok: true}; archived: 404 on every read and write after, gone from the list', async () => {
    const deleted = await api.request('DELETE', `/test-groups/${T.groups.smoke}`);
    assert.deepEqual([deleted.status, obj(deleted)], [200, { ok: true }]);
    assert.equal(typeof emu.state.testGroups.get(T.groups.smoke)?.archivedAt, 'number');
    assert.equal((await api.request('GET', `/test-groups/${T.groups.smoke}`)).status, 404);
    assert.equal((await api.request('DELETE', `/test-groups/${T.groups.smoke}`)).status, 404);
    assert.equal((await api.request('PUT', `/test-groups/${T.groups.smoke}`, { body: { name: 'x', testIds: [] } })).status, 404);
    assert.deepEqual(list(await api.request('GET', `/test-groups?appId=${T.appId}`), 'groups').map((g) => g.id), [T.groups.regression]);
  });

  it('GET /automations?appId: every field; POST /automations/{id}/run (no body) → 202, then lastRunAt moves and lastRunError is cleared or set', async () => {
    const before = list(await api.request('GET', `/automations?appId=${T.appId}`), 'automations');
    assert.deepEqual(before.map((a) => [a.id, a.triggerKind, a.canRunManually, a.enabled]), [
      [T.automations.smoke, 'manual', true, true], [T.automations.notes, 'manual', true, true], [T.automations.nightly, 'cron', false, true], [T.automations.merged, 'branch_merged', false, false],
    ]);
    assert.deepEqual(Object.keys(before[0]), ['id', 'projectId', 'name', 'enabled', 'triggerKind', 'triggerDescription', 'actionKinds', 'canRunManually', 'createdByName', 'createdAt', 'updatedAt', 'lastRunAt', 'lastRunError']);
    assert.deepEqual(before[2].actionKinds, ['run_tests', 'deploy_agent', 'send_message']);
    assert.notEqual(before[0].lastRunError, null);

    const queued = await api.request('POST', `/automations/${T.automations.smoke}/run`, { contentType: null });
    assert.deepEqual([queued.status, obj(queued)], [202, { automationId: T.automations.smoke, status: 'queued', queuedAt: MANUAL_EPOCH }]);
    const again = await api.request('POST', `/automations/${T.automations.smoke}/run`, { body: {} });
    assert.deepEqual([again.status, obj(again).reason], [409, 'automation_run_in_progress']);
    assert.equal((await api.request('POST', `/automations/${T.automations.notes}/run`)).status, 202);
    await emu.advance(STEP);
    assert.equal(list(await api.request('GET', `/automations?appId=${T.appId}`), 'automations')[0].lastRunAt, before[0].lastRunAt, 'not yet');
    await emu.advance(STEP);
    const after = list(await api.request('GET', `/automations?appId=${T.appId}`), 'automations');
    assert.deepEqual([after[0].lastRunAt, after[0].lastRunError], [MANUAL_EPOCH + 2 * STEP, null]);
    assert.deepEqual([after[1].lastRunAt, after[1].lastRunError], [MANUAL_EPOCH + 2 * STEP, 'The webhook https://hooks.todo.example/release-notes answered HTTP 500.']);
  });

  it('POST /automations/{id}/run: 409 with the reason for a cron or disabled one, 404 for an unknown one or another workspace\'s; the admin scripts the next outcome', async () => {
    const cron = await api.request('POST', `/automations/${T.automations.nightly}/run`);
    assert.deepEqual([cron.status, obj(cron).code, obj(cron).reason], [409, 'automation_not_runnable', 'trigger_not_manual']);
    await testAdmin(emu.adminUrl).scriptAutomation(T.automations.smoke, { enabled: false, nextRunError: 'Out of credits.' });
    const disabled = await api.request('POST', `/automations/${T.automations.smoke}/run`);
    assert.deepEqual([disabled.status, obj(disabled).reason], [409, 'automation_disabled']);
    await testAdmin(emu.adminUrl).scriptAutomation(T.automations.smoke, { enabled: true });
    assert.equal((await api.request('POST', `/automations/${T.automations.smoke}/run`)).status, 202);
    await emu.advance(2 * STEP);
    assert.equal(emu.state.automations.get(T.automations.smoke)?.lastRunError, 'Out of credits.');
    assert.equal(obj(await api.request('POST', '/automations/aut_nope/run')).code, 'automation_not_found');
    assert.equal((await new ApiCaller(emu, emu.tokens.noCredits).request('POST', `/automations/${T.automations.notes}/run`)).status, 404);
    assert.equal((await admin(emu, 'PATCH', '/automations/aut_nope', {})).status, 404);
  });

  it('the reference shapes serve none of it: 404 for every new path (POST /test-groups stays, 405 for GET)', async () => {
    await admin(emu, 'PATCH', '/settings', { shapes: 'reference' });
    const calls: [string, string][] = [
      ['GET', `/tests?appId=${T.appId}`], ['GET', `/tests/${T.add}`], ['POST', '/test-runs'], ['GET', '/test-runs/trn_x'], ['POST', '/test-group-runs'],
      ['GET', '/test-group-runs/tgr_x'], ['GET', `/test-groups/${T.groups.smoke}`], ['PUT', `/test-groups/${T.groups.smoke}`], ['DELETE', `/test-groups/${T.groups.smoke}`],
      ['GET', `/automations?appId=${T.appId}`], ['POST', `/automations/${T.automations.smoke}/run`],
    ];
    for (const [method, path] of calls) {
      const result = await api.request(method, path, method === 'GET' || method === 'DELETE' ? {} : { body: {} });
      assert.deepEqual([result.status, obj(result).code], [404, 'not_found'], `${method} ${path}`);
    }
    assert.deepEqual([(await api.request('GET', `/test-groups?appId=${T.appId}`)).status], [405]);
  });
});
