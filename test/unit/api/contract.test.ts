/**
 * The client against the service emulator (test/emulator): every endpoint, every documented
 * error code, and the faults a real network produces. The emulator is written from the
 * published reference independently of src/api, so disagreements show up here.
 */
import * as assert from 'node:assert/strict';
import { inspect } from 'node:util';
import {
  ApiError, createClient, describeApiError, validateStartAgentRequest,
  type AgentRunsApi, type ClientOptions, type RequestLogEntry,
} from '../../../src/api';
import { MODEL_IDS, SEED, startEmulator, type Emulator } from '../../emulator';
import { API_VERSION } from '../../emulator/openapi';

const HOSTED = 'hosted/auto';
const OPENAI = 'openai/gpt-5';
const ANTHROPIC = 'anthropic/claude-sonnet-4-5';

async function expectApiError(promise: Promise<unknown>, kind: string): Promise<ApiError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof ApiError, `expected ApiError, got ${inspect(e)}`);
    assert.equal(e.kind, kind, `expected ${kind}, got ${e.kind}: ${e.message}`);
    return e;
  }
  assert.fail(`expected an ApiError of kind ${kind}, but the call succeeded`);
}

describe('api: contract with the service emulator', function () {
  this.timeout(15_000);
  let emu: Emulator;
  const clients: AgentRunsApi[] = [];
  const logs: RequestLogEntry[] = [];

  before(async () => {
    emu = await startEmulator({ port: 0, clock: 'manual', stepMs: 1000 });
  });
  after(() => emu.close());

  beforeEach(() => emu.reset());
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    // No log entry ever carries a token, whatever the test did.
    const logText = JSON.stringify(logs.splice(0));
    for (const t of allTokens()) assert.ok(!logText.includes(t), 'token in a log entry');
  });

  function client(token: string = emu.tokens.default, over: Partial<ClientOptions> = {}): AgentRunsApi {
    const c = createClient({ baseUrl: emu.baseUrl, token, log: (e) => logs.push(e), timeouts: { headersMs: 2_000, bodyMs: 2_000 }, ...over });
    clients.push(c);
    return c;
  }

  async function fails(promise: Promise<unknown>, kind: string): Promise<ApiError> {
    const e = await expectApiError(promise, kind);
    const text = [e.message, describeApiError(e), inspect(e, { depth: 6, showHidden: true }), JSON.stringify(e)].join('\n');
    for (const t of allTokens()) assert.ok(!text.includes(t), `token in error: ${text}`);
    return e;
  }

  const allTokens = (): string[] => [emu.tokens.default, emu.tokens.scoped, emu.tokens.noApiAccess, emu.tokens.noCredits, emu.tokens.revoked];

  const postsTo = (path: RegExp): number => emu.requests.filter((r) => r.method === 'POST' && path.test(r.path)).length;

  describe('endpoints', () => {
    it('POST /agents → a queued run, sent with the token and the defaults', async () => {
      const run = await client().startAgent({ appId: SEED.apps.todo, prompt: 'Add a dark mode toggle', model: HOSTED });
      assert.match(run.agentId, /\S/);
      assert.equal(run.status, 'queued');
      assert.equal(run.kind, 'agent');
      assert.equal(run.appId, SEED.apps.todo);
      assert.equal(typeof run.projectId, 'string');
      assert.equal(typeof run.createdAt, 'number');
      const [req] = emu.requests;
      assert.equal(req.headers.authorization, `Bearer ${emu.tokens.default}`);
      assert.match(req.headers['content-type'] ?? '', /^application\/json/);
      assert.deepEqual(JSON.parse(req.body), { appId: SEED.apps.todo, prompt: 'Add a dark mode toggle', model: HOSTED, reasoningEffort: 'medium', permission: 'read_only' });
    });

    it('GET /agents/{id} follows the run to completion', async () => {
      const c = client();
      const run = await c.startAgent({ appId: SEED.apps.todo, prompt: 'Rename the header', model: OPENAI, userEmail: SEED.emails.dev, permittedBranches: ['main'] });
      const queued = await c.getAgent(run.agentId);
      assert.equal(queued.agentId, run.agentId);
      assert.equal(queued.status, 'queued');
      assert.equal(queued.model, OPENAI);
      assert.deepEqual(queued.permittedBranches, ['main']);
      await emu.advance(1000);
      const running = await c.getAgent(run.agentId);
      assert.equal(running.status, 'running');
      assert.equal(running.history?.[0]?.role, 'user');
      assert.equal(running.history?.[0]?.content, 'Rename the header');
      assert.equal(typeof running.lifecycle?.conversationState, 'string');
      await emu.advance(20_000);
      const done = await c.getAgent(run.agentId);
      assert.equal(done.status, 'completed');
      assert.equal(typeof done.completedAt, 'number');
      assert.ok((done.history?.length ?? 0) > 1);
      const sequences = done.history?.map((m) => m.sequence) ?? [];
      assert.deepEqual(sequences, [...sequences].sort((a, b) => (a ?? 0) - (b ?? 0)));
    });

    it('a failing run ends in error with lastError', async () => {
      const c = client();
      const run = await c.startAgent({ appId: SEED.apps.todo, prompt: 'Break it [[fail]]', model: HOSTED });
      await emu.advance(30_000);
      const agent = await c.getAgent(run.agentId);
      assert.equal(agent.status, 'error');
      assert.match(agent.lastError ?? '', /\S/);
    });

    it('POST /agents/{id}/messages → an acknowledgement', async () => {
      const c = client();
      const run = await c.startAgent({ appId: SEED.apps.todo, prompt: 'First', model: HOSTED });
      await emu.advance(30_000);
      const ack = await c.sendFollowUp(run.agentId, { prompt: 'Now add tests', permission: 'allow_edits' });
      assert.equal(ack.agentId, run.agentId);
      assert.equal(ack.kind, 'agent');
      assert.match(ack.status, /^(queued|running)$/);
      const agent = await c.getAgent(run.agentId);
      assert.equal(agent.permission, 'allow_edits');
    });

    it('POST /test-groups → a groupId, test order kept', async () => {
      const group = await client().createTestGroup({ appId: SEED.apps.todo, name: ' Smoke ', description: null, testIds: ['t3', 't1', 't2'] });
      assert.match(group.groupId, /\S/);
      const stored = emu.state.testGroups.get(group.groupId);
      assert.equal(stored?.name, 'Smoke');
      assert.deepEqual(stored?.testIds, ['t3', 't1', 't2']);
    });

    it('GET /openapi.json → the 10 model ids, the version and a stable fingerprint', async () => {
      const c = client();
      const info = await c.getSchemaInfo();
      assert.deepEqual(info.models, [...MODEL_IDS]);
      assert.equal(info.models.length, 10);
      assert.equal(info.version, API_VERSION);
      assert.equal((await c.getSchemaInfo()).fingerprint, info.fingerprint);
      // Same origin: the token goes along (harmless, the emulator ignores it).
      assert.equal(emu.requests[0].headers.authorization, `Bearer ${emu.tokens.default}`);
      // Every served model passes local validation, and nothing else does.
      for (const model of info.models) {
        assert.equal(validateStartAgentRequest({ appId: 'a', prompt: 'p', model }, { knownModels: info.models }).model, model);
      }
      assert.throws(() => validateStartAgentRequest({ appId: 'a', prompt: 'p', model: 'gpt-4' }, { knownModels: info.models }),
        (e: unknown) => e instanceof ApiError && e.kind === 'invalid_input');
    });
  });

  describe('documented errors', () => {
    it('401: a revoked token', async () => {
      const e = await fails(client(emu.tokens.revoked).getAgent('agt_x'), 'unauthorized');
      assert.equal(e.status, 401);
      assert.equal(describeApiError(e), 'The token was refused (401). Set a new API token.');
    });

    it('401: an unknown token, on every endpoint', async () => {
      const c = client('agr_thisTokenDoesNotExist000000000000000000');
      await fails(c.startAgent({ appId: SEED.apps.todo, prompt: 'p', model: HOSTED }), 'unauthorized');
      await fails(c.getAgent('agt_x'), 'unauthorized');
      await fails(c.sendFollowUp('agt_x', { prompt: 'p' }), 'unauthorized');
      await fails(c.createTestGroup({ appId: SEED.apps.todo, name: 'n' }), 'unauthorized');
    });

    it('402 api_access_required', async () => {
      const e = await fails(client(emu.tokens.noApiAccess).startAgent({ appId: SEED.apps.free, prompt: 'p', model: HOSTED }), 'plan_required');
      assert.equal(e.code, 'api_access_required');
      assert.equal(e.status, 402);
      assert.equal(typeof e.reason, 'string');
      assert.equal(describeApiError(e), 'This workspace\'s plan has no API access (402). Ask a workspace admin to upgrade the plan.');
    });

    it('402 insufficient_paid_credits', async () => {
      const e = await fails(client(emu.tokens.noCredits).startAgent({ appId: SEED.apps.broke, prompt: 'p', model: HOSTED }), 'insufficient_credits');
      assert.equal(e.code, 'insufficient_paid_credits');
      assert.match(describeApiError(e), /^Not enough paid credits for model hosted\/auto \(402\)\. Choose a connected-provider model or add credits\.$/);
      // The connected-provider way out works for the same workspace.
      const run = await client(emu.tokens.noCredits).startAgent({ appId: SEED.apps.broke, prompt: 'p', model: OPENAI, userEmail: SEED.emails.brokeOwner });
      assert.equal(run.status, 'queued');
    });

    it('400 user_email_required', async () => {
      const e = await fails(client().startAgent({ appId: SEED.apps.todo, prompt: 'p', model: OPENAI }), 'user_email_required');
      assert.equal(e.code, 'user_email_required');
      assert.match(describeApiError(e), /Set userEmail/);
    });

    it('403 user_not_workspace_member', async () => {
      const e = await fails(client().startAgent({ appId: SEED.apps.todo, prompt: 'p', model: OPENAI, userEmail: SEED.emails.stranger }), 'user_not_workspace_member');
      assert.equal(e.code, 'user_not_workspace_member');
      assert.equal(describeApiError(e), `${SEED.emails.stranger} is not a member of this workspace (403). Use the email of a workspace member.`);
    });

    it('403 missing_provider_credentials (none, and expired)', async () => {
      for (const email of [SEED.emails.noCreds, SEED.emails.expired]) {
        const e = await fails(client().startAgent({ appId: SEED.apps.todo, prompt: 'p', model: ANTHROPIC, userEmail: email }), 'missing_provider_credentials');
        assert.equal(e.code, 'missing_provider_credentials');
        assert.match(describeApiError(e), new RegExp(`^${email.replace(/\./g, '\\.')} has no active credentials for .*anthropic.*Connect them in the workspace settings\\.$`));
      }
    });

    it('404: an unknown agent, on GET and on a follow-up', async () => {
      const c = client();
      const e = await fails(c.getAgent('agt_doesnotexist'), 'not_found');
      assert.equal(e.message, 'Agent agt_doesnotexist was not found (404); it may have been deleted or belong to another workspace.');
      await fails(c.sendFollowUp('agt_doesnotexist', { prompt: 'p' }), 'not_found');
      assert.equal(postsTo(/\/messages$/), 1);
    });

    it('an invalid body the client cannot know about (unknown model) → client error with the service\'s words', async () => {
      const e = await fails(client().startAgent({ appId: SEED.apps.todo, prompt: 'p', model: 'gpt-4' }), 'client');
      assert.equal(e.status, 400);
      assert.equal(e.code, 'invalid_request');
      assert.match(e.message, /^The service refused the request \(400 invalid_request\): .*model/);
    });

    it('a prompt over the service\'s limit → client error', async () => {
      const e = await fails(client().startAgent({ appId: SEED.apps.todo, prompt: 'x'.repeat(60_000), model: HOSTED }), 'client');
      assert.equal(e.status, 400);
      assert.ok(e.message.length < 400);
    });

    it('an unknown app → not_found with the service\'s words; unverified or out-of-scope apps → client', async () => {
      const c = client();
      const missing = await fails(c.startAgent({ appId: 'app_nope', prompt: 'p', model: HOSTED }), 'not_found');
      assert.match(missing.message, /app_nope/);
      const draft = await fails(c.startAgent({ appId: SEED.apps.draft, prompt: 'p', model: HOSTED }), 'client');
      assert.equal(draft.status, 403);
      assert.equal(draft.code, 'project_not_verified');
      const scoped = await fails(client(emu.tokens.scoped).createTestGroup({ appId: SEED.apps.shop, name: 'n' }), 'client');
      assert.equal(scoped.code, 'app_outside_token_scope');
    });
  });

  describe('faults', () => {
    it('429 with Retry-After', async () => {
      emu.inject({ method: 'GET', path: '^/agents/', status: 429, headers: { 'retry-after': '7' } });
      const e = await fails(client().getAgent('agt_x'), 'rate_limited');
      assert.equal(e.retryAfterMs, 7_000);
      assert.equal(describeApiError(e), 'The service is rate limiting requests; retrying in 7 s.');
    });

    it('500 and an HTML 502 → server', async () => {
      emu.inject({ path: '^/agents$', status: 500 });
      await fails(client().startAgent({ appId: SEED.apps.todo, prompt: 'p', model: HOSTED }), 'server');
      emu.inject({ path: '^/agents$', html: true, status: 502 });
      await fails(client().startAgent({ appId: SEED.apps.todo, prompt: 'p', model: HOSTED }), 'server');
      assert.equal(postsTo(/^\/api\/public\/v1\/agents$/), 2);
    });

    it('an HTML 200 and a truncated body → invalid_response', async () => {
      const c = client();
      const run = await c.startAgent({ appId: SEED.apps.todo, prompt: 'p', model: HOSTED });
      emu.inject({ method: 'GET', path: '^/agents/', html: true, status: 200 });
      await fails(c.getAgent(run.agentId), 'invalid_response');
      emu.inject({ method: 'GET', path: '^/agents/', truncate: true });
      await fails(c.getAgent(run.agentId), 'invalid_response');
    });

    it('a reset after the run was created: network error, the POST was sent once', async () => {
      emu.inject({ method: 'POST', path: '^/agents$', reset: true, passThrough: true });
      const e = await fails(client().startAgent({ appId: SEED.apps.todo, prompt: 'p', model: HOSTED }), 'network');
      assert.equal(e.mayHaveReachedServer, true);
      assert.equal(postsTo(/\/agents$/), 1);
      assert.equal(emu.state.agents.size, 1, 'the run exists although the client saw an error');
    });

    it('a slow answer → timeout, and the POST is not repeated', async () => {
      emu.inject({ method: 'POST', path: '^/test-groups$', delayMs: 1_500, passThrough: true });
      const e = await fails(client(undefined, { timeouts: { headersMs: 300 } }).createTestGroup({ appId: SEED.apps.todo, name: 'n' }), 'timeout');
      assert.equal(e.mayHaveReachedServer, true);
      assert.equal(postsTo(/\/test-groups$/), 1);
    });

    it('a body that stalls → timeout', async () => {
      emu.inject({ method: 'GET', path: '^/agents/', status: 404, bodyDelayMs: 1_500 });
      // An error status arrives before the body: the status is what counts.
      await fails(client(undefined, { timeouts: { bodyMs: 300 } }).getAgent('agt_x'), 'not_found');
      const run = await client().startAgent({ appId: SEED.apps.todo, prompt: 'p', model: HOSTED });
      emu.inject({ method: 'GET', path: '^/agents/', bodyDelayMs: 1_500 });
      await fails(client(undefined, { timeouts: { bodyMs: 300 } }).getAgent(run.agentId), 'timeout');
    });

    it('a redirect to another origin: not followed, the token never arrives there', async () => {
      emu.inject({ method: 'GET', path: '^/agents/', redirectTo: 'foreign', times: 0 });
      emu.inject({ method: 'POST', path: '^/agents$', redirectTo: 'foreign', redirectStatus: 307 });
      const c = client();
      await fails(c.getAgent('agt_x'), 'cross_origin_redirect');
      await fails(c.startAgent({ appId: SEED.apps.todo, prompt: 'p', model: HOSTED }), 'cross_origin_redirect');
      await c.getSchemaInfo(); // not redirected: still works
      await fails(c.getAgent('agt_y'), 'cross_origin_redirect');
      assert.equal(emu.foreignRequests.length, 0);
    });

    it('unknown fields, dropped fields and wrong types are tolerated', async () => {
      const c = client();
      const run = await c.startAgent({ appId: SEED.apps.todo, prompt: 'Use tools [[tools]]', model: HOSTED });
      await emu.advance(5_000);
      emu.inject({
        method: 'GET', path: '^/agents/',
        dropFields: ['lifecycle.sandboxState', 'history.attachments', 'projectName'],
        extraFields: { status: 'paused_for_review', costUsd: 1.5, permittedBranches: 'main', completedAt: null, reviewId: null },
      });
      const agent = await c.getAgent(run.agentId);
      assert.equal(agent.agentId, run.agentId);
      assert.equal(agent.status, 'paused_for_review');
      assert.ok(!('costUsd' in agent));
      assert.ok(!('permittedBranches' in agent));
      assert.ok(!('completedAt' in agent));
      assert.ok(!('projectName' in agent));
      assert.ok(agent.history?.every((m) => m.attachments === undefined));
      assert.ok(agent.lifecycle !== undefined && !('sandboxState' in agent.lifecycle));
    });

    it('a start response without agentId → invalid_response that says the run may exist', async () => {
      emu.inject({ method: 'POST', path: '^/agents$', dropFields: ['agentId'] });
      const e = await fails(client().startAgent({ appId: SEED.apps.todo, prompt: 'p', model: HOSTED }), 'invalid_response');
      assert.match(e.message, /had no agentId.*check before sending it again/);
      assert.equal(emu.state.agents.size, 1);
    });
  });
});
