import * as assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { ApiError, createClient, type AgentRunsApi, type ClientOptions } from '../../../src/api';
import * as tls from 'node:tls';
import { chooseRoute, createTransport, noProxyMatch, OS_CA_FILES, trustedCertificates } from '../../../src/api/transport';
import { closedPort, json, startProxy, startServer, TOKEN, type TestProxy, type TestServer } from '../fixtures/apiServers';
import { makePrivateCa } from '../fixtures/privateCa';

const PROXY_VARS = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];

/** Runs `fn` with exactly the given proxy variables set, restoring the environment after. */
async function withProxyEnv(vars: Record<string, string>, fn: () => Promise<void>): Promise<void> {
  const saved = new Map(PROXY_VARS.map((k) => [k, process.env[k]]));
  for (const k of PROXY_VARS) delete process.env[k];
  Object.assign(process.env, vars);
  try {
    await fn();
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe('api: proxy support', () => {
  let server: TestServer;
  let proxy: TestProxy;
  const clients: AgentRunsApi[] = [];

  function client(over: Partial<ClientOptions>): AgentRunsApi {
    const c = createClient({ baseUrl: server.baseUrl, token: TOKEN, timeouts: { connectMs: 2_000, headersMs: 2_000, bodyMs: 2_000 }, ...over });
    clients.push(c);
    return c;
  }

  beforeEach(async () => {
    server = await startServer((_req, res) => json(res, 200, { agentId: 'via-proxy', status: 'running' }));
    proxy = await startProxy();
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await proxy.close();
    await server.close();
  });

  it('sends requests through the editor\'s http.proxy (a CONNECT tunnel)', async () => {
    await withProxyEnv({}, async () => {
      const agent = await client({ proxy: { url: proxy.url } }).getAgent('a');
      assert.equal(agent.agentId, 'via-proxy');
    });
    assert.equal(proxy.connects.length, 1);
    assert.equal(proxy.connects[0].target, `127.0.0.1:${server.port}`);
    // The proxy never sees the bearer token: it travels inside the tunnel.
    assert.equal(proxy.connects[0].headers.authorization, undefined);
    assert.equal(server.requests.length, 1);
    assert.equal(server.requests[0].headers.authorization, `Bearer ${TOKEN}`);
  });

  it('without any proxy setting, connects directly', async () => {
    await withProxyEnv({}, async () => {
      await client({}).getAgent('a');
    });
    assert.equal(proxy.connects.length + proxy.forwarded.length, 0);
    assert.equal(server.requests.length, 1);
  });

  it('uses HTTP_PROXY from the environment when http.proxy is empty', async () => {
    await withProxyEnv({ HTTP_PROXY: proxy.url }, async () => {
      await client({ proxy: { url: '' } }).getAgent('a');
    });
    assert.equal(proxy.connects.length, 1);
    assert.equal(server.requests.length, 1);
  });

  it('honours NO_PROXY', async () => {
    await withProxyEnv({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }, async () => {
      await client({}).getAgent('a');
    });
    assert.equal(proxy.connects.length, 0);
    assert.equal(server.requests.length, 1);
  });

  it('http.proxy wins over the environment', async () => {
    const other = await startProxy();
    try {
      await withProxyEnv({ HTTP_PROXY: other.url }, async () => {
        await client({ proxy: { url: proxy.url } }).getAgent('a');
      });
      assert.equal(proxy.connects.length, 1);
      assert.equal(other.connects.length, 0);
    } finally {
      await other.close();
    }
  });

  it('passes proxy credentials from the URL and never shows them in errors', async () => {
    const authProxy = await startProxy({ requireAuth: 'alice:s3cretProxyPw' });
    try {
      await withProxyEnv({}, async () => {
        const port = new URL(authProxy.url).port;
        const ok = await client({ proxy: { url: `http://alice:s3cretProxyPw@127.0.0.1:${port}` } }).getAgent('a');
        assert.equal(ok.agentId, 'via-proxy');
        let caught: unknown;
        try {
          await client({ proxy: { url: `http://alice:wrongPassword9@127.0.0.1:${port}` } }).getAgent('a');
        } catch (e) {
          caught = e;
        }
        assert.ok(caught instanceof ApiError, inspect(caught));
        assert.equal(caught.kind, 'network');
        assert.match(caught.message, /proxy/i);
        const all = `${caught.message}\n${inspect(caught, { depth: 6 })}`;
        assert.ok(!all.includes('wrongPassword9'), all);
        assert.ok(!all.includes(TOKEN), all);
      });
      assert.equal(server.requests.length, 1);
    } finally {
      await authProxy.close();
    }
  });

  it('a proxy that refuses connections → network, did not reach the server', async () => {
    const dead = await startProxy();
    const url = dead.url;
    await dead.close();
    await withProxyEnv({}, async () => {
      let caught: unknown;
      try {
        await client({ proxy: { url } }).startAgent({ appId: 'a', prompt: 'p', model: 'm' });
      } catch (e) {
        caught = e;
      }
      assert.ok(caught instanceof ApiError, inspect(caught));
      assert.equal(caught.kind, 'network');
      assert.equal(caught.mayHaveReachedServer, false);
      assert.match(caught.message, /the proxy for 127\.0\.0\.1/);
    });
    assert.equal(server.requests.length, 0);
  });

  describe('TLS through the proxy', () => {
    let tlsServer: TestServer;
    beforeEach(async () => {
      tlsServer = await startServer((_req, res) => json(res, 200, { agentId: 'tls', status: 'running' }), { tls: true });
    });
    afterEach(() => tlsServer.close());

    it('http.proxyStrictSSL=false accepts an untrusted certificate behind the proxy', async () => {
      await withProxyEnv({}, async () => {
        const agent = await client({ baseUrl: tlsServer.baseUrl, proxy: { url: proxy.url, strictSSL: false } }).getAgent('a');
        assert.equal(agent.agentId, 'tls');
      });
      assert.equal(proxy.connects[0]?.target, `127.0.0.1:${tlsServer.port}`);
      assert.equal(tlsServer.requests.length, 1);
    });

    it('http.proxyStrictSSL=true (the default) refuses it', async () => {
      await withProxyEnv({}, async () => {
        let caught: unknown;
        try {
          await client({ baseUrl: tlsServer.baseUrl, proxy: { url: proxy.url } }).getAgent('a');
        } catch (e) {
          caught = e;
        }
        assert.ok(caught instanceof ApiError, inspect(caught));
        assert.equal(caught.kind, 'network');
        assert.match(caught.message, /secure connection/);
      });
      assert.equal(tlsServer.requests.length, 0);
    });
  });

  it('refuses an unusable http.proxy value at creation', () => {
    assert.throws(() => createClient({ baseUrl: server.baseUrl, token: TOKEN, proxy: { url: 'http://[bad' } }),
      (e: unknown) => e instanceof ApiError && e.kind === 'invalid_input' && /http\.proxy/.test(e.message));
  });
});

describe('api: the route and trust the editor\'s network settings give', () => {
  const https = new URL('https://agents.corp.example:8443/api/public/v1');
  const http = new URL('http://127.0.0.1:3000/api/public/v1');

  it('http.proxy wins, then HTTPS_PROXY/HTTP_PROXY (lower case first) by the target\'s scheme', () => {
    assert.deepEqual(chooseRoute(https, { url: 'http://p:1' }, { HTTPS_PROXY: 'http://e:2' }), { kind: 'proxy', uri: 'http://p:1', source: 'http.proxy' });
    assert.deepEqual(chooseRoute(https, {}, { https_proxy: 'http://l:3', HTTPS_PROXY: 'http://u:4' }), { kind: 'proxy', uri: 'http://l:3', source: 'HTTPS_PROXY' });
    assert.deepEqual(chooseRoute(https, {}, { HTTP_PROXY: 'http://h:5' }), { kind: 'proxy', uri: 'http://h:5', source: 'HTTP_PROXY' });
    assert.deepEqual(chooseRoute(http, {}, { HTTPS_PROXY: 'http://s:6' }), { kind: 'direct' });
    assert.deepEqual(chooseRoute(https, { url: '  ' }, {}), { kind: 'direct' });
  });

  it('http.noProxy and NO_PROXY both send excluded hosts direct, also away from http.proxy', () => {
    assert.deepEqual(chooseRoute(https, { url: 'http://p:1', noProxy: ['corp.example'] }, {}), { kind: 'direct', bypassedBy: 'corp.example' });
    assert.deepEqual(chooseRoute(https, { url: 'http://p:1' }, { no_proxy: 'x.org, .corp.example' }), { kind: 'direct', bypassedBy: '.corp.example' });
    assert.equal(chooseRoute(https, { url: 'http://p:1', noProxy: ['other.example', 'xample'] }, {}).kind, 'proxy');
  });

  it('reads noProxy entries as curl and the editor do', () => {
    const cases: [string, string, boolean][] = [
      ['https://a.corp.example/', '*', true],
      ['https://corp.example/', 'corp.example', true],
      ['https://a.b.corp.example/', 'corp.example', true],
      ['https://a.corp.example/', '*.corp.example', true],
      ['https://notcorp.example/', 'corp.example', false],
      ['https://corp.example:8443/', 'corp.example:8443', true],
      ['https://corp.example/', 'corp.example:8443', false],
      ['https://corp.example/', 'corp.example:443', true],
      ['http://127.0.0.1:3000/', '127.0.0.1', true],
      ['http://127.0.0.10/', '127.0.0.1', false],
      ['http://[::1]:3000/', '[::1]:3000', true],
      ['http://[::1]:3000/', '::1', true],
    ];
    for (const [url, entry, expected] of cases) {
      assert.equal(noProxyMatch(new URL(url), [entry]) !== undefined, expected, `${entry} vs ${url}`);
    }
  });

  it('http.systemCertificates: Node\'s roots plus the OS bundle (SSL_CERT_FILE first) and NODE_EXTRA_CA_CERTS; off means Node\'s defaults', () => {
    const ca = makePrivateCa();
    try {
      const withOs = trustedCertificates({}, { SSL_CERT_FILE: ca.caCertFile }) ?? [];
      assert.ok(withOs.includes(ca.caCert.trim()), 'the OS bundle was not read');
      assert.ok(withOs.length > tls.rootCertificates.length, 'Node\'s roots were dropped');
      assert.ok((trustedCertificates({}, { SSL_CERT_FILE: '/nonexistent', NODE_EXTRA_CA_CERTS: ca.caCertFile }) ?? []).includes(ca.caCert.trim()));
      assert.equal(trustedCertificates({ systemCertificates: false }, { SSL_CERT_FILE: ca.caCertFile }), undefined);
      // Without SSL_CERT_FILE the distribution's bundle is the store.
      const seen: string[] = [];
      trustedCertificates({}, {}, (f) => {
        seen.push(f);
        return false;
      });
      assert.deepEqual(seen, [...OS_CA_FILES]);
    } finally {
      ca.remove();
    }
  });

  it('builds one TLS context per client from the trusted CAs (not one per connection: ~45 ms each)', async () => {
    const ca = makePrivateCa();
    const timeouts = { connectMs: 1_000, headersMs: 1_000, bodyMs: 1_000 };
    try {
      const withStore = createTransport(https, {}, timeouts, { SSL_CERT_FILE: ca.caCertFile });
      assert.ok(withStore.secureContext, 'no shared TLS context');
      const off = createTransport(https, { systemCertificates: false }, timeouts, { SSL_CERT_FILE: ca.caCertFile });
      assert.equal(off.secureContext, undefined);
      await Promise.all([withStore.dispatcher.close(), off.dispatcher.close()]);
    } finally {
      ca.remove();
    }
  });

  it('refuses an http.proxyAuthorization with a line break and keeps it out of messages', async () => {
    assert.throws(() => createClient({ baseUrl: 'https://a.example/api/public/v1', token: TOKEN, proxy: { url: 'http://127.0.0.1:1', authorization: 'Basic abc\r\nX-Evil: 1' } }),
      (e: unknown) => e instanceof ApiError && e.kind === 'invalid_input' && /http\.proxyAuthorization/.test(e.message) && !e.message.includes('X-Evil'));
    const dead = await closedPort();
    const c = createClient({ baseUrl: 'https://a.example/api/public/v1', token: TOKEN, env: {}, proxy: { url: `http://127.0.0.1:${dead}`, authorization: 'Basic c2VjcmV0UHJveHlDcmVk' }, timeouts: { connectMs: 2_000 } });
    try {
      const e = await c.getAgent('a').then(() => undefined, (err: unknown) => err);
      assert.ok(e instanceof ApiError, inspect(e));
      assert.match(e.message, /proxy \(http\.proxy\)/);
      assert.ok(!inspect(e, { depth: 6 }).includes('c2VjcmV0UHJveHlDcmVk'));
    } finally {
      await c.dispose();
    }
  });
});
