import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SEED, startEmulator, type Emulator } from '../../emulator/index';
import { admin, ApiCaller, obj, runToEnd, waitFor, type Json } from '../../emulator/testing';

const STEP = 1000;

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local webhook receiver answering each POST with the next status of `statuses` (then 200). */
class Receiver {
  readonly received: Received[] = [];
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(this.statuses.shift() ?? 200, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  url = '';

  constructor(private readonly statuses: number[] = []) {}

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/agent`;
    return this;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  payloads(): Json[] {
    return this.received.map((r) => JSON.parse(r.body) as Json);
  }
}

/** A loopback URL where nothing listens. */
async function closedPortUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hook`;
}

describe('emulator: completion webhooks', () => {
  let emu: Emulator;
  let api: ApiCaller;
  const receivers: Receiver[] = [];
  const receiver = async (statuses: number[] = []): Promise<Receiver> => {
    const r = await new Receiver(statuses).listen();
    receivers.push(r);
    return r;
  };
  const start = (overrides: Json = {}): Json => ({ appId: SEED.apps.todo, prompt: 'Ship it', model: 'hosted/auto', ...overrides });

  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: STEP });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(async () => {
    await emu.close();
    await Promise.all(receivers.map((r) => r.close()));
  });
  beforeEach(() => emu.reset());

  it('POSTs {event: "agent.completed", agent} once the run completes, and records the delivery', async () => {
    const hook = await receiver();
    const id = await api.startOk(start({ completionWebhookUrl: hook.url }));
    await emu.advance(6 * STEP);
    assert.equal(hook.received.length, 0, 'nothing before the terminal state');
    await emu.advance(STEP);
    assert.equal(hook.received.length, 1);

    const [payload] = hook.payloads();
    assert.equal(payload.event, 'agent.completed');
    assert.deepEqual(payload.agent, await api.agent(id), 'the agent object equals what GET returns');
    const headers = hook.received[0].headers;
    assert.match(String(headers['content-type']), /^application\/json/);
    assert.equal(headers['x-webhook-attempt'], '1');
    assert.equal(headers.authorization, undefined, 'the API token is never forwarded');

    assert.equal(emu.webhookDeliveries.length, 1);
    const delivery = emu.webhookDeliveries[0];
    assert.equal(delivery.state, 'delivered');
    assert.equal(delivery.agentId, id);
    assert.equal(delivery.url, hook.url);
    assert.equal(delivery.body, hook.received[0].body);
    assert.deepEqual(delivery.attempts.map((a) => a.status), [200]);
  });

  it('retries a non-2xx answer after 1 and 2 steps: fails twice, then succeeds', async () => {
    const hook = await receiver([500, 502]);
    const id = await api.startOk(start({ completionWebhookUrl: hook.url }));
    await runToEnd(emu, api, id);
    const delivery = emu.webhookDeliveries[0];
    const firstAt = delivery.attempts[0].at;
    assert.equal(hook.received.length, 1);
    assert.equal(delivery.state, 'pending');
    assert.equal(delivery.nextAttemptAt, firstAt + STEP);

    await emu.advance(STEP - 1);
    assert.equal(hook.received.length, 1, 'no retry before the backoff');
    await emu.advance(1);
    assert.equal(hook.received.length, 2);
    await emu.advance(2 * STEP);
    assert.equal(hook.received.length, 3);

    assert.equal(delivery.state, 'delivered');
    assert.deepEqual(delivery.attempts.map((a) => [a.attempt, a.status, a.at - firstAt]), [[1, 500, 0], [2, 502, STEP], [3, 200, 3 * STEP]]);
    assert.deepEqual(hook.received.map((r) => r.headers['x-webhook-attempt']), ['1', '2', '3']);
    assert.equal(new Set(hook.received.map((r) => r.body)).size, 1, 'every attempt carries the same payload');
    assert.equal(new Set(hook.received.map((r) => r.headers['x-webhook-delivery'])).size, 1);

    await emu.advance(20 * STEP);
    assert.equal(hook.received.length, 3, 'nothing after success');
  });

  it('gives up after 3 retries (1, 2, 4 steps) and marks the delivery failed', async () => {
    const hook = await receiver([503, 503, 503, 503, 503]);
    await runToEnd(emu, api, await api.startOk(start({ completionWebhookUrl: hook.url })));
    await emu.advance(20 * STEP);
    const delivery = emu.webhookDeliveries[0];
    assert.equal(delivery.state, 'failed');
    const t0 = delivery.attempts[0].at;
    assert.deepEqual(delivery.attempts.map((a) => a.at - t0), [0, STEP, 3 * STEP, 7 * STEP]);
    assert.equal(hook.received.length, 4);
  });

