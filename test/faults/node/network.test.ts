// Networks people have: a company proxy (Debian's squid, with and without basic
// authentication), hosts the proxy must not see (http.noProxy, NO_PROXY), and a service whose
// certificate a private CA signed (made with openssl now; trusted "by the operating system"
// through SSL_CERT_FILE, or by NODE_EXTRA_CA_CERTS). Real parts on 127.0.0.1 with ephemeral
// ports; the client is the one the extension uses, given the settings the editor would give.
// Each case passes, or fails with a message that names the setting to change; the proxy's
// bytes are checked for the token.
import * as assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { ApiError, createClient, type AgentRunsApi, type ProxySettings } from '../../../src/api';
import { makePrivateCa, startTlsFront, type PrivateCa, type TlsFront } from '../../unit/fixtures/privateCa';
import { scenario, type Scenario } from '../registry';
import { requests, useEmulator } from '../support/emulatorFixture';
import { startSquid, type Squid } from '../support/squid';

const PROXY_USER = 'corp-user';
const PROXY_PASSWORD = 'Proxy-Pa55word-77';
const PROXY_AUTHORIZATION = `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64')}`;

type Env = Record<string, string | undefined>;

/** squid logs a tunnel when it closes: close the client's connections, then wait for the line. */
async function logged(sq: Squid, c: AgentRunsApi, line: RegExp): Promise<void> {
  await c.dispose();
  const deadline = Date.now() + 5_000;
  while (!sq.accessLog().some((l) => line.test(l))) {
    assert.ok(Date.now() < deadline, `squid logged no ${line.source}:\n${sq.accessLog().join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ApiError, inspect(e));
    return e;
  }
  assert.fail('the request succeeded');
}

describe('faults: company networks (squid, noProxy, a private CA)', function () {
  this.timeout(60_000);
  const emu = useEmulator();
  let ca: PrivateCa;
  let front: TlsFront;
  const open: { close(): Promise<void> }[] = [];
  const clients: AgentRunsApi[] = [];

  before(async () => {
    ca = makePrivateCa();
    front = await startTlsFront(ca, Number(new URL(emu().origin).port));
  });
  after(async () => {
    await front?.close();
    ca?.remove();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await Promise.all(open.splice(0).map((o) => o.close()));
  });

  const tlsBase = (): string => `https://127.0.0.1:${front.port}/api/public/v1`;
  /** The environment of an editor on a machine whose OS store trusts the private CA. */
  const trusting = (): Env => ({ SSL_CERT_FILE: ca.osBundleFile });

  function client(proxy: ProxySettings, env: Env, baseUrl = tlsBase()): AgentRunsApi {
    const c = createClient({ baseUrl, token: emu().tokens.default, proxy, env, timeouts: { connectMs: 5_000, headersMs: 5_000, bodyMs: 5_000 } });
    clients.push(c);
    return c;
  }

  async function squid(auth?: string): Promise<Squid> {
    const sq = await startSquid(auth ? { auth } : {});
    open.push(sq);
    return sq;
  }

  /** What the proxy saw holds no token (a leak counts); only the CONNECT tunnel's target in clear. */
  function proxySaw(s: Scenario, sq: Squid): void {
    s.sink('bytes sent to the proxy', sq.seen());
    s.note(`proxy saw ${sq.seen().length} bytes; CONNECT ${sq.connects().join(', ') || 'none'}`);
  }

  scenario('network', 'through squid (http.proxy) to a service signed by a private CA the OS trusts: the run starts inside a CONNECT tunnel; the proxy sees no token', async (s) => {
    const sq = await squid();
    const c = client({ url: sq.url }, trusting());
    const run = await c.startAgent({ appId: 'app_todo', prompt: 'Through the company proxy', model: 'hosted/fast' });
    assert.equal((await c.getAgent(run.agentId)).agentId, run.agentId);
    assert.deepEqual([...new Set(sq.connects())], [`127.0.0.1:${front.port}`]);
    await logged(sq, c, /TCP_TUNNEL\/200 .*CONNECT 127\.0\.0\.1:/);
    assert.ok(!sq.seen().includes('Through the company proxy'), 'the prompt crossed the proxy in clear');
    assert.equal(requests(emu(), 'POST', /\/agents$/).length, 1);
    proxySaw(s, sq);
  });

  scenario('network', 'squid with basic authentication: without http.proxyAuthorization a 407 that names the setting and nothing sent; with it the run starts', async (s) => {
    const sq = await squid(`${PROXY_USER}:${PROXY_PASSWORD}`);
    const anonymous = client({ url: sq.url }, trusting());
    const refused = await failure(anonymous.startAgent({ appId: 'app_todo', prompt: 'p', model: 'hosted/fast' }));
    await logged(sq, anonymous, /TCP_DENIED\/407 .*CONNECT 127\.0\.0\.1:/);
    assert.equal(refused.kind, 'network');
    assert.equal(refused.mayHaveReachedServer, false);
    assert.match(refused.message, /\(407\).*http\.proxyAuthorization/);
    assert.equal(requests(emu(), 'POST', /\/agents$/).length, 0, 'the POST reached the service');

    const c = client({ url: sq.url, authorization: PROXY_AUTHORIZATION }, trusting());
    await c.startAgent({ appId: 'app_todo', prompt: 'p', model: 'hosted/fast' });
    assert.equal(requests(emu(), 'POST', /\/agents$/).length, 1);
    // The credentials go in the CONNECT request, the only part of the exchange the proxy reads.
    const connectHeads = sq.seen().split(/(?=CONNECT )/).filter((h) => h.startsWith('CONNECT ')).map((h) => h.slice(0, h.indexOf('\r\n\r\n')));
    assert.ok(connectHeads.some((h) => /\r\nproxy-authorization: Basic /i.test(h)), connectHeads.join('\n---\n'));
    // The proxy's own credentials go to the proxy only: never into a message.
    const said = `${refused.message}\n${inspect(refused, { depth: 5 })}`;
    s.sink('the 407 message', said);
    assert.ok(!said.includes(PROXY_PASSWORD) && !said.includes(PROXY_AUTHORIZATION.slice(6)), said);
    proxySaw(s, sq);
  });

  scenario('network', 'http.noProxy and NO_PROXY: the excluded host is reached directly, the proxy sees nothing', async (s) => {
    const sq = await squid();
    await client({ url: sq.url, noProxy: ['127.0.0.1'] }, trusting()).getAgent('missing-but-direct').catch((e: unknown) => {
      assert.ok(e instanceof ApiError && e.kind === 'not_found', inspect(e));
    });
    await client({}, { ...trusting(), HTTPS_PROXY: sq.url, NO_PROXY: 'localhost, 127.0.0.1' }).getSchemaInfo();
    assert.equal(sq.seen(), '', 'a request went to the proxy');
    assert.equal(requests(emu(), 'GET', /\/agents\/missing-but-direct$/).length, 1);
    assert.equal(requests(emu(), 'GET', /\/openapi\.json$/).length, 1);
    // Without the exclusion, HTTPS_PROXY from the environment is used.
    await client({}, { ...trusting(), HTTPS_PROXY: sq.url }).getSchemaInfo();
    assert.deepEqual(sq.connects(), [`127.0.0.1:${front.port}`]);
    proxySaw(s, sq);
  });

  scenario('network', 'a private CA the OS does not trust: refused at the handshake, nothing sent, the message names http.systemCertificates', async (s) => {
    const before = front.handshakes();
    // No SSL_CERT_FILE: the machine's real store (Debian's bundle), which has no private CA.
    const untrusted = await failure(client({}, {}).startAgent({ appId: 'app_todo', prompt: 'p', model: 'hosted/fast' }));
    assert.equal(untrusted.kind, 'network');
    assert.match(untrusted.message, /not trusted.*http\.systemCertificates/);
    // http.systemCertificates off: the OS store is not read, even when it trusts the CA.
    const off = await failure(client({ systemCertificates: false }, trusting()).getAgent('a'));
    assert.match(off.message, /http\.systemCertificates/);
    assert.equal(front.handshakes(), before, 'a TLS handshake with an untrusted certificate completed');
    assert.equal(requests(emu(), 'POST', /\/agents$/).length, 0);
    // NODE_EXTRA_CA_CERTS is honoured as Node and the editor honour it.
    await client({}, { NODE_EXTRA_CA_CERTS: ca.caCertFile }).getSchemaInfo();
    s.sink('the certificate message', `${untrusted.message}\n${off.message}`);
  });

  scenario('network', 'a proxy that is not there: the message names the proxy setting it came from and http.noProxy', async (s) => {
    const sq = await squid();
    const url = sq.url;
    await sq.close();
    open.splice(open.indexOf(sq), 1);
    const viaSetting = await failure(client({ url }, trusting()).startAgent({ appId: 'app_todo', prompt: 'p', model: 'hosted/fast' }));
    assert.equal(viaSetting.mayHaveReachedServer, false);
    assert.match(viaSetting.message, /proxy \(http\.proxy\).*http\.noProxy/);
    const viaEnv = await failure(client({}, { ...trusting(), https_proxy: url }).getAgent('a'));
    assert.match(viaEnv.message, /proxy \(HTTPS_PROXY\)/);
    s.sink('the proxy messages', `${viaSetting.message}\n${viaEnv.message}`);
  });
});
