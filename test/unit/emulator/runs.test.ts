import assert from 'node:assert/strict';
import { MANUAL_EPOCH, SEED, startEmulator, type Emulator } from '../../emulator/index';
import { admin, ApiCaller, obj, runToEnd, waitFor, type Json } from '../../emulator/testing';

const STEP = 1000;
const { apps, emails } = SEED;

interface Msg {
  id: string;
  sequence: number;
  role: string;
  content: string;
  toolName?: string;
  toolParameters?: string;
  attachments?: string[];
  createdAt: number;
}

function history(agent: Json): Msg[] {
  assert.ok(Array.isArray(agent.history));
  return agent.history as Msg[];
}

function lifecycle(agent: Json): Json {
  return agent.lifecycle as Json;
}

function userPrompts(agent: Json): string[] {
  return history(agent).filter((m) => m.role === 'user').map((m) => m.content);
}

describe('emulator: agent runs on the manual clock', () => {
  let emu: Emulator;
  let api: ApiCaller;
  const start = (overrides: Json = {}): Json => ({ appId: apps.todo, prompt: 'Review the todo list', model: 'hosted/auto', ...overrides });

  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: STEP });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('does nothing until the clock moves', async () => {
    const id = await api.startOk(start());
    for (let i = 0; i < 3; i++) assert.equal((await api.agent(id)).status, 'queued');
    await emu.advance(STEP - 1);
    assert.equal((await api.agent(id)).status, 'queued');
  });

  it('progresses queued → running → completed, one step per tick, growing history and lifecycle', async () => {
    const id = await api.startOk(start());
    await emu.advance(STEP);
    let agent = await api.agent(id);
    assert.equal(agent.status, 'running');
    assert.deepEqual(history(agent).map((m) => [m.role, m.content]), [['user', 'Review the todo list']]);
    assert.deepEqual(lifecycle(agent), { conversationState: 'thinking', sandboxState: 'provisioning', queuedTurnCount: 0, lastLifecycleEventAt: MANUAL_EPOCH + STEP });
    assert.equal(agent.updatedAt, MANUAL_EPOCH + STEP);

    await emu.advance(STEP);
    agent = await api.agent(id);
    assert.equal(lifecycle(agent).sandboxState, 'ready');
    assert.equal(history(agent).at(-1)?.role, 'assistant');
    assert.match(history(agent).at(-1)?.content ?? '', /\*\*Todo App\*\*/, 'assistant messages are Markdown');

    await emu.advance(STEP);
    agent = await api.agent(id);
    assert.equal(lifecycle(agent).conversationState, 'running_tool');
    const toolMessage = history(agent).at(-1);
    assert.equal(toolMessage?.role, 'tool');
    assert.equal(toolMessage.toolName, 'list_app_structure');
    assert.deepEqual(JSON.parse(toolMessage.toolParameters ?? ''), { include: ['pages', 'reusable_elements', 'data_types', 'option_sets'] });
    assert.match(toolMessage.content ?? '', /Pages: index, settings/, 'the agent reads a low-code app: pages, data types, option sets');

    let ticks = 3;
    while ((await api.agent(id)).status === 'running') {
      await emu.advance(STEP);
      ticks++;
    }
    agent = await api.agent(id);
    assert.equal(ticks, 7, 'a default turn takes 7 ticks');
    assert.equal(agent.status, 'completed');
    assert.equal(agent.completedAt, MANUAL_EPOCH + 7 * STEP);
    assert.equal(agent.updatedAt, MANUAL_EPOCH + 7 * STEP);
    assert.equal(agent.lastError, undefined);
    assert.deepEqual(lifecycle(agent), { conversationState: 'finished', sandboxState: 'stopped', queuedTurnCount: 0, lastLifecycleEventAt: MANUAL_EPOCH + 7 * STEP });
    const attachments = history(agent).flatMap((m) => m.attachments ?? []);
    assert.ok(attachments.length > 0 && attachments.every((a) => typeof a === 'string'));

    await emu.advance(10 * STEP);
    assert.deepEqual(await api.agent(id), agent, 'a finished run no longer changes');
  });

  it('numbers messages with strictly increasing sequences, unique ids and non-decreasing times', async () => {
    const id = await api.startOk(start({ prompt: 'Go [[tools]]' }));
    await api.followUp(id, { prompt: 'and more' });
    const agent = await runToEnd(emu, api, id);
    const messages = history(agent);
    assert.ok(messages.length > 15);
    for (let i = 1; i < messages.length; i++) {
      assert.ok(messages[i].sequence > messages[i - 1].sequence, `sequence at ${i}`);
      assert.ok(messages[i].createdAt >= messages[i - 1].createdAt, `createdAt at ${i}`);
    }
    assert.equal(new Set(messages.map((m) => m.id)).size, messages.length);
    assert.equal(messages[0].sequence, 1);
  });

  it('[[fail]] ends in error with lastError and a system message', async () => {
    const id = await api.startOk(start({ prompt: 'Run the tests [[fail]]' }));
    const agent = await runToEnd(emu, api, id);
    assert.equal(agent.status, 'error');
    assert.match(String(agent.lastError), /failed at step 3 of 5/);
    assert.equal(typeof agent.completedAt, 'number');
    const last = history(agent).at(-1);
    assert.equal(last?.role, 'system');
    assert.match(last.content, /failed/);
  });

  it('[[slow]] takes many more steps, some without a new message', async () => {
    const id = await api.startOk(start({ prompt: 'Build it [[slow]]' }));
    let ticks = 0;
    let quietTicks = 0;
    let previous = await api.agent(id);
    while (previous.status !== 'completed') {
      await emu.advance(STEP);
      ticks++;
      const agent = await api.agent(id);
      if (history(agent).length === history(previous).length && agent.status === 'running') {
        quietTicks++;
        assert.ok(Number(lifecycle(agent).lastLifecycleEventAt) > Number(lifecycle(previous).lastLifecycleEventAt));
      }
      previous = agent;
    }
    assert.ok(ticks >= 30, `ticks: ${ticks}`);
    assert.ok(quietTicks >= 10, `quiet ticks: ${quietTicks}`);
  });

  it('[[long]] produces hundreds of messages', async () => {
    const id = await api.startOk(start({ prompt: 'Audit everything [[long]]' }));
    const agent = await runToEnd(emu, api, id);
    assert.ok(history(agent).length >= 300, `messages: ${history(agent).length}`);
  });

  it('[[tools]] makes many different tool calls with JSON parameters and attachments', async () => {
    const id = await api.startOk(start({ prompt: 'Investigate [[tools]]' }));
    const agent = await runToEnd(emu, api, id);
    const tools = history(agent).filter((m) => m.role === 'tool');
    assert.ok(new Set(tools.map((m) => m.toolName)).size >= 6);
    for (const t of tools) assert.doesNotThrow(() => JSON.parse(t.toolParameters ?? ''), t.toolName);
    assert.ok(tools.some((t) => (t.attachments ?? []).includes('screenshots/home.png')));
  });

  it('[[ask]] completes waiting for input', async () => {
    const agent = await runToEnd(emu, api, await api.startOk(start({ prompt: 'Plan it [[ask]]' })));
    assert.equal(agent.status, 'completed');
    assert.equal(lifecycle(agent).conversationState, 'awaiting_input');
    assert.match(history(agent).at(-1)?.content ?? '', /\?$/);
  });

  it('allow_edits edits on the permitted branch; read_only does not edit', async () => {
    const edits = await runToEnd(emu, api, await api.startOk(start({ permission: 'allow_edits', permittedBranches: ['feature/dark-mode'] })));
    const edit = history(edits).find((m) => m.toolName === 'edit_app');
    assert.equal((JSON.parse(edit?.toolParameters ?? '{}') as Json).branch, 'feature/dark-mode');
    const readOnly = await runToEnd(emu, api, await api.startOk(start()));
    assert.equal(history(readOnly).find((m) => m.toolName === 'edit_app'), undefined);
  });

  describe('follow-ups', () => {
    it('queue behind a busy run, in order; queuedTurnCount counts them; the run stays running between turns', async () => {
      const id = await api.startOk(start({ prompt: 'first' }));
      assert.deepEqual(obj(await api.followUp(id, { prompt: 'second' })), { agentId: id, kind: 'agent', status: 'queued' });
      assert.equal(lifecycle(await api.agent(id)).queuedTurnCount, 2);

      await emu.advance(STEP);
      assert.equal(lifecycle(await api.agent(id)).queuedTurnCount, 1);
      assert.deepEqual(obj(await api.followUp(id, { prompt: 'third' })), { agentId: id, kind: 'agent', status: 'running' });
      assert.equal(lifecycle(await api.agent(id)).queuedTurnCount, 2);

      let agent = await api.agent(id);
      while (agent.status !== 'completed') {
        assert.equal(agent.status, 'running', 'no terminal state before the last turn');
        await emu.advance(STEP);
        agent = await api.agent(id);
      }
      assert.deepEqual(userPrompts(agent), ['first', 'second', 'third']);
      assert.equal(lifecycle(agent).queuedTurnCount, 0);
      // Each turn's answer follows its own prompt.
      const messages = history(agent);
      const secondAt = messages.findIndex((m) => m.content === 'second');
      assert.match(messages[secondAt + 1].content, /Picking up your follow-up: _second_/);
    });

    it('re-open a finished run: queued, then running, then completed again', async () => {
      const id = await api.startOk(start());
      const first = await runToEnd(emu, api, id);
      const ack = obj(await api.followUp(id, { prompt: 'Now add tests', permission: 'allow_edits', permittedBranches: ['tests'] }));
      assert.equal(ack.status, 'queued');
      let agent = await api.agent(id);
      assert.equal(agent.status, 'queued');
      assert.equal(agent.completedAt, undefined);
      assert.equal(agent.permission, 'allow_edits');
      assert.deepEqual(agent.permittedBranches, ['tests']);
      assert.deepEqual(lifecycle(agent).conversationState, 'queued');
      assert.equal(lifecycle(agent).queuedTurnCount, 1);
      await emu.advance(STEP);
      agent = await api.agent(id);
      assert.equal(agent.status, 'running');
      assert.equal(lifecycle(agent).sandboxState, 'provisioning', 'the sandbox stopped after the first turn');
      agent = await runToEnd(emu, api, id);
      assert.equal(agent.status, 'completed');
      assert.ok(Number(agent.completedAt) > Number(first.completedAt));
      assert.deepEqual(userPrompts(agent), ['Review the todo list', 'Now add tests']);
      assert.ok(history(agent).some((m) => m.toolName === 'edit_app' && m.toolParameters?.includes('"tests"')));
    });

    it('re-opening a failed run clears lastError', async () => {
      const id = await api.startOk(start({ prompt: '[[fail]]' }));
      assert.equal((await runToEnd(emu, api, id)).status, 'error');
      await api.followUp(id, { prompt: 'try again' });
      const agent = await api.agent(id);
      assert.equal(agent.status, 'queued');
      assert.equal(agent.lastError, undefined);
      assert.equal((await runToEnd(emu, api, id)).status, 'completed');
    });

    it('a failed turn with follow-ups queued behind it lets them run; the last turn decides the status', async () => {
      const id = await api.startOk(start({ prompt: 'break [[fail]]' }));
      await api.followUp(id, { prompt: 'recover' });
      const agent = await runToEnd(emu, api, id);
      assert.equal(agent.status, 'completed');
      assert.ok(history(agent).some((m) => m.role === 'system' && /Turn 1 failed/.test(m.content)));
    });

    it('charge credits per turn for service-hosted models, and refuse a turn the workspace cannot pay for', async () => {
      const ws = emu.state.workspaces.get('ws_acme');
      const id = await api.startOk(start({ model: 'hosted/balanced' }));
      await api.followUp(id, { prompt: 'again' });
      assert.equal(ws?.paidCredits, 96);
      ws.paidCredits = 1;
      const refused = await api.followUp(id, { prompt: 'once more' });
      assert.equal(refused.status, 402);
      assert.equal(obj(refused).code, 'insufficient_paid_credits');
      assert.equal(lifecycle(await api.agent(id)).queuedTurnCount, 2, 'the refused turn was not queued');
      assert.equal(ws.paidCredits, 1);
    });

    it('connected provider runs need the member\'s credentials on every turn', async () => {
      const id = await api.startOk(start({ model: 'anthropic/claude-sonnet-4-5', userEmail: emails.dev }));
      assert.equal((await api.followUp(id, { prompt: 'ok' })).status, 202);
      const dev = emu.state.workspaces.get('ws_acme')?.members.find((m) => m.email === emails.dev);
      for (const c of dev?.credentials ?? []) c.active = false;
      const refused = await api.followUp(id, { prompt: 'again' });
      assert.equal(refused.status, 403);
      assert.equal(obj(refused).code, 'missing_provider_credentials');
    });
  });

  it('historyLimit returns only the most recent messages of a run', async () => {
    const id = await api.startOk(start({ prompt: '[[tools]]' }));
    const full = history(await runToEnd(emu, api, id));
    assert.equal((await admin(emu, 'PATCH', '/settings', { historyLimit: 3 })).status, 200);
    const limited = history(await api.agent(id));
    assert.deepEqual(limited, full.slice(-3));
    await admin(emu, 'PATCH', '/settings', { historyLimit: null });
    assert.equal(history(await api.agent(id)).length, full.length);
  });

  it('a revoked token stops at once, while the run itself goes on', async () => {
    const created = obj(await admin(emu, 'POST', '/tokens', { workspaceId: 'ws_acme', projects: [apps.todo] }));
    const caller = new ApiCaller(emu, String(created.token));
    const id = await caller.startOk(start());
    await emu.advance(STEP);
    await admin(emu, 'POST', `/tokens/${String(created.id)}/revoke`);
    assert.equal((await caller.get(id)).status, 401);
    assert.equal((await runToEnd(emu, api, id)).status, 'completed');
  });

  it('reset() goes back to the seed and restarts the manual clock', async () => {
    await api.startOk(start({ model: 'hosted/max' }));
    await emu.advance(5 * STEP);
    emu.reset();
    assert.equal(emu.state.agents.size, 0);
    assert.equal(emu.state.workspaces.get('ws_acme')?.paidCredits, 100);
    assert.equal(emu.requests.length, 0);
    const fresh = obj(await api.start(start()));
    assert.equal(fresh.createdAt, MANUAL_EPOCH);
  });
});

