import assert from 'node:assert/strict';
import { MANUAL_EPOCH, NEVER_SYNCED_BRANCH, SEED, SEEDED_REVIEWS, startEmulator, VERSION_REASONS, type Emulator } from '../../emulator/index';
import { admin, ApiCaller, obj, testAdmin, type CallResult, type Json } from '../../emulator/testing';

const STEP = 1000;
/** Completed versions of app_todo's seed: Main #2, Request timeouts #3, Main #4, Request timeouts #6, Main #10. */
const V = { main2: 'ver_todo_002', timeouts3: 'ver_todo_003', main4: 'ver_todo_004', timeouts6: 'ver_todo_006', main10: 'ver_todo_010' };
const review = (overrides: Json = {}): Json => ({ appId: SEED.apps.todo, fromVersion: V.main4, toVersion: V.main10, ...overrides });
const items = (result: CallResult, bucket: string): Json[] => obj(result)[bucket] as Json[];

describe('emulator: code reviews under B (deployed shapes)', () => {
  let emu: Emulator;
  let api: ApiCaller;

  const startOk = async (body: Json): Promise<Json> => {
    const result = await api.request('POST', '/code-reviews', { body });
    assert.equal(result.status, 202, result.text);
    return obj(result);
  };
  const detail = async (id: string, q = ''): Promise<Json> => {
    const result = await api.request('GET', `/code-reviews/${id}${q}`);
    assert.equal(result.status, 200, result.text);
    return obj(result);
  };

  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: STEP, preset: 'deployed', wider: 'B', settings: { staleReadMs: null, staleStatusAfterFollowUpMs: null } });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('POST /code-reviews: 202 {reviewId, agentId, kind, status, createdAt}; its conversation is a code_review run of the token\'s workspace', async () => {
    const accepted = await startOk(review({ title: 'Timeouts (TODO-212)' }));
    assert.deepEqual(Object.keys(accepted).sort(), ['agentId', 'createdAt', 'kind', 'reviewId', 'status']);
    assert.deepEqual({ kind: accepted.kind, status: accepted.status, createdAt: accepted.createdAt }, { kind: 'code_review', status: 'queued', createdAt: MANUAL_EPOCH });
    const agent = await api.agent(String(accepted.agentId));
    assert.deepEqual({ kind: agent.kind, reviewId: agent.reviewId, appId: agent.appId, model: agent.model }, { kind: 'code_review', reviewId: accepted.reviewId, appId: SEED.apps.todo, model: 'hosted/auto' });
    const credits = (obj(await admin(emu, 'GET', '/workspaces')).workspaces as Json[]).find((w) => w.id === SEED.workspaces.main)?.paidCredits;
    assert.equal(credits, SEED.paidCredits.main - 1, 'a review on hosted/auto is charged one credit');
  });

  it('POST /code-reviews: 400 for a missing or unknown app, unknown or unfinished versions, the same version twice, unknown fields', async () => {
    const cases: [Json, string][] = [
      [{ fromVersion: V.main4, toVersion: V.main10 }, 'appId'],
      [review({ appId: 'app_nope' }), 'appId'],
      [review({ fromVersion: 'ver_nope' }), 'fromVersion'],
      [review({ toVersion: 'ver_shop_010' }), 'toVersion'],
      [review({ toVersion: 'ver_todo_005' }), 'toVersion'], // failed
      [review({ toVersion: 'ver_todo_012' }), 'toVersion'], // pending
      [review({ toVersion: V.main4 }), 'toVersion'],
      [review({ model: 'hosted/unknown' }), 'model'],
      [review({ prompt: 'no' }), 'prompt'],
      [review({ completionWebhookUrl: 'ftp://x' }), 'completionWebhookUrl'],
    ];
    for (const [body, field] of cases) {
      const result = await api.request('POST', '/code-reviews', { body });
      assert.equal(result.status, 400, `${JSON.stringify(body)}: ${result.text}`);
      assert.deepEqual({ code: obj(result).code, field: obj(result).field }, { code: 'invalid_request', field }, JSON.stringify(body));
    }
    assert.equal((await api.request('GET', '/code-reviews?appId=app_nope')).status, 400);
    assert.equal(obj(await api.request('GET', '/code-reviews')).field, 'appId');
    assert.equal(emu.state.codeReviews.size, SEEDED_REVIEWS.length, 'nothing stored');
  });

  it('POST /code-reviews: 401, 402 (API access, credits), 403 (member, credentials, scope), 409 at the concurrency limit (reviews count)', async () => {
    const post = (caller: ApiCaller, body: Json): Promise<CallResult> => caller.request('POST', '/code-reviews', { body });
    assert.equal((await post(new ApiCaller(emu, null), review())).status, 401);
    assert.equal((await post(new ApiCaller(emu, emu.tokens.revoked), review())).status, 401);
    assert.equal(obj(await post(new ApiCaller(emu, emu.tokens.noApiAccess), review({ appId: SEED.apps.free }))).code, 'api_access_required');
    const broke = await post(new ApiCaller(emu, emu.tokens.noCredits), review({ appId: SEED.apps.broke, fromVersion: 'ver_broke_004', toVersion: 'ver_broke_010' }));
    assert.deepEqual([broke.status, obj(broke).code], [402, 'insufficient_paid_credits']);
    const stranger = await post(api, review({ userEmail: SEED.emails.stranger }));
    assert.deepEqual([stranger.status, obj(stranger).code], [403, 'user_not_workspace_member']);
    const noCreds = await post(api, review({ model: 'anthropic/claude-sonnet-4-5', userEmail: SEED.emails.noCreds }));
    assert.deepEqual([noCreds.status, obj(noCreds).code], [403, 'missing_provider_credentials']);
    const noEmail = await post(api, review({ model: 'openai/gpt-5' }));
    assert.deepEqual([noEmail.status, obj(noEmail).code], [400, 'user_email_required']);
    const scoped = await post(new ApiCaller(emu, emu.tokens.scoped), review({ appId: SEED.apps.shop, fromVersion: 'ver_shop_004', toVersion: 'ver_shop_010' }));
    assert.deepEqual([scoped.status, obj(scoped).code], [403, 'app_outside_token_scope']);

    await admin(emu, 'PATCH', '/workspaces/ws_acme', { concurrentAgentLimit: 2 });
    await startOk(review());
    await startOk(review({ fromVersion: V.main2 }));
    const refused = await post(api, review());
    assert.deepEqual([refused.status, obj(refused).code], [409, 'concurrency_limit'], 'two running reviews fill a limit of 2');
    assert.equal((await api.start({ appId: SEED.apps.todo, prompt: 'hi', model: 'hosted/auto' })).status, 409, 'and an agent start counts them too');
  });

  it('the review progresses with its conversation: changes after the diff, comments, tests and thread with the findings, completion at the end', async () => {
    const { reviewId, agentId } = await startOk(review({ title: 'Request timeouts (TODO-212)', description: 'Adds a timeout.', focusAreas: 'Error handling', completionWebhookUrl: `${emu.foreignOrigin}/hook` }));
    const id = String(reviewId);
    const first = await detail(id);
    assert.deepEqual([first.changes, first.comments, first.tests, first.reviewComments], [[], [], [], []], 'nothing before the first tick');
    assert.equal((first.review as Json).conversationStatus, 'draft');
    assert.equal((first.agent as Json).agentId, agentId);

    await emu.advance(STEP); // the prompt
    const started = await detail(id);
    assert.equal((started.review as Json).conversationStatus, 'running_turn');
    assert.deepEqual((started.comments as Json[]).map((c) => [c.createdBy, c.createdByEmail, c.title]), [['user', SEED.emails.admin, 'Focus: Error handling']]);
    assert.equal((started.reviewComments as Json[]).length, 1);
    assert.equal((started.changes as Json[]).length, 0);

    await emu.advance(2 * STEP); // opening, then the diff
    const diffed = await detail(id);
    assert.equal((diffed.changes as Json[]).length, 3);
    assert.ok((diffed.changes as Json[]).every((c) => c.type === 'change' && c.priority === null && c.createdBy === 'ai' && c.createdAt === MANUAL_EPOCH + 3 * STEP));
    assert.equal((diffed.tests as Json[]).length, 0);

    for (let i = 0; i < 10 && (await api.agent(String(agentId))).status !== 'completed'; i++) await emu.advance(STEP);
    const done = await detail(id);
    const r = done.review as Json;
    assert.deepEqual([r.status, r.conversationStatus, r.conversationErrorCode, r.completedAt], ['open', 'ready', null, (done.agent as Json).completedAt]);
    assert.deepEqual((done.comments as Json[]).map((c) => c.priority), ['medium', 'high', 'low']);
    assert.deepEqual((done.tests as Json[]).map((t) => [t.type, t.state, t.completedAt === null]), [['test', 'completed', false], ['test', 'open', true]]);
    const thread = done.reviewComments as Json[];
    assert.equal(thread.length, 4);
    assert.deepEqual(thread.map((c) => c.parentId === null ? null : thread.findIndex((p) => p.id === c.parentId)), [null, 0, null, 2], 'replies via parentId');
    assert.deepEqual(thread.filter((c) => c.isDeleted === true).map((c) => [c.body, c.imageUrls]), [[null, []]]);
    assert.equal((thread[0].imageUrls as string[]).length, 2);
    assert.equal(typeof thread[2].editedAt, 'number', 'the teammate\'s comment was edited');
    assert.deepEqual([r.linearIssueIdentifier, r.linearIssueId], ['TODO-212', 'lin_todo_212']);
    assert.deepEqual(emu.webhookDeliveries.map((d) => [d.agentId, d.event]), [[agentId, 'agent.completed']], 'the conversation\'s end is sent to completionWebhookUrl');
  });

  it('[[fail]] in the title: the conversation fails after the diff; the review keeps its changes and says errored', async () => {
    const { reviewId, agentId } = await startOk(review({ title: 'Broken [[fail]]' }));
    for (let i = 0; i < 20 && (await api.agent(String(agentId))).status !== 'error'; i++) await emu.advance(STEP);
    const done = await detail(String(reviewId));
    const r = done.review as Json;
    assert.deepEqual([r.conversationStatus, r.conversationErrorCode, typeof r.completedAt], ['errored', 'agent_error', 'number']);
    assert.deepEqual([(done.changes as Json[]).length, (done.comments as Json[]).length, (done.tests as Json[]).length], [3, 0, 0]);
    assert.deepEqual((done.reviewComments as Json[]).map((c) => c.isDeleted), [false], 'only the requester\'s opening comment');
  });

  it('GET /code-reviews: open, merged and closed, newest first, limit per bucket, every list field; the admin moves a review between buckets', async () => {
    const seeded = await api.request('GET', `/code-reviews?appId=${SEED.apps.todo}`);
    assert.deepEqual([items(seeded, 'open'), items(seeded, 'merged').map((i) => i.id), items(seeded, 'closed').map((i) => i.id)], [[], ['rev_seed_merged'], ['rev_seed_closed']]);
    const a = String((await startOk(review({ userEmail: SEED.emails.dev, model: 'anthropic/claude-sonnet-4-5' }))).reviewId);
    await emu.advance(STEP);
    const b = String((await startOk(review({ fromVersion: V.timeouts3, toVersion: V.timeouts6 }))).reviewId);
    const listed = await api.request('GET', `/code-reviews?appId=${SEED.apps.todo}`);
    assert.deepEqual(items(listed, 'open').map((i) => i.id), [b, a], 'newest first');
    const item = items(listed, 'open')[1];
    assert.deepEqual(Object.keys(item).sort(), [
      'closedAt', 'completedAt', 'conversationErrorCode', 'conversationStatus', 'createdAt', 'description', 'fromVersion', 'fromVersionLabel', 'id',
      'linearIssueId', 'linearIssueIdentifier', 'mergeId', 'mergedAt', 'model', 'provider', 'requestedByEmail', 'requestedByImage', 'requestedByName',
      'sequence', 'status', 'title', 'toVersion', 'toVersionLabel', 'updatedAt',
    ]);
    assert.deepEqual([item.sequence, item.fromVersionLabel, item.toVersionLabel, item.title, item.requestedByEmail, item.requestedByName, item.provider],
      [3, 'Main #4', 'Main #10', 'Main #4 → Main #10', SEED.emails.dev, 'Dev', 'claude']);
    assert.equal(items(listed, 'open')[0].requestedByEmail, SEED.emails.admin, 'without userEmail: the workspace admin');
    assert.equal(items(listed, 'open')[0].provider, 'opencode');
    assert.deepEqual(items(await api.request('GET', `/code-reviews?appId=${SEED.apps.todo}&limit=1`), 'open').map((i) => i.id), [b]);
    assert.equal((await api.request('GET', `/code-reviews?appId=${SEED.apps.todo}&limit=0`)).status, 400);
    assert.deepEqual(obj(await api.request('GET', `/code-reviews?appId=${SEED.apps.shop}`)), { open: [], merged: [], closed: [] });

    await emu.advance(STEP);
    const merged = await admin(emu, 'PATCH', `/code-reviews/${a}`, { status: 'merged' });
    assert.equal(merged.status, 200);
    assert.deepEqual([obj(merged).mergedAt, typeof obj(merged).mergeId], [MANUAL_EPOCH + 2 * STEP, 'string']);
    await admin(emu, 'PATCH', `/code-reviews/${b}`, { status: 'closed' });
    const moved = await api.request('GET', `/code-reviews?appId=${SEED.apps.todo}`);
    assert.deepEqual([items(moved, 'open'), items(moved, 'merged').map((i) => i.id), items(moved, 'closed').map((i) => i.id)], [[], [a, 'rev_seed_merged'], [b, 'rev_seed_closed']]);
    assert.equal((await admin(emu, 'PATCH', `/code-reviews/${a}`, { status: 'approved' })).status, 400);
    assert.equal((await admin(emu, 'PATCH', '/code-reviews/rev_nope', { status: 'closed' })).status, 404);
  });

  it('GET /code-reviews/{id}: the agent as GET /agents/{id} returns it, history capped by historyLimit; 404 unknown or another scope; 401', async () => {
    const seeded = await detail('rev_seed_merged', '?historyLimit=2');
    assert.deepEqual(Object.keys(seeded).sort(), ['agent', 'changes', 'comments', 'review', 'reviewComments', 'reviewId', 'tests']);
    assert.deepEqual(seeded.agent, obj(await api.request('GET', '/agents/agt_seed_review_merged?historyLimit=2')));
    assert.equal(((seeded.agent as { history: Json[] }).history).length, 2);
    assert.equal(((await detail('rev_seed_merged')).agent as Json as { history: Json[] }).history.length, ((await api.agent('agt_seed_review_merged')).history as Json[]).length);
    assert.equal((await api.request('GET', '/code-reviews/rev_seed_merged?historyLimit=0')).status, 400);
    const unknown = await api.request('GET', '/code-reviews/rev_nope');
    assert.deepEqual([unknown.status, obj(unknown).code], [404, 'not_found']);
    assert.equal((await new ApiCaller(emu, emu.tokens.noCredits).request('GET', '/code-reviews/rev_seed_merged')).status, 404, 'another workspace');
    assert.equal((await new ApiCaller(emu, null).request('GET', '/code-reviews/rev_seed_merged')).status, 401);
    assert.equal((await new ApiCaller(emu, null).request('GET', `/code-reviews?appId=${SEED.apps.todo}`)).status, 401);
  });

  it('follow-ups to a review\'s conversation are refused (409 follow_ups_not_supported); the admin conversation route lists its review too', async () => {
    const { agentId } = await startOk(review());
    const refused = await api.followUp(String(agentId), { prompt: 'more' });
    assert.deepEqual([refused.status, obj(refused).code], [409, 'follow_ups_not_supported']);
    const opened = obj(await admin(emu, 'POST', '/code-review-conversations', { title: 'From the admin' }));
    const listed = items(await api.request('GET', `/code-reviews?appId=${SEED.apps.todo}`), 'open');
    assert.deepEqual(listed.map((i) => [i.id, i.title, i.fromVersionLabel]), [[opened.reviewId, 'From the admin', 'v41'], [listed[1].id, 'Main #4 → Main #10', 'Main #4']]);
  });

  it('wideApiVersion B: service-hosted reviews name the provider cursor (A: opencode)', async () => {
    const id = String((await startOk(review())).reviewId);
    assert.equal(((await detail(id)).review as Json).provider, 'opencode');
    await admin(emu, 'PATCH', '/settings', { wideApiVersion: 'B' });
    assert.equal(((await detail(id)).review as Json).provider, 'cursor');
    assert.equal(items(await api.request('GET', `/code-reviews?appId=${SEED.apps.todo}`), 'merged')[0].provider, 'claude');
  });
});

