// The app's tests in the Test Explorer (issue 22 §1), in the extension host against the
// emulator's deployed profile: the controller `agentRuns.serviceTests` appears once the served
// schema lists the tests' operations, lists app_todo's tests with the components apart (not
// runnable), reads a test's steps with a condition's two branches; a run started from the run
// profile (the branch picked with the workbench's own accept, as Enter would) reports each step
// as it ends, a warning as a pass that says so, and reading stops once it ended; a group run
// lists its members with their steps; a failed test's "Ask Agent to Fix" text has its failed
// steps and comments. Against the reference profile the controller goes away.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentRunsTestApi } from '../../src/extension';
import type * as ServiceTestsEntry from '../../src/serviceTests/entry';
import { readTestContext } from '../support/testContext';
import { activateForApp, admin, none, requestsSince, restoreReference, served, waitFor } from './emulatorAdmin';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs `work`, accepting the quick pick it shows (as Enter would) until it resolves. */
async function accepting<T>(work: Promise<T>, ms = 60_000): Promise<T> {
  let done = false;
  const running = work.finally(() => {
    done = true;
  });
  const until = Date.now() + ms;
  while (!done && Date.now() < until) {
    await sleep(300);
    if (!done) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
  }
  assert.ok(done, 'did not finish: the branch pick was not accepted');
  return running;
}

const children = (item: vscode.TestItem | undefined): vscode.TestItem[] => {
  const out: vscode.TestItem[] = [];
  item?.children.forEach((c) => out.push(c));
  return out.sort((a, b) => (a.sortText ?? a.label).localeCompare(b.sortText ?? b.label));
};
const byLabel = (item: vscode.TestItem | undefined, label: string): vscode.TestItem => {
  const found = children(item).find((c) => c.label === label);
  assert.ok(found, `${item?.label ?? '?'} has "${label}": ${children(item).map((c) => c.label).join(', ')}`);
  return found;
};

