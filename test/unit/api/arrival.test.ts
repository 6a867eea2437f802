// Whether a failed request may have reached the service, decided by whether undici wrote it to
// the socket, against real loopback peers: a server that read the request, a peer that never
// finishes the TLS handshake, one that resets it, and a TLS service signed by a private CA
// the client does not trust (made with openssl at test time).
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { inspect } from 'node:util';
import { ApiError, createClient, describeApiError, mayHaveArrived, type AgentRunsApi, type ClientOptions } from '../../../src/api';
import { json, startProxy, startRequest, startServer, TOKEN, type TestServer } from '../fixtures/apiServers';
import { makePrivateCa, startTlsFront, type PrivateCa, type TlsFront } from '../fixtures/privateCa';

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof ApiError, `expected an ApiError, got ${inspect(e)}`);
    assert.ok(!describeApiError(e).includes(TOKEN) && !inspect(e, { depth: 6 }).includes(TOKEN), 'the token is in no message or cause');
    return e;
  }
  assert.fail('expected the call to fail');
}

function once(): { promise: Promise<void>; done: () => void } {
  let done!: () => void;
  const promise = new Promise<void>((resolve) => { done = resolve; });
  return { promise, done };
}

interface HandshakePeer {
  baseUrl: string;
  /** Resolves when the first TLS ClientHello has come: the client is in the handshake. */
  hello: Promise<void>;
  connections: () => number;
  close(): Promise<void>;
}