describe('emulator: code reviews under C, the default (deployed shapes)', () => {
  let emu: Emulator;
  let api: ApiCaller;
  const post = (body: Json): Promise<CallResult> => api.request('POST', '/code-reviews', { body });
  const startOk = async (body: Json): Promise<Json> => {
    const result = await post(body);
    assert.equal(result.status, 202, result.text);
    return obj(result);
  };
  const listed = async (): Promise<Json> => obj(await api.request('GET', `/code-reviews?appId=${SEED.apps.todo}`));

  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: STEP, preset: 'deployed', settings: { staleReadMs: null, staleStatusAfterFollowUpMs: null } });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('list items carry no id: they start at sequence and mergeId, without the conversation fields; C\'s nulls; provider never cursor', async () => {
    const seeded = await listed();
    const merged = (seeded.merged as Json[])[0];
    assert.deepEqual(Object.keys(merged).slice(0, 3), ['sequence', 'mergeId', 'status']);
    assert.equal('id' in merged, false);
    assert.equal('conversationStatus' in merged || 'conversationErrorCode' in merged, false);
    assert.deepEqual([merged.sequence, merged.mergeId, merged.title, merged.requestedByEmail], [2, 'mrg_seed_settings_page', 'Settings page (TODO-140)', SEED.emails.dev]);
    await startOk(review({ fromVersion: 'main', toVersion: 'Request timeouts' }));
    await admin(emu, 'POST', '/code-review-conversations', { title: 'From the service\'s UI' });
    await admin(emu, 'PATCH', '/settings', { wideApiVersion: 'B' });
    const open = (await listed()).open as Json[];
    assert.deepEqual(open.map((i) => [i.sequence, i.title, i.fromVersion, i.fromVersionLabel, i.toVersion, i.toVersionLabel]), [
      [4, 'From the service\'s UI', 'v41', null, 'v42', null],
      [3, null, 'main', 'Main', 'Request timeouts', 'Request timeouts'],
    ], 'as sent: branches keep their names and show their labels; a title not given is null; labels the service has not are null');
    assert.deepEqual([open[1].requestedByName, open[1].requestedByEmail, open[1].requestedByImage], [null, null, null], 'no userEmail: no person named');
    assert.equal(open[1].provider, 'opencode');
  });

  it('the detail is for a review created over REST: its review without id; the seeded and admin-made (UI) reviews are 404', async () => {
    const { reviewId } = await startOk(review({ userEmail: SEED.emails.dev, title: 'Timeouts' }));
    const detail = obj(await api.request('GET', `/code-reviews/${String(reviewId)}`));
    assert.equal(detail.reviewId, reviewId);
    const r = detail.review as Json;
    assert.equal('id' in r, false);
    assert.deepEqual([r.sequence, r.title, r.requestedByEmail, r.requestedByName, r.fromVersionLabel], [3, 'Timeouts', SEED.emails.dev, 'Dev', 'Main #4']);
    for (const id of ['rev_seed_merged', 'rev_seed_closed', String(obj(await admin(emu, 'POST', '/code-review-conversations', {})).reviewId)]) {
      const result = await api.request('GET', `/code-reviews/${id}`);
      assert.deepEqual([result.status, obj(result).code], [404, 'not_found'], id);
    }
    await testAdmin(emu.adminUrl).setWider('B');
    assert.equal((await api.request('GET', '/code-reviews/rev_seed_merged')).status, 200, 'B reads them');
  });

  it('fromVersion/toVersion name a branch (id or label: its newest completed version at the time) or a version; the same version twice is 400', async () => {
    const { agentId } = await startOk(review({ fromVersion: 'Main', toVersion: 'feature/request-timeouts' }));
    const stored = [...emu.state.codeReviews.values()].find((r) => r.agentId === agentId);
    assert.deepEqual([stored?.fromVersion, stored?.fromVersionId, stored?.toVersion, stored?.toVersionId], ['Main', V.main10, 'feature/request-timeouts', V.timeouts6]);
    await startOk(review({ fromVersion: V.main4, toVersion: 'fix/login-redirect' }));
    const same = await post(review({ fromVersion: 'main', toVersion: V.main10 }));
    assert.deepEqual([same.status, obj(same).field], [400, 'toVersion'], 'main is Main #10 now');
    const unknown = await post(review({ toVersion: 'feature/nope' }));
    assert.deepEqual([unknown.status, obj(unknown).field, obj(unknown).reason], [400, 'toVersion', undefined]);
    assert.match(String(obj(unknown).error), /No branch or version "feature\/nope"/);
    const pending = await post(review({ toVersion: 'ver_todo_012' }));
    assert.deepEqual([pending.status, obj(pending).field], [400, 'toVersion'], 'a version not completed');
  });

  it('a branch never synced: 400 version_not_synced saying to sync it; once a sync completed, the review starts on that version', async () => {
    for (const [body, field] of [[review({ toVersion: NEVER_SYNCED_BRANCH.version }), 'toVersion'], [review({ fromVersion: 'Dark mode' }), 'fromVersion']] as const) {
      const refused = await post(body);
      assert.deepEqual([refused.status, obj(refused).code, obj(refused).field, obj(refused).reason], [400, 'invalid_request', field, VERSION_REASONS.notSynced]);
      assert.match(String(obj(refused).error), /never|no synced version.*sync it first/);
    }
    assert.equal(emu.state.codeReviews.size, SEEDED_REVIEWS.length, 'nothing stored');
    const sync = obj(await api.request('POST', '/versions/sync', { body: { appId: SEED.apps.todo, version: 'Dark mode' } }));
    await emu.advance(2 * STEP);
    assert.equal((await post(review({ toVersion: 'Dark mode' }))).status, 400, 'still indexing');
    await emu.advance(STEP);
    const { agentId } = await startOk(review({ toVersion: 'Dark mode' }));
    assert.equal([...emu.state.codeReviews.values()].find((r) => r.agentId === agentId)?.toVersionId, sync.versionId);
  });

  it('B refuses a branch name (version ids only)', async () => {
    await testAdmin(emu.adminUrl).setWider('B');
    const refused = await post(review({ fromVersion: 'main' }));
    assert.deepEqual([refused.status, obj(refused).field], [400, 'fromVersion']);
    assert.match(String(obj(refused).error), /No version "main"/);
  });
});

