import assert from 'node:assert/strict';
import { CONFLICT_REASONS, concurrentAgentLimit, PLAN_CONCURRENT_AGENTS, SEED, startEmulator, type Emulator } from '../../emulator/index';
import { admin, ApiCaller, obj, runToEnd, type Json } from '../../emulator/testing';

const STEP = 1000;
const start = (overrides: Json = {}): Json => ({ appId: SEED.apps.todo, prompt: 'busy [[slow]]', model: 'hosted/auto', ...overrides });

describe('emulator: the deployed profile (409s and code review conversations)', () => {
  let emu: Emulator;
  let api: ApiCaller;

  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: STEP, preset: 'deployed', settings: { staleReadMs: null, staleStatusAfterFollowUpMs: null } });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('the plan table: Business 5, Team 3, Free 1; a workspace\'s own number wins', () => {
    assert.deepEqual(PLAN_CONCURRENT_AGENTS, { free: 1, starter: 2, team: 3, business: 5, enterprise: 20 });
    assert.equal(concurrentAgentLimit({ id: 'business', name: 'Business', apiAccess: true }), 5);
    assert.equal(concurrentAgentLimit({ id: 'business', name: 'Business', apiAccess: true, concurrentAgents: 1 }), 1);
    assert.equal(concurrentAgentLimit({ id: 'custom', name: 'Custom', apiAccess: true }), 2);
  });

  it('a start at the plan\'s limit (queued and running runs count) is a 409 concurrency_limit, charged nothing; a finished run frees a place', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await api.startOk(start({ prompt: i === 0 ? 'short' : 'busy [[slow]]' })));
    await emu.advance(STEP); // running now, one of them about to finish first
    const credits = (obj(await admin(emu, 'GET', '/workspaces')).workspaces as Json[]).find((w) => w.id === SEED.workspaces.main)?.paidCredits;
    const refused = await api.start(start());
    assert.equal(refused.status, 409);
    const body = obj(refused);
    assert.deepEqual({ code: body.code, reason: body.reason }, { code: 'concurrency_limit', reason: CONFLICT_REASONS.concurrentAgentLimit });
    assert.match(String(body.error), /5 active agent runs.*Business plan \(5\).*Wait for a run to finish/);
    assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'reason']);
    const after = (obj(await admin(emu, 'GET', '/workspaces')).workspaces as Json[]).find((w) => w.id === SEED.workspaces.main)?.paidCredits;
    assert.equal(after, credits, 'a refused start is not charged');

    await runToEnd(emu, api, ids[0], STEP);
    assert.equal((await api.start(start())).status, 202);
  });

  it('a follow-up to a busy run queues; one that would re-open a finished run at the limit is a 409 concurrency_limit', async () => {
    await admin(emu, 'PATCH', '/workspaces/ws_acme', { concurrentAgentLimit: 1 });
    const first = await api.startOk(start({ prompt: 'short' }));
    assert.equal((await api.start(start())).status, 409, 'the limit from the admin API');
    assert.equal((await api.followUp(first, { prompt: 'queued behind the busy turn' })).status, 202);
    await runToEnd(emu, api, first, STEP);

    const second = await api.startOk(start({ prompt: 'short' }));
    const refused = await api.followUp(first, { prompt: 'again' });
    assert.deepEqual({ status: refused.status, code: obj(refused).code }, { status: 409, code: 'concurrency_limit' });
    assert.equal((await api.agent(first)).status, 'completed', 'nothing re-opened');
    await runToEnd(emu, api, second, STEP);
    assert.equal((await api.followUp(first, { prompt: 'again' })).status, 202);

    // null: back to the plan table's 5.
    await admin(emu, 'PATCH', '/workspaces/ws_acme', { concurrentAgentLimit: null });
    for (let i = 0; i < 4; i++) await api.startOk(start());
    assert.equal((await api.start(start())).status, 409);
    for (const bad of [0, 2.5, '3']) assert.equal((await admin(emu, 'PATCH', '/workspaces/ws_acme', { concurrentAgentLimit: bad })).status, 400, String(bad));
  });

  it('a code review conversation: kind code_review with its reviewId, progresses like a run, and refuses follow-ups with 409 follow_ups_not_supported', async () => {
    const opened = await admin(emu, 'POST', '/code-review-conversations', { title: 'Timeouts', fromVersion: 'v7', toVersion: 'v8' });
    assert.equal(opened.status, 201);
    const { agentId, reviewId } = obj(opened);
    assert.match(String(reviewId), /^rev_/);
    const first = await api.agent(String(agentId));
    assert.deepEqual({ kind: first.kind, reviewId: first.reviewId, status: first.status, reasoningEffort: first.reasoningEffort }, { kind: 'code_review', reviewId, status: 'queued', reasoningEffort: null });

    const refused = await api.followUp(String(agentId), { prompt: 'also check the tests' });
    assert.equal(refused.status, 409);
    assert.deepEqual({ code: obj(refused).code, reason: obj(refused).reason }, { code: 'follow_ups_not_supported', reason: CONFLICT_REASONS.codeReviewConversation });
    assert.match(String(obj(refused).error), /code review.*Start a new agent run/);

    const done = await runToEnd(emu, api, String(agentId), STEP);
    assert.equal(done.status, 'completed');
    const messages = done.history as Json[];
    assert.equal(messages[0].content, 'Review the changes from v7 to v8: Timeouts');
    const diff = messages.find((m) => m.toolName === 'diff_versions');
    assert.deepEqual(diff?.toolParameters, { appId: SEED.apps.todo, fromVersion: 'v7', toVersion: 'v8' });
    assert.ok(messages.some((m) => m.role === 'tool' && m.content === null));
    assert.equal((await api.followUp(String(agentId), { prompt: 'x' })).status, 409, 'finished or not');
  });

  it('a code review counts against the limit; [[fail]] in its title fails it; the admin route checks what it is given', async () => {
    await admin(emu, 'PATCH', '/workspaces/ws_acme', { concurrentAgentLimit: 1 });
    const review = String(obj(await admin(emu, 'POST', '/code-review-conversations', { title: 'Broken [[fail]]' })).agentId);
    assert.equal(obj(await api.start(start())).code, 'concurrency_limit');
    const failed = await runToEnd(emu, api, review, STEP);
    assert.equal(failed.status, 'error');
    assert.ok((failed.history as Json[]).some((m) => m.role === 'error'));
    assert.equal((await api.start(start())).status, 202);

    for (const bad of [{ workspaceId: 'ws_none' }, { appId: 'app_none' }, { model: 'gpt-2' }, { title: 7 }]) {
      assert.equal((await admin(emu, 'POST', '/code-review-conversations', bad)).status, 400, JSON.stringify(bad));
    }
    // Another workspace's review is not visible to this token.
    const other = String(obj(await admin(emu, 'POST', '/code-review-conversations', { workspaceId: SEED.workspaces.noCredits })).agentId);
    assert.equal((await api.get(other)).status, 404);
  });

  it('admin messages keep the deployed shapes: object parameters, object attachments, null content', async () => {
    const id = await api.startOk(start());
    const written = await admin(emu, 'POST', `/agents/${id}/messages`, {
      role: 'tool', content: null, toolName: 'open_pr', toolParameters: { draft: true }, attachments: [{ prNumber: 12 }, 'plain.txt'],
    });
    assert.equal(written.status, 201);
    const last = ((await api.agent(id)).history as Json[]).at(-1);
    assert.deepEqual({ c: last?.content, p: last?.toolParameters, a: last?.attachments }, { c: null, p: { draft: true }, a: [{ prNumber: 12 }, 'plain.txt'] });
    assert.equal((await admin(emu, 'POST', `/agents/${id}/messages`, { attachments: [3] })).status, 400);
  });
});
