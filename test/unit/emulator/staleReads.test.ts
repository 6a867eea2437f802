import assert from 'node:assert/strict';
import { MANUAL_EPOCH, PRESETS, REAL_STALE_READS, SEED, startEmulator, type Emulator } from '../../emulator/index';
import { admin, ApiCaller, obj, runToEnd, type Json } from '../../emulator/testing';

const STEP = 1000;
const LAG = 3 * STEP;

interface Msg {
  sequence: number;
  role: string;
  content: string;
}

const history = (agent: Json): Msg[] => agent.history as Msg[];

/** Everything a lagging copy of a run can be behind on, from a public read or the admin view. */
function row(agent: Json): Json {
  const { conversationState, sandboxState, queuedTurnCount, lastLifecycleEventAt } = agent.lifecycle as Json;
  return {
    status: agent.status, completedAt: agent.completedAt, updatedAt: agent.updatedAt, lastError: agent.lastError,
    lifecycle: { conversationState, sandboxState, queuedTurnCount, lastLifecycleEventAt }, messages: history(agent).map((m) => m.sequence),
  };
}

describe('emulator: stale reads (a lagging replica, a status that lags a follow-up)', () => {
  let emu: Emulator;
  let api: ApiCaller;
  const start = (overrides: Json = {}): Json => ({ appId: SEED.apps.todo, prompt: 'Tidy the todo list', model: 'hosted/auto', ...overrides });
  const truth = async (id: string): Promise<Json> => obj(await admin(emu, 'GET', `/agents/${id}`));

  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: STEP });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('off in the reference preset: every read is current, a follow-up\'s prompt is stored when its turn starts', async () => {
    assert.deepEqual([PRESETS.reference.staleReadMs, PRESETS.reference.staleStatusAfterFollowUpMs], [null, null]);
    const id = await api.startOk(start());
    const first = await runToEnd(emu, api, id, STEP);
    await api.followUp(id, { prompt: 'And the next one' });
    const read = await api.agent(id);
    assert.deepEqual(row(read), row(await truth(id)));
    assert.equal(read.status, 'queued');
    assert.equal(history(read).length, history(first).length);
  });

  it('staleReadMs: each read is the run as stored that long ago (status, timestamps, lifecycle, history); a younger run as created', async () => {
    await admin(emu, 'PATCH', '/settings', { staleReadMs: LAG });
    const id = await api.startOk(start({ completionWebhookUrl: 'https://hooks.example.com/x' }));
    const stored = new Map<number, Json>();
    const statuses: string[] = [];
    for (let t = 0; t <= 12; t++) {
      const now = MANUAL_EPOCH + t * STEP;
      stored.set(now, row(await truth(id)));
      const read = await api.agent(id);
      assert.deepEqual(row(read), stored.get(Math.max(MANUAL_EPOCH, now - LAG)), `the read at +${t} s`);
      if (statuses.at(-1) !== read.status) statuses.push(String(read.status));
      await emu.advance(STEP);
    }
    assert.deepEqual(statuses, ['queued', 'running', 'completed'], 'the replica went through the run');
    // The webhook comes from the primary: it was sent at the completion, while reads still said running.
    const payload = JSON.parse(emu.webhookDeliveries[0].body) as { agent: Json };
    assert.equal(payload.agent.completedAt, MANUAL_EPOCH + 7 * STEP);

    await admin(emu, 'PATCH', '/settings', { staleReadMs: null });
    assert.deepEqual(row(await api.agent(id)), row(await truth(id)), 'off again: current at once');
  });

  it('staleReadMs: a follow-up\'s answer is current while reads still show the finished run without its prompt', async () => {
    await admin(emu, 'PATCH', '/settings', { staleReadMs: LAG });
    const id = await api.startOk(start());
    await runToEnd(emu, api, id, STEP);
    await emu.advance(LAG);
    const finished = row(await api.agent(id));
    assert.equal(obj(await api.followUp(id, { prompt: 'Once more' })).status, 'queued');
    for (let t = 0; t < 3; t++) {
      assert.deepEqual(row(await api.agent(id)), finished, `the read at +${t} s`);
      await emu.advance(STEP);
    }
    const caughtUp = await api.agent(id);
    assert.equal(caughtUp.status, 'queued', 'the replica reached the follow-up');
    assert.equal((caughtUp.lifecycle as Json).queuedTurnCount, 1);
  });

  it('staleReadEvery 2: the primary and the replica take turns, so the next read can go back in time', async () => {
    await admin(emu, 'PATCH', '/settings', { staleReadMs: LAG, staleReadEvery: 2 });
    const id = await api.startOk(start());
    await emu.advance(2 * STEP);
    const reads = [await api.agent(id), await api.agent(id), await api.agent(id), await api.agent(id)];
    assert.deepEqual(reads.map((r) => r.status), ['running', 'queued', 'running', 'queued']);
    assert.deepEqual(row(reads[0]), row(await truth(id)));
    assert.deepEqual(history(reads[1]), [], 'as created: the run is younger than the lag');
  });

  it('staleStatusAfterFollowUpMs: the prompt shows at once, the previous completion stays until the lag ends, then the truth', async () => {
    await admin(emu, 'PATCH', '/settings', { staleStatusAfterFollowUpMs: LAG });
    const id = await api.startOk(start({ completionWebhookUrl: 'https://hooks.example.com/x' }));
    const first = await runToEnd(emu, api, id, STEP);
    assert.equal(first.status, 'completed');
    const prompt = 'Now add tests for it';
    assert.equal(obj(await api.followUp(id, { prompt })).status, 'queued', 'the answer to the POST is the truth');

    for (let t = 0; t < LAG / STEP; t++) {
      const read = await api.agent(id);
      const h = history(read);
      assert.deepEqual([read.status, read.completedAt, read.updatedAt], ['completed', first.completedAt, first.updatedAt], `the read at +${t} s`);
      assert.deepEqual(read.lifecycle, first.lifecycle, 'the previous turn\'s lifecycle, queuedTurnCount 0');
      assert.equal((read.lifecycle as Json).queuedTurnCount, 0);
      assert.deepEqual(h.slice(0, -1), history(first), 'the earlier messages');
      assert.deepEqual([h.at(-1)?.role, h.at(-1)?.content], ['user', prompt], 'the new prompt is already there, with nothing after it');
      // Served from what is stored: the service itself has moved on.
      const stored = await truth(id);
      assert.equal(stored.status, t === 0 ? 'queued' : 'running');
      if (t === 2) assert.ok(history(stored).length > h.length, 'the stored run has replies the read does not show');
      await emu.advance(STEP);
    }

    const after = await api.agent(id);
    assert.deepEqual(row(after), row(await truth(id)), 'truthful once the lag is over');
    assert.equal(after.status, 'running');
    assert.equal(after.completedAt, undefined);
    const done = await runToEnd(emu, api, id, STEP);
    assert.ok(Number(done.completedAt) > Number(first.completedAt), 'a new completedAt');
    const h = history(done);
    const at = h.findIndex((m) => m.role === 'user' && m.content === prompt);
    assert.equal(h.filter((m) => m.content === prompt && m.role === 'user').length, 1, 'the prompt is stored once, not again when its turn starts');
    assert.ok(h.slice(at + 1).some((m) => m.role === 'assistant'), 'the agent replied after the prompt');
    assert.equal(emu.webhookDeliveries.length, 2, 'one webhook per turn');
  });

  it('staleStatusAfterFollowUpMs: a follow-up queued behind a busy turn reads as usual', async () => {
    await admin(emu, 'PATCH', '/settings', { staleStatusAfterFollowUpMs: LAG });
    const id = await api.startOk(start());
    await emu.advance(2 * STEP);
    await api.followUp(id, { prompt: 'After this one' });
    const read = await api.agent(id);
    assert.deepEqual(row(read), row(await truth(id)));
    assert.equal((read.lifecycle as Json).queuedTurnCount, 1);
  });

  it('the real preset has both: a replica 2 s behind, and 3 s of the previous completion after a follow-up', async () => {
    assert.deepEqual(REAL_STALE_READS, { staleReadMs: 2 * STEP, staleReadEvery: 1, staleStatusAfterFollowUpMs: 3 * STEP, notFoundAfterStartMs: null });
    await admin(emu, 'PATCH', '/settings', { preset: 'real' });
    const id = await api.startOk(start());
    const first = await runToEnd(emu, api, id, STEP);
    await emu.advance(2 * STEP);
    const prompt = 'A second look';
    await api.followUp(id, { prompt });
    const seen: [string, boolean][] = [];
    for (let t = 0; t < 6; t++) {
      const read = await api.agent(id);
      seen.push([String(read.status), history(read).some((m) => m.content === prompt)]);
      if (read.status === 'completed') assert.equal(read.completedAt, first.completedAt, `the read at +${t} s`);
      await emu.advance(STEP);
    }
    // 0-1 s: the replica has neither; 2 s: it has the prompt, the run row lags; 3 s on: the replica's past truth.
    assert.deepEqual(seen, [['completed', false], ['completed', false], ['completed', true], ['running', true], ['running', true], ['running', true]]);
  });

  it('notFoundAfterStartMs: a new run reads as not found for that long (a replica that has not seen it), then as it is; follow-ups reach it at once', async () => {
    await admin(emu, 'PATCH', '/settings', { notFoundAfterStartMs: 2 * STEP });
    const id = await api.startOk(start());
    const answers: number[] = [];
    for (let t = 0; t < 4; t++) {
      const read = await api.get(id);
      answers.push(read.status);
      if (read.status === 404) assert.equal(obj(read).code, 'agent_not_found');
      await emu.advance(STEP);
    }
    assert.deepEqual(answers, [404, 404, 200, 200]);
    // A run created earlier is not affected; a POST goes to the primary, which has the new run.
    const fresh = await api.startOk(start());
    assert.equal((await api.get(id)).status, 200);
    assert.equal((await api.followUp(fresh, { prompt: 'Already there' })).status < 300, true);
    assert.equal((await api.get(fresh)).status, 404);
    assert.equal(PRESETS.reference.notFoundAfterStartMs, null);
  });

  it('settings: checked like the others, all or nothing', async () => {
    for (const bad of [{ staleReadMs: 0 }, { staleReadMs: '5' }, { staleReadEvery: 0 }, { staleReadEvery: null }, { staleStatusAfterFollowUpMs: -1 }, { staleStatusAfterFollowUpMs: 1.5 }, { notFoundAfterStartMs: 0 }]) {
      const result = await admin(emu, 'PATCH', '/settings', bad);
      assert.equal(result.status, 400, JSON.stringify(bad));
      assert.match(String(obj(result).error), new RegExp(Object.keys(bad)[0]));
    }
    assert.deepEqual(obj(await admin(emu, 'GET', '/settings')), PRESETS.reference);
    const patched = obj(await admin(emu, 'PATCH', '/settings', { staleReadMs: 500, staleReadEvery: 3, staleStatusAfterFollowUpMs: 2000 }));
    assert.deepEqual([patched.staleReadMs, patched.staleReadEvery, patched.staleStatusAfterFollowUpMs], [500, 3, 2000]);
    emu.reset();
    assert.deepEqual(emu.state.settings, PRESETS.reference);
    await assert.rejects(startEmulator({ settings: { staleReadMs: -5 } }), RangeError);
  });
});
