import assert from 'node:assert/strict';
import {
  DEPLOYED_CONVERSATION_STATES, DEPLOYED_ROLES, DEPLOYED_SANDBOX_STATES, MODEL_IDS, PRESETS, READABLE_MODEL_IDS, RETIRED_MODEL_RUN,
  SEED, startEmulator, type Emulator,
} from '../../emulator/index';
import { admin, ApiCaller, obj, runToEnd, type Json } from '../../emulator/testing';

const STEP = 1000;
const start = (overrides: Json = {}): Json => ({ appId: SEED.apps.todo, prompt: 'deployed [[tools]]', model: 'hosted/auto', ...overrides });
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const history = (agent: Json): Json[] => agent.history as Json[];
const lifecycle = (agent: Json): Json => agent.lifecycle as Json;

/** Reads the run after every step until it ends; the lifecycle states seen on the way. */
async function follow(emu: Emulator, api: ApiCaller, id: string): Promise<{ agent: Json; conversation: Set<string>; sandbox: Set<string> }> {
  const conversation = new Set<string>();
  const sandbox = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const agent = await api.agent(id);
    conversation.add(String(lifecycle(agent).conversationState));
    sandbox.add(String(lifecycle(agent).sandboxState));
    if (agent.status === 'completed' || agent.status === 'error') return { agent, conversation, sandbox };
    await emu.advance(STEP);
  }
  throw new Error(`run ${id} did not end`);
}

describe('emulator: the deployed profile (shapes)', () => {
  let emu: Emulator;
  let api: ApiCaller;

  // Current reads: the habits of the preset are pinned elsewhere; here, only the shapes.
  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: STEP, preset: 'deployed', settings: { staleReadMs: null, staleStatusAfterFollowUpMs: null, unknownFields: false } });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('preset deployed: the real habits, the documented history window (100, at most 500) and shapes: deployed', () => {
    assert.deepEqual(PRESETS.deployed, { ...PRESETS.real, historyDefault: 100, historyMax: 500, shapes: 'deployed' });
  });

  it('a start answers 202 with kind agent; a follow-up 202; a test group 201', async () => {
    const started = await api.start(start());
    assert.equal(started.status, 202);
    assert.equal(obj(started).kind, 'agent');
    const id = String(obj(started).agentId);
    assert.equal((await api.followUp(id, { prompt: 'more' })).status, 202);
    assert.equal((await api.createGroup({ appId: SEED.apps.todo, name: 'Smoke' })).status, 201);
  });

  it('a new run sends its nullable fields as null: reasoningEffort (none asked), completedAt, lastError, reviewId, lastLifecycleEventAt', async () => {
    const id = await api.startOk(start());
    const agent = await api.agent(id);
    for (const key of ['reasoningEffort', 'completedAt', 'lastError', 'reviewId']) assert.equal(agent[key], null, key);
    assert.deepEqual(lifecycle(agent), { conversationState: 'draft', sandboxState: 'none', queuedTurnCount: 1, lastLifecycleEventAt: null });
    assert.equal((await api.agent(await api.startOk(start({ reasoningEffort: 'low' })))).reasoningEffort, 'low');
  });

  it('a run writes the six roles, tool parameters as objects, attachments as objects and tool calls with content null', async () => {
    const id = await api.startOk(start({ prompt: 'Fix ENG-12 [[tools]]', permission: 'allow_edits' }));
    await api.followUp(id, { prompt: 'and fail [[fail]]' });
    const { agent } = await follow(emu, api, id);
    const messages = history(agent);
    assert.deepEqual(new Set(messages.map((m) => m.role)), new Set(DEPLOYED_ROLES));
    for (const m of messages) {
      assert.deepEqual(Object.keys(m), ['id', 'sequence', 'role', 'content', 'toolName', 'toolParameters', 'attachments', 'createdAt']);
      assert.ok(Array.isArray(m.attachments));
      for (const a of m.attachments as unknown[]) assert.ok(isObject(a), `an object attachment, got ${JSON.stringify(a)}`);
      if (m.role === 'tool') {
        assert.equal(typeof m.toolName, 'string');
        assert.ok(isObject(m.toolParameters), `object parameters, got ${JSON.stringify(m.toolParameters)}`);
      } else {
        assert.equal(m.toolName, null);
        assert.equal(m.toolParameters, null);
        assert.equal(typeof m.content, 'string');
      }
    }
    const edit = messages.find((m) => m.toolName === 'edit_app');
    assert.equal(edit?.content, null, 'a call with parameters only');
    assert.deepEqual((edit?.toolParameters as Json).branch, 'main');
    const screenshot = messages.find((m) => m.toolName === 'screenshot');
    assert.deepEqual(screenshot?.attachments, [{ name: 'home.png', url: 'https://files.example.invalid/app_todo/screenshots/home.png', mimeType: 'image/png', width: 1280, height: 800 }]);
    assert.deepEqual(messages[0].attachments, [{ identifier: 'ENG-12', title: 'Linked from the prompt: ENG-12', url: 'https://linear.example.invalid/acme/issue/ENG-12' }]);
    const summary = messages.find((m) => String(m.content).startsWith('### Summary (turn 1)'));
    const kinds = (summary?.attachments as Json[]).map((a) => Object.keys(a).sort().join(','));
    assert.deepEqual(kinds, ['mimeType,name,sizeBytes,url', 'identifier,title,url', 'retainedForDays,sizeBytes,snapshotId'], 'a file, a linked issue and a kind no client knows');
    const error = messages.find((m) => m.role === 'error');
    assert.equal(error?.content, 'The test "Settings page saves preferences" failed at step 3 of 5.');
    assert.equal(agent.status, 'error');
    assert.equal(agent.lastError, error?.content);
  });

  it('the lifecycle moves through the deployed enums: draft, running_turn, ready / errored; none, provisioning, booting, online, paused / dead', async () => {
    const done = await follow(emu, api, await api.startOk(start({ prompt: 'fine' })));
    assert.deepEqual([...done.conversation].sort(), ['draft', 'ready', 'running_turn']);
    assert.deepEqual([...done.sandbox].sort(), ['booting', 'none', 'online', 'paused', 'provisioning']);
    assert.deepEqual(lifecycle(done.agent).conversationState, 'ready');
    assert.equal(typeof done.agent.completedAt, 'number');
    assert.equal(done.agent.lastError, null);

    const failed = await follow(emu, api, await api.startOk(start({ prompt: '[[fail]]' })));
    assert.deepEqual({ c: lifecycle(failed.agent).conversationState, s: lifecycle(failed.agent).sandboxState }, { c: 'errored', s: 'dead' });
    const asked = await follow(emu, api, await api.startOk(start({ prompt: '[[ask]]' })));
    assert.deepEqual({ c: lifecycle(asked.agent).conversationState, s: lifecycle(asked.agent).sandboxState }, { c: 'ready', s: 'online' }, 'waiting for an answer keeps the sandbox up');
    for (const seen of [done, failed, asked]) {
      for (const c of seen.conversation) assert.ok((DEPLOYED_CONVERSATION_STATES as readonly string[]).includes(c), c);
      for (const s of seen.sandbox) assert.ok((DEPLOYED_SANDBOX_STATES as readonly string[]).includes(s), s);
    }

    // A follow-up re-opens the finished run: ready while queued, then a turn on the still-paused sandbox.
    const id = String(done.agent.agentId);
    await api.followUp(id, { prompt: 'again' });
    assert.deepEqual({ status: (await api.agent(id)).status, c: lifecycle(await api.agent(id)).conversationState }, { status: 'queued', c: 'ready' });
    await emu.advance(STEP);
    assert.deepEqual(lifecycle(await api.agent(id)).sandboxState, 'provisioning');
  });

  it('a seeded run of three days ago carries a retired model, readable but refused on a start', async () => {
    assert.equal(SEED.agents.retiredModel, RETIRED_MODEL_RUN.agentId);
    const old = await api.agent(SEED.agents.retiredModel);
    assert.equal(old.model, 'anthropic/claude-sonnet-4');
    assert.ok(!MODEL_IDS.includes(String(old.model)) && READABLE_MODEL_IDS.includes(String(old.model)));
    assert.equal(old.status, 'completed');
    assert.ok(history(old).some((m) => m.role === 'tool' && isObject(m.toolParameters)), 'written by the turn script in the deployed shapes');
    const refused = await api.start(start({ model: old.model, userEmail: SEED.emails.dev }));
    assert.deepEqual({ status: refused.status, field: obj(refused).field }, { status: 400, field: 'model' });
    // The old run still takes a follow-up on its own model, on the member's credentials.
    assert.equal((await api.followUp(SEED.agents.retiredModel, { prompt: 'one more thing' })).status, 202);
    assert.equal((await runToEnd(emu, api, SEED.agents.retiredModel, STEP)).model, 'anthropic/claude-sonnet-4');
  });

  it('switching the shapes to deployed at run time seeds that run; the reference shapes have none', async () => {
    const reference = await startEmulator({ clock: 'manual' });
    try {
      const ref = new ApiCaller(reference, reference.tokens.default);
      assert.equal((await ref.get(SEED.agents.retiredModel)).status, 404);
      await admin(reference, 'PATCH', '/settings', { shapes: 'deployed' });
      assert.equal((await ref.agent(SEED.agents.retiredModel)).model, RETIRED_MODEL_RUN.model);
    } finally {
      await reference.close();
    }
  });
});

