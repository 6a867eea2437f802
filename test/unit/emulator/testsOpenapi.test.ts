import assert from 'node:assert/strict';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { SEEDED_TESTS as T, startEmulator, type Emulator } from '../../emulator/index';
import { ApiCaller, obj, testAdmin, type CallResult, type Json } from '../../emulator/testing';

type Doc = Json & { paths: Record<string, Record<string, { responses: Json }>> };
const pointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** The operations of §3–§7's tests, runs, groups, test users and automations a document lists, as "METHOD /path". */
function testOperations(doc: Doc): string[] {
  const wider = /^\/(tests|test-runs|test-group-runs|test-groups|test-users|automations)/;
  return Object.entries(doc.paths)
    .filter(([path]) => wider.test(path))
    .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();
}

const A_OPERATIONS = [
  'GET /automations', 'GET /test-group-runs/{groupRunId}', 'GET /test-groups/{groupId}', 'GET /test-runs/{runId}', 'GET /test-users', 'GET /test-users/{testUserId}',
  'GET /tests', 'GET /tests/{testId}', 'POST /automations/{automationId}/run', 'POST /test-group-runs', 'POST /test-groups', 'POST /test-runs',
];
/** B and C: A's and the group list, edit and delete. */
const B_OPERATIONS = [...A_OPERATIONS, 'DELETE /test-groups/{groupId}', 'GET /test-groups', 'PUT /test-groups/{groupId}'].sort();

