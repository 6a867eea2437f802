// Issue 21: the language model tool that starts a code review, in plain mocha against the
// emulator, through the real sender: its strict schema, a confirmation naming the app and the
// versions, nothing before the person confirmed, the served schema asked first, "Not done:
// <reason>" on a refusal, at the limit (409) and when it may have started.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import * as apiModule from '../../../src/api/index';
import { createClient, type AgentRunsApi } from '../../../src/api';
import { plainL10n } from '../../../src/base/common/l10n';
import { codeReviewConfirmation } from '../../../src/assistant/common/prompts';
import { ToolInputError, checkToolInput } from '../../../src/assistant/common/schemas';
import { RunLedger } from '../../../src/run/common/ledger/ledger';
import type { Deps } from '../../../src/run/deps';
import { FollowUpSends } from '../../../src/run/followUpSends';
import { Sender } from '../../../src/run/sender';
import * as sendPosts from '../../../src/run/sendPosts';
import { UnconfirmedStarts } from '../../../src/run/unconfirmedStarts';
import { SEED, startEmulator, type Emulator } from '../../emulator/index';
import { adminOk } from '../../emulator/testing';
import { loadTools } from '../fixtures/assistantTools';
import { MemoryStore } from '../fixtures/memoryStore';

const TOOL = 'agentRuns_startCodeReview';
const input = { appId: SEED.apps.todo, fromVersion: 'ver_todo_004', toVersion: 'ver_todo_010', title: 'Tool review' };

