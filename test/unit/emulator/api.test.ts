import assert from 'node:assert/strict';
import { MANUAL_EPOCH, MODEL_IDS, SEED, startEmulator, type Emulator } from '../../emulator/index';
import { admin, ApiCaller, call, obj, type CallResult, type Json } from '../../emulator/testing';

const { apps, emails } = SEED;

function expectError(result: CallResult, status: number, code?: string): Json {
  assert.equal(result.status, status, `expected HTTP ${status}, got ${result.status}: ${result.text}`);
  assert.match(result.headers.get('content-type') ?? '', /^application\/json/);
  const body = obj(result);
  assert.equal(typeof body.error, 'string');
  assert.ok(String(body.error).length > 0);
  assert.equal(body.code, code);
  return body;
}

describe('emulator: public API endpoints and errors', () => {
  let emu: Emulator;
  let api: ApiCaller;

  const start = (overrides: Json = {}): Json => ({ appId: apps.todo, prompt: 'Add a dark mode toggle', model: 'hosted/auto', ...overrides });

  before(async () => {
    emu = await startEmulator({ clock: 'manual' });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  describe('POST /agents', () => {
    it('accepts a run at once: 201 with exactly the documented fields, status queued', async () => {
      const result = await api.start(start());
      assert.equal(result.status, 201);
      const body = obj(result);
      assert.deepEqual(Object.keys(body).sort(), ['agentId', 'appId', 'createdAt', 'kind', 'projectId', 'status']);
      assert.match(String(body.agentId), /^agt_[0-9a-f]{24}$/);
      assert.equal(body.kind, 'agent');
      assert.equal(body.status, 'queued');
      assert.equal(body.appId, apps.todo);
      assert.equal(body.projectId, 'prj_01J8Z4T0D0K3V9');
      assert.equal(body.createdAt, MANUAL_EPOCH);
    });

    it('applies defaults: reasoningEffort medium, permission read_only, no branch restriction', async () => {
      const agent = await api.agent(await api.startOk(start()));
      assert.equal(agent.reasoningEffort, 'medium');
      assert.equal(agent.permission, 'read_only');
      assert.deepEqual(agent.permittedBranches, []);
      assert.equal(agent.model, 'hosted/auto');
      assert.equal(agent.projectName, 'Todo App');
      assert.equal(agent.status, 'queued');
      assert.deepEqual(agent.history, []);
      assert.deepEqual(agent.lifecycle, { conversationState: 'queued', sandboxState: 'cold', queuedTurnCount: 1, lastLifecycleEventAt: MANUAL_EPOCH });
      assert.equal(agent.completedAt, undefined);
    });

    it('keeps every optional field it was given', async () => {
      const id = await api.startOk(start({
        reasoningEffort: 'high', permission: 'allow_edits', permittedBranches: ['feature/x', 'main'],
        completionWebhookUrl: 'http://127.0.0.1:9/hook', userEmail: emails.dev,
      }));
      const agent = await api.agent(id);
      assert.equal(agent.reasoningEffort, 'high');
      assert.equal(agent.permission, 'allow_edits');
      assert.deepEqual(agent.permittedBranches, ['feature/x', 'main']);
      assert.equal(agent.userEmail, undefined, 'the member email stays internal');
      assert.equal(emu.state.agents.get(id)?.userEmail, emails.dev);
      assert.equal(emu.state.agents.get(id)?.completionWebhookUrl, 'http://127.0.0.1:9/hook');
    });

    it('accepts each of the 10 models with the right user', async () => {
      assert.equal(MODEL_IDS.length, 10);
      await admin(emu, 'PATCH', '/workspaces/ws_acme', { paidCredits: 1000 });
      const google = emu.state.workspaces.get('ws_acme')?.members.find((m) => m.email === emails.dev);
      google?.credentials.push({ provider: 'google', active: true });
      for (const model of MODEL_IDS) {
        const result = await api.start(start({ model, userEmail: emails.dev }));
        assert.equal(result.status, 201, `${model}: ${result.text}`);
      }
    });
  });

  describe('authentication (401) and plan (402 api_access_required)', () => {
    const endpoints = (caller: ApiCaller): Array<[string, () => Promise<CallResult>]> => [
      ['POST /agents', () => caller.start(start())],
      ['GET /agents/{id}', () => caller.get('agt_000000000000000000000000')],
      ['POST /agents/{id}/messages', () => caller.followUp('agt_000000000000000000000000', { prompt: 'hi' })],
      ['POST /test-groups', () => caller.createGroup({ appId: apps.todo, name: 'Smoke' })],
    ];

    it('401 with only `error` and a Bearer challenge when the token is missing, malformed, unknown or revoked', async () => {
      const cases: Array<[string, CallResult]> = [
        ['missing', await call(`${emu.baseUrl}/agents`, 'POST', { body: start() })],
        ['not Bearer', await call(`${emu.baseUrl}/agents`, 'POST', { body: start(), headers: { authorization: `Basic ${emu.tokens.default}` } })],
        ['empty Bearer', await call(`${emu.baseUrl}/agents`, 'POST', { body: start(), headers: { authorization: 'Bearer ' } })],
        ['unknown', await new ApiCaller(emu, 'agr_ThisTokenDoesNotExist000000000000000000').start(start())],
        ['no prefix', await new ApiCaller(emu, emu.tokens.default.slice(4)).start(start())],
        ['revoked', await new ApiCaller(emu, emu.tokens.revoked).start(start())],
      ];
      for (const [name, result] of cases) {
        assert.equal(result.status, 401, name);
        assert.deepEqual(Object.keys(obj(result)), ['error'], name);
        assert.match(result.headers.get('www-authenticate') ?? '', /^Bearer /, name);
      }
      assert.match(String(obj(cases[5][1]).error), /revoked/);
      assert.equal(emu.state.agents.size, 0);
    });

    it('every authenticated endpoint answers 401 without a token', async () => {
      for (const [name, send] of endpoints(new ApiCaller(emu, null))) {
        assert.equal((await send()).status, 401, name);
      }
    });

    it('every endpoint answers 402 api_access_required with a reason when the plan lacks API access', async () => {
      for (const [name, send] of endpoints(new ApiCaller(emu, emu.tokens.noApiAccess))) {
        const body = expectError(await send(), 402, 'api_access_required');
        assert.equal(body.reason, 'plan_without_api_access', name);
      }
    });

    it('checks the plan before the body', async () => {
      const result = await new ApiCaller(emu, emu.tokens.noApiAccess).start({ prompt: 42 });
      expectError(result, 402, 'api_access_required');
    });

    it('revocation takes effect on the very next request', async () => {
      const created = obj(await admin(emu, 'POST', '/tokens', { workspaceId: 'ws_acme' }));
      const fresh = new ApiCaller(emu, String(created.token));
      assert.match(fresh.token ?? '', /^agr_[A-Za-z0-9]{40}$/);
      const id = await fresh.startOk(start());
      assert.equal((await admin(emu, 'POST', `/tokens/${String(created.token)}/revoke`)).status, 200);
      expectError(await fresh.get(id), 401);
      assert.equal((await api.get(id)).status, 200, 'other tokens are unaffected');
    });
  });

  describe('body validation (400 invalid_request, naming the field)', () => {
    const cases: Array<[string, unknown, string | undefined]> = [
      ['appId missing', { prompt: 'p', model: 'hosted/auto' }, 'appId'],
      ['prompt missing', { appId: apps.todo, model: 'hosted/auto' }, 'prompt'],
      ['model missing', { appId: apps.todo, prompt: 'p' }, 'model'],
      ['prompt blank', start({ prompt: '   ' }), 'prompt'],
      ['prompt too long', start({ prompt: 'x'.repeat(50_001) }), 'prompt'],
      ['appId not a string', start({ appId: 42 }), 'appId'],
      ['model not in the enum', start({ model: 'gpt-4' }), 'model'],
      ['reasoningEffort not in the enum', start({ reasoningEffort: 'extreme' }), 'reasoningEffort'],
      ['permission not in the enum', start({ permission: 'admin' }), 'permission'],
      ['permittedBranches not an array', start({ permittedBranches: 'main' }), 'permittedBranches'],
      ['permittedBranches item not a string', start({ permittedBranches: ['main', 7] }), 'permittedBranches[1]'],
      ['completionWebhookUrl not a URL', start({ completionWebhookUrl: 'not a url' }), 'completionWebhookUrl'],
      ['completionWebhookUrl not http(s)', start({ completionWebhookUrl: 'ftp://127.0.0.1/hook' }), 'completionWebhookUrl'],
      ['userEmail not an email', start({ userEmail: 'bob' }), 'userEmail'],
      ['unknown field', start({ priority: 'high' }), 'priority'],
      ['body is an array', [start()], undefined],
      ['body is null', null, undefined],
      ['body is a string', 'start', undefined],
    ];
    for (const [name, body, field] of cases) {
      it(`POST /agents: ${name}`, async () => {
        const error = expectError(await api.start(body), 400, 'invalid_request');
        assert.equal(error.field, field);
        if (field !== undefined) assert.ok(String(error.error).includes(field.replace(/\[\d+\]$/, '')), String(error.error));
        assert.equal(emu.state.agents.size, 0);
      });
    }

    it('rejects a body that is not JSON, or empty', async () => {
      expectError(await api.request('POST', '/agents', { rawBody: '{"appId": ', contentType: 'application/json' }), 400, 'invalid_request');
      expectError(await api.request('POST', '/agents', { rawBody: '', contentType: 'application/json' }), 400, 'invalid_request');
    });

    it('415 for a non-JSON content type, 413 for a body over 1 MiB', async () => {
      expectError(await api.request('POST', '/agents', { rawBody: JSON.stringify(start()), contentType: 'text/plain' }), 415, 'unsupported_media_type');
      expectError(await api.request('POST', '/agents', { rawBody: JSON.stringify(start()), contentType: null }), 415, 'unsupported_media_type');
      const ok = await api.request('POST', '/agents', { rawBody: JSON.stringify(start()), contentType: 'application/json; charset=utf-8' });
      assert.equal(ok.status, 201);
      expectError(await api.start(start({ prompt: 'x'.repeat(1024 * 1024) })), 413, 'payload_too_large');
    });

    it('validates the body before looking at the app', async () => {
      const error = expectError(await api.start(start({ appId: 'app_nope', model: 'nope' })), 400, 'invalid_request');
      assert.equal(error.field, 'model');
    });
  });

  describe('app scope (404 app_not_found, 403 project_not_verified / app_outside_token_scope)', () => {
    it('404 for an app that is not a project of the workspace (unknown, or another workspace\'s)', async () => {
      expectError(await api.start(start({ appId: 'app_nope' })), 404, 'app_not_found');
      expectError(await api.start(start({ appId: apps.broke })), 404, 'app_not_found');
    });

    it('403 project_not_verified for an unverified project', async () => {
      expectError(await api.start(start({ appId: apps.draft })), 403, 'project_not_verified');
    });

    it('a scoped token may target only its projects', async () => {
      const scoped = new ApiCaller(emu, emu.tokens.scoped);
      expectError(await scoped.start(start({ appId: apps.shop })), 403, 'app_outside_token_scope');
      assert.equal((await scoped.start(start({ appId: apps.todo }))).status, 201);
    });

    it('checks the app before the model and user rules', async () => {
      expectError(await api.start(start({ appId: apps.draft, model: 'openai/gpt-5' })), 403, 'project_not_verified');
    });
  });

  describe('model, user and credit rules', () => {
    it('400 user_email_required for a connected provider model without userEmail', async () => {
      const error = expectError(await api.start(start({ model: 'anthropic/claude-sonnet-4-5' })), 400, 'user_email_required');
      assert.match(String(error.error), /userEmail/);
    });

    it('403 user_not_workspace_member for an email outside the workspace', async () => {
      expectError(await api.start(start({ model: 'openai/gpt-5', userEmail: emails.stranger })), 403, 'user_not_workspace_member');
      expectError(await api.start(start({ model: 'openai/gpt-5', userEmail: emails.brokeOwner })), 403, 'user_not_workspace_member');
    });

    it('403 missing_provider_credentials for a member without active credentials for that provider', async () => {
      expectError(await api.start(start({ model: 'openai/gpt-5', userEmail: emails.noCreds })), 403, 'missing_provider_credentials');
      expectError(await api.start(start({ model: 'anthropic/claude-opus-4-1', userEmail: emails.expired })), 403, 'missing_provider_credentials');
      expectError(await api.start(start({ model: 'google/gemini-2.5-pro', userEmail: emails.dev })), 403, 'missing_provider_credentials');
      assert.equal((await api.start(start({ model: 'anthropic/claude-opus-4-1', userEmail: emails.dev }))).status, 201);
    });

    it('matches member emails case-insensitively', async () => {
      assert.equal((await api.start(start({ model: 'openai/gpt-5', userEmail: 'DEV@Example.com' }))).status, 201);
    });

    it('service-hosted models work without userEmail, but a given email must be a member', async () => {
      assert.equal((await api.start(start({ model: 'hosted/pro' }))).status, 201);
      expectError(await api.start(start({ model: 'hosted/pro', userEmail: emails.stranger })), 403, 'user_not_workspace_member');
      assert.equal((await api.start(start({ model: 'hosted/pro', userEmail: emails.noCreds }))).status, 201);
    });

    it('service-hosted runs spend paid credits per turn; connected provider runs do not', async () => {
      const ws = emu.state.workspaces.get('ws_acme');
      assert.equal(ws?.paidCredits, 100);
      await api.startOk(start({ model: 'hosted/pro' }));
      assert.equal(ws.paidCredits, 95);
      await api.startOk(start({ model: 'openai/gpt-5', userEmail: emails.dev }));
      assert.equal(ws.paidCredits, 95);
    });

    it('402 insufficient_paid_credits with a reason once the balance is below the turn cost', async () => {
      await admin(emu, 'PATCH', '/workspaces/ws_acme', { paidCredits: 3 });
      expectError(await api.start(start({ model: 'hosted/pro' })), 402, 'insufficient_paid_credits');
      await api.startOk(start({ model: 'hosted/balanced' }));
      const error = expectError(await api.start(start({ model: 'hosted/balanced' })), 402, 'insufficient_paid_credits');
      assert.equal(error.reason, 'paid_credit_balance_below_turn_cost');
      await api.startOk(start({ model: 'hosted/auto' }));
      expectError(await api.start(start({ model: 'hosted/auto' })), 402, 'insufficient_paid_credits');
      assert.equal(emu.state.workspaces.get('ws_acme')?.paidCredits, 0);
      assert.equal(emu.state.agents.size, 2);
    });

    it('a workspace without credits can still use connected provider models; user rules come before credits', async () => {
      const broke = new ApiCaller(emu, emu.tokens.noCredits);
      const base = { appId: apps.broke, prompt: 'p' };
      expectError(await broke.start({ ...base, model: 'hosted/auto' }), 402, 'insufficient_paid_credits');
      expectError(await broke.start({ ...base, model: 'openai/gpt-5' }), 400, 'user_email_required');
      assert.equal((await broke.start({ ...base, model: 'openai/gpt-5', userEmail: emails.brokeOwner })).status, 201);
    });
  });

  describe('GET /agents/{agentId}', () => {
    it('404 agent_not_found for an unknown id, a malformed one, or a run of another workspace', async () => {
      expectError(await api.get('agt_ffffffffffffffffffffffff'), 404, 'agent_not_found');
      expectError(await api.request('GET', '/agents/%E0%A4%A'), 404, 'not_found');
      const broke = new ApiCaller(emu, emu.tokens.noCredits);
      const foreignRun = await broke.startOk({ appId: apps.broke, prompt: 'p', model: 'openai/gpt-5', userEmail: emails.brokeOwner });
      assert.equal((await broke.get(foreignRun)).status, 200);
      expectError(await api.get(foreignRun), 404, 'agent_not_found');
    });

    it('a scoped token sees only runs of its projects', async () => {
      const scoped = new ApiCaller(emu, emu.tokens.scoped);
      const shopRun = await api.startOk(start({ appId: apps.shop }));
      const todoRun = await api.startOk(start({ appId: apps.todo }));
      expectError(await scoped.get(shopRun), 404, 'agent_not_found');
      assert.equal((await scoped.get(todoRun)).status, 200);
    });
  });

  describe('POST /agents/{agentId}/messages', () => {
    it('202 with exactly agentId, kind and status', async () => {
      const id = await api.startOk(start());
      const result = await api.followUp(id, { prompt: 'Also add tests', permission: 'allow_edits', permittedBranches: ['dev'], completionWebhookUrl: 'http://localhost:9/x' });
      assert.equal(result.status, 202);
      assert.deepEqual(obj(result), { agentId: id, kind: 'agent', status: 'queued' });
    });

    for (const key of ['appId', 'model', 'reasoningEffort', 'userEmail']) {
      it(`rejects \`${key}\`, which a follow-up does not take`, async () => {
        const id = await api.startOk(start());
        const value = key === 'userEmail' ? emails.dev : key === 'model' ? 'hosted/auto' : key === 'appId' ? apps.todo : 'low';
        const error = expectError(await api.followUp(id, { prompt: 'more', [key]: value }), 400, 'invalid_request');
        assert.equal(error.field, key);
        assert.equal(emu.state.agents.get(id)?.pendingTurns.length, 1, 'nothing was queued');
      });
    }

    const invalid: Array<[string, Json, string]> = [
      ['prompt missing', {}, 'prompt'],
      ['prompt not a string', { prompt: ['a'] }, 'prompt'],
      ['permission not in the enum', { prompt: 'p', permission: 'write' }, 'permission'],
      ['permittedBranches not an array', { prompt: 'p', permittedBranches: 'main' }, 'permittedBranches'],
      ['completionWebhookUrl not a URL', { prompt: 'p', completionWebhookUrl: '/relative' }, 'completionWebhookUrl'],
    ];
    for (const [name, body, field] of invalid) {
      it(`400 invalid_request: ${name}`, async () => {
        const id = await api.startOk(start());
        assert.equal(expectError(await api.followUp(id, body), 400, 'invalid_request').field, field);
      });
    }

    it('404 for an unknown run, after validating the body', async () => {
      expectError(await api.followUp('agt_ffffffffffffffffffffffff', { prompt: 'p' }), 404, 'agent_not_found');
      expectError(await api.followUp('agt_ffffffffffffffffffffffff', { prompt: '' }), 400, 'invalid_request');
    });
  });

  describe('POST /test-groups', () => {
    it('201 with only groupId; stores the group with its tests in the given order', async () => {
      const testIds = ['test-checkout', 'test-login', 'test-cart', 'test-login-2'];
      const result = await api.createGroup({ appId: apps.todo, name: 'Smoke', description: 'Fast checks', testIds });
      assert.equal(result.status, 201);
      const body = obj(result);
      assert.deepEqual(Object.keys(body), ['groupId']);
      const stored = emu.state.testGroups.get(String(body.groupId));
      assert.deepEqual(stored?.testIds, testIds);
      assert.equal(stored?.description, 'Fast checks');
      assert.equal(stored?.projectId, 'prj_01J8Z4T0D0K3V9');
    });

    it('description and testIds are optional; description may be null', async () => {
      const a = obj(await api.createGroup({ appId: apps.todo, name: 'A' }));
      const b = obj(await api.createGroup({ appId: apps.todo, name: 'B', description: null, testIds: [] }));
      assert.notEqual(a.groupId, b.groupId);
      assert.deepEqual(emu.state.testGroups.get(String(a.groupId))?.testIds, []);
      assert.equal(emu.state.testGroups.get(String(a.groupId))?.description, null);
    });

    const invalid: Array<[string, Json, string]> = [
      ['appId missing', { name: 'x' }, 'appId'],
      ['name missing', { appId: apps.todo }, 'name'],
      ['name blank', { appId: apps.todo, name: ' ' }, 'name'],
      ['description a number', { appId: apps.todo, name: 'x', description: 3 }, 'description'],
      ['testIds not an array', { appId: apps.todo, name: 'x', testIds: 't1' }, 'testIds'],
      ['testIds item not a string', { appId: apps.todo, name: 'x', testIds: ['t1', null] }, 'testIds[1]'],
      ['unknown field', { appId: apps.todo, name: 'x', tests: [] }, 'tests'],
    ];
    for (const [name, body, field] of invalid) {
      it(`400 invalid_request: ${name}`, async () => {
        assert.equal(expectError(await api.createGroup(body), 400, 'invalid_request').field, field);
        assert.equal(emu.state.testGroups.size, 0);
      });
    }

    it('applies the same app scope rules as runs', async () => {
      expectError(await api.createGroup({ appId: 'app_nope', name: 'x' }), 404, 'app_not_found');
      expectError(await api.createGroup({ appId: apps.draft, name: 'x' }), 403, 'project_not_verified');
      expectError(await new ApiCaller(emu, emu.tokens.scoped).createGroup({ appId: apps.crm, name: 'x' }), 403, 'app_outside_token_scope');
    });
  });

  describe('routing', () => {
    it('404 not_found for unknown routes (before auth), also outside the base path', async () => {
      expectError(await new ApiCaller(emu, null).request('GET', '/runs'), 404, 'not_found');
      expectError(await api.request('GET', '/agents/x/y/z'), 404, 'not_found');
      expectError(await call(`${emu.origin}/api/public/v2/agents`, 'GET'), 404, 'not_found');
      expectError(await call(`${emu.origin}/`, 'GET'), 404, 'not_found');
    });

    it('405 with Allow for a wrong method', async () => {
      const cases: Array<[string, string, string]> = [
        ['GET', '/agents', 'POST'],
        ['DELETE', '/agents/agt_1', 'GET'],
        ['GET', '/agents/agt_1/messages', 'POST'],
        ['PUT', '/test-groups', 'POST'],
        ['POST', '/openapi.json', 'GET'],
      ];
      for (const [method, path, allow] of cases) {
        const result = await api.request(method, path);
        expectError(result, 405, 'method_not_allowed');
        assert.equal(result.headers.get('allow'), allow);
      }
    });

    it('the admin API is unreachable under the base path', async () => {
      expectError(await api.request('GET', '/__admin/health'), 404, 'not_found');
      expectError(await api.request('POST', '/__admin/reset'), 404, 'not_found');
    });

    it('GET /openapi.json needs no token', async () => {
      const result = await new ApiCaller(emu, null).request('GET', '/openapi.json');
      assert.equal(result.status, 200);
      assert.match(result.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(obj(result).openapi, '3.1.0');
    });
  });
});