  it('retries when the connection fails', async () => {
    const url = await closedPortUrl();
    await runToEnd(emu, api, await api.startOk(start({ completionWebhookUrl: url })));
    await emu.advance(7 * STEP);
    const delivery = emu.webhookDeliveries[0];
    assert.equal(delivery.state, 'failed');
    assert.equal(delivery.attempts.length, 4);
    for (const attempt of delivery.attempts) {
      assert.equal(attempt.status, undefined);
      assert.match(attempt.error ?? '', /ECONNREFUSED/);
    }
  });

  it('is sent for runs that end in error too', async () => {
    const hook = await receiver();
    await runToEnd(emu, api, await api.startOk(start({ prompt: '[[fail]]', completionWebhookUrl: hook.url })));
    const agent = hook.payloads()[0].agent as Json;
    assert.equal(agent.status, 'error');
    assert.equal(typeof agent.lastError, 'string');
  });

  it('is sent once per terminal state: queued follow-ups delay it; a re-opened run sends again to the latest URL', async () => {
    const first = await receiver();
    const second = await receiver();
    const id = await api.startOk(start({ completionWebhookUrl: first.url }));
    await api.followUp(id, { prompt: 'queued behind' });
    await runToEnd(emu, api, id);
    assert.equal(first.received.length, 1, 'one delivery for two turns that ran back to back');
    await api.followUp(id, { prompt: 're-open', completionWebhookUrl: second.url });
    await runToEnd(emu, api, id);
    assert.equal(first.received.length, 1);
    assert.equal(second.received.length, 1);
    await api.followUp(id, { prompt: 'no URL this time: the latest one stays' });
    await runToEnd(emu, api, id);
    assert.equal(second.received.length, 2);
    const agent = second.payloads()[1].agent as Json;
    assert.equal((agent.history as Json[]).filter((m) => m.role === 'user').length, 4);
  });

  it('is not limited by historyLimit', async () => {
    const hook = await receiver();
    await admin(emu, 'PATCH', '/settings', { historyDefault: 2, historyMax: 2 });
    await runToEnd(emu, api, await api.startOk(start({ completionWebhookUrl: hook.url })));
    assert.ok((hook.payloads()[0].agent as { history: unknown[] }).history.length > 2);
  });

  it('refuses non-loopback hosts without any attempt', async () => {
    await runToEnd(emu, api, await api.startOk(start({ completionWebhookUrl: 'https://hooks.example.com/agent' })));
    const delivery = emu.webhookDeliveries[0];
    assert.equal(delivery.state, 'refused');
    assert.match(delivery.refusedReason ?? '', /loopback/);
    assert.deepEqual(delivery.attempts, []);
  });

  it('sends nothing without a completionWebhookUrl', async () => {
    await runToEnd(emu, api, await api.startOk(start()));
    assert.equal(emu.webhookDeliveries.length, 0);
  });

  it('lists deliveries on GET /__admin/webhooks', async () => {
    const hook = await receiver([500]);
    await runToEnd(emu, api, await api.startOk(start({ completionWebhookUrl: hook.url })));
    await emu.advance(STEP);
    const deliveries = obj(await admin(emu, 'GET', '/webhooks')).deliveries as Json[];
    assert.equal(deliveries.length, 1);
    assert.equal(deliveries[0].state, 'delivered');
    assert.deepEqual((deliveries[0].attempts as Json[]).map((a) => a.status), [500, 200]);
  });
});

describe('emulator: completion webhooks on the real clock', () => {
  it('retries after stepMs-scaled backoff without any advance()', async () => {
    const emu = await startEmulator({ stepMs: 15 });
    const hook = await new Receiver([500, 500]).listen();
    try {
      const api = new ApiCaller(emu, emu.tokens.default);
      await api.startOk({ appId: SEED.apps.todo, prompt: 'hi', model: 'hosted/auto', completionWebhookUrl: hook.url });
      await waitFor(() => emu.webhookDeliveries[0]?.state === 'delivered', 5_000, 'the delivery');
      assert.equal(hook.received.length, 3);
    } finally {
      await emu.close();
      await hook.close();
    }
  });
});