describe('The app\'s tests in the Test Explorer (extension host, deployed profile)', function () {
  this.timeout(180_000);
  const context = readTestContext();
  let api: AgentRunsTestApi;
  let mod: typeof ServiceTestsEntry;

  /** Starts a run with the tool (which reads /openapi.json): the capability keys learn from it. */
  const readSchema = async (): Promise<void> => {
    const result = await api.assistant.tool('agentRuns_startRun')!.invoke({ input: { prompt: 'Integration: the Test Explorer learns what the service offers' }, toolInvocationToken: undefined }, none);
    const text = result?.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('') ?? '';
    assert.match(text, /Started agent run/);
  };
  const live = () => mod.current();

  before(async function () {
    if (!context) this.skip();
    let ext: vscode.Extension<unknown>;
    ({ ext, api } = await activateForApp(context));
    await admin(context, 'PATCH', '/settings', { preset: 'deployed', staleReadMs: null, staleStatusAfterFollowUpMs: null });
    await readSchema();
    await waitFor('agentRuns.serviceTests to turn on', () => (api.capability('serviceTests') ? true : undefined));
    // The same module instance the extension loaded (one require cache per extension host).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    mod = require(path.join(ext.extensionPath, 'dist', 'serviceTests.js')) as typeof ServiceTestsEntry;
    await waitFor('the test controller', () => live());
  });

  after(async () => {
    if (!context) return;
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await restoreReference(context);
  });

  it('lists the app\'s tests, the components apart and not runnable, and a test\'s steps with both branches of its condition', async () => {
    const { controller } = live()!;
    assert.equal(controller.id, 'agentRuns.serviceTests');
    assert.equal(controller.label, 'Agent Runs: App Tests');
    await controller.refreshHandler!(none);
    const app = controller.items.get('app/app_todo');
    assert.ok(app, 'the configured app is listed');
    for (const name of ['Add a todo', 'Filter completed todos', 'Delete a todo', 'Share a list']) {
      assert.equal(byLabel(app, name).tags.map((t) => t.id).join(), 'agentRuns.serviceTests.runnable', `${name} can run`);
    }
    const components = byLabel(app, 'Components');
    assert.deepEqual(components.tags, []);
    assert.deepEqual(children(components).map((c) => [c.label, c.tags.length]), [['Sign in', 0]]);
    // The service's groups of the app, runnable like a test, between the tests and the components.
    const listed = (await served<{ groups: Array<{ id: string; name: string }> }>(context!, '/test-groups?appId=app_todo')).groups;
    assert.ok(listed.length > 0, 'the emulator lists groups of app_todo');
    for (const g of listed) {
      const item = byLabel(app, `Group: ${g.name}`);
      assert.equal(item.id, `app/app_todo/group/${g.id}`);
      assert.equal(item.tags.map((t) => t.id).join(), 'agentRuns.serviceTests.runnable', `${g.name} can run`);
    }
    // As the Testing view orders them (sortText, else the label, compared as file names are).
    const collator = new Intl.Collator(undefined, { numeric: true });
    const order = children(app).sort((a, b) => collator.compare(a.sortText ?? a.label, b.sortText ?? b.label)).map((c) => c.label);
    assert.equal(order[order.length - 1], 'Components');
    assert.ok(order.slice(-1 - listed.length, -1).every((l) => l.startsWith('Group: ')), order.join(' | '));

    const filter = byLabel(app, 'Filter completed todos');
    await controller.resolveHandler!(filter);
    const condition = children(filter).find((c) => c.label.startsWith('If: '));
    assert.ok(condition, `a condition among ${children(filter).map((c) => c.label).join(' | ')}`);
    assert.deepEqual(children(condition).map((c) => c.label), ['if met', 'if not met']);
    assert.ok(children(condition).every((b) => b.children.size > 0), 'both branches have their steps');
    const add = byLabel(app, 'Add a todo');
    await controller.resolveHandler!(add);
    assert.ok(children(add).some((c) => c.label === 'Component: Sign in'), `the component reference is named: ${children(add).map((c) => c.label).join(' | ')}`);
  });

  it('runs a test from the run profile: each step as it ends, the warning a pass that says so, and no read once it ended', async () => {
    const ctx = context!;
    const { controller } = live()!;
    const filter = byLabel(controller.items.get('app/app_todo'), 'Filter completed todos');
    const before = mod.said.length;
    const start = (await requestsSince(ctx, 0)).next;
    // The profile's own handler, as the Test Explorer's Run calls it; the branch is picked once.
    const runs = live()!.runner;
    await accepting(runs.run(new vscode.TestRunRequest([filter]), none, false));
    const said = mod.said.slice(before);
    const test = said.filter((s) => s.itemId === filter.id).pop();
    assert.ok(test, JSON.stringify(said));
    assert.equal(test.verdict, 'passed');
    assert.match(test.message ?? '', /Passed with warnings \(the service says “warning”\)/);
    const steps = said.filter((s) => s.itemId.startsWith(`${filter.id}/`));
    assert.ok(steps.some((s) => s.verdict === 'skipped' && /Skipped/.test(s.message ?? '')), `the untaken branch is skipped: ${JSON.stringify(steps)}`);
    assert.ok(steps.some((s) => s.verdict === 'passed' && /Warning \(the service says “warning”\)/.test(s.message ?? '')), `the warning is shown: ${JSON.stringify(steps)}`);
    const log = (await requestsSince(ctx, start)).requests;
    assert.equal(log.filter((r) => r.method === 'POST' && r.path.endsWith('/test-runs')).length, 1, 'one POST /test-runs');
    const mark = (await requestsSince(ctx, 0)).next;
    await sleep(3_000);
    assert.deepEqual((await requestsSince(ctx, mark)).requests.filter((r) => /test-(group-)?runs/.test(r.path)), [], 'nothing read once the run ended');
  });

  it('runs a group (agentRuns.serviceTests.runGroup): its members as the group run lists them, with their steps', async () => {
    const before = mod.said.length;
    await vscode.commands.executeCommand('agentRuns.serviceTests.runGroup', { groupId: 'tg_todo_smoke', appId: 'app_todo', name: 'Smoke' });
    const said = mod.said.slice(before);
    const group = said.find((s) => s.label === 'Group: Smoke');
    assert.ok(group, JSON.stringify(said));
    assert.equal(group.verdict, 'passed');
    const members = said.filter((s) => s.itemId.startsWith(`${group.itemId}/`) && s.itemId.split('/').length === group.itemId.split('/').length + 1);
    assert.deepEqual([...new Set(members.map((m) => m.label))].sort(), ['Add a todo', 'Filter completed todos']);
    assert.ok(said.some((s) => s.itemId.startsWith(`${group.itemId}/tst_todo_add/`) && s.verdict === 'passed'), 'the members\' steps have their results');
  });

  it('a group created elsewhere (the assistant\'s tool, through the send door) is listed here without a refresh', async () => {
    const { controller } = live()!;
    await controller.refreshHandler!(none); // the Testing view has read the app's tests and groups
    const name = `Made by the tool ${Date.now()}`;
    const tool = api.assistant.tool('agentRuns_createTestGroup')!;
    const result = await tool.invoke({ input: { name, appId: 'app_todo', testIds: ['tst_todo_add'] }, toolInvocationToken: undefined }, none);
    const text = result?.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('') ?? '';
    assert.doesNotMatch(text, /Not confirmed|could not|failed/i, text);
    const item = await waitFor(`"Group: ${name}" in the Test Explorer`, () => children(controller.items.get('app/app_todo')).find((c) => c.label === `Group: ${name}`));
    assert.equal(item.description, '1 test');
  });

  it('a failed test: its failure for "Ask Agent to Fix" lists the failed step and its comment', async () => {
    const { controller, runner } = live()!;
    const remove = byLabel(controller.items.get('app/app_todo'), 'Delete a todo');
    await runner.run(new vscode.TestRunRequest([remove]), none, false);
    const described = runner.describe(remove);
    assert.ok(described);
    assert.equal(described.linkTo, remove);
    assert.match(described.failed.message, /Steps that did not pass:\n- /);
    assert.match(described.failed.message, /Failed \(the service says “error”\)/);
    assert.match(described.failed.message, /Cancelled \(the service says “cancelled”\)/);
    const step = children(remove).find((c) => runner.describe(c) !== undefined);
    assert.equal(step && runner.describe(step)?.linkTo, remove, 'a step\'s message links to its test');
  });

  it('reference profile: the controller goes away', async () => {
    await admin(context!, 'PATCH', '/settings', { preset: 'reference' });
    await readSchema();
    await waitFor('agentRuns.serviceTests to turn off', () => (api.capability('serviceTests') ? undefined : true));
    await waitFor('the controller to go', () => (live() ? undefined : true));
  });
});
