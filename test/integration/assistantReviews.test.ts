// Issue 21, "Tools and chat": reading code reviews from the editor's assistant, in the extension
// host against the emulator. Deployed profile: the read tool on a seeded review (by its ID, and
// through the editor's own vscode.lm.invokeTool by its conversation's agent ID once the served
// schema has lit `agentRuns.codeReviews`), the list tool, and `@agent-runs /reviews` (the list,
// one review, and its button opening the review). Reference profile: "Not done", the tools no
// longer offered. The tools are driven through the test hooks as in assistant.test.ts.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentRunsTestApi } from '../../src/extension';
import { readTestContext, type IntegrationTestContext } from '../support/testContext';
import { offeredTools } from './offeredTools';
import { admin, none, resultText, waitFor } from './emulatorAdmin';

const REVIEW_TOOLS = ['agentRuns_listCodeReviews', 'agentRuns_readCodeReview'];
const NO_REVIEWS = 'Not done: this service offers no code reviews (its API schema, /openapi.json, lists no /code-reviews).';

async function requestsSince(context: IntegrationTestContext, n: number): Promise<{ paths: string[]; next: number }> {
  const res = await fetch(`${context.emulator.adminUrl}/requests?since=${n}`);
  const log = (await res.json()) as { requests: { method: string; path: string }[]; next: number };
  return { paths: log.requests.map((r) => `${r.method} ${r.path.replace(/^.*\/api\/public\/v1/, '')}`), next: log.next };
}

/** A chat response stream that records what the handler gives it. */
class Recorder {
  readonly markdown: string[] = [];
  readonly buttons: vscode.Command[] = [];
  asStream(): vscode.ChatResponseStream {
    const stream = {
      markdown: (v: string | vscode.MarkdownString) => this.markdown.push(typeof v === 'string' ? v : v.value),
      button: (c: vscode.Command) => this.buttons.push(c),
      progress: () => undefined,
    };
    return stream as unknown as vscode.ChatResponseStream;
  }

  /** As it reads once rendered (every service text is escaped). */
  text(): string {
    return this.markdown.join('\n').replace(/\\(.)/g, '$1');
  }
}

const chatRequest = (prompt: string): vscode.ChatRequest => ({ command: 'reviews', prompt, references: [], toolReferences: [] }) as unknown as vscode.ChatRequest;
const chatContext = { history: [] } as unknown as vscode.ChatContext;

