// Issue 31: a branch's sync through the sender, with the real client against a scripted
// server: `POST /versions/sync` sent once with the app and the branch, its 202 and Retry-After
// kept for following it; a second sync of the same branch while one is under way is `busy` and
// sends nothing; a cut after the body arrived is "may have arrived" and is never sent again.
import type * as http from 'node:http';
import * as assert from 'node:assert/strict';
import { createClient, type AgentRunsApi } from '../../../src/api';
import { RunLedger } from '../../../src/run/common/ledger/ledger';
import { FollowUpSends } from '../../../src/run/followUpSends';
import { Sender } from '../../../src/run/sender';
import * as sendPosts from '../../../src/run/sendPosts';
import { UnconfirmedStarts } from '../../../src/run/unconfirmedStarts';
import { json, startServer, TOKEN, type TestServer } from '../fixtures/apiServers';
import { MemoryStore } from '../fixtures/memoryStore';

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 50));

describe('the sender\'s branch sync (issue 31)', function () {
  this.timeout(10_000);
  let server: TestServer;
  let client: AgentRunsApi;
  let sender: Sender;
  let lines: string[];
  let held: (() => void)[];
  const o = { from: 'test', quiet: true };

  beforeEach(async () => {
    held = [];
    lines = [];
    server = await startServer((_req, res) => json(res, 500, { error: 'no handler' }));
    client = createClient({ baseUrl: server.baseUrl, token: TOKEN, timeouts: { connectMs: 2_000, headersMs: 2_000, bodyMs: 2_000 } });
    const store = new MemoryStore();
    sender = new Sender({
      client: () => Promise.resolve(client),
      ledger: () => new RunLedger(store, client.baseUrl),
      poller: { track: () => undefined, burst: () => undefined },
      starts: new UnconfirmedStarts(store),
      sends: new FollowUpSends(store), targetState: store,
      log: { info: (m) => void lines.push(`info ${m}`), warn: (m) => void lines.push(`warn ${m}`) },
    }, () => sendPosts);
  });
  afterEach(async () => {
    for (const release of held) release();
    await client.dispose();
    await server.close();
  });

  it('a 202: one POST with the app and the branch; the answer with its HTTP status and Retry-After; then its status read', async () => {
    server.handle((req, res) => (req.method === 'POST'
      ? json(res, 202, { ok: true, status: 'in_progress', stage: 'pending', versionId: 'ver_9', version: 'feature/dark-mode', appVersion: 'feature/dark-mode', message: 'Sync started' }, { 'retry-after': '3' })
      : json(res, 200, { ok: true, status: 'completed', stage: 'completed', versionId: 'ver_9', appVersion: 'feature/dark-mode', message: 'Synced' })));
    const r = await sender.syncVersion({ appId: 'app_todo', version: 'feature/dark-mode' }, o);
    assert.deepEqual(r, {
      kind: 'answered', baseUrl: server.baseUrl,
      sync: { ok: true, status: 'in_progress', stage: 'pending', versionId: 'ver_9', version: 'feature/dark-mode', message: 'Sync started', httpStatus: 202, retryAfterMs: 3_000 },
    });
    assert.deepEqual(server.requests.map((q) => [q.method, q.url, q.body]), [['POST', '/api/public/v1/versions/sync', '{"appId":"app_todo","version":"feature/dark-mode"}']]);
    const status = await client.getVersionStatus('app_todo', 'ver_9');
    assert.deepEqual([status.status, status.version, status.httpStatus], ['completed', 'feature/dark-mode', 200]);
    assert.equal(server.requests[1].url, '/api/public/v1/versions/status?appId=app_todo&versionId=ver_9');
    assert.ok(lines.includes('info Sync of branch feature/dark-mode of app app_todo answered in_progress (version ver_9) from the test.'), lines.join('\n'));
  });

  it('busy: a second sync of the same branch while one is under way sends nothing; another branch is sent', async () => {
    server.handle((_req: http.IncomingMessage, res: http.ServerResponse) => {
      held.push(() => json(res, 200, { ok: true, status: 'completed', versionId: 'ver_1' }));
    });
    const first = sender.syncVersion({ appId: 'app_todo', version: 'main' }, o);
    assert.deepEqual(await sender.syncVersion({ appId: 'app_todo', version: 'main' }, o), { kind: 'busy' });
    const other = sender.syncVersion({ appId: 'app_todo', version: 'fix/login-redirect' }, o);
    while (held.length < 2) await settle();
    held.splice(0).forEach((release) => release());
    assert.equal((await first).kind, 'answered');
    assert.equal((await other).kind, 'answered');
    assert.equal(server.requests.length, 2);
  });

  it('cut after its body arrived: may have arrived, sent once, never again on its own', async () => {
    server.handle((req) => req.socket.destroy());
    const r = await sender.syncVersion({ appId: 'app_todo', version: 'main' }, o);
    assert.equal(r.kind, 'failed');
    assert.equal(r.kind === 'failed' && r.mayHaveArrived, true);
    await settle();
    assert.equal(server.requests.length, 1);
    assert.ok(lines.some((l) => l.startsWith('warn Syncing branch main of app app_todo from the test failed (it may have arrived; it is not sent again)')), lines.join('\n'));
  });
});
