// The Test Explorer as an entry point, in the extension host: a TestController made by this
// suite (items with ranges in a copy of test/fixtures/testfiles/checkout.test.js, a failed run
// with a diff message), our commands called with those items as the Testing view passes them,
// the quick inputs accepted with the workbench's own command (as Enter would), the emulator
// telling what was stored and started.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentRunsTestApi } from '../../src/extension';
import { readTestContext } from '../support/testContext';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function fixturesDir(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'test', 'fixtures', 'testfiles');
    if (fs.existsSync(path.join(candidate, 'checkout.test.js'))) return candidate;
  }
  throw new Error(`test/fixtures/testfiles not found above ${__dirname}`);
}

/** Runs a command and presses Enter on each quick input that shows until it resolves. */
async function runAccepting<T>(command: string, ...args: unknown[]): Promise<T> {
  let done = false;
  const running = Promise.resolve(vscode.commands.executeCommand<T>(command, ...args)).finally(() => {
    done = true;
  });
  const started = Date.now();
  while (!done && Date.now() - started < 20_000) {
    await sleep(250);
    if (!done) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
  }
  return running;
}

interface StoredGroup {
  groupId: string;
  testIds: string[];
}

describe('Test Explorer: test groups and Ask Agent to Fix', function () {
  this.timeout(90_000);
  const context = readTestContext();
  let api: AgentRunsTestApi;
  let controller: vscode.TestController;
  let file: vscode.Uri;
  let suite: vscode.TestItem;
  let adds: vscode.TestItem;
  let discount: vscode.TestItem;

  before(async function () {
    if (!context) this.skip();
    const ext = vscode.extensions.all.find((e) => e.id.toLowerCase() === context.extensionId.toLowerCase());
    assert.ok(ext);
    api = (await ext.activate()) as AgentRunsTestApi;
    const ws = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? context.workspaceFolder;
    fs.mkdirSync(path.join(ws, 'tx'), { recursive: true });
    fs.copyFileSync(path.join(fixturesDir(), 'checkout.test.js'), path.join(ws, 'tx', 'checkout.test.js'));
    file = vscode.Uri.file(path.join(ws, 'tx', 'checkout.test.js'));
    const lines = fs.readFileSync(file.fsPath, 'utf8').split('\n');
    const line = (text: string): number => lines.findIndex((l) => l.includes(text));
    // As a test extension reports them: each range starts at `it(`, below its @testId comment.
    controller = vscode.tests.createTestController('agentRunsIntegration', 'Integration tests');
    suite = controller.createTestItem('checkout', 'checkout', file);
    suite.range = new vscode.Range(line("describe('checkout'"), 0, line('});', ) + 30, 0);
    adds = controller.createTestItem('adds', 'adds an item to the cart', file);
    adds.range = new vscode.Range(line("it('adds an item"), 2, line("it('adds an item") + 2, 5);
    discount = controller.createTestItem('discount', 'applies a discount code', file);
    discount.range = new vscode.Range(line("it('applies a discount"), 2, line("it('applies a discount") + 2, 5);
    suite.children.replace([adds, discount]);
    controller.items.replace([suite]);
    const config = vscode.workspace.getConfiguration('agentRuns');
    await config.update('appId', 'app_todo', vscode.ConfigurationTarget.Global);
    await config.update('defaultModel', 'hosted/auto', vscode.ConfigurationTarget.Global);
  });

  afterEach(async () => {
    await vscode.workspace.getConfiguration('agentRuns').update('testExplorer.testIdSource', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  after(async () => {
    controller?.dispose();
    const config = vscode.workspace.getConfiguration('agentRuns');
    await config.update('appId', undefined, vscode.ConfigurationTarget.Global);
    await config.update('defaultModel', undefined, vscode.ConfigurationTarget.Global);
  });

  async function stored(groupId: string): Promise<StoredGroup | undefined> {
    const res = await fetch(`${context!.emulator.adminUrl}/test-groups`);
    return ((await res.json()) as { testGroups: StoredGroup[] }).testGroups.find((g) => g.groupId === groupId);
  }

  it('Create Test Group from These Tests: the IDs of the items\' lines (and the annotations above them), nothing else of the file', async () => {
    const result = await runAccepting<{ groupId: string } | undefined>('agentRuns.testing.createGroup', adds, discount);
    assert.ok(result, 'no group created');
    assert.deepEqual((await stored(result.groupId))?.testIds, ['CHK-001', 'CHK-002']);
  });

  it('with agentRuns.testExplorer.testIdSource = label: the labels, in the order given', async () => {
    await vscode.workspace.getConfiguration('agentRuns').update('testExplorer.testIdSource', 'label', vscode.ConfigurationTarget.Global);
    const result = await runAccepting<{ groupId: string } | undefined>('agentRuns.testing.createGroup', discount, adds);
    assert.ok(result);
    assert.deepEqual((await stored(result.groupId))?.testIds, ['applies a discount code', 'adds an item to the cart']);
  });

  it('Ask Agent to Fix: the launch form pre-filled from the failure; the run started is linked to the test', async () => {
    const message = vscode.TestMessage.diff('Expected the cart total to be 3', '3', '2');
    message.stackTrace = [new vscode.TestMessageStackFrame('addItem', file, new vscode.Position(9, 4))];
    const run = controller.createTestRun(new vscode.TestRunRequest([adds]), 'integration', false);
    run.failed(adds, message, 12);
    run.end();
    const before = new Set(api.ledger().all().map((r) => r.agentId));
    await runAccepting('agentRuns.testing.askToFix', { test: adds, message });
    const started = api.ledger().all().filter((r) => !before.has(r.agentId));
    assert.equal(started.length, 1, 'one run started from the form');
    const prompt = started[0].prompt ?? '';
    assert.match(prompt, /^The test “checkout › adds an item to the cart” fails\./);
    assert.match(prompt, /Test location: tx\/checkout\.test\.js:\d+/);
    for (const part of ['Expected the cart total to be 3', 'Expected:\n```\n3\n```', 'Actual:\n```\n2\n```', 'at addItem (tx/checkout.test.js:10:5)', "it('adds an item to the cart'"]) {
      assert.ok(prompt.includes(part), `${part} missing from:\n${prompt}`);
    }
    assert.equal(started[0].appId, 'app_todo');

    // The link: "Show Agent Run for This Test" opens that run's panel.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('agentRuns.testing.showRun', adds);
    const deadline = Date.now() + 10_000;
    const panelOpen = (): boolean => vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.includes('agentRuns.run')));
    while (!panelOpen() && Date.now() < deadline) await sleep(100);
    assert.ok(panelOpen(), 'the run panel did not open');
  });

  it('Ask Agent to Fix bounds the prompt by agentRuns.selection.maxCharacters', async () => {
    const huge = new vscode.TestMessage(`boom ${'x'.repeat(50_000)}`);
    await vscode.workspace.getConfiguration('agentRuns').update('selection.maxCharacters', 1000, vscode.ConfigurationTarget.Global);
    try {
      const before = new Set(api.ledger().all().map((r) => r.agentId));
      await runAccepting('agentRuns.testing.askToFix', { test: discount, message: huge });
      const started = api.ledger().all().filter((r) => !before.has(r.agentId));
      assert.equal(started.length, 1);
      const prompt = started[0].prompt ?? '';
      assert.ok(prompt.length <= 1000, `${prompt.length} characters`);
      assert.match(prompt, /applies a discount code/);
    } finally {
      await vscode.workspace.getConfiguration('agentRuns').update('selection.maxCharacters', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