describe('emulator: the reference profile serves no code reviews or versions', () => {
  let emu: Emulator;
  before(async () => {
    emu = await startEmulator({ clock: 'manual' });
  });
  after(() => emu.close());

  it('404 not_found like any unknown route, for every method; /openapi.json lists the reference\'s five paths only', async () => {
    const api = new ApiCaller(emu, emu.tokens.default);
    for (const [method, path] of [['POST', '/code-reviews'], ['GET', '/code-reviews?appId=app_todo'], ['DELETE', '/code-reviews'], ['GET', '/code-reviews/rev_seed_merged'],
      ['GET', '/versions?appId=app_todo'], ['GET', '/versions/status?appId=app_todo&versionId=ver_todo_001'], ['POST', '/versions/sync']]) {
      const result = await api.request(method, path, method === 'POST' ? { body: { appId: 'app_todo' } } : {});
      assert.deepEqual([result.status, obj(result).code], [404, 'not_found'], `${method} ${path}`);
    }
    assert.equal(emu.state.codeReviews.size, 0, 'no seeded reviews');
    const doc = obj(await new ApiCaller(emu, null).request('GET', '/openapi.json'));
    assert.deepEqual(Object.keys(doc.paths as Json), ['/agents', '/agents/{agentId}', '/agents/{agentId}/messages', '/test-groups', '/openapi.json']);
    const schemas = Object.keys((doc.components as { schemas: Json }).schemas);
    assert.deepEqual(schemas.filter((s) => /Review|Version/.test(s)), []);
    assert.deepEqual((doc.tags as Json[]).map((t) => t.name), ['agents', 'test-groups', 'schema']);
    assert.equal((await admin(emu, 'POST', '/code-review-conversations', {})).status, 409);
  });
});
