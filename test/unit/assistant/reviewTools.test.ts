// Issue 21, "Tools and chat": the tools that read code reviews, in plain mocha against the
// emulator (the real client): their strict schemas, which review (by its ID, or by its
// conversation's agent ID through the listed run or one read), the served schema asked first
// ("Not done: this service offers no code reviews" against the reference profile, and no review
// request), and the text they answer with.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import * as apiModule from '../../../src/api/index';
import { createClient, type AgentRunsApi } from '../../../src/api';
import { ToolInputError, checkToolInput } from '../../../src/assistant/common/schemas';
import { RunLedger } from '../../../src/run/common/ledger/ledger';
import type { Deps } from '../../../src/run/deps';
import { SEED, startEmulator, type Emulator } from '../../emulator/index';
import { adminOk } from '../../emulator/testing';
import { loadTools, settings } from '../fixtures/assistantTools';
import { MemoryStore } from '../fixtures/memoryStore';

const READ = 'agentRuns_readCodeReview';
const LIST = 'agentRuns_listCodeReviews';
const NO_REVIEWS = 'Not done: this service offers no code reviews (its API schema, /openapi.json, lists no /code-reviews).';

describe('the code review read tools: schemas (issue 21)', () => {
  const refused = (tool: typeof READ | typeof LIST, value: unknown, re: RegExp): void =>
    assert.throws(() => checkToolInput(tool, value), (e: unknown) => e instanceof ToolInputError && re.test(e.message));

  it('refuses unknown fields, wrong types, empty and oversize IDs and a limit out of range, naming the field', () => {
    refused(READ, { reviewId: 'rev_1', prompt: 'x' }, /Unknown field "prompt"; allowed: reviewId, agentId, appId/);
    refused(READ, { reviewId: 7 }, /reviewId must be text, not a number/);
    refused(READ, { agentId: ' ' }, /agentId is empty/);
    refused(READ, { reviewId: 'r'.repeat(201) }, /reviewId is too long: 201 characters, at most 200/);
    refused(READ, [], /must be an object, not a list/);
    refused(LIST, { appId: 'app', limit: 0 }, /limit must be between 1 and 20/);
    refused(LIST, { limit: 21 }, /limit must be between 1 and 20/);
    refused(LIST, { limit: 2.5 }, /limit must be a whole number/);
    refused(LIST, { appId: 'app', status: 'open' }, /Unknown field "status"/);
    assert.deepEqual(checkToolInput(READ, { reviewId: 'rev_1', appId: 'app' }), { reviewId: 'rev_1', appId: 'app' });
    assert.deepEqual(checkToolInput(LIST, {}), {});
  });

  it('package.json offers both only where the service serves code reviews, and /reviews likewise', () => {
    let root = __dirname;
    while (!fs.existsSync(path.join(root, 'package.json'))) root = path.dirname(root);
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      contributes: { languageModelTools: { name: string; when?: string }[]; chatParticipants: { commands: { name: string; when?: string }[] }[] };
    };
    for (const name of [READ, LIST]) assert.equal(pkg.contributes.languageModelTools.find((t) => t.name === name)?.when, 'agentRuns.codeReviews', name);
    assert.equal(pkg.contributes.chatParticipants[0].commands.find((c) => c.name === 'reviews')?.when, 'agentRuns.codeReviews');
  });
});

