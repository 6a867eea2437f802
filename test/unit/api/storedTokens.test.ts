// Every token the editor holds is redacted, not only the one a client sends: the list of held
// tokens (src/api/storedTokens.ts) and the client's use of it (otherSecrets in src/api/client.ts).
import * as assert from 'node:assert/strict';
import { inspect } from 'node:util';
import {
  ApiError, createClient, describeApiError, storedTokens, watchStoredTokens, noteTokenChange, TOKEN_BASE_URLS_KEY, type AgentRunsApi, type ClientOptions,
} from '../../../src/api';
import { json, logSink, startServer, TOKEN, type TestServer } from '../fixtures/apiServers';

/** A token the editor holds for another base URL (a person who switched services). */
const OTHER = 'arun_0th3rS3rv1c3T0k3n_a1b2c3d4e5f6a7b8';
const HERE = 'https://here.example/api/public/v1';
const THERE = 'http://there.example:8080/api/public/v1';

/** The global state as a Memento gives it. */
class FakeState {
  readonly values = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
  update(key: string, value: unknown): Promise<void> {
    this.values.set(key, value);
    return Promise.resolve();
  }
}

/** SecretStorage by base URL; a base URL in `broken` fails as a broken keyring does. */
function tokenStore(tokens: Record<string, string>, broken: readonly string[] = []): { get(baseUrl: string): Promise<string | undefined> } {
  return {
    get: (baseUrl) => (broken.includes(baseUrl) ? Promise.reject(new Error('keyring locked')) : Promise.resolve(tokens[baseUrl])),
  };
}

function everythingAbout(e: unknown): string {
  if (!(e instanceof Error)) return inspect(e);
  return [String(e), e.stack ?? '', inspect(e, { depth: 6, showHidden: true }), JSON.stringify(e), describeApiError(e as ApiError)].join('\n');
}

