import assert from 'node:assert/strict';
import * as http from 'node:http';
import { SEED, startEmulator, type Emulator } from '../../emulator/index';
import { admin, ApiCaller, call, obj, waitFor, type Json } from '../../emulator/testing';

/** One raw HTTP exchange, timing when the headers and the end of the body arrived. */
function timedGet(url: string, token: string): Promise<{ status: number; headersAt: number; endAt: number; body: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.get(url, { headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      const headersAt = performance.now() - started;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headersAt, endAt: performance.now() - started, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

describe('emulator: fault injection', () => {
  let emu: Emulator;
  let api: ApiCaller;
  const start = (overrides: Json = {}): Json => ({ appId: SEED.apps.todo, prompt: 'faults', model: 'hosted/auto', ...overrides });

  before(async () => {
    emu = await startEmulator({ clock: 'manual' });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('replaces the response once by default, then the real handler answers again', async () => {
    emu.inject({ method: 'GET', path: '^/agents/[^/]+$', status: 500 });
    const id = await api.startOk(start());
    const first = await api.get(id);
    assert.equal(first.status, 500);
    assert.deepEqual(obj(first), { error: 'Internal server error.', code: 'internal_error' });
    assert.equal((await api.get(id)).status, 200);
    assert.equal(emu.requests.at(-2)?.fault, 'fault_1');
    assert.equal(emu.requests.at(-2)?.status, 500);
  });

  it('applies `times` uses; 0 means until cleared', async () => {
    const id = await api.startOk(start());
    emu.inject({ path: '^/agents/', status: 503, times: 2 });
    assert.deepEqual([(await api.get(id)).status, (await api.get(id)).status, (await api.get(id)).status], [503, 503, 200]);
    emu.inject({ path: '^/agents/', status: 502, times: 0 });
    for (let i = 0; i < 5; i++) assert.equal((await api.get(id)).status, 502);
    emu.clearFaults();
    assert.equal((await api.get(id)).status, 200);
  });

  it('matches on method and on the path relative to the base URL, without the query', async () => {
    emu.inject({ method: 'GET', path: '^/agents/[^/]+$', status: 500, times: 0 });
    const id = await api.startOk(start());
    assert.equal((await api.followUp(id, { prompt: 'p' })).status, 202, 'other method and path untouched');
    assert.equal((await api.request('GET', `/agents/${id}?view=full`)).status, 500);
    assert.equal((await api.request('GET', '/openapi.json')).status, 200);
  });

  it('429 with Retry-After and a custom body', async () => {
    emu.inject({ status: 429, headers: { 'Retry-After': '7' } });
    const limited = await api.start(start());
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '7');
    assert.equal(obj(limited).code, 'rate_limited');
    assert.equal(emu.state.agents.size, 0, 'a replaced response skips the handler');

    emu.inject({ status: 418, body: '{"error":"teapot","code":"brewing"}' });
    const custom = await api.start(start());
    assert.equal(custom.status, 418);
    assert.deepEqual(obj(custom), { error: 'teapot', code: 'brewing' });
  });

  it('html: an HTML error page, 502 by default', async () => {
    emu.inject({ html: true });
    const result = await api.start(start());
    assert.equal(result.status, 502);
    assert.match(result.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(result.text, /<html>.*502 Bad Gateway/s);
    emu.inject({ html: true, status: 504 });
    assert.equal((await api.start(start())).status, 504);
  });

  it('truncate: a well-framed response whose JSON is cut in half', async () => {
    const id = await api.startOk(start());
    const full = await api.get(id);
    emu.inject({ method: 'GET', truncate: true });
    const cut = await api.get(id);
    assert.equal(cut.status, 200);
    assert.equal(cut.json, undefined, 'not parseable');
    assert.equal(cut.text, full.text.slice(0, Math.floor(full.text.length / 2)));
    assert.equal(cut.headers.get('content-length'), String(Buffer.byteLength(cut.text)));
  });

  it('reset: destroys the socket; without passThrough the POST never reached the handler', async () => {
    emu.inject({ method: 'POST', path: '^/agents$', reset: true });
    await assert.rejects(api.start(start()), TypeError);
    assert.equal(emu.state.agents.size, 0);
    assert.equal(emu.requests.length, 1);
    assert.equal(emu.requests[0].status, undefined);
  });

  it('reset + passThrough: the run IS created, then the connection drops', async () => {
    emu.inject({ method: 'POST', path: '^/agents$', reset: true, passThrough: true });
    await assert.rejects(api.start(start()), TypeError);
    assert.equal(emu.state.agents.size, 1);
    assert.equal([...emu.state.agents.values()][0].status, 'queued');
  });

  it('status + passThrough: the work is done but the client sees an error', async () => {
    emu.inject({ method: 'POST', status: 500, passThrough: true });
    assert.equal((await api.start(start())).status, 500);
    assert.equal(emu.state.agents.size, 1);
  });

  it('delayMs + passThrough: the handler runs at once, the answer comes after the delay', async () => {
    emu.inject({ method: 'POST', delayMs: 150, passThrough: true });
    const started = performance.now();
    const pending = api.start(start());
    await waitFor(() => emu.state.agents.size === 1, 2_000, 'the run to exist before the answer');
    const result = await pending;
    assert.ok(performance.now() - started >= 140, 'the response was held');
    assert.equal(result.status, 201);
  });

  it('releaseHeld: a response held for a minute goes out when the test lets it go, not before', async () => {
    emu.inject({ method: 'POST', delayMs: 60_000, passThrough: true });
    let answered = false;
    const pending = api.start(start()).then((r) => {
      answered = true;
      return r;
    });
    await waitFor(() => emu.state.agents.size === 1, 2_000, 'the run to exist before the answer');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(answered, false, 'the answer went out before it was released');
    assert.equal(emu.requests[0].status, undefined);
    emu.releaseHeld();
    const result = await pending;
    assert.equal(result.status, 201);
    assert.equal(emu.requests[0].status, 201);
  });

  it('delayMs without passThrough: a client that gives up during the delay never reaches the handler', async () => {
    emu.inject({ method: 'POST', path: '^/agents$', delayMs: 200, times: 2 });
    const abort = new AbortController();
    const abandoned = api.request('POST', '/agents', { body: start({ prompt: 'abandoned' }), signal: abort.signal });
    await waitFor(() => emu.requests.length === 1, 2_000, 'the first request to arrive');
    abort.abort();
    await assert.rejects(abandoned);
    // A second, patient request under the same rule started later, so its answer proves the first delay is over.
    const patient = await api.start(start({ prompt: 'patient' }));
    assert.equal(patient.status, 201);
    assert.deepEqual([...emu.state.agents.values()].map((a) => a.pendingTurns[0]?.prompt), ['patient']);
    assert.equal(emu.requests[0].status, undefined);
  });

  it('bodyDelayMs: headers arrive at once, the body after the delay', async () => {
    const id = await api.startOk(start());
    emu.inject({ method: 'GET', bodyDelayMs: 200 });
    const result = await timedGet(`${emu.baseUrl}/agents/${id}`, emu.tokens.default);
    assert.equal(result.status, 200);
    assert.ok(result.endAt - result.headersAt >= 180, `headers at ${result.headersAt} ms, end at ${result.endAt} ms`);
    assert.equal((JSON.parse(result.body) as Json).agentId, id);
  });

  it('redirectTo foreign: same path on the other origin; the foreign listener logs what arrives', async () => {
    emu.inject({ method: 'GET', redirectTo: 'foreign' });
    const id = await api.startOk(start());
    const redirected = await api.request('GET', `/agents/${id}?x=1`);
    assert.equal(redirected.status, 302);
    const location = redirected.headers.get('location') ?? '';
    assert.equal(location, `${emu.foreignOrigin}/api/public/v1/agents/${id}?x=1`);
    assert.notEqual(new URL(location).origin, emu.origin);

    // A well-behaved client follows without the token.
    const followed = await call(location, 'GET');
    assert.deepEqual(followed.json, { ok: true });
    assert.equal(emu.foreignRequests.length, 1);
    assert.equal(emu.foreignRequests[0].headers.authorization, undefined);
    assert.equal(emu.foreignRequests[0].origin, emu.foreignOrigin);
    assert.equal(emu.requests.at(-1), emu.foreignRequests[0], 'the combined log has it too, in order');
  });

  it('redirectTo a URL with redirectStatus; a leaked token would be visible in the foreign log', async () => {
    emu.inject({ method: 'POST', redirectTo: `${emu.foreignOrigin}/elsewhere`, redirectStatus: 307 });
    const result = await api.start(start());
    assert.equal(result.status, 307);
    assert.equal(result.headers.get('location'), `${emu.foreignOrigin}/elsewhere`);
    assert.equal(emu.state.agents.size, 0);
    await call(`${emu.foreignOrigin}/elsewhere`, 'POST', { token: 'agr_leaked', body: {} });
    assert.equal(emu.foreignRequests[0].headers.authorization, 'Bearer agr_leaked');
  });

  it('extraFields and dropFields alter the real response (nested paths go through arrays)', async () => {
    const id = await api.startOk(start({ prompt: '[[tools]]' }));
    await emu.advance(10_000);
    emu.inject({
      method: 'GET',
      extraFields: { status: 'paused', surprise: { nested: [1, 2] } },
      dropFields: ['projectName', 'lifecycle.queuedTurnCount', 'history.toolName', 'completedAt'],
    });
    const agent = obj(await api.get(id));
    assert.equal(agent.status, 'paused');
    assert.deepEqual(agent.surprise, { nested: [1, 2] });
    assert.equal('projectName' in agent, false);
    assert.equal('queuedTurnCount' in (agent.lifecycle as Json), false);
    assert.ok((agent.history as Json[]).every((m) => !('toolName' in m)));
    assert.ok((agent.history as Json[]).length > 3);
    assert.equal(obj(await api.get(id)).status, 'running', 'only the response was altered');
  });

  it('headers alone are added to the real response', async () => {
    emu.inject({ headers: { 'X-Trace': 'abc' } });
    const result = await api.start(start());
    assert.equal(result.status, 201);
    assert.equal(result.headers.get('x-trace'), 'abc');
  });

  it('admin: POST /__admin/faults validates and adds a rule; DELETE clears them; admin routes are never faulted', async () => {
    assert.equal((await admin(emu, 'POST', '/faults', { status: 'x' })).status, 400);
    assert.equal((await admin(emu, 'POST', '/faults', { path: '(' })).status, 400);
    assert.equal((await admin(emu, 'POST', '/faults', { teapot: true })).status, 400);
    const added = await admin(emu, 'POST', '/faults', { path: '.*', status: 500, times: 0 });
    assert.equal(added.status, 201);
    assert.equal(obj(added).id, 'fault_1');
    assert.equal((await admin(emu, 'GET', '/health')).status, 200);
    assert.equal((await call(`${emu.foreignOrigin}/x`, 'GET')).status, 200);
    assert.equal((await api.start(start())).status, 500);
    assert.equal((obj(await admin(emu, 'GET', '/faults')).faults as Json[]).length, 1);
    assert.equal((await admin(emu, 'DELETE', '/faults')).status, 200);
    assert.equal((await api.start(start())).status, 201);
  });
});
