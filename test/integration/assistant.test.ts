// The editor's assistant as an entry point, in the extension host against the emulator.
// Through the editor's own API: the tools' registration (`vscode.lm.tools`), the read tool and
// every refused input (`vscode.lm.invokeTool`: the editor calls our prepareInvocation, then
// invoke). Directly on the registered objects (the test API activate() returns): what
// prepareInvocation puts before the person, and invoke after a confirmation — the editor's
// confirmation is a modal dialog in the workbench that nothing in the extension host can
// answer — and the chat participant's handler, with a stream that records what it is given
// (code-server 4.100 offline has no chat view to type into).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentRunsTestApi } from '../../src/extension';
import { readTestContext } from '../support/testContext';
import { offeredTools } from './offeredTools';
import { none, requestsSince, resultText } from './emulatorAdmin';

/** A chat response stream that records what the handler gives it. */
class Recorder {
  readonly markdown: string[] = [];
  readonly buttons: vscode.Command[] = [];
  readonly progress: string[] = [];
  asStream(): vscode.ChatResponseStream {
    const stream = {
      markdown: (v: string | vscode.MarkdownString) => this.markdown.push(typeof v === 'string' ? v : v.value),
      button: (c: vscode.Command) => this.buttons.push(c),
      progress: (v: string) => this.progress.push(v),
    };
    return stream as unknown as vscode.ChatResponseStream;
  }
}

function chatRequest(command: string | undefined, prompt: string): vscode.ChatRequest {
  return { command, prompt, references: [], toolReferences: [] } as unknown as vscode.ChatRequest;
}
/** Markdown as it reads once rendered (service text and IDs are escaped). */
const unescape = (md: string): string => md.replace(/\\(.)/g, '$1');
const chatContext = { history: [] } as unknown as vscode.ChatContext;

