import * as assert from 'node:assert/strict';
import { inspect } from 'node:util';
import {
  ApiError, conflictCause, createClient, servesPath, type AgentRunsApi,
} from '../../../src/api';
import { json, startServer, TOKEN, type TestServer } from '../fixtures/apiServers';
import { DETAIL_A, LIST_ITEM_A, VERSION_COMPLETED, VERSION_PENDING } from '../fixtures/reviewPayloads';

async function failure(promise: Promise<unknown>, kind: string): Promise<ApiError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof ApiError, `expected an ApiError, got ${inspect(e)}`);
    assert.equal(e.kind, kind, `expected ${kind}, got ${e.kind}: ${e.message}`);
    return e;
  }
  assert.fail(`expected an ApiError of kind ${kind}, but the call succeeded`);
}

/** Lets a retry, if anything attempted one, arrive before requests are counted. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 50));

const START = { appId: 'app-1', fromVersion: 'ver_100', toVersion: 'ver_101', title: 'Login review', userEmail: 'ada@example.com' };

describe('api: code review and version calls against a scripted server', function () {
  let server: TestServer;
  let client: AgentRunsApi;

  beforeEach(async () => {
    server = await startServer((_req, res) => json(res, 500, { error: 'no handler' }));
    client = createClient({ baseUrl: server.baseUrl, token: TOKEN, timeouts: { connectMs: 2_000, headersMs: 1_000, bodyMs: 1_000 } });
  });

  afterEach(async () => {
    await client.dispose();
    await server.close();
  });

  describe('startCodeReview', () => {
    it('POSTs the validated body to /code-reviews and reads the 202', async () => {
      server.handle((_req, res) => json(res, 202, { reviewId: 'rev_1', agentId: 'ag_1', kind: 'code_review', status: 'queued', createdAt: 9 }));
      const started = await client.startCodeReview({ ...START, appId: ' app-1 ', description: '  ' });
      assert.deepEqual(started, { reviewId: 'rev_1', agentId: 'ag_1', kind: 'code_review', status: 'queued', createdAt: 9 });
      assert.equal(server.requests.length, 1);
      const [r] = server.requests;
      assert.deepEqual([r.method, r.url, r.headers['content-type'], r.headers.authorization], ['POST', '/api/public/v1/code-reviews', 'application/json', `Bearer ${TOKEN}`]);
      assert.deepEqual(JSON.parse(r.body), START);
    });

    it('a request that fails validation is not sent', async () => {
      const e = await failure(client.startCodeReview({ ...START, toVersion: 'ver_100' }), 'invalid_input');
      assert.equal(e.mayHaveReachedServer, false);
      await settle();
      assert.equal(server.requests.length, 0);
    });

    it('409 at the concurrency limit: refused, the POST sent once, the cause readable', async () => {
      server.handle((_req, res) => json(res, 409, { error: 'Concurrent agent limit reached for this plan', code: 'concurrency_limit' }));
      const e = await failure(client.startCodeReview(START), 'client');
      assert.equal(e.status, 409);
      assert.equal(conflictCause(e), 'concurrency');
      await settle();
      assert.equal(server.requests.length, 1);
    });

    it('the connection cut after the POST arrived: may have reached the service, not retried', async () => {
      server.handle((req) => req.socket.destroy());
      const e = await failure(client.startCodeReview(START), 'network');
      assert.equal(e.mayHaveReachedServer, true);
      assert.deepEqual([e.method, e.path], ['POST', '/code-reviews']);
      await settle();
      assert.equal(server.requests.length, 1, 'the POST is sent exactly once');
    });

    it('a 202 without a reviewId: invalid response that says the request was received', async () => {
      server.handle((_req, res) => json(res, 202, { agentId: 'ag_1', status: 'queued' }));
      const e = await failure(client.startCodeReview(START), 'invalid_response');
      assert.equal(e.mayHaveReachedServer, true);
      assert.match(e.message, /had no reviewId\. The request was received; check before sending it again\./);
      assert.equal(server.requests.length, 1);
    });
  });

  describe('reads', () => {
    it('listCodeReviews: GET /code-reviews with appId and limit', async () => {
      server.handle((_req, res) => json(res, 200, { open: [LIST_ITEM_A], merged: [], closed: null }));
      const lists = await client.listCodeReviews('app 1', { limit: 20 });
      assert.deepEqual(lists.open.map((r) => [r.id, r.fromVersionLabel, r.toVersionLabel, r.requestedByName]), [['rev_a1', 'main@100', 'main@101', 'Ada Lovelace']]);
      assert.deepEqual([lists.merged, lists.closed], [[], []]);
      assert.deepEqual(server.requests.map((r) => [r.method, r.url]), [['GET', '/api/public/v1/code-reviews?appId=app+1&limit=20']]);
    });

    it('getCodeReview: the id encoded in the path, historyLimit in the query, the detail parsed', async () => {
      server.handle((_req, res) => json(res, 200, { ...DETAIL_A, reviewId: 'rev/1' }));
      const detail = await client.getCodeReview('rev/1', { historyLimit: 50 });
      assert.equal(detail.reviewId, 'rev/1');
      assert.equal(detail.agent?.kind, 'code_review');
      assert.equal(detail.reviewComments.length, 2);
      await client.getCodeReview('rev_2');
      assert.deepEqual(server.requests.map((r) => r.url), ['/api/public/v1/code-reviews/rev%2F1?historyLimit=50', '/api/public/v1/code-reviews/rev_2']);
    });

    it('getCodeReview: 404 names the missing review', async () => {
      server.handle((_req, res) => json(res, 404, {}));
      const e = await failure(client.getCodeReview('rev_gone'), 'not_found');
      assert.match(e.message, /^Code review rev_gone was not found \(404\)/);
    });

    it('listVersions: query in order, pages followed by nextCursor', async () => {
      server.handle((req, res) => json(res, 200, req.url?.includes('cursor=')
        ? { versions: [VERSION_PENDING], nextCursor: null }
        : { versions: [VERSION_COMPLETED], nextCursor: 'cur 2' }));
      const first = await client.listVersions('app-1', { version: 'main', limit: 1 });
      assert.deepEqual([first.versions.map((v) => v.versionId), first.nextCursor], [['ver_101'], 'cur 2']);
      const second = await client.listVersions('app-1', { version: 'main', limit: 1, cursor: first.nextCursor });
      assert.deepEqual([second.versions.map((v) => [v.versionId, v.createdAt]), second.nextCursor], [[['ver_102', 1_760_000_400_000]], undefined]);
      assert.deepEqual(server.requests.map((r) => r.url), [
        '/api/public/v1/versions?appId=app-1&version=main&limit=1',
        '/api/public/v1/versions?appId=app-1&version=main&cursor=cur+2&limit=1',
      ]);
    });
  });

  describe('getSchemaInfo: the paths the served document lists', () => {
    const doc = (paths: string[]): unknown => ({ openapi: '3.1.0', info: { version: '1' }, paths: Object.fromEntries(paths.map((p) => [p, {}])) });

    it('the deployed service: /code-reviews and /versions are served', async () => {
      server.handle((_req, res) => json(res, 200, doc(['/agents', '/agents/{agentId}', '/code-reviews', '/code-reviews/{reviewId}', '/versions/'])));
      const info = await client.getSchemaInfo();
      assert.deepEqual(info.paths, ['/agents', '/agents/{agentId}', '/code-reviews', '/code-reviews/{reviewId}', '/versions']);
      assert.equal(servesPath(info, '/code-reviews'), true);
      assert.equal(servesPath(info, '/versions'), true);
    });

    it('the reference\'s endpoints only (paths with the full prefix): no code reviews', async () => {
      server.handle((_req, res) => json(res, 200, doc(['/api/public/v1/agents', '/api/public/v1/agents/{agentId}', '/api/public/v1/agents/{agentId}/messages', '/api/public/v1/test-groups', '/api/public/v1/openapi.json'])));
      const info = await client.getSchemaInfo();
      assert.deepEqual(info.paths, ['/agents', '/agents/{agentId}', '/agents/{agentId}/messages', '/openapi.json', '/test-groups']);
      assert.equal(servesPath(info, '/code-reviews'), false);
      assert.equal(servesPath(info, '/agents'), true);
    });

    it('tells onSchemaInfo of every read, whoever asked (the code reviews gate learns from reads made for the models)', async () => {
      const seen: unknown[] = [];
      const watched = createClient({ baseUrl: server.baseUrl, token: TOKEN, onSchemaInfo: (i) => seen.push(i.paths) });
      try {
        server.handle((_req, res) => json(res, 200, doc(['/agents', '/code-reviews'])));
        const info = await watched.getSchemaInfo();
        await watched.getSchemaInfo();
        assert.deepEqual(seen, [info.paths, info.paths]);
        assert.deepEqual(seen[0], ['/agents', '/code-reviews']);
        server.handle((_req, res) => json(res, 200, 'not a schema'));
        await failure(watched.getSchemaInfo(), 'invalid_response');
        assert.equal(seen.length, 2, 'a read that did not parse tells nothing');
      } finally {
        await watched.dispose();
      }
    });
  });
});