describe('the start code review tool: schema and confirmation (issue 21)', () => {
  const refused = (value: unknown, re: RegExp): void => assert.throws(() => checkToolInput(TOOL, value), (e: unknown) => e instanceof ToolInputError && re.test(e.message));

  it('appId and both versions are required; unknown fields, wrong types and oversize text are refused by name', () => {
    refused({ appId: 'a', fromVersion: 'v1' }, /toVersion is required/);
    refused({ ...input, prompt: 'x' }, /Unknown field "prompt"/);
    refused({ ...input, focusAreas: 3 }, /focusAreas must be text, not a number/);
    refused({ ...input, title: 'x'.repeat(201) }, /title is too long/);
    refused({ ...input, fromVersion: ' ' }, /fromVersion is empty/);
    assert.deepEqual(checkToolInput(TOOL, input), input);
  });

  it('package.json shows the tool and Start Code Review… only where the service serves code reviews (agentRuns.codeReviews)', () => {
    let root = __dirname;
    while (!fs.existsSync(path.join(root, 'package.json'))) root = path.dirname(root);
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      contributes: { languageModelTools: { name: string; when?: string }[]; menus: Record<string, { command: string; when?: string }[]>; commands: { command: string }[] };
    };
    assert.equal(pkg.contributes.languageModelTools.find((t) => t.name === TOOL)?.when, 'agentRuns.codeReviews');
    assert.ok(pkg.contributes.commands.some((c) => c.command === 'agentRuns.startCodeReview'));
    const entries = Object.entries(pkg.contributes.menus).flatMap(([menu, items]) => items.filter((i) => i.command === 'agentRuns.startCodeReview').map((i) => [menu, i.when ?? ''] as const));
    assert.deepEqual(entries.map(([menu]) => menu).sort(), ['commandPalette', 'view/item/context', 'view/title']);
    for (const [menu, when] of entries) assert.match(when, /(^|&& )agentRuns\.codeReviews( &&|$)/, menu);
    assert.match(entries.find(([menu]) => menu === 'view/item/context')?.[1] ?? '', /viewItem =~ \/\^app;\//, 'on an app\'s row');
  });

  it('the confirmation names the app and the two versions, the model (or the service\'s default), and ends with the description as code', () => {
    const c = codeReviewConfirmation({ ...input, description: 'Why:\n[link](command:x)' }, plainL10n);
    assert.equal(c.title, 'Start a code review of app_todo, ver_todo_004 → ver_todo_010?');
    assert.match(c.message, /^App: `app_todo`\n\nSource → target: `ver_todo_004` → `ver_todo_010`\n\nModel: the service's default\n\nTitle: `Tool review`/);
    assert.ok(c.message.endsWith('Description:\n\n```\nWhy:\n[link](command:x)\n```'), c.message);
  });
});

describe('the start code review tool through the sender (issue 21)', function () {
  this.timeout(20_000);
  let emu: Emulator;
  let client: AgentRunsApi;
  let ledger: RunLedger;
  let starts: UnconfirmedStarts;
  let tool: vscode.LanguageModelTool<Record<string, unknown>>;
  const token: vscode.CancellationToken = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose: () => undefined }) };
  const posts = (): number => emu.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/code-reviews')).length;
  const invoke = async (value: Record<string, unknown>): Promise<string> => {
    const result = await tool.invoke({ input: value, toolInvocationToken: undefined }, token);
    return (result?.content as { value: string }[]).map((p) => p.value).join('');
  };

  before(async () => {
    emu = await startEmulator({ preset: 'deployed', settings: { staleReadMs: null, staleStatusAfterFollowUpMs: null } });
  });
  after(() => emu.close());
  beforeEach(() => {
    emu.reset();
    client = createClient({ baseUrl: emu.baseUrl, token: emu.tokens.default });
    const store = new MemoryStore();
    ledger = new RunLedger(store, client.baseUrl);
    starts = new UnconfirmedStarts(store);
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined, trace: () => undefined };
    const sender = new Sender({
      client: () => Promise.resolve(client), ledger: () => ledger, poller: { track: () => undefined, burst: () => undefined },
      starts, sends: new FollowUpSends(store), targetState: store, log,
    }, () => sendPosts);
    const deps = {
      api: () => apiModule, getClient: () => Promise.resolve(client), sender, ledger: () => ledger, log,
      connection: () => ({ baseUrl: emu.baseUrl, signedIn: true }), reportUnauthorized: () => undefined,
    } as unknown as Deps;
    tool = loadTools().createTools(deps).get(TOOL)!;
  });
  afterEach(() => client.dispose());

  it('confirms before sending (nothing sent to prepare); started: listed as the review\'s conversation, one POST', async () => {
    const prepared = await tool.prepareInvocation!({ input }, token);
    assert.match(String((prepared?.confirmationMessages?.message as { value: string }).value), /Source → target: `ver_todo_004` → `ver_todo_010`/);
    assert.equal(posts(), 0);
    const text = await invoke(input);
    const [, reviewId, agentId] = /^Started code review (\S+) \(“Tool review”\) on app_todo, ver_todo_004 → ver_todo_010; its conversation (\S+) is queued\./.exec(text) ?? [];
    assert.ok(reviewId && agentId, text);
    assert.deepEqual([ledger.get(agentId)?.kind, ledger.get(agentId)?.reviewId, ledger.get(agentId)?.prompt], ['code_review', reviewId, 'Tool review']);
    assert.equal(posts(), 1);
  });

  it('a model the service does not offer, or the same version twice: "Not done", nothing put before the person, nothing sent', async () => {
    const model = { ...input, model: 'hosted/nope' };
    assert.equal((await tool.prepareInvocation!({ input: model }, token))?.confirmationMessages, undefined);
    assert.match(await invoke(model), /^Not done: model "hosted\/nope" is not offered by the service; choose one of: /);
    assert.match(await invoke({ ...input, toVersion: input.fromVersion }), /^Not done: fromVersion and toVersion are the same/);
    assert.equal(posts(), 0);
  });

  it('a service whose schema lists no /code-reviews: "Not done", nothing sent', async () => {
    await adminOk(emu.adminUrl, 'PATCH', '/settings', { preset: 'reference' });
    assert.equal(await invoke(input), 'Not done: this service does not offer code reviews: its API schema (/openapi.json) lists no /code-reviews endpoint. Nothing was sent.');
    assert.equal(posts(), 0);
  });

  it('409 at the limit: "Not done" in the limit\'s words, one POST, nothing listed or "may have started"', async () => {
    const busy = await client.startCodeReview({ appId: SEED.apps.todo, fromVersion: 'ver_todo_002', toVersion: 'ver_todo_004' });
    await adminOk(emu.adminUrl, 'PATCH', `/agents/${busy.agentId}`, { status: 'running' });
    await adminOk(emu.adminUrl, 'PATCH', '/workspaces/ws_acme', { concurrentAgentLimit: 1 });
    const before = posts();
    assert.equal(await invoke(input), 'Not done: The workspace is running as many agent runs as its plan allows. Wait for a run to finish (see the active runs in the Runs view), then start again.');
    assert.equal(posts() - before, 1);
    assert.deepEqual([ledger.all(), starts.uncertain()], [[], []]);
  });

  it('cut after the service took it: "Not done", may have started, not to be started again; one POST', async () => {
    emu.inject({ method: 'POST', path: '^/code-reviews$', passThrough: true, reset: true, times: 1 });
    const text = await invoke(input);
    assert.match(text, /^Not done: .* The code review may have started anyway\. Do not start it again: the Agent Runs view shows it as “may have started”/);
    assert.deepEqual(starts.uncertain().map((s) => s.prompt), ['Tool review']);
    assert.equal(posts(), 1);
  });
});