describe('Assistant: language model tools and @agent-runs', function () {
  this.timeout(60_000);
  const context = readTestContext();
  let api: AgentRunsTestApi;
  let ext: vscode.Extension<unknown>;
  let runId = '';

  before(async function () {
    if (!context) this.skip();
    const found = vscode.extensions.all.find((e) => e.id.toLowerCase() === context.extensionId.toLowerCase());
    assert.ok(found);
    ext = found;
    api = (await ext.activate()) as AgentRunsTestApi;
    const config = vscode.workspace.getConfiguration('agentRuns');
    await config.update('appId', 'app_todo', vscode.ConfigurationTarget.Global);
    await config.update('defaultModel', 'hosted/auto', vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    const config = vscode.workspace.getConfiguration('agentRuns');
    await config.update('appId', undefined, vscode.ConfigurationTarget.Global);
    await config.update('defaultModel', undefined, vscode.ConfigurationTarget.Global);
  });

  it('registers the four tools with the editor, with their schemas and #-names', () => {
    const ours = vscode.lm.tools.filter((t) => t.name.startsWith('agentRuns_'));
    // This service serves no code reviews: the review tools are not offered (see offeredTools.ts).
    assert.equal(api.codeReviews(), false);
    assert.deepEqual(offeredTools(api, ext), ['agentRuns_createTestGroup', 'agentRuns_readRun', 'agentRuns_sendFollowUp', 'agentRuns_startRun']);
    const start = ours.find((t) => t.name === 'agentRuns_startRun');
    assert.deepEqual((start?.inputSchema as { required?: string[] }).required, ['prompt']);
    assert.equal((start?.inputSchema as { additionalProperties?: boolean }).additionalProperties, false);
    assert.equal(typeof vscode.chat.createChatParticipant, 'function');
  });

  it('start: the confirmation shows app, model and allow_edits plainly; after it, the run is listed and followed', async () => {
    const tool = api.assistant.tool('agentRuns_startRun');
    assert.ok(tool && typeof tool.prepareInvocation === 'function');
    const input = { prompt: 'Integration: tool start', permission: 'allow_edits', permittedBranches: ['main'] };
    const prepared = await tool.prepareInvocation?.({ input }, none);
    const confirm = prepared?.confirmationMessages;
    assert.ok(confirm, 'a start must be confirmed');
    assert.equal(confirm.title, 'Start an agent run that may edit app_todo?');
    const message = typeof confirm.message === 'string' ? confirm.message : confirm.message.value;
    assert.match(message, /App: `app_todo`/);
    assert.match(message, /Model: `hosted\/auto`/);
    assert.match(message, /\*\*allow_edits\*\* — the agent may change the project's code, on: `main`/);

    const text = resultText(await tool.invoke({ input, toolInvocationToken: undefined }, none));
    const id = /Started agent run (\S+) on app_todo/.exec(text)?.[1];
    assert.ok(id, text);
    runId = id;
    const record = api.ledger().get(id);
    assert.equal(record?.source, 'started');
    assert.equal(record?.permission, 'allow_edits');
    assert.ok(api.poller.isTracked(id) || api.ledger().get(id)?.status === 'completed', 'the new run is followed');
  });

  it('read: through vscode.lm.invokeTool, bounded text of the run', async () => {
    assert.ok(runId);
    const result = await vscode.lm.invokeTool('agentRuns_readRun', { input: { agentId: runId, maxMessages: 2 }, toolInvocationToken: undefined }, none);
    const text = resultText(result);
    assert.match(text, new RegExp(`^Run ${runId}\\nstatus: (queued|running|completed)`));
    assert.match(text, /app: app_todo/);
  });

  it('bad input to every tool, through vscode.lm.invokeTool: a clear sentence, nothing sent', async () => {
    const ctx = context!;
    const { next } = await requestsSince(ctx, 0);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['agentRuns_startRun', { appId: 'app_todo' }, /prompt is required/],
      ['agentRuns_startRun', { prompt: 12 }, /prompt must be text, not a number/],
      ['agentRuns_startRun', { prompt: 'x'.repeat(10 * 1024 * 1024) }, /prompt is too long: 10485760 characters, at most 100000/],
      ['agentRuns_startRun', { prompt: 'x', model: 'no/such-model' }, /model "no\/such-model" is not offered by the service/],
      ['agentRuns_startRun', { prompt: 'x', sudo: true }, /Unknown field "sudo"/],
      ['agentRuns_readRun', {}, /agentId is required/],
      ['agentRuns_readRun', { agentId: 'ag_does_not_exist' }, /ag_does_not_exist/],
      ['agentRuns_sendFollowUp', { agentId: 'ag_does_not_exist', prompt: 'go on' }, /ag_does_not_exist/],
      ['agentRuns_sendFollowUp', { agentId: runId, prompt: 'go', appId: 'other' }, /Unknown field "appId"/],
      ['agentRuns_createTestGroup', { testIds: ['A-1'] }, /name is required/],
      ['agentRuns_createTestGroup', { name: 'g', testIds: [1, 2] }, /testIds\[0\] must be text/],
      ['agentRuns_createTestGroup', { name: 'g', files: ['../../etc/passwd'] }, /is not a file in the open workspace folders/],
    ];
    for (const [name, input, expected] of cases) {
      const text = resultText(await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, none));
      assert.match(text, /^Not done: /, `${name} ${JSON.stringify(input).slice(0, 80)}`);
      assert.match(text, expected, text);
      assert.ok(text.length < 400, `${name}: ${text.length} characters`);
      assert.doesNotMatch(text, /\n\s+at /, 'no stack');
    }
    const sent = (await requestsSince(ctx, next)).requests;
    assert.deepEqual(sent.filter((r) => r.method !== 'GET'), [], 'nothing but reads was sent');
    // Reads only: the schema (model check), the unknown run, and the poller following the run started above.
    assert.ok(sent.every((r) => /\/(openapi\.json|agents\/[\w-]+(\?historyLimit=\d+)?)$/.test(r.path)), sent.map((r) => r.path).join(', '));
  });

  it('follow-up and test group: confirmed first, then sent; the group is on the service', async () => {
    const follow = api.assistant.tool('agentRuns_sendFollowUp');
    const input = { agentId: runId, prompt: 'Integration: and the tests too' };
    const prepared = await follow?.prepareInvocation?.({ input }, none);
    assert.equal(prepared?.confirmationMessages?.title, `Send a follow-up to run ${runId}?`);
    const text = resultText(await follow!.invoke({ input, toolInvocationToken: undefined }, none));
    assert.match(text, new RegExp(`Follow-up sent to run ${runId}`));
    assert.ok((api.ledger().get(runId)?.acts ?? []).some((a) => a.prompt === 'Integration: and the tests too'), 'the acknowledged follow-up is recorded with the run');

    const group = api.assistant.tool('agentRuns_createTestGroup');
    const gInput = { name: 'From the tool', testIds: ['T-2', 'T-1'] };
    const gPrepared = await group?.prepareInvocation?.({ input: gInput }, none);
    assert.equal(gPrepared?.confirmationMessages?.title, 'Create test group “From the tool” with 2 tests?');
    const gText = resultText(await group!.invoke({ input: gInput, toolInvocationToken: undefined }, none));
    const groupId = /Created test group (\S+)/.exec(gText)?.[1];
    assert.ok(groupId, gText);
    const stored = ((await (await fetch(`${context!.emulator.adminUrl}/test-groups`)).json()) as { testGroups: { groupId: string; testIds: string[] }[] }).testGroups;
    assert.deepEqual(stored.find((g) => g.groupId === groupId)?.testIds, ['T-2', 'T-1']);
  });

  it('@agent-runs /start starts a run with the settings\' defaults and streams its progress with buttons', async () => {
    const rec = new Recorder();
    const source = new vscode.CancellationTokenSource();
    const before = new Set(api.ledger().all().map((r) => r.agentId));
    const result = await api.assistant.handleChat(chatRequest('start', 'Integration: chat start'), chatContext, rec.asStream(), source.token, { intervalMs: 100, maxMs: 20_000, maxParts: 40 });
    assert.equal(result.errorDetails, undefined, rec.markdown.join('\n'));
    const started = api.ledger().all().filter((r) => !before.has(r.agentId));
    assert.equal(started.length, 1);
    const id = started[0].agentId;
    assert.equal(started[0].permission, 'read_only');
    assert.ok(unescape(rec.markdown[0] ?? '').includes(`Started run ${id} on app_todo`), rec.markdown[0]);
    assert.deepEqual(rec.buttons.map((b) => [b.command, b.arguments]), [['agentRuns.openRun', [id]], ['agentRuns.sendFollowUp', [id]]]);
    // The emulator runs a turn in a few steps: the stream starts unfinished and ends at completed.
    const statuses = rec.markdown.filter((m) => m.startsWith('**'));
    assert.match(statuses[0] ?? '', /^\*\*(queued|running)\*\*/);
    assert.match(statuses.at(-1) ?? '', /^\*\*completed\*\*/);
    assert.ok(rec.markdown.some((m) => m.startsWith('> ')), 'an agent message is quoted');
  });

  it('@agent-runs /start: a 404 just after the start (a replica that has not seen the run yet) is not the end; the run is followed to completion', async () => {
    const settings = async (patch: Record<string, unknown>): Promise<void> => {
      const res = await fetch(`${context!.emulator.adminUrl}/settings`, { method: 'PATCH', body: JSON.stringify(patch), headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 200, await res.text());
    };
    await settings({ notFoundAfterStartMs: 1500 });
    try {
      const rec = new Recorder();
      const { next } = await requestsSince(context!, 0);
      const result = await api.assistant.handleChat(chatRequest('start', 'Integration: chat start, read before the replica has it'), chatContext, rec.asStream(), none, { intervalMs: 200, maxMs: 30_000, maxParts: 60 });
      assert.equal(result.errorDetails, undefined, rec.markdown.join('\n'));
      const text = unescape(rec.markdown.join('\n'));
      assert.doesNotMatch(text, /not found|no longer in the Agent Runs list/i);
      assert.match(rec.markdown.filter((m) => m.startsWith('**')).at(-1) ?? '', /^\*\*completed\*\*/);
      const reads = (await requestsSince(context!, next)).requests.filter((r) => r.method === 'GET' && /^\/agents\/[^/?]+/.test(r.path.replace(/^.*\/api\/public\/v1/, '')));
      assert.ok(reads.some((r) => r.status === 404), 'a read found no run (else this test proves nothing)');
      assert.ok(reads.some((r) => r.status === 200), 'the run was read once the replica had it');
    } finally {
      await settings({ notFoundAfterStartMs: null });
    }
  });

  it('@agent-runs /followup with a run ID that is not in the list: read first, "not found" said, nothing posted (never to the newest run)', async () => {
    const newest = api.ledger().all()[0]?.agentId;
    assert.ok(newest, 'a run is listed (the newest would take the text if the ID were not recognised)');
    const { next } = await requestsSince(context!, 0);
    const rec = new Recorder();
    const result = await api.assistant.handleChat(chatRequest('followup', 'ag_9f3e2 add tests'), chatContext, rec.asStream(), none);
    assert.ok(result.errorDetails, rec.markdown.join('\n'));
    assert.match(unescape(rec.markdown.join('\n')), /not found|ag_9f3e2/i);
    const since = (await requestsSince(context!, next)).requests;
    assert.deepEqual(since.filter((r) => r.method === 'POST').map((r) => r.path), [], 'nothing was posted');
    assert.ok(since.some((r) => r.method === 'GET' && r.path.includes('/agents/ag_9f3e2')), 'the named run was read');
  });

  // Issue 20 §1: a code review's conversation takes no follow-ups (the one run state says so, the
  // sender refuses), and the service's 409s are said for what they are. Nothing is posted.
  describe('a code review\'s conversation and the 409s (issue 20 §1)', () => {
    const adminFault = async (rule: Record<string, unknown>): Promise<void> => {
      const res = await fetch(`${context!.emulator.adminUrl}/faults`, { method: 'POST', body: JSON.stringify(rule), headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 201, await res.text());
    };
    const startOnService = async (prompt: string): Promise<string> => {
      const res = await fetch(`${context!.emulator.baseUrl}/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${context!.emulator.tokens.default}`, 'content-type': 'application/json' },
        body: JSON.stringify({ appId: 'app_todo', prompt, model: 'hosted/fast' }),
      });
      assert.ok(res.status < 300, `POST /agents answered ${res.status}`);
      return ((await res.json()) as { agentId: string }).agentId;
    };
    /** A run whose reads say it is a code review's conversation. */
    const reviewOnService = async (prompt: string): Promise<string> => {
      const id = await startOnService(prompt);
      await adminFault({ method: 'GET', path: `^/agents/${id}$`, extraFields: { kind: 'code_review', reviewId: `rev_${id}` }, times: 0 });
      return id;
    };
    const posts = async (since: number): Promise<string[]> => (await requestsSince(context!, since)).requests.filter((r) => r.method === 'POST').map((r) => r.path);
    const NOT_DONE = 'Not done: this conversation (a code review) does not take follow-ups. Start a new run instead.';

    afterEach(async () => {
      await fetch(`${context!.emulator.adminUrl}/faults`, { method: 'DELETE' });
    });

    it('tracked by ID: the tool refuses before asking, /followup says "Not done", and nothing is posted', async () => {
      const id = await reviewOnService('Integration: a code review');
      assert.equal(await vscode.commands.executeCommand('agentRuns.trackRun', id), true);
      assert.equal(api.ledger().get(id)?.kind, 'code_review');
      const { next } = await requestsSince(context!, 0);

      const follow = api.assistant.tool('agentRuns_sendFollowUp');
      const input = { agentId: id, prompt: 'Integration: please also fix it' };
      const prepared = await follow?.prepareInvocation?.({ input }, none);
      assert.equal(prepared?.confirmationMessages, undefined, 'the person is not asked to confirm a send that cannot happen');
      assert.equal(resultText(await follow!.invoke({ input, toolInvocationToken: undefined }, none)), NOT_DONE);

      const rec = new Recorder();
      await api.assistant.handleChat(chatRequest('followup', `${id} please also fix it`), chatContext, rec.asStream(), none);
      assert.equal(unescape(rec.markdown.join('\n')), NOT_DONE);
      assert.ok(!rec.buttons.some((b) => b.command === 'agentRuns.sendFollowUp'), 'no follow-up offered');
      assert.deepEqual(await posts(next), [], 'nothing was posted');
    });

    it('not listed: /followup reads it first and refuses by that read; nothing is posted', async () => {
      const id = await reviewOnService('Integration: a code review, not tracked');
      const { next } = await requestsSince(context!, 0);
      const rec = new Recorder();
      await api.assistant.handleChat(chatRequest('followup', `${id} and this`), chatContext, rec.asStream(), none);
      assert.equal(unescape(rec.markdown.join('\n')), NOT_DONE);
      assert.deepEqual(await posts(next), []);
    });

    it('409 at the concurrent-agent limit: /start and the follow-up tool say the limit and what to do; nothing listed, nothing "may have arrived"', async () => {
      const limit = JSON.stringify({ error: 'The workspace reached its concurrent agent limit.', code: 'concurrent_agent_limit' });
      await adminFault({ method: 'POST', path: '^/agents$', status: 409, body: limit });
      const before = api.ledger().all().length;
      const rec = new Recorder();
      await api.assistant.handleChat(chatRequest('start', 'Integration: one run too many'), chatContext, rec.asStream(), none);
      assert.equal(unescape(rec.markdown.join('\n')), 'Not done: The workspace is running as many agent runs as its plan allows. Wait for a run to finish (see the active runs in the Runs view), then start again.');
      assert.deepEqual(rec.buttons.map((b) => b.command), ['agentRuns.runs.focus']);
      assert.equal(api.ledger().all().length, before, 'nothing listed');

      await adminFault({ method: 'POST', path: `^/agents/${runId}/messages$`, status: 409, body: limit });
      const text = resultText(await api.assistant.tool('agentRuns_sendFollowUp')!.invoke({ input: { agentId: runId, prompt: 'Integration: at the limit' }, toolInvocationToken: undefined }, none));
      assert.match(text, /^Not done: The workspace is running as many agent runs as its plan allows, so the follow-up was not sent\./);
      assert.ok(!(api.ledger().get(runId)?.acts ?? []).some((a) => a.prompt === 'Integration: at the limit'), 'not recorded as sent');
    });
  });

  it('@agent-runs /status stops when cancelled; /followup without text says how', async () => {
    const rec = new Recorder();
    const source = new vscode.CancellationTokenSource();
    const running = api.assistant.handleChat(chatRequest('status', runId), chatContext, rec.asStream(), source.token, { intervalMs: 60_000, maxMs: 600_000, maxParts: 40 });
    setTimeout(() => source.cancel(), 300);
    const started = Date.now();
    await running;
    assert.ok(Date.now() - started < 5000, 'cancellation ends the follow at once');
    assert.equal(rec.buttons[0]?.command, 'agentRuns.openRun');

    const help = new Recorder();
    await api.assistant.handleChat(chatRequest('followup', ''), chatContext, help.asStream(), none);
    assert.match(unescape(help.markdown.join('')), /followup <run ID>/);
  });
});
