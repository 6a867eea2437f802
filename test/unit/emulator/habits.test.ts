import assert from 'node:assert/strict';
import { SEED, startEmulator, UNKNOWN_FIELDS, UNKNOWN_VALUES, type Emulator } from '../../emulator/index';
import { admin, ApiCaller, obj, runToEnd, type Json } from '../../emulator/testing';

const STEP = 1000;
const AGENT_KEYS = ['agentId', 'kind', 'status', 'appId', 'projectId', 'projectName', 'model', 'reasoningEffort', 'permission', 'permittedBranches', 'createdAt', 'updatedAt', 'completedAt', 'lastError', 'history', 'lifecycle'];
const MESSAGE_KEYS = ['id', 'sequence', 'role', 'content', 'toolName', 'toolParameters', 'attachments', 'createdAt'];
const LIFECYCLE_KEYS = ['conversationState', 'sandboxState', 'queuedTurnCount', 'lastLifecycleEventAt'];

const unknownKeys = (value: Json, known: readonly string[]): string[] => Object.keys(value).filter((k) => !known.includes(k)).sort();
const sorted = (keys: readonly string[]): string[] => [...keys].sort();

describe('emulator: unknown fields and values (real-service habits)', () => {
  let emu: Emulator;
  let api: ApiCaller;
  const start = (overrides: Json = {}): Json => ({ appId: SEED.apps.todo, prompt: 'habits [[tools]]', model: 'hosted/auto', ...overrides });

  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: STEP });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('off by default: only documented fields', async () => {
    const started = obj(await api.start(start({ completionWebhookUrl: 'https://hooks.example.com/x' })));
    assert.deepEqual(unknownKeys(started, ['agentId', 'kind', 'status', 'appId', 'projectId', 'createdAt']), []);
    const id = String(started.agentId);
    const agent = await runToEnd(emu, api, id, STEP);
    assert.deepEqual(unknownKeys(agent, AGENT_KEYS), []);
    assert.deepEqual(unknownKeys(agent.lifecycle as Json, LIFECYCLE_KEYS), []);
    for (const m of agent.history as Json[]) assert.deepEqual(unknownKeys(m, MESSAGE_KEYS), []);
    assert.deepEqual(unknownKeys(obj(await api.followUp(id, { prompt: 'more' })), ['agentId', 'kind', 'status']), []);
  });

  it('unknownFields: every agent object, message, lifecycle, start and follow-up answer and webhook payload carries extra fields, the same on every read', async () => {
    await admin(emu, 'PATCH', '/settings', { unknownFields: true });
    const started = obj(await api.start(start({ completionWebhookUrl: 'https://hooks.example.com/x' })));
    assert.deepEqual(unknownKeys(started, ['agentId', 'kind', 'status', 'appId', 'projectId', 'createdAt']), sorted(UNKNOWN_FIELDS.ack));
    const id = String(started.agentId);
    const agent = await runToEnd(emu, api, id, STEP);
    assert.deepEqual(unknownKeys(agent, AGENT_KEYS), sorted(UNKNOWN_FIELDS.agent));
    assert.deepEqual(unknownKeys(agent.lifecycle as Json, LIFECYCLE_KEYS), sorted(UNKNOWN_FIELDS.lifecycle));
    assert.ok((agent.history as Json[]).length > 5);
    for (const m of agent.history as Json[]) assert.deepEqual(unknownKeys(m, MESSAGE_KEYS), sorted(UNKNOWN_FIELDS.message));
    // Every kind of JSON value, so a client cannot get away with handling only strings.
    assert.equal(agent.archivedAt, null);
    assert.deepEqual(agent.labels, []);
    assert.equal(typeof agent.usage, 'object');
    assert.deepEqual(await api.agent(id), agent, 'deterministic');

    const payload = JSON.parse(emu.webhookDeliveries[0].body) as { agent: Json };
    assert.deepEqual(unknownKeys(payload.agent, AGENT_KEYS), sorted(UNKNOWN_FIELDS.agent));
    assert.deepEqual(unknownKeys(obj(await api.followUp(id, { prompt: 'more' })), ['agentId', 'kind', 'status']), sorted(UNKNOWN_FIELDS.ack));
    const internal = obj(await admin(emu, 'GET', `/agents/${id}`));
    assert.equal('source' in internal, false, 'the stored run is untouched');
  });

  it('unknownValues: a `reasoning` message after each user prompt, conversationState `planning` and sandboxState `warming` at a turn start, `hibernated` at the end; known values remain', async () => {
    await admin(emu, 'PATCH', '/settings', { unknownValues: true });
    const id = await api.startOk(start());
    await emu.advance(STEP);
    const first = await api.agent(id);
    assert.deepEqual((first.history as Json[]).map((m) => m.role), ['user', UNKNOWN_VALUES.role]);
    assert.equal((first.lifecycle as Json).conversationState, 'planning');
    assert.equal((first.lifecycle as Json).sandboxState, 'warming');

    const seen = new Set<string>();
    for (let i = 0; i < 30 && (await api.agent(id)).status !== 'completed'; i++) {
      await emu.advance(STEP);
      seen.add(String(((await api.agent(id)).lifecycle as Json).conversationState));
    }
    const done = await api.agent(id);
    assert.equal(done.status, 'completed');
    assert.equal((done.lifecycle as Json).sandboxState, 'hibernated');
    assert.ok(seen.has('running_tool'), 'known values are still sent');

    await api.followUp(id, { prompt: 'again' });
    await runToEnd(emu, api, id, STEP);
    const roles = ((await api.agent(id)).history as Json[]).map((m) => m.role);
    assert.equal(roles.filter((r) => r === 'reasoning').length, 2, 'one per turn');
    assert.equal(roles[roles.lastIndexOf('user') + 1], 'reasoning');
  });

  it('unknownValues off: none of those values appear', async () => {
    const id = await api.startOk(start());
    const agent = await runToEnd(emu, api, id, STEP);
    assert.ok(!(agent.history as Json[]).some((m) => m.role === UNKNOWN_VALUES.role));
    assert.equal((agent.lifecycle as Json).sandboxState, 'stopped');
  });
});