/** A TCP peer on https:// that takes connections and does `onHello` when the TLS ClientHello comes. */
async function handshakePeer(onHello: (socket: net.Socket) => void): Promise<HandshakePeer> {
  const sockets = new Set<net.Socket>();
  const hello = once();
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => undefined).on('close', () => sockets.delete(socket));
    socket.once('data', () => {
      hello.done();
      onHello(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    baseUrl: `https://127.0.0.1:${port}/api/public/v1`,
    hello: hello.promise,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

const NEVER_SENT = /Nothing was sent|before anything was sent/;

describe('api: did the request leave the machine (mayHaveReachedServer)', function () {
  this.timeout(15_000);
  let server: TestServer;
  const clients: AgentRunsApi[] = [];
  const closers: (() => Promise<void> | void)[] = [];

  function client(over: Partial<ClientOptions>): AgentRunsApi {
    const c = createClient({ baseUrl: server.baseUrl, token: TOKEN, env: {}, timeouts: { connectMs: 10_000, headersMs: 10_000, bodyMs: 10_000 }, ...over });
    clients.push(c);
    return c;
  }

  beforeEach(async () => {
    server = await startServer((_req, res) => json(res, 500, { error: 'no handler' }));
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    for (const close of closers.splice(0).reverse()) await close();
    await server.close();
  });

  describe('a caller\'s cancel', () => {
    it('after the service read the POST: may have reached it, and the message says so', async () => {
      const read = once();
      server.handle(() => read.done()); // reads the whole request, never answers
      const ac = new AbortController();
      const pending = client({}).startAgent(startRequest(), { signal: ac.signal });
      await read.promise;
      ac.abort();
      const e = await failure(pending);
      assert.equal(e.kind, 'aborted');
      assert.equal(e.mayHaveReachedServer, true);
      assert.equal(mayHaveArrived(e), true);
      assert.equal(e.message, 'The request was cancelled after it was sent; it may have reached the service.');
      assert.equal(server.requests.length, 1);
    });

    it('while the TLS handshake never completes: nothing was sent', async () => {
      const peer = await handshakePeer(() => undefined); // takes the ClientHello, never answers
      closers.push(() => peer.close());
      const ac = new AbortController();
      const pending = client({ baseUrl: peer.baseUrl, timeouts: { connectMs: 1_000 } }).startAgent(startRequest(), { signal: ac.signal });
      await peer.hello;
      assert.equal(peer.connections(), 1, 'the client is in the handshake');
      ac.abort();
      const e = await failure(pending);
      assert.equal(e.kind, 'aborted');
      assert.equal(e.mayHaveReachedServer, false);
      assert.equal(mayHaveArrived(e), false);
      assert.equal(e.message, 'The request was cancelled before anything was sent.');
    });

    it('is told per request, not per signal: one signal, one request written and one not', async () => {
      const read = once();
      server.handle(() => read.done());
      const peer = await handshakePeer(() => undefined);
      closers.push(() => peer.close());
      const ac = new AbortController();
      const written = client({}).startAgent(startRequest(), { signal: ac.signal });
      const connecting = client({ baseUrl: peer.baseUrl, timeouts: { connectMs: 1_000 } }).startAgent(startRequest(), { signal: ac.signal });
      await Promise.all([read.promise, peer.hello]);
      ac.abort();
      const [a, b] = await Promise.all([failure(written), failure(connecting)]);
      assert.deepEqual([a.mayHaveReachedServer, b.mayHaveReachedServer], [true, false]);
    });

    it('through a proxy\'s CONNECT tunnel, after the service read the POST: may have reached it', async () => {
      const proxy = await startProxy();
      closers.push(() => proxy.close());
      const read = once();
      server.handle(() => read.done());
      const ac = new AbortController();
      const pending = client({ proxy: { url: proxy.url } }).startAgent(startRequest(), { signal: ac.signal });
      await read.promise;
      ac.abort();
      const e = await failure(pending);
      assert.equal(proxy.connects.length, 1, 'the request went through the tunnel');
      assert.equal(e.mayHaveReachedServer, true);
      assert.match(e.message, /after it was sent; it may have reached the service/);
    });
  });

  describe('failures before the request was written', () => {
    it('a connection reset in the TLS handshake: network, nothing was sent', async () => {
      const peer = await handshakePeer((socket) => socket.resetAndDestroy());
      closers.push(() => peer.close());
      const e = await failure(client({ baseUrl: peer.baseUrl }).startAgent(startRequest()));
      assert.equal(e.kind, 'network');
      assert.equal(e.mayHaveReachedServer, false);
      assert.equal(mayHaveArrived(e), false);
      assert.match(e.message, NEVER_SENT);
      assert.doesNotMatch(e.message, /may have/);
    });

    it('the client closed while the request waited for its connection: nothing was sent', async () => {
      const peer = await handshakePeer(() => undefined);
      closers.push(() => peer.close());
      const c = client({ baseUrl: peer.baseUrl });
      const pending = c.startAgent(startRequest());
      await peer.hello;
      await c.dispose(); // cuts the call off after its grace period
      const e = await failure(pending);
      assert.equal(e.kind, 'aborted');
      assert.equal(e.mayHaveReachedServer, false);
      assert.match(e.message, /API client was closed\. Nothing was sent\.$/);
    });
  });

  describe('a private certificate authority the client does not trust', () => {
    let ca: PrivateCa;
    let front: TlsFront;

    beforeEach(async () => {
      ca = makePrivateCa();
      front = await startTlsFront(ca, server.port);
      server.handle((_req, res) => json(res, 201, { agentId: 'run-1' }));
    });

    afterEach(async () => {
      await front.close();
      ca.remove();
    });

    const base = (): string => `https://127.0.0.1:${front.port}/api/public/v1`;

    it('a POST is refused at the handshake: nothing was sent, the message names http.systemCertificates', async () => {
      const e = await failure(client({ baseUrl: base() }).startAgent(startRequest()));
      assert.equal(e.kind, 'network');
      assert.equal(e.mayHaveReachedServer, false);
      assert.equal(mayHaveArrived(e), false);
      assert.match(e.message, /not trusted.*http\.systemCertificates/);
      assert.match(e.message, NEVER_SENT);
      assert.doesNotMatch(e.message, /may have/);
      assert.equal(front.handshakes(), 0);
      assert.equal(server.requests.length, 0);
    });

    it('through a proxy tunnel too', async () => {
      const proxy = await startProxy();
      closers.push(() => proxy.close());
      const e = await failure(client({ baseUrl: base(), proxy: { url: proxy.url } }).startAgent(startRequest()));
      assert.equal(proxy.connects.length, 1);
      assert.equal(e.mayHaveReachedServer, false);
      assert.match(e.message, /http\.systemCertificates.*Nothing was sent/);
    });

    it('trusted through SSL_CERT_FILE, the same POST starts the run (the setup is sound)', async () => {
      const run = await client({ baseUrl: base(), env: { SSL_CERT_FILE: ca.osBundleFile } }).startAgent(startRequest());
      assert.equal(run.agentId, 'run-1');
      assert.equal(server.requests.length, 1);
    });
  });
});
