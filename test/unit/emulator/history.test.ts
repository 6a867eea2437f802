import assert from 'node:assert/strict';
import { PRESETS, REAL_HISTORY, SEED, startEmulator, type Emulator } from '../../emulator/index';
import { admin, ApiCaller, obj, runToEnd, type Json } from '../../emulator/testing';

const STEP = 1000;

interface Msg {
  sequence: number;
  role: string;
}

function history(agent: Json): Msg[] {
  assert.ok(Array.isArray(agent.history));
  return agent.history as Msg[];
}

function sequences(agent: Json): number[] {
  return history(agent).map((m) => m.sequence);
}

/** from..to, inclusive. */
function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

describe('emulator: capped histories (historyLimit)', () => {
  let emu: Emulator;
  let api: ApiCaller;
  const start = (overrides: Json = {}): Json => ({ appId: SEED.apps.todo, prompt: 'history', model: 'hosted/auto', ...overrides });

  /** A finished run with 306 messages (one [[long]] turn), or 612 with `turns: 2`. */
  async function longRun(turns = 1): Promise<string> {
    const id = await api.startOk(start({ prompt: '[[long]]' }));
    for (let t = 1; t < turns; t++) await api.followUp(id, { prompt: '[[long]] again' });
    await runToEnd(emu, api, id, STEP);
    return id;
  }

  const read = (id: string, query = ''): Promise<Json> => api.request('GET', `/agents/${id}${query}`).then((r) => {
    assert.equal(r.status, 200, r.text.slice(0, 200));
    return obj(r);
  });

  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: STEP });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('by default (reference preset) returns the whole history without the parameter', async () => {
    const id = await longRun();
    assert.deepEqual(sequences(await read(id)), range(1, 306));
  });

  it('historyLimit=N returns the N most recent messages, in order, with sequences of the whole conversation', async () => {
    const id = await longRun();
    assert.deepEqual(sequences(await read(id, '?historyLimit=5')), range(302, 306));
    assert.deepEqual(sequences(await read(id, '?historyLimit=1')), [306]);
    assert.deepEqual(sequences(await read(id, '?historyLimit=1000')), range(1, 306), 'more than there is: all of it');
    assert.deepEqual(sequences(await read(id, '?historyLimit=007&other=x')), range(300, 306), 'leading zeros and unknown parameters are fine');
  });

  it('a historyLimit that is not an integer of at least 1 is a 400 invalid_request naming the field; the token and plan are checked first, the run after', async () => {
    const id = await api.startOk(start());
    for (const value of ['0', '-1', '2.5', '1e2', 'abc', '', '%205', '5&historyLimit=6']) {
      const result = await api.request('GET', `/agents/${id}?historyLimit=${value}`);
      assert.equal(result.status, 400, value);
      assert.equal(obj(result).code, 'invalid_request', value);
      assert.equal(obj(result).field, 'historyLimit', value);
      assert.match(String(obj(result).error), /historyLimit/);
    }
    assert.equal((await new ApiCaller(emu, null).request('GET', `/agents/${id}?historyLimit=0`)).status, 401);
    assert.equal((await new ApiCaller(emu, emu.tokens.noApiAccess).request('GET', `/agents/${id}?historyLimit=0`)).status, 402);
    assert.equal((await api.request('GET', '/agents/agt_nope?historyLimit=0')).status, 400);
    assert.equal((await api.request('GET', '/agents/agt_nope?historyLimit=2')).status, 404);
  });

  it('historyDefault applies without the parameter; above historyMax a request is clamped, not refused', async () => {
    const id = await longRun();
    await admin(emu, 'PATCH', '/settings', { historyDefault: 20, historyMax: 100 });
    assert.deepEqual(sequences(await read(id)), range(287, 306));
    assert.deepEqual(sequences(await read(id, '?historyLimit=50')), range(257, 306));
    assert.deepEqual(sequences(await read(id, '?historyLimit=101')), range(207, 306));
    assert.deepEqual(sequences(await read(id, '?historyLimit=99999999999999999999999')), range(207, 306));
  });

  it('historyMax alone: a read without the parameter gets the maximum', async () => {
    const id = await longRun();
    await admin(emu, 'PATCH', '/settings', { historyMax: 10 });
    assert.deepEqual(sequences(await read(id)), range(297, 306));
    assert.deepEqual(sequences(await read(id, '?historyLimit=3')), range(304, 306));
  });

  it('the real preset: 20 by default, 500 at most; webhook payloads and the admin view keep everything', async () => {
    assert.deepEqual(REAL_HISTORY, { historyDefault: 20, historyMax: 500 });
    await admin(emu, 'PATCH', '/settings', { preset: 'real' });
    const id = await api.startOk(start({ prompt: '[[long]]', completionWebhookUrl: 'https://hooks.example.com/x' }));
    await api.followUp(id, { prompt: '[[long]] again' });
    await runToEnd(emu, api, id, STEP);
    const full = emu.state.agents.get(id)?.history.length ?? 0;
    assert.ok(full > 600, `${full} messages`);
    assert.deepEqual(sequences(await read(id)), range(full - 19, full));
    assert.deepEqual(sequences(await read(id, '?historyLimit=600')), range(full - 499, full));
    const payload = JSON.parse(emu.webhookDeliveries[0].body) as { agent: Json };
    assert.equal(history(payload.agent).length, full);
    assert.equal((obj(await admin(emu, 'GET', `/agents/${id}`)).history as unknown[]).length, full);
  });

  it('startEmulator({ settings }) caps, reset() comes back to it, and inconsistent values are refused', async () => {
    const capped = await startEmulator({ clock: 'manual', settings: { historyDefault: 2, historyMax: 3 } });
    try {
      const c = new ApiCaller(capped, capped.tokens.default);
      const id = await c.startOk(start());
      await runToEnd(capped, c, id, STEP);
      assert.deepEqual(sequences(await c.agent(id)), [5, 6]);
      assert.equal(history(obj(await c.request('GET', `/agents/${id}?historyLimit=9`))).length, 3);
      await admin(capped, 'PATCH', '/settings', { historyDefault: null, historyMax: null });
      capped.reset();
      assert.deepEqual({ d: capped.state.settings.historyDefault, m: capped.state.settings.historyMax }, { d: 2, m: 3 });
    } finally {
      await capped.close();
    }
    await assert.rejects(startEmulator({ settings: { historyDefault: 30, historyMax: 20 } }), RangeError);
    await assert.rejects(startEmulator({ settings: { historyMax: 0 } }), RangeError);
    await assert.rejects(startEmulator({ preset: 'nope' as 'real' }), RangeError);
  });

  it('the served OpenAPI documents historyLimit on getAgent, with the current default and maximum', async () => {
    const parameter = async (): Promise<Json> => {
      const doc = obj(await new ApiCaller(emu, null).request('GET', '/openapi.json'));
      const get = ((doc.paths as Json)['/agents/{agentId}'] as Json).get as { parameters: Json[] };
      const found = get.parameters.find((p) => p.name === 'historyLimit');
      assert.ok(found, 'historyLimit is documented');
      return found;
    };
    const uncapped = await parameter();
    assert.equal(uncapped.in, 'query');
    assert.equal(uncapped.required, false);
    assert.deepEqual(uncapped.schema, { type: 'integer', minimum: 1 });
    assert.match(String(uncapped.description), /whole history/);

    await admin(emu, 'PATCH', '/settings', { preset: 'real' });
    const real = await parameter();
    assert.deepEqual(real.schema, { type: 'integer', minimum: 1, maximum: PRESETS.real.historyMax, default: PRESETS.real.historyDefault });
    assert.match(String(real.description), /above 500 is served as 500/);

    await admin(emu, 'PATCH', '/settings', { historyDefault: null, historyMax: 42 });
    assert.deepEqual((await parameter()).schema, { type: 'integer', minimum: 1, maximum: 42, default: 42 });

    const { Validator } = await import('@seriousme/openapi-schema-validator');
    await admin(emu, 'PATCH', '/settings', { preset: 'real' });
    const result = await new Validator().validate(obj(await new ApiCaller(emu, null).request('GET', '/openapi.json')));
    assert.deepEqual(result.errors, undefined, 'the document stays valid OpenAPI with the parameter');
  });
});