describe('emulator: runs forced into statuses the reference does not list', () => {
  let emu: Emulator;
  let api: ApiCaller;
  const start = (overrides: Json = {}): Json => ({ appId: SEED.apps.todo, prompt: 'forced', model: 'hosted/balanced', ...overrides });

  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: STEP });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  for (const [status, completedAt] of [['cancelled', 'now'], ['failed', 'now'], ['timed_out', null], ['paused', null]] as const) {
    it(`${status} ${completedAt === null ? 'without' : 'with'} completedAt: stays there while the clock runs; a follow-up re-opens it like a finished run`, async () => {
      const id = await api.startOk(start({ completionWebhookUrl: 'https://hooks.example.com/x' }));
      await api.followUp(id, { prompt: 'queued behind' });
      await emu.advance(3 * STEP);
      const patched = await admin(emu, 'PATCH', `/agents/${id}`, { status, completedAt, updatedAt: 'now', reason: 'user_request' });
      assert.equal(patched.status, 200);
      const now = emu.state.agents.get(id)?.updatedAt;
      assert.equal(now, obj(await admin(emu, 'GET', '/clock')).now, '"now" is the emulator clock');

      await emu.advance(100 * STEP);
      const held = await api.agent(id);
      assert.equal(held.status, status);
      assert.equal('completedAt' in held, completedAt !== null);
      if (completedAt !== null) assert.equal(held.completedAt, now);
      assert.equal(held.reason, 'user_request');
      assert.equal((held.lifecycle as Json).queuedTurnCount, 0, 'the queued turn was dropped with the run');
      assert.equal(emu.webhookDeliveries.length, 0, 'forcing a status sends no webhook');
      const internal = obj(await admin(emu, 'GET', `/agents/${id}`));
      assert.deepEqual([internal.halted, internal.pendingTurns, internal.activeTurn, internal.tickScheduled], [true, [], null, false]);

      const credits = emu.state.workspaces.get('ws_acme')?.paidCredits ?? 0;
      const ack = await api.followUp(id, { prompt: 'go on' });
      assert.equal(ack.status, 202);
      assert.equal(obj(ack).status, 'queued');
      assert.equal(emu.state.workspaces.get('ws_acme')?.paidCredits, credits - 2, 'the turn is charged');
      const reopened = await api.agent(id);
      assert.equal(reopened.status, 'queued');
      assert.equal('completedAt' in reopened, false);
      const done = await runToEnd(emu, api, id, STEP);
      assert.equal(done.status, 'completed');
      assert.equal(done.reason, 'user_request', 'fields added by the PATCH stay');
      assert.equal(emu.webhookDeliveries.length, 1, 'the re-opened run ends with one webhook');
    });
  }

  it('a forced status is refused unless a string; completedAt and updatedAt take a number, "now" or (completedAt) null', async () => {
    const id = await api.startOk(start());
    assert.equal((await admin(emu, 'PATCH', `/agents/${id}`, { status: null })).status, 400);
    assert.equal((await admin(emu, 'PATCH', `/agents/${id}`, { completedAt: 'later' })).status, 400);
    assert.equal((await admin(emu, 'PATCH', `/agents/${id}`, { updatedAt: null })).status, 400);
    assert.equal(obj(await admin(emu, 'GET', `/agents/${id}`)).halted, false, 'a refused status does not halt');
    assert.equal((await admin(emu, 'PATCH', `/agents/${id}`, { completedAt: 5, updatedAt: 6 })).status, 200);
    const agent = await api.agent(id);
    assert.deepEqual([agent.completedAt, agent.updatedAt], [5, 6]);
  });
});