describe('Assistant: reading code reviews (issue 21)', function () {
  this.timeout(60_000);
  const context = readTestContext();
  let api: AgentRunsTestApi;
  let ext: vscode.Extension<unknown>;
  const offered = (): string[] => offeredTools(api, ext).filter((n) => REVIEW_TOOLS.includes(n));
  const invoke = async (name: 'agentRuns_readCodeReview' | 'agentRuns_listCodeReviews', input: Record<string, unknown>): Promise<string> =>
    resultText(await api.assistant.tool(name)!.invoke({ input, toolInvocationToken: undefined }, none));

  before(async function () {
    if (!context) this.skip();
    const found = vscode.extensions.all.find((e) => e.id.toLowerCase() === context.extensionId.toLowerCase());
    assert.ok(found);
    ext = found;
    api = (await ext.activate()) as AgentRunsTestApi;
    await vscode.workspace.getConfiguration('agentRuns').update('appId', 'app_todo', vscode.ConfigurationTarget.Global);
    await admin(context, 'PATCH', '/settings', { preset: 'deployed', staleReadMs: null, staleStatusAfterFollowUpMs: null });
    // Version B lists the seeded reviews with their ids (and reads them); version C's own test is below.
    await admin(context, 'PUT', '/wider', { version: 'B' });
  });

  after(async () => {
    if (!context) return;
    await admin(context, 'PUT', '/wider', { version: 'C' });
    await admin(context, 'PATCH', '/settings', { preset: 'reference' });
    await vscode.workspace.getConfiguration('agentRuns').update('appId', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('deployed (B): reads a seeded review (summary, open items, the thread); then the editor offers both tools and reads it by its conversation', async () => {
    const { next } = await requestsSince(context!, 0);
    const text = await invoke('agentRuns_readCodeReview', { reviewId: 'rev_seed_merged' });
    for (const line of [
      'Code review rev_seed_merged', 'title: "Settings page (TODO-140)"', 'status: merged', 'app: app_todo',
      'versions compared: "Main #2" (ver_todo_002) → "Main #4" (ver_todo_004)', 'requested by: "Dev" <dev@example.com>',
      'Changes: 3 open, 0 completed', 'Comments: 2 open, 0 completed', 'Tests: 1 open, 1 completed', 'Thread: latest 4 of 4 comment(s), oldest first',
    ]) {
      assert.ok(text.split('\n').includes(line), `${line}\n---\n${text}`);
    }
    assert.match(text, /· reply: \(deleted\)$/m);
    const asked = (await requestsSince(context!, next)).paths.filter((p) => !/^GET \/agents\//.test(p));
    assert.deepEqual(asked, ['GET /openapi.json', 'GET /code-reviews/rev_seed_merged?historyLimit=1']);

    // That schema read lit agentRuns.codeReviews: the editor now offers the tools (package.json `when`).
    await waitFor('the editor to offer the review tools', () => offered().length === 2);
    const byAgent = resultText(await vscode.lm.invokeTool('agentRuns_readCodeReview', { input: { agentId: 'agt_seed_review_merged' }, toolInvocationToken: undefined }, none));
    assert.match(byAgent, /^Code review rev_seed_merged\n/);
  });

  it('deployed (B): lists the app\'s reviews, newest first per list', async () => {
    const text = await invoke('agentRuns_listCodeReviews', { appId: 'app_todo' });
    assert.match(text, /^Code reviews of app app_todo\n/);
    assert.match(text, /\nMerged: \d+\n(- [^\n]*\n)*- #\d+ rev_seed_merged · "Settings page \(TODO-140\)"/);
    assert.match(text, /\nClosed: \d+\n(- [^\n]*\n)*- #\d+ rev_seed_closed · "Retry timed-out requests"/);
  });

  it('deployed (C): the list names every review by number; the IDs it does not give are said to be unknown, a review started here keeps its ID', async () => {
    await admin(context!, 'PUT', '/wider', { version: 'C' });
    try {
      const started = resultText(await api.assistant.tool('agentRuns_startCodeReview')!.invoke({ input: { appId: 'app_todo', fromVersion: 'feature/request-timeouts', toVersion: 'main', title: 'Assistant: started here' }, toolInvocationToken: undefined }, none));
      const reviewId = /Started code review (\S+)/.exec(started)?.[1];
      assert.ok(reviewId, started);
      const text = await invoke('agentRuns_listCodeReviews', { appId: 'app_todo' });
      assert.match(text, new RegExp(`\\nOpen: \\d+\\n(- [^\\n]*\\n)*- #\\d+ ${reviewId} · "Assistant: started here"`));
      assert.match(text, /\nMerged: \d+\n(- [^\n]*\n)*- #\d+ \(review ID not known: not started or tracked in this editor\) · "Settings page \(TODO-140\)"/);
      assert.ok(!text.includes('rev_seed_merged'), 'no ID the list did not give');

      const listed = new Recorder();
      await api.assistant.handleChat(chatRequest(''), chatContext, listed.asStream(), none);
      const opens = listed.buttons.filter((b) => b.command === 'agentRuns.openCodeReview');
      assert.deepEqual(opens.map((b) => (b.arguments as Array<{ reviewId: string }>)[0].reviewId), [reviewId], 'a button only for the review whose ID is known');
    } finally {
      await admin(context!, 'PUT', '/wider', { version: 'B' });
    }
  });

  it('@agent-runs /reviews lists the app\'s reviews with buttons that open them; /reviews <ID> reads one, and its button opens the review', async () => {
    const listed = new Recorder();
    const result = await api.assistant.handleChat(chatRequest(''), chatContext, listed.asStream(), none);
    assert.equal(result.errorDetails, undefined, listed.text());
    assert.match(listed.text(), /Code reviews of app app_todo/);
    assert.match(listed.text(), /- #\d+ rev_seed_merged · "Settings page \(TODO-140\)"/);
    const opens = listed.buttons.filter((b) => b.command === 'agentRuns.openCodeReview');
    assert.ok(opens.some((b) => JSON.stringify(b.arguments) === JSON.stringify([{ reviewId: 'rev_seed_merged', appId: 'app_todo' }])), JSON.stringify(listed.buttons));
    assert.ok(opens.length <= 5);

    const one = new Recorder();
    await api.assistant.handleChat(chatRequest('rev_seed_merged'), chatContext, one.asStream(), none);
    const text = one.text();
    assert.match(text, /\*\*Code review rev_seed_merged\*\*/);
    assert.match(text, /title: "Settings page \(TODO-140\)"/);
    assert.match(text, /Tests: 1 open, 1 completed/);
    assert.match(text, /reply: \(deleted\)/);
    assert.deepEqual(one.buttons.map((b) => [b.command, b.arguments]), [['agentRuns.openCodeReview', [{ reviewId: 'rev_seed_merged', appId: 'app_todo' }]]]);

    // The button's command, as the chat would run it: the review's conversation is listed and opened.
    const [button] = one.buttons;
    assert.equal(await vscode.commands.executeCommand(button.command, (button.arguments as unknown[])[0]), true);
    const record = api.ledger().all().find((r) => r.reviewId === 'rev_seed_merged');
    assert.equal(record?.agentId, 'agt_seed_review_merged');
  });

  it('reference: the tools and /reviews say "Not done: this service offers no code reviews", read nothing but the schema, and are no longer offered', async () => {
    await admin(context!, 'PATCH', '/settings', { preset: 'reference' });
    const { next } = await requestsSince(context!, 0);
    assert.equal(await invoke('agentRuns_readCodeReview', { reviewId: 'rev_seed_merged' }), NO_REVIEWS);
    assert.equal(await invoke('agentRuns_listCodeReviews', {}), NO_REVIEWS);
    const chat = new Recorder();
    const result = await api.assistant.handleChat(chatRequest('rev_seed_merged'), chatContext, chat.asStream(), none);
    assert.equal(chat.text(), NO_REVIEWS);
    assert.equal(result.errorDetails, undefined, 'a clean refusal');
    assert.deepEqual(chat.buttons, []);
    const asked = (await requestsSince(context!, next)).paths.filter((p) => !/^GET \/agents\//.test(p));
    assert.deepEqual(asked, ['GET /openapi.json', 'GET /openapi.json', 'GET /openapi.json']);
    await waitFor('the editor to stop offering the review tools', () => offered().length === 0);
  });
});
