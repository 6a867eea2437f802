import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { FaultRule } from '../../emulator/index';
import { SEED, startEmulator, type Emulator } from '../../emulator/index';
import { admin, ApiCaller, obj, type Json } from '../../emulator/testing';

/** One raw POST: what arrived before the connection ended, and whether the body was complete. */
function rawPost(url: string, token: string, body: Json): Promise<{ status?: number; contentLength?: number; received: number; complete: boolean; error?: string }> {
  return new Promise((resolve) => {
    const text = JSON.stringify(body);
    const req = http.request(url, { method: 'POST', agent: false, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } }, (res) => {
      let received = 0;
      res.on('data', (chunk: Buffer) => (received += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode, contentLength: Number(res.headers['content-length']), received, complete: res.complete }));
      res.on('error', (error) => resolve({ status: res.statusCode, contentLength: Number(res.headers['content-length']), received, complete: false, error: error.message }));
    });
    req.on('error', (error) => resolve({ received: 0, complete: false, error: error.message }));
    req.end(text);
  });
}

/** The three ways a client gets no complete answer although the POST did its work. */
const VARIANTS: { name: string; rule: FaultRule; statusSent: boolean }[] = [
  { name: 'held longer than the client waits (passThrough + delayMs)', rule: { passThrough: true, delayMs: 30_000 }, statusSent: false },
  { name: 'socket destroyed without any response (passThrough + reset)', rule: { passThrough: true, reset: true }, statusSent: false },
  { name: 'cut in the middle of the body (cutBody)', rule: { cutBody: true }, statusSent: true },
];

describe('emulator: connections cut after a POST arrived', () => {
  let emu: Emulator;
  let api: ApiCaller;
  const start = (overrides: Json = {}): Json => ({ appId: SEED.apps.todo, prompt: 'cut', model: 'hosted/pro', ...overrides });
  const credits = (): number => emu.state.workspaces.get('ws_acme')?.paidCredits ?? NaN;
  const adminAgents = async (): Promise<Json[]> => obj(await admin(emu, 'GET', '/agents')).agents as Json[];

  before(async () => {
    emu = await startEmulator({ clock: 'manual' });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  for (const variant of VARIANTS) {
    it(`start, ${variant.name}: the run exists and is charged, the client saw no complete answer`, async () => {
      emu.inject({ method: 'POST', path: '^/agents$', ...variant.rule });
      await assert.rejects(api.request('POST', '/agents', { body: start({ prompt: 'lost answer' }), signal: AbortSignal.timeout(300) }));
      const agents = await adminAgents();
      assert.equal(agents.length, 1);
      assert.equal(agents[0].status, 'queued');
      assert.deepEqual((agents[0].pendingTurns as Json[]).map((t) => t.prompt), ['lost answer']);
      assert.equal(credits(), 100 - 5);
      assert.equal(emu.requests[0].fault, 'fault_1');
      assert.equal(emu.requests[0].status, variant.statusSent ? 201 : undefined);
    });

    it(`follow-up, ${variant.name}: the turn is queued and charged, the client saw no complete answer`, async () => {
      const id = await api.startOk(start());
      await emu.advance(1_000);
      emu.inject({ method: 'POST', path: '^/agents/[^/]+/messages$', ...variant.rule });
      await assert.rejects(api.request('POST', `/agents/${id}/messages`, { body: { prompt: 'lost ack' }, signal: AbortSignal.timeout(300) }));
      const [agent] = await adminAgents();
      assert.equal(agent.turnCount, 2);
      assert.deepEqual((agent.pendingTurns as Json[]).map((t) => t.prompt), ['lost ack']);
      assert.equal((agent.lifecycle as Json).queuedTurnCount, 1);
      assert.equal(credits(), 100 - 10);
      assert.equal(emu.requests.at(-1)?.status, variant.statusSent ? 202 : undefined);
    });
  }

  it('cutBody: the status line and the full content-length arrive, then half the body, then the connection ends', async () => {
    const whole = JSON.stringify(obj(await api.start(start())));
    emu.inject({ method: 'POST', cutBody: true });
    const result = await rawPost(`${emu.baseUrl}/agents`, emu.tokens.default, start());
    assert.equal(result.status, 201);
    assert.equal(result.complete, false);
    assert.equal(result.contentLength, Buffer.byteLength(whole), 'promises a whole answer (same shape, same length)');
    assert.equal(result.received, Math.floor(Buffer.byteLength(whole) / 2));
    assert.equal(emu.state.agents.size, 2);
  });

  it('a held answer whose client went away is dropped quietly, and the emulator keeps serving', async () => {
    emu.inject({ method: 'POST', path: '^/agents$', passThrough: true, delayMs: 100 });
    await assert.rejects(api.request('POST', '/agents', { body: start(), signal: AbortSignal.timeout(20) }));
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(emu.requests[0].status, undefined, 'nothing was written after the client left');
    assert.equal((await api.start(start())).status, 201);
  });

  it('admin: cutBody must be a boolean', async () => {
    assert.equal((await admin(emu, 'POST', '/faults', { cutBody: 'yes' })).status, 400);
    assert.equal((await admin(emu, 'POST', '/faults', { cutBody: true })).status, 201);
  });
});