describe('api: every token held is redacted, not only the one sent', () => {
  let server: TestServer;
  const clients: AgentRunsApi[] = [];

  function client(over: Partial<ClientOptions> = {}): AgentRunsApi {
    const c = createClient({ baseUrl: server.baseUrl, token: TOKEN, timeouts: { connectMs: 2_000, headersMs: 1_000, bodyMs: 1_000 }, ...over });
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

  it('a 500 echoing a token held for another base URL: the message, cause and log carry neither token', async () => {
    server.handle((_req, res) => json(res, 500, { error: `internal error for ${OTHER} (and ${OTHER.slice(0, 20)}…)` }));
    const sink = logSink();
    const e = await client({ otherSecrets: () => [OTHER], log: sink.log }).getAgent('ag_1').then(() => undefined, (err: unknown) => err);
    assert.ok(e instanceof ApiError, `expected an ApiError, got ${inspect(e)}`);
    assert.equal(e.kind, 'server');
    const text = everythingAbout(e);
    assert.match(describeApiError(e), /internal error for \[redacted\]/, 'the server\'s own words are kept around the redaction');
    assert.ok(!text.includes(OTHER), `the other token leaked: ${text}`);
    assert.ok(!text.toLowerCase().includes(OTHER.slice(5, 25).toLowerCase()), 'a piece of the other token leaked');
    assert.ok(!JSON.stringify(sink.entries).includes(OTHER));
  });

  it('a token stored for another base URL after the client was made counts too (read when a failure is worded)', async () => {
    const held: string[] = [];
    const c = client({ otherSecrets: () => held });
    server.handle((_req, res) => (res.writeHead(302, { location: `http://${OTHER}.example.invalid/` }), res.end()));
    held.push(OTHER);
    const e = await c.getAgent('ag_1').then(() => undefined, (err: unknown) => err);
    assert.ok(e instanceof ApiError && e.kind === 'cross_origin_redirect', inspect(e));
    assert.ok(!everythingAbout(e).toLowerCase().includes(OTHER.toLowerCase()), `the other token leaked: ${everythingAbout(e)}`);
  });
});

describe('api: the tokens held, for every base URL', () => {
  it('lists a base URL when its token is stored and drops it when it is cleared', async () => {
    const state = new FakeState();
    const tokens: Record<string, string> = { [HERE]: TOKEN };
    await noteTokenChange(state, tokenStore(tokens), HERE);
    tokens[THERE] = OTHER;
    await noteTokenChange(state, tokenStore(tokens), THERE);
    await noteTokenChange(state, tokenStore(tokens), THERE);
    assert.deepEqual(state.get(TOKEN_BASE_URLS_KEY), [HERE, THERE], 'each base URL once');
    assert.ok(!JSON.stringify([...state.values]).includes(OTHER), 'the list holds URLs, never a token');
    delete tokens[HERE];
    await noteTokenChange(state, tokenStore(tokens), HERE);
    assert.deepEqual(state.get(TOKEN_BASE_URLS_KEY), [THERE]);
  });

  it('every token held: the current base URL\'s, the listed ones\', and those of base URLs the global state names', async () => {
    const state = new FakeState();
    const older = 'https://older.example/api/public/v1';
    await state.update(TOKEN_BASE_URLS_KEY, [THERE]);
    // Stored before the list existed: found through the run list kept for that service.
    await state.update(`agentRuns.ledger.v1:${older}`, { version: 1, runs: [] });
    await state.update('agentRuns.insecureBaseUrlsAccepted', [THERE]);
    const held = await storedTokens(state, tokenStore({ [HERE]: TOKEN, [THERE]: OTHER, [older]: 'arun_0ld3rT0k3nV4lu3_1234567890' }), HERE);
    assert.deepEqual([...held].sort(), [TOKEN, OTHER, 'arun_0ld3rT0k3nV4lu3_1234567890'].sort());
  });

  it('a corrupt list, a base URL without a token and one whose token cannot be read leave the others held', async () => {
    const state = new FakeState();
    await state.update(TOKEN_BASE_URLS_KEY, { not: 'a list' });
    await state.update(`agentRuns.schemaInfo.v1:${THERE}`, {});
    await state.update('agentRuns.ledger.v1:https://gone.example/api/public/v1', {});
    assert.deepEqual(await storedTokens(state, tokenStore({ [HERE]: TOKEN, [THERE]: OTHER }, [HERE]), HERE), [OTHER]);
    await state.update(TOKEN_BASE_URLS_KEY, [42, THERE, null]);
    assert.deepEqual(await storedTokens(state, tokenStore({ [THERE]: OTHER }), undefined), [OTHER]);
  });

  it('kept for the client: the current base URL is listed, and a token set or cleared later (any base URL) is read again', async () => {
    const state = new FakeState();
    const tokens: Record<string, string> = { [HERE]: TOKEN };
    const listeners: ((e: { baseUrl: string }) => unknown)[] = [];
    const auth = { ...tokenStore(tokens), get: (u: string) => Promise.resolve(tokens[u]), onDidChange: (l: (e: { baseUrl: string }) => unknown) => listeners.push(l) };
    const warned: string[] = [];
    const held = await watchStoredTokens({ globalState: state, auth, log: { warn: (m) => warned.push(m) } }, HERE);
    assert.deepEqual(held(), [TOKEN]);
    assert.deepEqual(state.get(TOKEN_BASE_URLS_KEY), [HERE]);
    tokens[THERE] = OTHER;
    for (const l of listeners) l({ baseUrl: THERE });
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual([...held()].sort(), [TOKEN, OTHER].sort(), 'the token set for another base URL is held');
    delete tokens[THERE];
    for (const l of listeners) l({ baseUrl: THERE });
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(held(), [TOKEN]);
    await watchStoredTokens({ globalState: state, auth, log: { warn: (m) => warned.push(m) } }, HERE);
    assert.equal(listeners.length, 1, 'one subscription per global state');
    assert.deepEqual(warned, []);
  });
});