describe('the code review read tools against the emulator (issue 21)', function () {
  this.timeout(20_000);
  let emu: Emulator;
  let client: AgentRunsApi;
  let ledger: RunLedger;
  let tools: ReturnType<ReturnType<typeof loadTools>['createTools']>;
  const token: vscode.CancellationToken = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose: () => undefined }) };
  const invoke = async (name: string, input: Record<string, unknown>): Promise<string> => {
    const result = await tools.get(name)!.invoke({ input, toolInvocationToken: undefined }, token);
    return (result?.content as { value: string }[]).map((p) => p.value).join('');
  };
  /** What the tools asked the service, without the base path. */
  const asked = (): string[] => emu.requests.map((r) => `${r.method} ${r.path.replace(/^\/api\/public\/v1/, '')}`);

  before(async () => {
    // Version B lists and reads the seeded reviews by their ids; version C's test below.
    emu = await startEmulator({ preset: 'deployed', wider: 'B', settings: { staleReadMs: null, staleStatusAfterFollowUpMs: null } });
  });
  after(() => emu.close());
  beforeEach(() => {
    emu.reset();
    client = createClient({ baseUrl: emu.baseUrl, token: emu.tokens.default });
    ledger = new RunLedger(new MemoryStore(), client.baseUrl);
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined, trace: () => undefined };
    const deps = {
      api: () => apiModule, getClient: () => Promise.resolve(client), ledger: () => ledger, log, globalState: new MemoryStore(),
      connection: () => ({ baseUrl: emu.baseUrl, signedIn: true }), reportUnauthorized: () => undefined,
    } as unknown as Deps;
    tools = loadTools().createTools(deps);
    settings.appId = SEED.apps.todo;
  });
  afterEach(async () => {
    delete settings.appId;
    await client.dispose();
  });

  it('reads a seeded review by its ID: facts, open items, completed ones counted, the latest comments; the schema first, one review read', async () => {
    const prepared = await tools.get(READ)!.prepareInvocation!({ input: { reviewId: 'rev_seed_merged' } }, token);
    assert.equal(prepared?.confirmationMessages, undefined, 'a read is not confirmed');
    assert.deepEqual(asked(), [], 'nothing read to prepare');
    const text = await invoke(READ, { reviewId: 'rev_seed_merged' });
    const lines = text.split('\n');
    for (const line of [
      'Code review rev_seed_merged', 'title: "Settings page (TODO-140)"', 'status: merged', 'app: app_todo',
      'versions compared: "Main #2" (ver_todo_002) → "Main #4" (ver_todo_004)', 'requested by: "Dev" <dev@example.com>',
      'model: anthropic/claude-sonnet-4-5 (claude)', 'review agent: agt_seed_review_merged (completed)',
      'Changes: 3 open, 0 completed', 'Comments: 2 open, 0 completed', 'Tests: 1 open, 1 completed',
      '- "The call Get todos has no error workflow" · priority high · open · by AI',
      'Thread: latest 4 of 4 comment(s), oldest first',
    ]) {
      assert.ok(lines.includes(line), `${line}\n---\n${text}`);
    }
    assert.match(text, /^- "Dev" · [^\n]* · reply: \(deleted\)$/m);
    assert.deepEqual(asked(), ['GET /openapi.json', 'GET /code-reviews/rev_seed_merged?historyLimit=1']);
  });

  it('by its conversation\'s agent ID: through the listed run\'s reviewId (no run read), else one read of the run', async () => {
    const byRead = await invoke(READ, { agentId: 'agt_seed_review_merged' });
    assert.match(byRead, /^Code review rev_seed_merged\n/);
    assert.deepEqual(asked(), ['GET /openapi.json', 'GET /agents/agt_seed_review_merged', 'GET /code-reviews/rev_seed_merged?historyLimit=1']);

    emu.reset();
    ledger.upsert({ agentId: 'agt_seed_review_closed', source: 'tracked', status: 'completed', kind: 'code_review', reviewId: 'rev_seed_closed', appId: SEED.apps.todo });
    const byLedger = await invoke(READ, { agentId: 'agt_seed_review_closed' });
    assert.match(byLedger, /^Code review rev_seed_closed\n/);
    assert.match(byLedger, /^status: closed$/m);
    assert.deepEqual(asked(), ['GET /openapi.json', 'GET /code-reviews/rev_seed_closed?historyLimit=1']);
  });

  it('refuses by itself, before any request: both IDs, neither; a run that is no review\'s, and an unknown review, in the service\'s words', async () => {
    assert.equal(await invoke(READ, { reviewId: 'rev_seed_merged', agentId: 'agt_seed_review_merged' }), 'Not done: give reviewId or agentId, not both.');
    assert.equal(await invoke(READ, { appId: 'app_todo' }), 'Not done: reviewId is required: give the code review\'s ID, or the agentId of its conversation.');
    assert.equal(await invoke(READ, { reviewId: '..' }), 'Not done: reviewId ".." is not a valid id.');
    assert.deepEqual(asked(), []);

    const run = await client.startAgent({ appId: SEED.apps.todo, prompt: 'Not a review', model: 'hosted/fast' });
    assert.equal(await invoke(READ, { agentId: run.agentId }), `Not done: run ${run.agentId} is not a code review's conversation: it names no review.`);
    assert.match(await invoke(READ, { reviewId: 'rev_nope' }), /^Not done: .*not found/i);
  });

  it('lists the app\'s reviews (the default app), newest first per list, asking one more than it shows', async () => {
    const text = await invoke(LIST, {});
    assert.match(text, /^Code reviews of app app_todo\n/);
    assert.match(text, /\nOpen: 0\nnone\n/);
    assert.match(text, /\nMerged: 1\n- #2 rev_seed_merged · "Settings page \(TODO-140\)" · "Main #2" \(ver_todo_002\) → "Main #4" \(ver_todo_004\) · requested by "Dev" <dev@example.com>/);
    assert.match(text, /\nClosed: 1\n- #1 rev_seed_closed · "Retry timed-out requests"/);
    assert.deepEqual(asked(), ['GET /openapi.json', 'GET /code-reviews?appId=app_todo&limit=11']);

    for (const [from, to] of [['ver_todo_002', 'ver_todo_004'], ['ver_todo_004', 'ver_todo_006']]) {
      await client.startCodeReview({ appId: SEED.apps.todo, fromVersion: from, toVersion: to, title: `Review ${to}` });
    }
    const limited = await invoke(LIST, { appId: SEED.apps.todo, limit: 1 });
    assert.match(limited, /\nOpen: 1 shown, more not listed\n- #\d+ \S+ · "Review ver_todo_006"/, 'the newest open one');
    assert.match(limited, /\nMerged: 1\n/);
  });

  it('version C: reviews listed without ids are named by number, their IDs said to be unknown; one started here is read once and keeps its ID', async () => {
    emu.state.wider = 'C';
    try {
      const started = await client.startCodeReview({ appId: SEED.apps.todo, fromVersion: 'feature/request-timeouts', toVersion: 'main', title: 'Started here' });
      ledger.upsert({ agentId: started.agentId, source: 'started', status: 'queued', kind: 'code_review', reviewId: started.reviewId, appId: SEED.apps.todo });
      const before = emu.requests.length;
      const text = await invoke(LIST, {});
      assert.match(text, new RegExp(`\\nOpen: 1\\n- #\\d+ ${started.reviewId} · "Started here" · "Request timeouts" \\(feature/request-timeouts\\) → "Main" \\(main\\)`));
      assert.match(text, /\nMerged: 1\n- #2 \(review ID not known: not started or tracked in this editor\) · "Settings page \(TODO-140\)"/);
      assert.ok(!text.includes('rev_seed_'), 'no ID the list did not give');
      const reads = emu.requests.slice(before).map((r) => `${r.method} ${r.path.replace(/^\/api\/public\/v1/, '')}`);
      assert.deepEqual(reads, ['GET /openapi.json', 'GET /code-reviews?appId=app_todo&limit=11', `GET /code-reviews/${started.reviewId}?historyLimit=1`]);
      // Its number is remembered: the next list reads no review again.
      const again = emu.requests.length;
      await invoke(LIST, {});
      assert.equal(emu.requests.slice(again).filter((r) => r.path.includes(started.reviewId)).length, 0);
    } finally {
      emu.state.wider = 'B';
    }
  });

  it('without an app: says how to give one, and asks nothing', async () => {
    delete settings.appId;
    assert.equal(await invoke(LIST, {}), 'Not done: appId is required: give the App ID, or set a default in agentRuns.appId.');
    assert.deepEqual(asked(), []);
  });

  it('against the reference profile: "Not done: this service offers no code reviews", nothing but the schema read', async () => {
    await adminOk(emu.adminUrl, 'PATCH', '/settings', { preset: 'reference' });
    assert.equal(await invoke(READ, { reviewId: 'rev_seed_merged' }), NO_REVIEWS);
    assert.equal(await invoke(READ, { agentId: 'agt_seed_review_merged' }), NO_REVIEWS);
    assert.equal(await invoke(LIST, {}), NO_REVIEWS);
    assert.deepEqual(asked(), ['GET /openapi.json', 'GET /openapi.json', 'GET /openapi.json']);
  });
});
