import assert from 'node:assert/strict';
import { SEED, startEmulator, type Emulator } from '../../emulator/index';
import { admin, ApiCaller, obj, type Json } from '../../emulator/testing';

describe('emulator: Retry-After', () => {
  let emu: Emulator;
  let api: ApiCaller;
  const start = (overrides: Json = {}): Json => ({ appId: SEED.apps.todo, prompt: 'retry', model: 'hosted/auto', ...overrides });

  before(async () => {
    emu = await startEmulator({ clock: 'manual' });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('retryAfter (seconds) on an injected error of any status, with the usual JSON body', async () => {
    for (const status of [400, 404, 409, 429, 500, 502, 503, 504]) {
      emu.inject({ status, retryAfter: 12 });
      const result = await api.start(start());
      assert.equal(result.status, status);
      assert.equal(result.headers.get('retry-after'), '12', String(status));
      assert.equal(typeof obj(result).error, 'string');
    }
    assert.equal(emu.state.agents.size, 0, 'replaced responses skip the handler');
  });

  it('retryAfter as a string (an HTTP-date) is sent as given; with a custom body, html and passThrough too', async () => {
    const date = new Date(Date.now() + 90_000).toUTCString();
    emu.inject({ status: 503, retryAfter: date, body: '{"error":"maintenance"}' });
    const custom = await api.start(start());
    assert.equal(custom.headers.get('retry-after'), date);
    assert.deepEqual(obj(custom), { error: 'maintenance' });

    emu.inject({ html: true, retryAfter: 3 });
    assert.equal((await api.start(start())).headers.get('retry-after'), '3');

    emu.inject({ method: 'POST', status: 502, passThrough: true, retryAfter: 4 });
    const passed = await api.start(start());
    assert.deepEqual([passed.status, passed.headers.get('retry-after')], [502, '4']);
    assert.equal(emu.state.agents.size, 1, 'the run was created behind the 502');
  });

  it('retryAfter alone alters the real response, whatever its status', async () => {
    emu.inject({ method: 'POST', retryAfter: 1 });
    const created = await api.start(start());
    assert.deepEqual([created.status, created.headers.get('retry-after')], [201, '1']);
    emu.inject({ method: 'GET', retryAfter: 2 });
    const missing = await api.get('agt_nope');
    assert.deepEqual([missing.status, missing.headers.get('retry-after'), obj(missing).code], [404, '2', 'agent_not_found']);
  });

  it('by default (reference preset) an injected 429 or 503 has no Retry-After unless a rule gives one', async () => {
    for (const status of [429, 502, 503]) {
      emu.inject({ status });
      assert.equal((await api.start(start())).headers.get('retry-after'), null, String(status));
    }
  });

  it('retryAfterSeconds: every 429, 502 and 503 JSON answer carries it; other statuses, HTML pages and explicit rules do not follow it', async () => {
    await admin(emu, 'PATCH', '/settings', { retryAfterSeconds: 8 });
    for (const status of [429, 502, 503]) {
      emu.inject({ status });
      const result = await api.start(start());
      assert.deepEqual([result.status, result.headers.get('retry-after')], [status, '8']);
    }
    emu.inject({ status: 503, body: '{"error":"custom"}' });
    assert.equal((await api.start(start())).headers.get('retry-after'), '8', 'a custom body is still the service');
    emu.inject({ status: 500 });
    assert.equal((await api.start(start())).headers.get('retry-after'), null);
    emu.inject({ status: 502, html: true });
    assert.equal((await api.start(start())).headers.get('retry-after'), null, 'an HTML page stands for a proxy');
    emu.inject({ status: 503, retryAfter: 1 });
    assert.equal((await api.start(start())).headers.get('retry-after'), '1');
    emu.inject({ status: 503, headers: { 'Retry-After': 'Wed, 21 Oct 2026 07:28:00 GMT' } });
    assert.equal((await api.start(start())).headers.get('retry-after'), 'Wed, 21 Oct 2026 07:28:00 GMT');
    emu.inject({ status: 503, retryAfter: null });
    assert.equal((await api.start(start())).headers.get('retry-after'), null, 'null removes it');
    assert.equal((await api.get('agt_nope')).headers.get('retry-after'), null, 'real errors are untouched');
  });

  it('the real preset sends Retry-After 5 on 429 and 503', async () => {
    const real = await startEmulator({ clock: 'manual', preset: 'real' });
    try {
      const caller = new ApiCaller(real, real.tokens.default);
      for (const status of [429, 503]) {
        real.inject({ status });
        const result = await caller.start(start());
        assert.deepEqual([result.status, result.headers.get('retry-after'), obj(result).code], [status, '5', status === 429 ? 'rate_limited' : 'service_unavailable']);
      }
    } finally {
      await real.close();
    }
  });

  it('admin: retryAfter must be a non-negative integer, a printable string or null, and not given twice', async () => {
    for (const retryAfter of [-1, 1.5, '', ' ', 'a\r\nx-injected: 1', {}, true]) {
      assert.equal((await admin(emu, 'POST', '/faults', { status: 503, retryAfter })).status, 400, JSON.stringify(retryAfter));
    }
    assert.equal((await admin(emu, 'POST', '/faults', { status: 503, retryAfter: 1, headers: { 'Retry-After': '2' } })).status, 400);
    assert.equal((await admin(emu, 'POST', '/faults', { headers: { 'x-a': 'b\nc' } })).status, 400);
    for (const retryAfter of [0, 30, 'Wed, 21 Oct 2026 07:28:00 GMT', null]) {
      assert.equal((await admin(emu, 'POST', '/faults', { status: 503, retryAfter })).status, 201, JSON.stringify(retryAfter));
    }
  });
});