describe('emulator: the app\'s tests in the OpenAPI document, and faults on their paths', () => {
  let emu: Emulator;
  let api: ApiCaller;

  const served = async (): Promise<Doc> => obj(await new ApiCaller(emu, null).request('GET', '/openapi.json')) as Doc;

  before(async () => {
    emu = await startEmulator({ clock: 'manual', preset: 'deployed' });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('C (the default) and B list every operation; A no GET /test-groups, PUT or DELETE; the reference none; C wraps the test-user list', async () => {
    const c = await served();
    assert.deepEqual(testOperations(c), B_OPERATIONS);
    assert.deepEqual((c.components as { schemas: Record<string, Json> }).schemas.TestUserList.required, ['testUsers']);
    await testAdmin(emu.adminUrl).setWider('A');
    assert.deepEqual(testOperations(await served()), A_OPERATIONS);
    await testAdmin(emu.adminUrl).setWider('B');
    const b = await served();
    assert.deepEqual(testOperations(b), B_OPERATIONS);
    assert.equal((b.components as { schemas: Record<string, Json> }).schemas.TestUserList.type, 'array');
    await testAdmin(emu.adminUrl).setWider('A');
    emu.reset();
    assert.deepEqual(testOperations(await served()), B_OPERATIONS, 'reset() comes back to the option\'s version');
    const reference = await startEmulator({ clock: 'manual' });
    try {
      const doc = obj(await new ApiCaller(reference, null).request('GET', '/openapi.json')) as Doc;
      assert.deepEqual(testOperations(doc), ['POST /test-groups']);
    } finally {
      await reference.close();
    }
    const a = await startEmulator({ clock: 'manual', preset: 'deployed', wider: 'A' });
    try {
      assert.deepEqual(testOperations(obj(await new ApiCaller(a, null).request('GET', '/openapi.json')) as Doc), A_OPERATIONS);
    } finally {
      await a.close();
    }
    await assert.rejects(startEmulator({ wider: 'D' as 'A' }), RangeError);
  });

  for (const version of ['A', 'B', 'C'] as const) {
    it(`version ${version}: a valid document, and real answers (runs as they progress, refusals) validate against it`, async () => {
      await testAdmin(emu.adminUrl).setWider(version);
      const doc = await served();
      const { Validator } = await import('@seriousme/openapi-schema-validator');
      assert.equal((await new Validator().validate(doc)).valid, true);
      const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
      addFormats(ajv);
      ajv.addVocabulary(['openapi', 'info', 'servers', 'security', 'tags', 'paths', 'webhooks', 'components', 'x-model-kinds']);
      const id = `https://emulator.invalid/tests-${version}/openapi.json`;
      ajv.addSchema({ ...doc, $id: id });
      const check = (template: string, method: string, result: CallResult): void => {
        const key = String(result.status);
        assert.ok(key in doc.paths[template][method].responses, `${method} ${template} documents ${key}`);
        const validate = ajv.getSchema(`${id}#/paths/${pointer(template)}/${method}/responses/${key}/content/${pointer('application/json')}/schema`);
        assert.ok(validate);
        assert.ok(validate(result.json), `${method} ${template} ${key}: ${ajv.errorsText(validate.errors)} in ${result.text.slice(0, 300)}`);
      };
      check('/tests', 'get', await api.request('GET', `/tests?appId=${T.appId}`));
      check('/tests', 'get', await api.request('GET', '/tests'));
      for (const test of [T.add, T.filter, T.component, 'tst_nope']) check('/tests/{testId}', 'get', await api.request('GET', `/tests/${test}`));
      const runs: string[] = [];
      for (const [testId, branchId] of [[T.add, 'main'], [T.filter, 'live'], [T.share, 'main']]) {
        const started = await api.request('POST', '/test-runs', { body: { testId, branchId } });
        check('/test-runs', 'post', started);
        runs.push(String(obj(started).runId));
      }
      check('/test-runs', 'post', await api.request('POST', '/test-runs', { body: { testId: T.component, branchId: 'main' } }));
      check('/test-runs', 'post', await api.request('POST', '/test-runs', { body: { testId: T.remove, branchId: 'main' } })); // 409: three active
      await testAdmin(emu.adminUrl).setTestRunLimit(5);
      const group = await api.request('POST', '/test-group-runs', { body: { groupId: T.groups.regression, branchId: 'main' } });
      check('/test-group-runs', 'post', group);
      for (let i = 0; i < 9; i++) {
        for (const run of runs) check('/test-runs/{runId}', 'get', await api.request('GET', `/test-runs/${run}`));
        check('/test-group-runs/{groupRunId}', 'get', await api.request('GET', `/test-group-runs/${String(obj(group).groupRunId)}`));
        await emu.advance(1000);
      }
      check('/test-runs/{runId}', 'get', await api.request('GET', '/test-runs/trn_nope'));
      check('/test-groups/{groupId}', 'get', await api.request('GET', `/test-groups/${T.groups.regression}`));
      check('/automations', 'get', await api.request('GET', `/automations?appId=${T.appId}`));
      check('/test-users', 'get', await api.request('GET', `/test-users?appId=${T.appId}`));
      check('/test-users', 'get', await api.request('GET', '/test-users'));
      for (const user of [T.users.test, T.users.disabled, 'tu_nope']) check('/test-users/{testUserId}', 'get', await api.request('GET', `/test-users/${user}`));
      check('/automations/{automationId}/run', 'post', await api.request('POST', `/automations/${T.automations.smoke}/run`));
      check('/automations/{automationId}/run', 'post', await api.request('POST', `/automations/${T.automations.nightly}/run`));
      if (version !== 'A') {
        check('/test-groups', 'get', await api.request('GET', `/test-groups?appId=${T.appId}`));
        check('/test-groups/{groupId}', 'put', await api.request('PUT', `/test-groups/${T.groups.smoke}`, { body: { name: 'S', testIds: [T.add], description: 'd' } }));
        check('/test-groups/{groupId}', 'put', await api.request('PUT', `/test-groups/${T.groups.smoke}`, { body: { name: 'S', testIds: ['tst_nope'] } }));
        check('/test-groups/{groupId}', 'delete', await api.request('DELETE', `/test-groups/${T.groups.smoke}`));
        check('/test-groups/{groupId}', 'delete', await api.request('DELETE', `/test-groups/${T.groups.smoke}`));
      }
    });
  }

  it('faults apply to the new POST, PUT and DELETE paths: a cut after arrival did the work; an injected 503 did not; Retry-After on a real 409', async () => {
    emu.inject({ method: 'POST', path: '^/test-runs$', passThrough: true, reset: true });
    await assert.rejects(api.request('POST', '/test-runs', { body: { testId: T.add, branchId: 'main' } }));
    assert.equal(emu.state.testRuns.size, 1, 'the run was created');
    emu.inject({ method: 'POST', path: '^/test-group-runs$', cutBody: true });
    await assert.rejects(api.request('POST', '/test-group-runs', { body: { groupId: T.groups.smoke, branchId: 'main' } }));
    assert.equal(emu.state.groupRuns.size, 1);
    emu.inject({ method: 'POST', path: '^/automations/[^/]+/run$', passThrough: true, reset: true });
    await assert.rejects(api.request('POST', `/automations/${T.automations.smoke}/run`));
    assert.notEqual(emu.state.automations.get(T.automations.smoke)?.queuedAt, null, 'the automation run was queued');

    emu.inject({ method: 'PUT', path: '^/test-groups/[^/]+$', passThrough: true, reset: true });
    await assert.rejects(api.request('PUT', `/test-groups/${T.groups.smoke}`, { body: { name: 'Cut', testIds: [] } }));
    assert.equal(emu.state.testGroups.get(T.groups.smoke)?.name, 'Cut');
    emu.inject({ method: 'DELETE', path: '^/test-groups/[^/]+$', status: 503 });
    const unavailable = await api.request('DELETE', `/test-groups/${T.groups.regression}`);
    assert.deepEqual([unavailable.status, unavailable.headers.get('retry-after')], [503, '5']);
    assert.equal(emu.state.testGroups.get(T.groups.regression)?.archivedAt, undefined, 'not archived');

    await testAdmin(emu.adminUrl).setTestRunLimit(2);
    emu.inject({ method: 'POST', path: '^/test-runs$', retryAfter: 7 });
    const full = await api.request('POST', '/test-runs', { body: { testId: T.add, branchId: 'main' } });
    assert.deepEqual([full.status, full.headers.get('retry-after'), obj(full).code], [409, '7', 'concurrency_limit']);
    assert.equal(emu.requests.filter((r) => r.method === 'POST' && r.path === '/api/public/v1/test-runs').length, 2);
  });
});
