// The launch flow in the extension host: the real commands and quick inputs (accepted with
// the workbench's own accept command, as Enter would), the real client against the service
// emulator, and the ledger and poller seen through the test API activate() returns.
// The typing parts (every step, errors, selection, compose) are covered by the UI tests.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { LedgerEntry } from '../../src/run/common/ledger/ledger';
import type { AgentRunsTestApi } from '../../src/extension';
import { readTestContext } from '../support/testContext';
import { requestsSince } from './emulatorAdmin';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Runs a command that opens the launch form and presses Enter on whatever step shows (the
 * review's first item is "Start Agent Run") until the command resolves.
 */
async function runAccepting(command: string, ...args: unknown[]): Promise<void> {
  let done = false;
  const running = Promise.resolve(vscode.commands.executeCommand(command, ...args)).finally(() => {
    done = true;
  });
  const started = Date.now();
  while (!done && Date.now() - started < 15_000) {
    await sleep(250);
    if (!done) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
  }
  await running;
}

function newRuns(api: AgentRunsTestApi, before: ReadonlySet<string>): LedgerEntry[] {
  return api.ledger().all().filter((r) => !before.has(r.agentId));
}

describe('Start an agent run (extension host)', function () {
  this.timeout(60_000);
  const context = readTestContext();
  let api: AgentRunsTestApi;

  before(async function () {
    if (!context) this.skip();
    const ext = vscode.extensions.all.find((e) => e.id.toLowerCase() === context.extensionId.toLowerCase());
    assert.ok(ext, `${context.extensionId} is not installed`);
    api = (await ext.activate()) as AgentRunsTestApi;
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  });

  it('agentRuns.startRun with a prefill argument opens at the review; Enter starts it, recorded and polled', async () => {
    const ctx = context!;
    const before = new Set(api.ledger().all().map((r) => r.agentId));
    const { next } = await requestsSince(ctx, 0);
    const prefill = { appId: 'app_todo', prompt: 'Integration: list the failing tests\nwith their owners', model: 'hosted/auto' };
    await runAccepting('agentRuns.startRun', prefill);

    const [run] = newRuns(api, before);
    assert.ok(run, 'no run was added to the ledger');
    assert.equal(run.source, 'started');
    assert.equal(run.prompt, prefill.prompt);
    assert.equal(run.model, 'hosted/auto');
    assert.equal(run.appId, 'app_todo');
    assert.equal(run.reasoningEffort, 'medium');
    assert.equal(run.permission, 'read_only');
    assert.equal(typeof run.createdAt, 'number');
    // Followed at once: tracked by the poller (or already finished by its first fast reads).
    assert.ok(api.poller.isTracked(run.agentId) || run.status === 'completed' || run.status === 'running', `status ${run.status}, not tracked`);

    const posts = (await requestsSince(ctx, next)).requests.filter((r) => r.method === 'POST' && /\/agents$/.test(r.path));
    assert.equal(posts.length, 1, 'exactly one POST /agents');
    assert.deepEqual(JSON.parse(posts[0].body), { ...prefill, reasoningEffort: 'medium', permission: 'read_only' });
  });

  it('the started run\'s row: its title is the label, the description only its age; status and model in the tooltip and the spoken label', async () => {
    const run = api.ledger().all().find((r) => r.source === 'started' && r.prompt?.startsWith('Integration: list the failing tests'));
    assert.ok(run, 'the previous test left no run');
    type Element = Parameters<AgentRunsTestApi['runsTree']['getTreeItem']>[0];
    const rows: Element[] = [];
    for (const top of await api.runsTree.getChildren()) {
      if ((top as { kind?: unknown }).kind !== 'app') continue;
      rows.push(...(await api.runsTree.getChildren(top)).filter((e) => (e as { kind?: unknown }).kind === 'run'));
    }
    const item = rows.map((e) => api.runsTree.getTreeItem(e)).find((i) => i.id === `run:${run.agentId}`);
    assert.ok(item, 'the run has no row');
    assert.equal(item.label, 'Integration: list the failing tests');
    assert.match(String(item.description), /^(now|\d+ s|\d+ min)$/);
    const tooltip = item.tooltip instanceof vscode.MarkdownString ? item.tooltip.value : String(item.tooltip);
    assert.match(tooltip, /hosted\/auto/);
    assert.match(item.accessibilityInformation?.label ?? '', /^Integration: list the failing tests, (queued|running|completed), /);
  });

  it('agentRuns.cloneRun re-opens the form pre-filled from a run in the list', async () => {
    const source = api.ledger().all().find((r) => r.source === 'started' && r.prompt?.startsWith('Integration:'));
    assert.ok(source, 'the previous test left no run to clone');
    const before = new Set(api.ledger().all().map((r) => r.agentId));
    await runAccepting('agentRuns.cloneRun', source.agentId);
    const [clone] = newRuns(api, before);
    assert.ok(clone, 'the clone was not started');
    assert.notEqual(clone.agentId, source.agentId);
    assert.equal(clone.prompt, source.prompt);
    assert.equal(clone.model, source.model);
    assert.equal(clone.appId, source.appId);
  });

  it('agentRuns.cloneRun with an ID that is not in the list does nothing but say so', async () => {
    const before = api.ledger().all().length;
    await vscode.commands.executeCommand('agentRuns.cloneRun', 'agt_not_in_the_list');
    assert.equal(api.ledger().all().length, before);
  });

  it('the launch commands are registered, and hidden from the palette where they need a context', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const id of ['agentRuns.startRun', 'agentRuns.startRunWithSelection', 'agentRuns.cloneRun']) {
      assert.ok(registered.has(id), `${id} is not registered`);
    }
    const ext = vscode.extensions.all.find((e) => e.id.toLowerCase() === context!.extensionId.toLowerCase())!;
    const menus = (ext.packageJSON as { contributes: { menus: Record<string, Array<{ command: string; when?: string }>> } }).contributes.menus;
    // Clone Run is in the palette once signed in: without an argument it asks which run to clone.
    assert.equal(menus.commandPalette.find((m) => m.command === 'agentRuns.cloneRun')?.when, 'agentRuns.configured && agentRuns.signedIn');
    // Copy Agent ID and Copy Link too: without an argument they act on the run whose panel is in front, else ask.
    for (const command of ['agentRuns.copyAgentId', 'agentRuns.copyLink']) {
      assert.equal(menus.commandPalette.find((m) => m.command === command)?.when, 'agentRuns.configured', command);
    }
    assert.equal(menus['editor/context'].find((m) => m.command === 'agentRuns.startRunWithSelection')?.when, 'editorHasSelection');
    // The test-file commands: in the palette only with a test file in the editor, as in its menu (the UI test opens one).
    for (const command of ['agentRuns.testGroups.create', 'agentRuns.testGroups.startRun']) {
      const editorWhen = menus['editor/context'].find((m) => m.command === command)?.when;
      assert.ok(editorWhen, command);
      assert.equal(menus.commandPalette.find((m) => m.command === command)?.when, editorWhen, command);
    }
  });
});
