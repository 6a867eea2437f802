// Issue 22 §4: the app's tests and automations from the editor's assistant, in the extension host
// against the emulator. Deployed profile: once a schema read lit the capability keys the editor
// offers the tools (package.json `when`); the list tool (components apart), the read tool on a
// run started on the emulator, `@agent-runs /tests <run ID>`, and `/automations` with Run Now
// only for the manual ones. Reference profile: "Not done", the tools no longer offered.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentRunsTestApi } from '../../src/extension';
import { readTestContext } from '../support/testContext';
import { admin, none, resultText, waitFor } from './emulatorAdmin';
import { offeredTools } from './offeredTools';

const TEST_TOOLS = ['agentRuns_listAppTests', 'agentRuns_readTestRun', 'agentRuns_runAppTest', 'agentRuns_runAutomation'];

class Recorder {
  readonly markdown: string[] = [];
  readonly buttons: vscode.Command[] = [];
  asStream(): vscode.ChatResponseStream {
    return {
      markdown: (v: string | vscode.MarkdownString) => this.markdown.push(typeof v === 'string' ? v : v.value),
      button: (c: vscode.Command) => this.buttons.push(c),
      progress: () => undefined,
    } as unknown as vscode.ChatResponseStream;
  }

  text(): string {
    return this.markdown.join('\n').replace(/\\(.)/g, '$1');
  }
}

const chatRequest = (command: string, prompt: string): vscode.ChatRequest => ({ command, prompt, references: [], toolReferences: [] }) as unknown as vscode.ChatRequest;
const chatContext = { history: [] } as unknown as vscode.ChatContext;

describe('Assistant: the app\'s tests and automations (issue 22 §4)', function () {
  this.timeout(60_000);
  const context = readTestContext();
  let api: AgentRunsTestApi;
  let extension: vscode.Extension<unknown>;
  /** The test tools the editor offers now (1.139 lists disabled tools too: offeredTools applies `when`). */
  const offered = (): string[] => offeredTools(api, extension).filter((n) => TEST_TOOLS.includes(n));
  const invoke = async (name: string, input: Record<string, unknown>): Promise<string> =>
    resultText(await api.assistant.tool(name as 'agentRuns_listAppTests')!.invoke({ input, toolInvocationToken: undefined }, none));
  /** A read of the served schema (any read updates the capability keys): the review list tool asks it first. */
  const readSchema = (): Promise<string> => invoke('agentRuns_listCodeReviews', {});
  const ask = async (command: string, prompt: string): Promise<Recorder> => {
    const r = new Recorder();
    await api.assistant.handleChat(chatRequest(command, prompt), chatContext, r.asStream(), none);
    return r;
  };

  before(async function () {
    if (!context) this.skip();
    const ext = vscode.extensions.all.find((e) => e.id.toLowerCase() === context.extensionId.toLowerCase());
    assert.ok(ext);
    extension = ext;
    api = (await ext.activate()) as AgentRunsTestApi;
    await vscode.workspace.getConfiguration('agentRuns').update('appId', 'app_todo', vscode.ConfigurationTarget.Global);
    await admin(context, 'PATCH', '/settings', { preset: 'deployed', staleReadMs: null, staleStatusAfterFollowUpMs: null });
  });

  after(async () => {
    if (!context) return;
    await admin(context, 'PATCH', '/settings', { preset: 'reference' });
    await vscode.workspace.getConfiguration('agentRuns').update('appId', undefined, vscode.ConfigurationTarget.Global);
  });

  it('deployed: the editor offers the tools once the schema lit the keys; lists the tests with the component apart', async () => {
    await readSchema();
    await waitFor('the editor to offer the test tools', () => offered().length === TEST_TOOLS.length);
    const text = await invoke('agentRuns_listAppTests', {});
    assert.match(text, /^Tests of app app_todo\n/);
    const [tests, components] = text.split('\nComponents: ');
    assert.match(tests, /- tst_todo_add · /);
    assert.doesNotMatch(tests, /cmp_todo_sign_in/);
    assert.match(components, /- cmp_todo_sign_in · /);
  });

  it('deployed: reads a test run (steps, statuses) by the tool and by /tests <run ID>', async () => {
    const res = await fetch(`${context!.emulator.baseUrl}/test-runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${context!.emulator.tokens.default}`, 'content-type': 'application/json' },
      body: JSON.stringify({ testId: 'tst_todo_filter', branchId: 'live' }),
    });
    assert.equal(res.status, 201);
    const { runId } = (await res.json()) as { runId: string };
    const text = await invoke('agentRuns_readTestRun', { runId });
    assert.match(text, new RegExp(`^Test run ${runId}\\n`));
    assert.match(text, /test: tst_todo_filter/);
    assert.match(text, /branch: LIVE — the live app, its live test user/);
    assert.match(text, /\nSteps: [1-9]/);
    const chat = await ask('tests', runId);
    assert.match(chat.text(), new RegExp(`Test run ${runId}`));
    assert.match(await invoke('agentRuns_readTestRun', { runId: 'tr_does_not_exist' }), /^Not done: /);
  });

  it('deployed: /automations lists them, with Run Now only for the manual ones', async () => {
    const r = await ask('automations', '');
    assert.match(r.text(), /aut_todo_nightly · "Nightly regression" · enabled · trigger cron/);
    assert.deepEqual(r.buttons.map((b) => [b.command, (b.arguments?.[0] as { automationId: string }).automationId]).sort(), [
      ['agentRuns.automations.runNow', 'aut_todo_release_notes'],
      ['agentRuns.automations.runNow', 'aut_todo_smoke'],
    ]);
  });

  it('reference: "Not done" and nothing offered once the schema lists no tests', async () => {
    await admin(context!, 'PATCH', '/settings', { preset: 'reference' });
    await readSchema();
    await waitFor('the editor to stop offering the test tools', () => offered().length === 0);
    assert.match(await invoke('agentRuns_listAppTests', {}), /^Not done: this service does not offer the app's tests/);
    assert.match((await ask('automations', '')).text(), /^Not done: this service does not list automations/);
  });
});