describe('emulator: agent runs on the real clock', () => {
  let emu: Emulator;
  before(async () => {
    emu = await startEmulator({ stepMs: 20 });
  });
  after(() => emu.close());

  it('progresses on its own at stepMs', async () => {
    const api = new ApiCaller(emu, emu.tokens.default);
    // Before the POST: the run's steps count from its creation, which a loaded machine may answer late.
    const startedAt = Date.now();
    const id = await api.startOk({ appId: apps.todo, prompt: 'real time', model: 'hosted/auto' });
    await waitFor(async () => (await api.agent(id)).status === 'completed', 5_000, 'the run to complete');
    assert.ok(Date.now() - startedAt >= 7 * 20 - 5, 'it took at least 7 steps of real time');
    assert.equal(history(await api.agent(id))[0].role, 'user');
  });

  it('advance() jumps a real clock ahead and runs what falls due', async () => {
    const api = new ApiCaller(emu, emu.tokens.default);
    const id = await api.startOk({ appId: apps.todo, prompt: 'skip ahead [[slow]]', model: 'hosted/auto' });
    const before = Date.now();
    for (let i = 0; i < 40; i++) await emu.advance(20);
    const agent = await api.agent(id);
    assert.equal(agent.status, 'completed');
    assert.ok(Number(agent.completedAt) - Number(agent.createdAt) >= 30 * 20);
    assert.ok(Date.now() - before < 30 * 20, 'faster than waiting in real time');
  });
});
