import assert from 'node:assert/strict';
import { MANUAL_EPOCH, REAL_STALE_READS, SEED, startEmulator, type Emulator } from '../../emulator/index';
import { admin, ApiCaller, call, obj, spawnCli, waitFor, type Json } from '../../emulator/testing';

const { apps } = SEED;

describe('emulator: admin API', () => {
  let emu: Emulator;
  let api: ApiCaller;
  const start = (overrides: Json = {}): Json => ({ appId: apps.todo, prompt: 'admin', model: 'hosted/auto', ...overrides });

  before(async () => {
    emu = await startEmulator({ clock: 'manual' });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('GET /health', async () => {
    assert.deepEqual(obj(await admin(emu, 'GET', '/health')), { ok: true, clock: 'manual', now: MANUAL_EPOCH });
  });

  it('logs API requests with headers as received (token included) and bodies; admin calls are not logged', async () => {
    await admin(emu, 'GET', '/health');
    const body = JSON.stringify(start());
    await api.request('POST', '/agents?trace=1', { rawBody: body, contentType: 'application/json' });
    assert.equal(emu.requests.length, 1);
    const [entry] = emu.requests;
    assert.equal(entry.method, 'POST');
    assert.equal(entry.path, '/api/public/v1/agents?trace=1');
    assert.equal(entry.origin, emu.origin);
    assert.equal(entry.headers.authorization, `Bearer ${emu.tokens.default}`);
    assert.equal(entry.body, body);
    assert.equal(entry.status, 201);
    assert.equal(entry.at, MANUAL_EPOCH);
  });

  it('GET /requests?since=n pages the log; DELETE /requests clears it', async () => {
    await api.request('GET', '/openapi.json');
    await api.request('GET', '/agents/agt_x');
    await call(`${emu.foreignOrigin}/probe`, 'GET');
    const all = obj(await admin(emu, 'GET', '/requests'));
    assert.equal(all.next, 3);
    assert.deepEqual((all.requests as Json[]).map((r) => [r.method, r.path, r.status]), [
      ['GET', '/api/public/v1/openapi.json', 200],
      ['GET', '/api/public/v1/agents/agt_x', 404],
      ['GET', '/probe', 200],
    ]);
    const tail = obj(await admin(emu, 'GET', '/requests?since=2'));
    assert.equal((tail.requests as Json[]).length, 1);
    assert.equal((tail.requests as Json[])[0].origin, emu.foreignOrigin);
    await admin(emu, 'DELETE', '/requests');
    assert.equal(emu.requests.length, 0);
    assert.equal(emu.foreignRequests.length, 0);
  });

  it('POST /clock/advance moves the manual clock and runs due steps', async () => {
    const id = await api.startOk(start());
    const moved = obj(await admin(emu, 'POST', '/clock/advance', { ms: 7_000 }));
    assert.equal(moved.now, MANUAL_EPOCH + 7_000);
    assert.equal((await api.agent(id)).status, 'completed');
    assert.equal((await admin(emu, 'POST', '/clock/advance', { ms: -1 })).status, 400);
  });

  it('POST /reset restores the seed, clears logs, faults and the clock', async () => {
    await api.startOk(start({ model: 'hosted/max' }));
    await admin(emu, 'POST', '/faults', { status: 500, times: 0 });
    await admin(emu, 'POST', '/clock/advance', { ms: 1_000 });
    assert.equal((await admin(emu, 'POST', '/reset')).status, 200);
    assert.equal(emu.state.agents.size, 0);
    assert.equal(emu.state.workspaces.get('ws_acme')?.paidCredits, 100);
    assert.equal(emu.requests.length, 0);
    assert.equal(obj(await admin(emu, 'GET', '/clock')).now, MANUAL_EPOCH);
    assert.equal((await api.start(start())).status, 201);
  });

  it('GET /agents and /agents/:id give the internal view (user email, queued prompts, webhook URL)', async () => {
    const id = await api.startOk(start({ model: 'openai/gpt-5', userEmail: SEED.emails.dev, completionWebhookUrl: 'http://127.0.0.1:1/h' }));
    await api.followUp(id, { prompt: 'queued one' });
    const list = obj(await admin(emu, 'GET', '/agents')).agents as Json[];
    assert.deepEqual(list.map((a) => a.agentId), [id]);
    const view = obj(await admin(emu, 'GET', `/agents/${id}`));
    assert.equal(view.userEmail, SEED.emails.dev);
    assert.equal(view.completionWebhookUrl, 'http://127.0.0.1:1/h');
    assert.deepEqual((view.pendingTurns as Json[]).map((t) => t.prompt), ['admin', 'queued one']);
    assert.equal(view.workspaceId, 'ws_acme');
    assert.equal((await admin(emu, 'GET', '/agents/agt_nope')).status, 404);
  });

  it('PATCH /agents/:id forces fields (unknown statuses and fields too) and halts the run', async () => {
    const id = await api.startOk(start());
    await emu.advance(2_000);
    const patched = await admin(emu, 'PATCH', `/agents/${id}`, {
      status: 'paused',
      lastError: 'forced',
      lifecycle: { conversationState: 'hibernating', queuedTurnCount: 9 },
      mystery: { deep: true },
      projectName: null,
    });
    assert.equal(patched.status, 200);
    await emu.advance(60_000);
    const agent = await api.agent(id);
    assert.equal(agent.status, 'paused');
    assert.equal(agent.lastError, 'forced');
    assert.deepEqual(agent.mystery, { deep: true });
    assert.equal('projectName' in agent, false);
    assert.equal((agent.lifecycle as Json).conversationState, 'hibernating');
    assert.equal((agent.lifecycle as Json).queuedTurnCount, 9);
    assert.equal((agent.history as Json[]).length, 2, 'halted: no more steps');
    assert.equal((await admin(emu, 'PATCH', `/agents/${id}`, { status: 3 })).status, 400);

    // A follow-up wakes a halted run up.
    assert.equal(obj(await api.followUp(id, { prompt: 'wake up' })).status, 'queued');
    await emu.advance(10_000);
    assert.equal((await api.agent(id)).status, 'completed');
  });

  it('POST /agents/:id/messages injects a message (hostile content kept verbatim) with the next sequence', async () => {
    const id = await api.startOk(start());
    await emu.advance(1_000);
    const hostile = '<img src=x onerror=alert(1)> [click](javascript:alert(1)) \u001b[31mred\u001b[0m';
    const injected = await admin(emu, 'POST', `/agents/${id}/messages`, {
      role: 'tool', content: hostile, toolName: '<script>', toolParameters: { path: '../../etc/passwd' }, attachments: ['javascript:alert(1)'],
    });
    assert.equal(injected.status, 201);
    const last = ((await api.agent(id)).history as Json[]).at(-1);
    assert.equal(last?.content, hostile);
    assert.equal(last.sequence, 2);
    assert.equal(last.toolName, '<script>');
    assert.equal(last.toolParameters, '{"path":"../../etc/passwd"}');
    assert.deepEqual(last.attachments, ['javascript:alert(1)']);
    assert.equal(obj(injected).id, last.id);
  });

  it('POST /agents/:id/messages { messages } appends several in one request, in order; a bad entry appends none', async () => {
    const id = await api.startOk(start());
    await emu.advance(1_000);
    const before = ((await api.agent(id)).history as Json[]).length;
    const bad = await admin(emu, 'POST', `/agents/${id}/messages`, { messages: [{ content: 'fine' }, 'not a message'] });
    assert.equal(bad.status, 400);
    assert.equal(((await api.agent(id)).history as Json[]).length, before, 'nothing appended');
    const many = await admin(emu, 'POST', `/agents/${id}/messages`, { messages: [{ role: 'assistant', content: 'one' }, { role: 'tool', content: 'two', toolName: 'read_file' }] });
    assert.equal(many.status, 201);
    const history = (await api.agent(id)).history as Json[];
    assert.deepEqual(history.slice(before).map((m) => [m.sequence, m.role, m.content]), [[before + 1, 'assistant', 'one'], [before + 2, 'tool', 'two']]);
    assert.deepEqual((obj(many).messages as Json[]).map((m) => m.id), history.slice(before).map((m) => m.id));
  });

  it('GET /test-groups lists stored groups with their ordered test IDs', async () => {
    await api.createGroup({ appId: apps.todo, name: 'Second', testIds: ['b', 'a', 'c'] });
    const groups = obj(await admin(emu, 'GET', '/test-groups')).testGroups as Json[];
    assert.equal(groups.length, 1);
    assert.deepEqual(groups[0].testIds, ['b', 'a', 'c']);
    assert.equal(groups[0].name, 'Second');
    assert.equal(groups[0].appId, apps.todo);
  });

  it('tokens: create (scoped), list without secrets, revoke by value or id', async () => {
    const created = obj(await admin(emu, 'POST', '/tokens', { workspaceId: 'ws_acme', projects: [apps.crm] }));
    assert.equal((await admin(emu, 'POST', '/tokens', { workspaceId: 'ws_nope' })).status, 400);
    const scoped = new ApiCaller(emu, String(created.token));
    assert.equal((await scoped.start(start({ appId: apps.crm }))).status, 201);
    assert.equal((await scoped.start(start({ appId: apps.todo }))).status, 403);
    const list = obj(await admin(emu, 'GET', '/tokens')).tokens as Json[];
    assert.ok(list.every((t) => !JSON.stringify(t).includes(String(created.token))), 'no secret in the list');
    assert.equal((await admin(emu, 'POST', `/tokens/${String(created.id)}/revoke`)).status, 200);
    assert.equal((await scoped.start(start({ appId: apps.crm }))).status, 401);
    assert.equal((await admin(emu, 'POST', `/tokens/${emu.tokens.scoped}/revoke`)).status, 200);
    assert.equal((await new ApiCaller(emu, emu.tokens.scoped).start(start())).status, 401);
    assert.equal((await admin(emu, 'POST', '/tokens/agr_unknown/revoke')).status, 404);
  });

  it('PATCH /workspaces/:id changes credits and API access', async () => {
    await admin(emu, 'PATCH', '/workspaces/ws_acme', { apiAccess: false });
    assert.equal(obj(await api.start(start())).code, 'api_access_required');
    await admin(emu, 'PATCH', '/workspaces/ws_acme', { apiAccess: true, paidCredits: 0 });
    assert.equal(obj(await api.start(start())).code, 'insufficient_paid_credits');
    assert.equal((await admin(emu, 'PATCH', '/workspaces/ws_acme', { paidCredits: 'many' })).status, 400);
  });

  it('settings: GET shows the reference preset by default; PATCH checks every key and changes nothing when one is bad', async () => {
    const currentReads = { staleReadMs: null, staleReadEvery: 1, staleStatusAfterFollowUpMs: null, notFoundAfterStartMs: null, shapes: 'reference', wideApiVersion: 'A' };
    const reference = { historyDefault: null, historyMax: null, retryAfterSeconds: null, unknownFields: false, unknownValues: false, ...currentReads };
    assert.deepEqual(obj(await admin(emu, 'GET', '/settings')), reference);
    for (const bad of [
      { historyDefault: 0 }, { historyMax: 2.5 }, { historyMax: '10' }, { retryAfterSeconds: -1 }, { unknownFields: 'yes' },
      { preset: 'fake' }, { teapot: 1 }, { historyDefault: 30, historyMax: 20 }, { historyLimit: 5, historyMax: 10 }, { historyLimit: 0 },
      { shapes: 'wide' }, { shapes: null }, { wideApiVersion: 'C' },
    ]) {
      const result = await admin(emu, 'PATCH', '/settings', bad);
      assert.equal(result.status, 400, JSON.stringify(bad));
      assert.match(String(obj(result).error), new RegExp(Object.keys(bad).at(-1) ?? ''), 'the message names the key');
    }
    assert.deepEqual(obj(await admin(emu, 'GET', '/settings')), reference);
    assert.deepEqual(obj(await admin(emu, 'PATCH', '/settings', { historyDefault: 5, historyMax: 50, retryAfterSeconds: 0, unknownValues: true })),
      { historyDefault: 5, historyMax: 50, retryAfterSeconds: 0, unknownFields: false, unknownValues: true, ...currentReads });
    assert.equal((await admin(emu, 'PATCH', '/settings', { historyMax: 4 })).status, 400, 'would put the maximum below the default');
    assert.deepEqual(obj(await admin(emu, 'PATCH', '/settings', { preset: 'real', historyDefault: 3 })),
      { historyDefault: 3, historyMax: 500, retryAfterSeconds: 5, unknownFields: true, unknownValues: false, ...REAL_STALE_READS, shapes: 'reference', wideApiVersion: 'A' }, 'the preset first, then the keys');
  });

  it('settings: the old historyLimit key still caps every read at N (default and maximum together); null lifts both', async () => {
    assert.deepEqual(obj(await admin(emu, 'PATCH', '/settings', { historyLimit: 5 })), {
      historyDefault: 5, historyMax: 5, retryAfterSeconds: null, unknownFields: false, unknownValues: false,
      staleReadMs: null, staleReadEvery: 1, staleStatusAfterFollowUpMs: null, notFoundAfterStartMs: null, shapes: 'reference', wideApiVersion: 'A',
    });
    const patched = obj(await admin(emu, 'PATCH', '/settings', { historyLimit: null }));
    assert.equal(patched.historyDefault, null);
    assert.equal(patched.historyMax, null);
  });

  it('answers 404 for unknown admin routes and 400 for bad JSON', async () => {
    assert.equal((await admin(emu, 'GET', '/nope')).status, 404);
    assert.equal((await call(`${emu.adminUrl}/faults`, 'POST', { rawBody: '{', contentType: 'application/json' })).status, 400);
  });
});

describe('emulator: lifecycle', () => {
  function openHandles(): { servers: number; timers: number } {
    const info = process.getActiveResourcesInfo();
    return { servers: info.filter((r) => r === 'TCPServerWrap').length, timers: info.filter((r) => r === 'Timeout').length };
  }

  it('close() ends listeners, timers, held responses and webhook attempts, and is idempotent', async () => {
    await new Promise((resolve) => setImmediate(resolve)); // mocha arms its timeout timer once the test is pending
    const baseline = openHandles();
    const emu = await startEmulator({ stepMs: 50 });
    try {
      const api = new ApiCaller(emu, emu.tokens.default);
      await api.startOk({ appId: apps.todo, prompt: 'busy [[slow]]', model: 'hosted/auto', completionWebhookUrl: 'http://127.0.0.1:9/never' });
      emu.inject({ method: 'GET', delayMs: 60_000, times: 0 });
      const held = api.request('GET', '/openapi.json').catch((error: unknown) => error);
      await waitFor(() => emu.requests.length === 2, 2_000, 'the held request');
      assert.equal(openHandles().servers, baseline.servers + 2);

      await Promise.all([emu.close(), emu.close()]);
      assert.ok((await held) instanceof Error, 'the held request is dropped, not answered');
      await waitFor(() => {
        const now = openHandles();
        return now.servers === baseline.servers && now.timers <= baseline.timers;
      }, 2_000, 'handles to be released');
      await assert.rejects(call(`${emu.adminUrl}/health`, 'GET'));
    } finally {
      await emu.close(); // a no-op when the test got that far
    }
  });

  it('a seed override replaces parts of the default data, and reset() returns to it', async () => {
    const emu = await startEmulator({
      clock: 'manual',
      seed: {
        settings: { historyDefault: 1 },
        tokens: [{ id: 'tok_custom', name: 'Custom', value: 'agr_CustomToken0000000000000000000000000000', workspaceId: 'ws_acme', projects: [apps.shop] }],
      },
    });
    try {
      const custom = new ApiCaller(emu, 'agr_CustomToken0000000000000000000000000000');
      assert.equal((await new ApiCaller(emu, emu.tokens.default).start({ appId: apps.shop, prompt: 'p', model: 'hosted/auto' })).status, 401, 'the default tokens were replaced');
      const id = await custom.startOk({ appId: apps.shop, prompt: 'p', model: 'hosted/auto' });
      await emu.advance(3_000);
      assert.equal(((await custom.agent(id)).history as Json[]).length, 1, 'historyDefault from the seed');
      assert.equal(emu.state.workspaces.size, 3, 'workspaces kept from the default seed');
      await admin(emu, 'PATCH', '/settings', { historyDefault: null });
      emu.reset();
      assert.equal(emu.state.settings.historyDefault, 1);
      assert.equal(emu.state.agents.size, 0);
    } finally {
      await emu.close();
    }
  });

  it('rejects a stepMs that is not positive', async () => {
    await assert.rejects(startEmulator({ stepMs: 0 }), RangeError);
  });

  it('listens on the requested port, and fails cleanly when it is taken', async () => {
    const first = await startEmulator();
    try {
      const port = Number(new URL(first.origin).port);
      await assert.rejects(startEmulator({ port }), /EADDRINUSE/);
      assert.equal(first.baseUrl, `http://127.0.0.1:${port}/api/public/v1`);
      assert.equal(first.adminUrl, `http://127.0.0.1:${port}/__admin`);
      assert.notEqual(first.foreignOrigin, first.origin);
    } finally {
      await first.close();
    }
  });
});

describe('emulator: CLI', () => {
  it('prints the base URL, a ready token, the admin URL and a hint, serves, and stops on SIGINT', async () => {
    const run = spawnCli(['--port', '0', '--step-ms', '50']);
    const { child, exited } = run;
    const printed = () => run.output();
    try {
      await waitFor(() => /Hint:/.test(printed()), 5_000, 'the CLI banner');
      const output = printed();
      const baseUrl = /Base URL:\s+(\S+)/.exec(output)?.[1] ?? '';
      const token = /Token:\s+(\S+)/.exec(output)?.[1] ?? '';
      const adminUrl = /Admin:\s+(\S+)/.exec(output)?.[1] ?? '';
      assert.match(baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/api\/public\/v1$/);
      assert.equal(token, SEED && 'agr_vgVM0TmuaGrhZz5JnDQtFEvfOSwjDfmvxfjCUqIM');
      assert.equal(adminUrl, baseUrl.replace('/api/public/v1', '/__admin'));
      const started = await call(`${baseUrl}/agents`, 'POST', { token, body: { appId: apps.todo, prompt: 'cli', model: 'hosted/auto' } });
      assert.equal(started.status, 201);
      await waitFor(() => printed().includes('POST /api/public/v1/agents → 201'), 2_000, 'the request line');
      assert.equal(printed().split(token).length - 1, 1, 'the token is printed once, at start');
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await exited, 0);
  });
});