describe('emulator: the reference profile keeps its shapes', () => {
  it('201 on a start, string tool parameters and attachments, optional fields left out, no thinking or error messages, no 409', async () => {
    const emu = await startEmulator({ clock: 'manual', stepMs: STEP });
    try {
      const api = new ApiCaller(emu, emu.tokens.default);
      const started = await api.start(start({ permission: 'allow_edits' }));
      assert.equal(started.status, 201);
      const id = String(obj(started).agentId);
      const first = await api.agent(id);
      for (const key of ['completedAt', 'lastError', 'reviewId']) assert.equal(key in first, false, key);
      assert.equal(first.reasoningEffort, 'medium');
      assert.deepEqual(lifecycle(first), { conversationState: 'queued', sandboxState: 'cold', queuedTurnCount: 1, lastLifecycleEventAt: first.createdAt });
      const agent = await runToEnd(emu, api, id, STEP);
      const tools = history(agent).filter((m) => m.role === 'tool');
      assert.ok(tools.length > 5);
      for (const m of tools) assert.equal(typeof JSON.parse(String(m.toolParameters)), 'object', 'a JSON document as a string');
      const attached = history(agent).flatMap((m) => (m.attachments as unknown[] | undefined) ?? []);
      assert.ok(attached.length > 3);
      for (const a of attached) assert.equal(typeof a, 'string');
      assert.deepEqual(new Set(history(agent).map((m) => m.role)), new Set(['user', 'assistant', 'tool']));
      assert.ok(history(agent).every((m) => typeof m.content === 'string'));
      assert.deepEqual({ c: lifecycle(agent).conversationState, s: lifecycle(agent).sandboxState }, { c: 'finished', s: 'stopped' });
      // Twelve runs at once: the reference knows no concurrency limit.
      for (let i = 0; i < 12; i++) await api.startOk(start());
      assert.equal((await admin(emu, 'POST', '/code-review-conversations', {})).status, 409, 'code reviews belong to the deployed shapes');
    } finally {
      await emu.close();
    }
  });
});
