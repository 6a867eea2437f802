import * as assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as net from 'node:net';
import { inspect } from 'node:util';
import {
  ApiError, createClient, describeApiError, MAX_RESPONSE_BYTES, type AgentRunsApi, type ClientOptions,
} from '../../../src/api';
import {
  closedPort, json, logSink, startRawServer, startRequest, startServer, TOKEN, type TestServer,
} from '../fixtures/apiServers';

async function expectApiError(promise: Promise<unknown>, kind: string): Promise<ApiError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof ApiError, `expected ApiError, got ${inspect(e)}`);
    assert.equal(e.kind, kind, `expected ${kind}, got ${e.kind}: ${e.message}`);
    return e;
  }
  assert.fail(`expected an ApiError of kind ${kind}, but the call succeeded`);
}

/** Everything about an error that could end up in front of a person or in a log. */
function everythingAbout(e: unknown): string {
  if (!(e instanceof Error)) return inspect(e);
  return [String(e), e.stack ?? '', inspect(e, { depth: 6, showHidden: true }), JSON.stringify(e), describeApiError(e as ApiError)].join('\n');
}

const SHORT = { connectMs: 2_000, headersMs: 300, bodyMs: 300 };

describe('api: client against scripted servers', function () {
  let server: TestServer;
  const clients: AgentRunsApi[] = [];

  function client(over: Partial<ClientOptions> = {}): AgentRunsApi {
    const c = createClient({ baseUrl: server.baseUrl, token: TOKEN, timeouts: SHORT, ...over });
    clients.push(c);
    return c;
  }

  beforeEach(async () => {
    server = await startServer((_req, res) => json(res, 500, { error: 'no handler' }));
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await server.close();
  });

  describe('requests', () => {
    it('GET /agents/{id}: path, bearer token, accept, user agent, no body', async () => {
      server.handle((_req, res) => json(res, 200, { agentId: 'ag/1', status: 'running', history: [{ role: 'user', content: 'hi' }] }));
      const agent = await client({ userAgent: 'agent-runs-test/1.2' }).getAgent('ag/1');
      assert.deepEqual(agent, { agentId: 'ag/1', status: 'running', history: [{ role: 'user', content: 'hi' }] });
      assert.equal(server.requests.length, 1);
      const [r] = server.requests;
      assert.equal(r.method, 'GET');
      assert.equal(r.url, '/api/public/v1/agents/ag%2F1');
      assert.equal(r.headers.authorization, `Bearer ${TOKEN}`);
      assert.equal(r.headers.accept, 'application/json');
      assert.equal(r.headers['user-agent'], 'agent-runs-test/1.2');
      assert.equal(r.headers['content-type'], undefined);
      assert.equal(r.body, '');
    });

    it('POST /agents: validated JSON body with defaults, content type', async () => {
      server.handle((_req, res) => json(res, 201, { agentId: 'ag_1', kind: 'agent', status: 'queued', appId: 'app-1', projectId: 'p', createdAt: 17 }));
      const run = await client().startAgent(startRequest({ appId: ' app-1 ', extra: 'dropped' }));
      assert.deepEqual(run, { agentId: 'ag_1', kind: 'agent', status: 'queued', appId: 'app-1', projectId: 'p', createdAt: 17 });
      const [r] = server.requests;
      assert.equal(r.method, 'POST');
      assert.equal(r.url, '/api/public/v1/agents');
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers.authorization, `Bearer ${TOKEN}`);
      assert.deepEqual(JSON.parse(r.body), { appId: 'app-1', prompt: 'Add a login page', model: 'model-a', reasoningEffort: 'medium', permission: 'read_only' });
    });

    it('POST /agents/{id}/messages and POST /test-groups', async () => {
      server.handle((req, res) => req.url?.endsWith('/messages')
        ? json(res, 200, { agentId: 'ag_1', kind: 'agent', status: 'queued' })
        : json(res, 201, { groupId: 'g_9' }));
      const c = client();
      assert.deepEqual(await c.sendFollowUp('ag_1', { prompt: 'more', permission: 'allow_edits' }), { agentId: 'ag_1', kind: 'agent', status: 'queued' });
      assert.deepEqual(await c.createTestGroup({ appId: 'app', name: 'Smoke', description: null, testIds: ['t2', 't1'] }), { groupId: 'g_9' });
      assert.equal(server.requests[0].url, '/api/public/v1/agents/ag_1/messages');
      assert.deepEqual(JSON.parse(server.requests[0].body), { prompt: 'more', permission: 'allow_edits' });
      assert.equal(server.requests[1].url, '/api/public/v1/test-groups');
      assert.deepEqual(JSON.parse(server.requests[1].body), { appId: 'app', name: 'Smoke', description: null, testIds: ['t2', 't1'] });
    });

    // The deployed service (service-api-wider.md §1, §4): 202 Accepted for a start and a
    // follow-up, 201 Created for a test group; any 2xx is a success with the same body.
    it('the deployed service\'s statuses: 202 for a start and a follow-up, 201 for a test group, the same bodies', async () => {
      server.handle((req, res) => {
        if (req.url?.endsWith('/test-groups')) return json(res, 201, { groupId: 'g_1' });
        if (req.url?.endsWith('/messages')) return json(res, 202, { agentId: 'ag_2', kind: 'agent', status: 'queued' });
        return json(res, 202, { agentId: 'ag_2', kind: 'agent', status: 'queued', appId: 'app-1', projectId: 'p', createdAt: 5 });
      });
      const c = client();
      assert.deepEqual(await c.startAgent(startRequest()), { agentId: 'ag_2', kind: 'agent', status: 'queued', appId: 'app-1', projectId: 'p', createdAt: 5 });
      assert.deepEqual(await c.sendFollowUp('ag_2', { prompt: 'more' }), { agentId: 'ag_2', kind: 'agent', status: 'queued' });
      assert.deepEqual(await c.createTestGroup({ appId: 'app', name: 'Smoke' }), { groupId: 'g_1' });
      assert.equal(server.requests.length, 3, 'each sent once: a 2xx is not retried');
    });

    it('any other 2xx is a success too (200, 203): the status is not checked beyond its class', async () => {
      let status = 200;
      server.handle((_req, res) => json(res, status, { agentId: 'ag_3', kind: 'agent', status: 'running' }));
      const c = client();
      for (status of [200, 203]) {
        assert.equal((await c.sendFollowUp('ag_3', { prompt: `at ${status}` })).status, 'running');
      }
    });

    it('getSchemaInfo reads /openapi.json with the token and extracts the models', async () => {
      const doc = {
        info: { version: '2.0.0' },
        paths: { '/agents': { post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/S' } } } } } } },
        components: { schemas: { S: { properties: { model: { $ref: '#/components/schemas/M' } } }, M: { enum: ['m1', 'm2'] } } },
      };
      server.handle((_req, res) => json(res, 200, doc));
      const info = await client().getSchemaInfo();
      assert.deepEqual(info.models, ['m1', 'm2']);
      assert.equal(info.version, '2.0.0');
      assert.match(info.fingerprint, /^sha256:[0-9a-f]{64}$/);
      assert.equal(server.requests[0].url, '/api/public/v1/openapi.json');
      assert.equal(server.requests[0].headers.authorization, `Bearer ${TOKEN}`);
    });

    it('refuses invalid input locally: nothing is sent', async () => {
      const c = client();
      const e = await expectApiError(c.startAgent(startRequest({ userEmail: 'not-an-email' })), 'invalid_input');
      assert.equal(e.mayHaveReachedServer, false);
      await expectApiError(c.sendFollowUp('', { prompt: 'x' }), 'invalid_input');
      await expectApiError(c.sendFollowUp('ag', { prompt: ' ' }), 'invalid_input');
      await expectApiError(c.createTestGroup({ appId: 'a', name: 'n', testIds: [''] }), 'invalid_input');
      await expectApiError(c.getAgent('..'), 'invalid_input');
      assert.equal(server.requests.length, 0);
    });

    it('createClient refuses a bad base URL, an empty token and a token with line breaks', () => {
      assert.throws(() => createClient({ baseUrl: 'https://x.example.com/', token: TOKEN }), (e: unknown) => e instanceof ApiError && e.kind === 'invalid_base_url');
      assert.throws(() => createClient({ baseUrl: server.baseUrl, token: '  ' }), (e: unknown) => e instanceof ApiError && e.kind === 'unauthorized' && !e.mayHaveReachedServer);
      assert.throws(() => createClient({ baseUrl: server.baseUrl, token: `${TOKEN}\r\nX-Evil: 1` }), (e: unknown) => e instanceof ApiError && e.kind === 'invalid_input' && !e.message.includes(TOKEN));
    });

    it('exposes the normalised base URL', () => {
      assert.equal(client({ baseUrl: ` ${server.baseUrl}/ ` }).baseUrl, server.baseUrl);
    });
  });

  describe('HTTP error classes', () => {
    const cases: { status: number; body: unknown; kind: string; code?: string }[] = [
      { status: 401, body: { error: 'Unauthorized' }, kind: 'unauthorized' },
      { status: 402, body: { error: 'No API access', code: 'api_access_required', reason: 'plan' }, kind: 'plan_required', code: 'api_access_required' },
      { status: 402, body: { error: 'Buy credits', code: 'insufficient_paid_credits' }, kind: 'insufficient_credits', code: 'insufficient_paid_credits' },
      { status: 400, body: { error: 'Email needed', code: 'user_email_required' }, kind: 'user_email_required', code: 'user_email_required' },
      { status: 403, body: { error: 'Not member', code: 'user_not_workspace_member' }, kind: 'user_not_workspace_member', code: 'user_not_workspace_member' },
      { status: 403, body: { error: 'No creds', code: 'missing_provider_credentials' }, kind: 'missing_provider_credentials', code: 'missing_provider_credentials' },
      { status: 404, body: { error: 'Agent not found' }, kind: 'not_found' },
      { status: 400, body: { error: 'appId must be a string', code: 'invalid_request' }, kind: 'client', code: 'invalid_request' },
      { status: 500, body: { error: 'Internal' }, kind: 'server' },
      { status: 502, body: '<html><body>Bad gateway</body></html>', kind: 'server' },
    ];
    for (const c of cases) {
      it(`${c.status} ${c.code ?? ''} → ${c.kind}`, async () => {
        server.handle((_req, res) => typeof c.body === 'string'
          ? (res.writeHead(c.status, { 'content-type': 'text/html' }), res.end(c.body))
          : json(res, c.status, c.body));
        const sink = logSink();
        const e = await expectApiError(client({ log: sink.log }).startAgent(startRequest({ userEmail: 'dev@example.com' })), c.kind);
        assert.equal(e.status, c.status);
        assert.equal(e.code, c.code);
        assert.equal(e.mayHaveReachedServer, true);
        assert.equal(e.method, 'POST');
        assert.equal(e.path, '/agents');
        assert.equal(server.requests.length, 1);
        assert.deepEqual(sink.entries.map((x) => [x.method, x.path, x.status, x.errorKind]), [['POST', '/agents', c.status, c.kind]]);
      });
    }

    it('404 on GET names the agent', async () => {
      server.handle((_req, res) => json(res, 404, { error: 'nope' }));
      const e = await expectApiError(client().getAgent('ag_missing'), 'not_found');
      assert.equal(e.message, 'Agent ag_missing was not found (404); it may have been deleted or belong to another workspace.');
    });

    it('429 with Retry-After in seconds', async () => {
      server.handle((_req, res) => json(res, 429, { error: 'slow down' }, { 'retry-after': '12' }));
      const e = await expectApiError(client().getAgent('a'), 'rate_limited');
      assert.equal(e.retryAfterMs, 12_000);
      assert.equal(describeApiError(e), 'The service is rate limiting requests; retrying in 12 s.');
    });

    it('429 with Retry-After as an HTTP date', async () => {
      server.handle((_req, res) => json(res, 429, {}, { 'retry-after': new Date(Date.now() + 30_000).toUTCString() }));
      const e = await expectApiError(client().getAgent('a'), 'rate_limited');
      assert.ok(e.retryAfterMs !== undefined && e.retryAfterMs > 25_000 && e.retryAfterMs <= 30_000, String(e.retryAfterMs));
    });
  });

  describe('bad response bodies', () => {
    const bodies: { name: string; write: (res: ServerResponse) => void; message: RegExp }[] = [
      { name: 'an HTML page', write: (res) => (res.writeHead(200, { 'content-type': 'text/html' }), res.end('<!doctype html><title>Login</title>')), message: /web page instead of JSON/ },
      { name: 'HTML without a content type', write: (res) => res.end('<html>hi</html>'), message: /web page instead of JSON/ },
      { name: 'syntactically truncated JSON', write: (res) => json(res, 200, '{"agentId":"ag_1","status":"que'), message: /not valid JSON/ },
      { name: 'an empty body', write: (res) => (res.writeHead(200), res.end()), message: /empty response/ },
      { name: 'JSON that is not an object', write: (res) => json(res, 200, '[{"agentId":"ag_1"}]'), message: /not a JSON object/ },
      { name: 'a schema mismatch (no agentId)', write: (res) => json(res, 200, { id: 'ag_1', status: 'queued' }), message: /had no agentId/ },
    ];
    for (const b of bodies) {
      it(`${b.name} → invalid_response`, async () => {
        server.handle((_req, res) => b.write(res));
        const e = await expectApiError(client().startAgent(startRequest()), 'invalid_response');
        assert.match(e.message, b.message);
        assert.match(e.message, /check before sending it again/);
        assert.equal(e.mayHaveReachedServer, true);
        assert.equal(server.requests.length, 1);
      });
    }

    it('a body cut off before its Content-Length → invalid_response', async () => {
      const raw = await startRawServer((socket) => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"agentId":"ag_1"');
        socket.destroy();
      });
      try {
        const e = await expectApiError(createClient({ baseUrl: raw.baseUrl, token: TOKEN, timeouts: SHORT }).getAgent('ag_1'), 'invalid_response');
        assert.equal(e.mayHaveReachedServer, true);
      } finally {
        await raw.close();
      }
    });

    it('garbage instead of HTTP → invalid_response', async () => {
      const raw = await startRawServer((socket) => socket.end('SMTP ready\r\n\r\n'));
      const c = createClient({ baseUrl: raw.baseUrl, token: TOKEN, timeouts: SHORT });
      try {
        await expectApiError(c.getAgent('ag_1'), 'invalid_response');
      } finally {
        await c.dispose();
        await raw.close();
      }
    });

    it(`a body over ${MAX_RESPONSE_BYTES} bytes is refused, declared or streamed`, async function () {
      this.timeout(20_000);
      const big = Buffer.alloc(MAX_RESPONSE_BYTES + 1024, 0x20);
      server.handle((req, res) => {
        if (req.url?.endsWith('declared')) {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': big.length });
        } else {
          res.writeHead(200, { 'content-type': 'application/json' }); // chunked
        }
        res.end(big);
      });
      const c = client({ timeouts: { headersMs: 10_000, bodyMs: 10_000 } });
      const e1 = await expectApiError(c.getAgent('declared'), 'invalid_response');
      assert.match(e1.message, /too large/);
      const e2 = await expectApiError(c.getAgent('streamed'), 'invalid_response');
      assert.match(e2.message, /too large/);
    });
  });

  describe('transport failures', () => {
    it('headers timeout → timeout, and the POST was sent once', async () => {
      server.handle(() => undefined); // never answers
      const sink = logSink();
      const e = await expectApiError(client({ log: sink.log }).startAgent(startRequest()), 'timeout');
      assert.equal(e.mayHaveReachedServer, true);
      assert.match(e.message, /did not answer within 1 s\. The request may have been received/);
      assert.equal(server.requests.length, 1);
      assert.equal(sink.entries.length, 1);
      assert.equal(sink.entries[0].errorKind, 'timeout');
      assert.equal(sink.entries[0].status, undefined);
    });

    it('connect timeout (the TLS handshake never completes) → timeout, nothing reached the service, the POST not resent', async () => {
      // A TCP peer that takes the connection and never answers the TLS ClientHello: the
      // connection is never established, as with a host that drops packets.
      const sockets: net.Socket[] = [];
      let bytes = 0;
      const silent = net.createServer((socket) => {
        sockets.push(socket);
        socket.on('data', (d: Buffer) => {
          bytes += d.length;
        });
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = silent.address() as net.AddressInfo;
        const c = createClient({ baseUrl: `https://127.0.0.1:${port}/api/public/v1`, token: TOKEN, timeouts: { connectMs: 300, headersMs: 10_000, bodyMs: 10_000 } });
        clients.push(c);
        const e = await expectApiError(c.startAgent(startRequest()), 'timeout');
        assert.equal(e.mayHaveReachedServer, false, 'no connection: the POST cannot have arrived');
        assert.match(e.message, /^Connecting to 127\.0\.0\.1:\d+ timed out after 1 s\. Check the base URL and your network\.$/);
        assert.equal(sockets.length, 1, 'one connection attempt: nothing retried');
        assert.ok(bytes > 0 && bytes < 4_096, `only a TLS ClientHello was sent (${bytes} bytes)`);
        assert.doesNotMatch(everythingAbout(e), new RegExp(TOKEN));
      } finally {
        sockets.forEach((s) => s.destroy());
        await new Promise<void>((resolve) => silent.close(() => resolve()));
      }
    });

    it('body stalls after the headers → timeout', async () => {
      server.handle((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"agentId":');
      });
      const e = await expectApiError(client().getAgent('a'), 'timeout');
      assert.match(e.message, /response did not finish/);
      assert.equal(e.mayHaveReachedServer, true);
    });

    it('a body that trickles forever is cut off by the whole-body deadline', async () => {
      const timers: NodeJS.Timeout[] = [];
      server.handle((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"agentId":"a","pad":"');
        // Each chunk arrives well inside the idle timeout; only a total deadline can stop this.
        timers.push(setInterval(() => res.write('x'), 50));
      });
      const started = Date.now();
      try {
        const e = await expectApiError(client({ timeouts: { headersMs: 300, bodyMs: 400 } }).getAgent('a'), 'timeout');
        assert.match(e.message, /did not finish/);
        assert.ok(Date.now() - started < 3_000);
      } finally {
        timers.forEach(clearInterval);
      }
    });

    it('connection refused → network, did not reach the server', async () => {
      const port = await closedPort();
      const sink = logSink();
      const c = createClient({ baseUrl: `http://127.0.0.1:${port}/api/public/v1`, token: TOKEN, log: sink.log });
      try {
        const e = await expectApiError(c.startAgent(startRequest()), 'network');
        assert.equal(e.mayHaveReachedServer, false);
        assert.match(e.message, /connection was refused/);
        assert.deepEqual(sink.entries.map((x) => [x.method, x.path, x.status, x.errorKind]), [['POST', '/agents', undefined, 'network']]);
      } finally {
        await c.dispose();
      }
    });

    it('connection reset after the request → network, may have reached the server, POST sent once', async () => {
      server.handle((req) => req.socket.destroy());
      const e = await expectApiError(client().startAgent(startRequest()), 'network');
      assert.equal(e.mayHaveReachedServer, true);
      assert.equal(server.requests.length, 1);
    });

    it('an untrusted TLS certificate → network, refused in the handshake: nothing was sent', async () => {
      const tlsServer = await startServer((_req, res) => json(res, 200, { agentId: 'a' }), { tls: true });
      const c = createClient({ baseUrl: tlsServer.baseUrl, token: TOKEN, timeouts: SHORT });
      try {
        const e = await expectApiError(c.startAgent(startRequest()), 'network');
        assert.match(e.message, /secure connection .* failed \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)\)/);
        assert.match(e.message, /http\.systemCertificates.*Nothing was sent\.$/);
        assert.equal(e.mayHaveReachedServer, false);
        assert.equal(tlsServer.requests.length, 0);
      } finally {
        await c.dispose();
        await tlsServer.close();
      }
    });

    it('the caller\'s AbortSignal cancels a request in flight → aborted', async () => {
      let arrived!: () => void;
      const received = new Promise<void>((resolve) => { arrived = resolve; });
      server.handle(() => arrived());
      const ac = new AbortController();
      const pending = client({ timeouts: { headersMs: 10_000 } }).getAgent('a', { signal: ac.signal });
      await received;
      ac.abort();
      const e = await expectApiError(pending, 'aborted');
      assert.equal(e.mayHaveReachedServer, true);
      assert.equal(e.message, 'The request was cancelled after it was sent.');
    });

    it('an already-aborted signal sends nothing', async () => {
      const e = await expectApiError(client().startAgent(startRequest(), { signal: AbortSignal.abort() }), 'aborted');
      assert.equal(e.mayHaveReachedServer, false);
      assert.equal(server.requests.length, 0);
    });

    it('dispose() ends a stalled call within its grace period, as an ApiError', async function () {
      this.timeout(8_000);
      let arrived!: () => void;
      const received = new Promise<void>((resolve) => { arrived = resolve; });
      server.handle(() => arrived());
      const c = client({ timeouts: { headersMs: 30_000, bodyMs: 30_000 } });
      const pending = c.getAgent('a');
      await received;
      const started = Date.now();
      await c.dispose();
      assert.ok(Date.now() - started < 4_000);
      const e = await expectApiError(pending, 'aborted');
      assert.equal(e.mayHaveReachedServer, true);
    });

    it('after dispose(), calls fail without sending', async () => {
      server.handle((_req, res) => json(res, 200, { agentId: 'a' }));
      const c = client();
      await c.getAgent('a');
      await c.dispose();
      const e = await expectApiError(c.getAgent('a'), 'aborted');
      assert.equal(e.mayHaveReachedServer, false);
      assert.equal(server.requests.length, 1);
    });
  });

  describe('redirects', () => {
    let foreign: TestServer;
    beforeEach(async () => {
      foreign = await startServer((_req, res) => json(res, 200, { agentId: 'foreign', status: 'completed' }));
    });
    afterEach(() => foreign.close());

    for (const status of [301, 302, 303, 307, 308]) {
      it(`a ${status} to another origin is not followed; the token never reaches it`, async () => {
        server.handle((_req, res) => (res.writeHead(status, { location: `${foreign.baseUrl}/agents/a` }), res.end()));
        const sink = logSink();
        const e = await expectApiError(client({ log: sink.log }).getAgent('a'), 'cross_origin_redirect');
        assert.equal(foreign.requests.length, 0);
        assert.match(e.message, /redirected to another site \(http:\/\/127\.0\.0\.1:\d+\); it was not followed/);
        assert.equal(e.status, status);
        assert.deepEqual(sink.entries.map((x) => [x.status, x.errorKind]), [[status, 'cross_origin_redirect']]);
      });
    }

    it('a redirect to the same host with another scheme or port is cross-origin too', async () => {
      const url = new URL(server.baseUrl);
      server.handle((_req, res) => (res.writeHead(302, { location: `https://${url.host}/api/public/v1/agents/a` }), res.end()));
      await expectApiError(client().getAgent('a'), 'cross_origin_redirect');
    });

    it('a cross-origin redirect of a POST is not followed either; the POST was sent once', async () => {
      server.handle((_req, res) => (res.writeHead(307, { location: `${foreign.baseUrl}/agents` }), res.end()));
      await expectApiError(client().startAgent(startRequest()), 'cross_origin_redirect');
      assert.equal(server.requests.length, 1);
      assert.equal(foreign.requests.length, 0);
    });

    it('same-origin redirects of a GET are followed (relative and absolute), with the token', async () => {
      server.handle((req, res) => {
        if (req.url === '/api/public/v1/agents/old') return void (res.writeHead(301, { location: 'middle' }), res.end());
        if (req.url === '/api/public/v1/agents/middle') return void (res.writeHead(302, { location: `${server.origin}/api/public/v1/agents/new` }), res.end());
        json(res, 200, { agentId: 'new', status: 'running' });
      });
      const sink = logSink();
      const agent = await client({ log: sink.log }).getAgent('old');
      assert.equal(agent.agentId, 'new');
      assert.deepEqual(server.requests.map((r) => [r.url, r.headers.authorization]), [
        ['/api/public/v1/agents/old', `Bearer ${TOKEN}`],
        ['/api/public/v1/agents/middle', `Bearer ${TOKEN}`],
        ['/api/public/v1/agents/new', `Bearer ${TOKEN}`],
      ]);
      assert.deepEqual(sink.entries.map((x) => [x.path, x.status]), [['/agents/old', 301], ['/agents/middle', 302], ['/agents/new', 200]]);
    });

    it('stops after 3 same-origin redirects', async () => {
      let n = 0;
      server.handle((_req, res) => (res.writeHead(302, { location: `/api/public/v1/agents/r${++n}` }), res.end()));
      const e = await expectApiError(client().getAgent('a'), 'invalid_response');
      assert.match(e.message, /redirected more than 3 times/);
      assert.equal(server.requests.length, 4);
    });

    it('a same-origin redirect of a POST is reported, not followed', async () => {
      server.handle((_req, res) => (res.writeHead(307, { location: '/api/public/v1/agents2' }), res.end()));
      const e = await expectApiError(client().startAgent(startRequest()), 'invalid_response');
      assert.match(e.message, /redirect \(307\), which is not followed/);
      assert.equal(server.requests.length, 1);
    });

    it('a redirect to another origin after a same-origin hop still stops', async () => {
      server.handle((req, res) => req.url?.endsWith('/agents/a')
        ? (res.writeHead(302, { location: '/api/public/v1/agents/b' }), res.end())
        : (res.writeHead(302, { location: `${foreign.origin}/steal` }), res.end()));
      await expectApiError(client().getAgent('a'), 'cross_origin_redirect');
      assert.equal(server.requests.length, 2);
      assert.equal(foreign.requests.length, 0);
    });
  });

  describe('no retries, no leaks', () => {
    type Mode = { name: string; kind: string; handle: (req: IncomingMessage, res: ServerResponse) => void };
    const echo = (status: number, extra: Record<string, unknown> = {}) => (req: IncomingMessage, res: ServerResponse): void =>
      json(res, status, { error: `Rejected ${req.headers.authorization ?? ''} (token ${TOKEN.slice(0, 20)})`, token: TOKEN, ...extra });
    const modes: Mode[] = [
      { name: '401 echoing the token', kind: 'unauthorized', handle: echo(401) },
      { name: '400 echoing the token', kind: 'client', handle: echo(400, { code: 'invalid_request' }) },
      { name: '402 api_access_required', kind: 'plan_required', handle: echo(402, { code: 'api_access_required' }) },
      { name: '403 missing_provider_credentials', kind: 'missing_provider_credentials', handle: echo(403, { code: 'missing_provider_credentials', provider: TOKEN }) },
      { name: '429', kind: 'rate_limited', handle: (_q, res) => json(res, 429, { error: TOKEN }, { 'retry-after': '1' }) },
      { name: '500', kind: 'server', handle: echo(500) },
      { name: '503 with Retry-After', kind: 'server', handle: (_q, res) => json(res, 503, { error: `down; your token ${TOKEN}` }, { 'retry-after': '3' }) },
      { name: 'reset', kind: 'network', handle: (req) => req.socket.destroy() },
      { name: 'headers timeout', kind: 'timeout', handle: () => undefined },
      { name: 'HTML 200', kind: 'invalid_response', handle: (_q, res) => (res.writeHead(200, { 'content-type': 'text/html' }), res.end(`<p>${TOKEN}</p>`)) },
      { name: 'truncated 200', kind: 'invalid_response', handle: (_q, res) => json(res, 200, `{"agentId":"${TOKEN}`) },
      { name: '307 same origin', kind: 'invalid_response', handle: (_q, res) => (res.writeHead(307, { location: `/x?${TOKEN}` }), res.end()) },
      { name: '308 foreign', kind: 'cross_origin_redirect', handle: (_q, res) => (res.writeHead(308, { location: `http://example.invalid/${TOKEN}` }), res.end()) },
      { name: 'redirect to a host named after the token', kind: 'cross_origin_redirect', handle: (_q, res) => (res.writeHead(302, { location: `http://${TOKEN}.example.invalid/` }), res.end()) },
    ];

    for (const mode of modes) {
      it(`${mode.name}: the POST is sent exactly once and nothing carries the token`, async () => {
        server.handle(mode.handle);
        const sink = logSink();
        const c = client({ log: sink.log });
        for (const call of [
          () => c.startAgent(startRequest()),
          () => c.sendFollowUp('ag_1', { prompt: 'p' }),
          () => c.createTestGroup({ appId: 'a', name: 'n' }),
        ]) {
          const before = server.requests.length;
          const e = await expectApiError(call(), mode.kind);
          // Let a retry, if anything attempted one, arrive before counting.
          await new Promise((r) => setTimeout(r, 50));
          assert.equal(server.requests.length, before + 1, 'POST sent more than once');
          assert.ok(!everythingAbout(e).includes(TOKEN), `token leaked in ${mode.name}: ${everythingAbout(e)}`);
          assert.ok(!everythingAbout(e).toLowerCase().includes(TOKEN.slice(0, 20).toLowerCase()), `token prefix leaked in ${mode.name}`);
          assert.equal(e.mayHaveReachedServer, true);
        }
        assert.equal(sink.entries.length, 3);
        assert.ok(!JSON.stringify(sink.entries).includes(TOKEN));
        for (const entry of sink.entries) {
          assert.deepEqual(Object.keys(entry).filter((k) => (entry as unknown as Record<string, unknown>)[k] !== undefined).sort(),
            ['durationMs', 'errorKind', 'method', 'path', ...(mode.kind === 'network' || mode.kind === 'timeout' ? [] : ['status'])].sort());
        }
      });
    }

    it('a GET is not retried either', async () => {
      server.handle((req) => req.socket.destroy());
      await expectApiError(client().getAgent('a'), 'network');
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(server.requests.length, 1);
    });

    it('a successful call logs one entry with method, path, status and duration only', async () => {
      server.handle((_req, res) => json(res, 200, { agentId: 'a' }));
      const sink = logSink();
      await client({ log: sink.log }).getAgent('a');
      assert.equal(sink.entries.length, 1);
      const [entry] = sink.entries;
      assert.equal(entry.method, 'GET');
      assert.equal(entry.path, '/agents/a');
      assert.equal(entry.status, 200);
      assert.equal(entry.errorKind, undefined);
      assert.ok(typeof entry.durationMs === 'number' && entry.durationMs >= 0);
    });

    it('a throwing logger does not break a call', async () => {
      server.handle((_req, res) => json(res, 200, { agentId: 'a' }));
      const agent = await client({ log: () => { throw new Error('log sink broken'); } }).getAgent('a');
      assert.equal(agent.agentId, 'a');
    });
  });
});
