import * as assert from 'node:assert/strict';
import { inspect } from 'node:util';
import {
  ApiError, conflictCause, createClient, extractOperations, extractSchemaInfo, mayHaveArrived, parseServiceSchemaInfo,
  validateStartTestRunRequest, validateUpdateTestGroupRequest, type AgentRunsApi,
} from '../../../src/api';
import { json, startServer, TOKEN, type TestServer } from '../fixtures/apiServers';
import { GROUP_DETAIL_B, GROUP_LIST_B, RUN_DETAIL_B, TEST_A } from '../fixtures/testPayloads';

async function failure(promise: Promise<unknown>, kind: string): Promise<ApiError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof ApiError, `expected an ApiError, got ${inspect(e)}`);
    assert.equal(e.kind, kind, `expected ${kind}, got ${e.kind}: ${e.message}`);
    return e;
  }
  assert.fail(`expected an ApiError of kind ${kind}, but the call succeeded`);
}

/** Lets a retry, if anything attempted one, arrive before requests are counted. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 50));

describe('api: test, test run, test group and automation calls against a scripted server', function () {
  let server: TestServer;
  let client: AgentRunsApi;

  beforeEach(async () => {
    server = await startServer((_req, res) => json(res, 500, { error: 'no handler' }));
    client = createClient({ baseUrl: server.baseUrl, token: TOKEN, timeouts: { connectMs: 2_000, headersMs: 1_000, bodyMs: 1_000 } });
  });

  afterEach(async () => {
    await client.dispose();
    await server.close();
  });

  const sent = (): [string, string, string][] => server.requests.map((r) => [r.method, r.url, r.body]);

  it('reads: the paths, queries (appId trimmed and encoded) and parsers of each GET', async () => {
    server.handle((req, res) => {
      const url = req.url ?? '';
      if (url.startsWith('/api/public/v1/tests?')) return json(res, 200, { tests: [TEST_A] });
      if (url.startsWith('/api/public/v1/test-groups?')) return json(res, 200, GROUP_LIST_B);
      if (url.startsWith('/api/public/v1/test-groups/')) return json(res, 200, GROUP_DETAIL_B);
      if (url.startsWith('/api/public/v1/test-runs/')) return json(res, 200, RUN_DETAIL_B);
      if (url.startsWith('/api/public/v1/automations?')) return json(res, 200, { automations: [] });
      return json(res, 404, { error: 'nothing here' });
    });
    assert.equal((await client.listTests(' app todo ')).length, 1);
    assert.equal((await client.listTestGroups('app_todo')).length, 2);
    assert.equal((await client.getTestGroup(' grp/smoke ')).members.length, 2);
    assert.equal((await client.getTestRun('trun_2')).steps.length, 4);
    assert.deepEqual(await client.listAutomations('app_todo'), []);
    assert.deepEqual(server.requests.map((r) => [r.method, r.url]), [
      ['GET', '/api/public/v1/tests?appId=app+todo'],
      ['GET', '/api/public/v1/test-groups?appId=app_todo'],
      ['GET', '/api/public/v1/test-groups/grp%2Fsmoke'],
      ['GET', '/api/public/v1/test-runs/trun_2'],
      ['GET', '/api/public/v1/automations?appId=app_todo'],
    ]);
  });

  it('refused before sending: a blank appId, an id of `..`, a run without a branch', async () => {
    await failure(client.listTests('  '), 'invalid_input');
    await failure(client.getTest('..'), 'invalid_input');
    await failure(client.startTestRun({ testId: 't', branchId: ' ' }), 'invalid_input');
    await failure(client.updateTestGroup('g', { name: 'x', testIds: 'a' as unknown as string[] }), 'invalid_input');
    await settle();
    assert.equal(server.requests.length, 0);
  });

  it('POST /test-runs and /test-group-runs: the validated body, 201 read', async () => {
    server.handle((req, res) => json(res, 201, req.url?.endsWith('/test-runs') ? { runId: 'trun_9' } : { groupRunId: 'grun_9' }));
    assert.deepEqual(await client.startTestRun({ testId: ' test_login ', branchId: ' live ', model: ' ' }), { runId: 'trun_9' });
    assert.deepEqual(await client.startTestGroupRun({ groupId: 'grp_smoke', branchId: 'br_1', model: 'gpt-5' }), { groupRunId: 'grun_9' });
    assert.deepEqual(sent(), [
      ['POST', '/api/public/v1/test-runs', JSON.stringify({ testId: 'test_login', branchId: 'live' })],
      ['POST', '/api/public/v1/test-group-runs', JSON.stringify({ groupId: 'grp_smoke', branchId: 'br_1', model: 'gpt-5' })],
    ]);
  });

  it('PUT and DELETE /test-groups/{id}: sent once, 200 { ok: true } (or 204) is done', async () => {
    server.handle((req, res) => (req.method === 'DELETE' ? res.writeHead(204).end() : json(res, 200, { ok: true })));
    await client.updateTestGroup('grp_smoke', { name: ' Smoke ', testIds: ['a', ' b ', 'a'], description: ' quick ' });
    await client.deleteTestGroup('grp_smoke');
    assert.deepEqual(sent(), [
      ['PUT', '/api/public/v1/test-groups/grp_smoke', JSON.stringify({ name: 'Smoke', testIds: ['a', 'b'], description: 'quick' })],
      ['DELETE', '/api/public/v1/test-groups/grp_smoke', ''],
    ]);
    assert.equal(server.requests[0].headers['content-type'], 'application/json');
    assert.equal(server.requests[1].headers['content-type'], undefined);
  });

  it('POST /automations/{id}/run without a body: the 202 read, the id filled in when left out', async () => {
    server.handle((_req, res) => json(res, 202, { status: 'queued', queuedAt: 7 }));
    assert.deepEqual(await client.runAutomation('auto_1'), { automationId: 'auto_1', status: 'queued', queuedAt: 7 });
    assert.deepEqual(sent(), [['POST', '/api/public/v1/automations/auto_1/run', '']]);
  });

  for (const [name, send, method, path] of [
    ['POST /test-runs', (c: AgentRunsApi) => c.startTestRun({ testId: 't', branchId: 'live' }), 'POST', '/test-runs'],
    ['POST /test-group-runs', (c: AgentRunsApi) => c.startTestGroupRun({ groupId: 'g', branchId: 'live' }), 'POST', '/test-group-runs'],
    ['PUT /test-groups/{id}', (c: AgentRunsApi) => c.updateTestGroup('g', { name: 'G', testIds: [] }), 'PUT', '/test-groups/g'],
    ['DELETE /test-groups/{id}', (c: AgentRunsApi) => c.deleteTestGroup('g'), 'DELETE', '/test-groups/g'],
    ['POST /automations/{id}/run', (c: AgentRunsApi) => c.runAutomation('a'), 'POST', '/automations/a/run'],
  ] as const) {
    it(`${name}: a cut after the body arrived may have reached the service, and is not sent again`, async () => {
      server.handle((req) => req.socket.destroy());
      const e = await failure(send(client), 'network');
      assert.equal(e.mayHaveReachedServer, true);
      assert.equal(mayHaveArrived(e), true);
      assert.deepEqual([e.method, e.path], [method, path]);
      await settle();
      assert.equal(server.requests.length, 1, 'sent exactly once');
    });

    it(`${name}: 409 with a reason is a refusal (nothing arrived), sent once, the reason readable`, async () => {
      server.handle((_req, res) => json(res, 409, { error: 'Conflict', reason: 'Concurrent test run limit reached' }));
      const e = await failure(send(client), 'client');
      assert.equal(e.status, 409);
      assert.equal(e.reason, 'Concurrent test run limit reached');
      assert.equal(conflictCause(e), 'concurrency');
      assert.equal(mayHaveArrived(e), false);
      await settle();
      assert.equal(server.requests.length, 1);
    });
  }

  it('a PUT answered with ok: false, or with a redirect, is not taken as done and says it may have been received', async () => {
    server.handle((_req, res) => json(res, 200, { ok: false }));
    const e = await failure(client.updateTestGroup('g', { name: 'G', testIds: [] }), 'invalid_response');
    assert.match(e.message, /ok: false.*The request was received; check before sending it again\./);
    server.handle((_req, res) => res.writeHead(307, { location: '/api/public/v1/test-groups/h' }).end());
    const r = await failure(client.deleteTestGroup('g'), 'invalid_response');
    assert.match(r.message, /not followed for requests that change data/);
    assert.equal(server.requests.length, 2);
  });
});

describe('api: the requests of tests and groups, checked', () => {
  it('a test run needs a test and a branch; the model is a plain string, blank left out', () => {
    assert.deepEqual(validateStartTestRunRequest({ testId: 't', branchId: 'feature/x', model: ' any-model ', extra: 1 }), { testId: 't', branchId: 'feature/x', model: 'any-model' });
    assert.throws(() => validateStartTestRunRequest({ branchId: 'live' }), /testId is required/);
    assert.throws(() => validateStartTestRunRequest({ testId: 't', branchId: 'live', model: 5 }), /model must be text/);
  });

  it('a group update is the whole group: a name, the test IDs in order (empty allowed), a description kept even empty', () => {
    assert.deepEqual(validateUpdateTestGroupRequest({ name: 'G', testIds: [], description: '  ' }), { name: 'G', testIds: [], description: '' });
    assert.deepEqual(validateUpdateTestGroupRequest({ name: 'G', testIds: ['b', 'a', 'b'], description: null }), { name: 'G', testIds: ['b', 'a'] });
    assert.throws(() => validateUpdateTestGroupRequest({ name: ' ', testIds: [] }), /name is empty/);
    assert.throws(() => validateUpdateTestGroupRequest({ name: 'G' }), /testIds is required/);
    assert.throws(() => validateUpdateTestGroupRequest({ name: 'G', testIds: ['a', 3] }), /item 2 is not text/);
  });
});

describe('api: the operations a served schema lists', () => {
  const doc = {
    openapi: '3.1.0',
    info: { version: '2026.6' },
    paths: {
      '/api/public/v1/tests': { get: {}, post: {} },
      '/tests/{testId}': { get: {}, put: {}, parameters: [] },
      '/test-groups/{groupId}/': { get: {}, put: {}, delete: {} },
      '/automations/{automation_id}/run': { post: {} },
      '/test-runs': { $ref: '#/components/pathItems/runs' },
      'nope': { get: {} },
    },
    components: { pathItems: { runs: { post: {} } } },
  };

  it('METHOD /path relative to the base URL, every parameter written {}, sorted; non-operations ignored', () => {
    assert.deepEqual(extractOperations(doc), [
      'DELETE /test-groups/{}', 'GET /test-groups/{}', 'GET /tests', 'GET /tests/{}', 'POST /automations/{}/run', 'POST /test-runs',
      'POST /tests', 'PUT /test-groups/{}', 'PUT /tests/{}',
    ]);
    assert.deepEqual(extractOperations({ paths: [] }), []);
    assert.deepEqual(extractOperations(null), []);
  });

  it('kept in the schema information and in what is stored of it; stored information without them reads as unknown', () => {
    const info = extractSchemaInfo(doc);
    assert.deepEqual(info.operations, extractOperations(doc));
    assert.deepEqual(parseServiceSchemaInfo(JSON.parse(JSON.stringify(info))).operations, info.operations);
    const old = parseServiceSchemaInfo({ models: [], fingerprint: 'sha256:x', paths: ['/agents'] });
    assert.equal('operations' in old, false);
  });
});
