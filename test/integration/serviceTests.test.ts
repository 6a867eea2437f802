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
import type * as ServiceTestsEntry from '../../src/serviceTests/bundle';
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
  /** The published version the emulator served before this suite. */
  let wider = 'C';

  /** Starts a run with the tool (which reads /openapi.json): the capability keys learn from it. */
  const readSchema = async (): Promise<void> => {
    const result = await api.assistant.tool('agentRuns_startRun')!.invoke({ input: { prompt: 'Integration: the Test Explorer learns what the service offers' }, toolInvocationToken: undefined }, none);
    const text = result?.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('') ?? '';
    assert.match(text, /Started agent run/);
  };
  const live = () => mod.current();
  /**
   * The branches this editor knows for app_todo, and no remembered test branch: the service lists
   * none, so the branch pick offers these (then live), whatever the suites before this one used.
   */
  const knowOnly = async (branches: unknown[] | undefined): Promise<void> => {
    const baseUrl = api.connection().baseUrl ?? '';
    await api.globalState.update(`agentRuns.testBranch.v1:${baseUrl}:app_todo`, undefined);
    await api.globalState.update(`agentRuns.branches.v1:${baseUrl}:app_todo`, branches);
  };

  before(async function () {
    if (!context) this.skip();
    let ext: vscode.Extension<unknown>;
    ({ ext, api } = await activateForApp(context));
    await admin(context, 'PATCH', '/settings', { preset: 'deployed', staleReadMs: null, staleStatusAfterFollowUpMs: null });
    // Version B's tests (conditions and their branches, a group list, versions listed without a
    // branch for the branch pick); version A's groups have their own test below, C's test users the UI test's.
    ({ version: wider } = await admin(context, 'GET', '/wider') as { version: string });
    await admin(context, 'PUT', '/wider', { version: 'B' });
    await readSchema();
    await knowOnly([{ name: 'main', label: 'Main', sources: ['versions'] }]);
    await waitFor('agentRuns.serviceTests to turn on', () => (api.capability('serviceTests') ? true : undefined));
    // The same module instance the extension loaded (one require cache per extension host).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    mod = require(path.join(ext.extensionPath, 'dist', 'serviceTests.js')) as typeof ServiceTestsEntry;
    await waitFor('the test controller', () => live());
  });

  after(async () => {
    if (!context) return;
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await admin(context, 'PUT', '/wider', { version: wider });
    await knowOnly(undefined);
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
    const posts = log.filter((r) => r.method === 'POST' && r.path.endsWith('/test-runs'));
    assert.equal(posts.length, 1, 'one POST /test-runs');
    // The run's branch, with the label the service gave it, is offered next time (the service lists no branches).
    const sent = (JSON.parse(posts[0].body) as { branchId: string }).branchId;
    const known = api.globalState.get<Array<{ name: string; label?: string; sources: string[] }>>(`agentRuns.branches.v1:${api.connection().baseUrl ?? ''}:app_todo`) ?? [];
    const noted = known.find((b) => b.sources.includes('testRuns'));
    assert.ok(noted && (noted.name === sent || noted.label === sent) && noted.label, `the run's branch is known with its label: ${sent} in ${JSON.stringify(known)}`);
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

  it('a group created elsewhere (the assistant\'s tool, through the sender) is listed here without a refresh', async () => {
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

  it('Run on an app runs each of its tests once: not its groups as well, whose members are those tests', async () => {
    const ctx = context!;
    const { controller, runner } = live()!;
    await controller.refreshHandler!(none);
    const app = controller.items.get('app/app_todo')!;
    assert.ok(children(app).some((c) => c.label.startsWith('Group: ')), 'the app shows groups');
    // "Share a list" signs in as a disabled user on branches: left out here (the modal is the UI test's).
    const share = byLabel(app, 'Share a list');
    const tests = children(app).filter((c) => c.tags.length > 0 && !c.label.startsWith('Group: ') && c !== share);
    const start = (await requestsSince(ctx, 0)).next;
    await runner.run(new vscode.TestRunRequest([app], [share]), none, false);
    const posts = (await requestsSince(ctx, start)).requests.filter((r) => r.method === 'POST' && /\/test-(group-)?runs$/.test(r.path));
    assert.deepEqual(posts.map((r) => r.path.replace(/.*\//, '')).sort(), tests.map(() => 'test-runs'), JSON.stringify(posts.map((r) => [r.path, r.body])));
    const sent = posts.map((r) => (JSON.parse(r.body) as { testId: string }).testId).sort();
    assert.deepEqual(sent, [...new Set(sent)], 'no test started twice');
  });

  it('a start that lands after the cancel is not followed: said as running on the service, nothing read', async () => {
    const ctx = context!;
    const { controller, runner } = live()!;
    const add = byLabel(controller.items.get('app/app_todo'), 'Add a todo');
    await admin(ctx, 'POST', '/faults', { method: 'POST', path: '^/test-runs$', passThrough: true, delayMs: 2_500 });
    try {
      const before = mod.said.length;
      const start = (await requestsSince(ctx, 0)).next;
      const cts = new vscode.CancellationTokenSource();
      const running = runner.run(new vscode.TestRunRequest([add]), cts.token, false);
      await waitFor('the POST to be on its way', async () => (await requestsSince(ctx, start)).requests.some((r) => r.method === 'POST' && r.path.endsWith('/test-runs')));
      cts.cancel();
      await running;
      const said = mod.said.slice(before).filter((s) => s.itemId === add.id);
      assert.deepEqual(said.map((s) => s.verdict), ['skipped'], JSON.stringify(said));
      assert.match(said[0].message ?? '', /Stopped following run \S+\. The service has no way to cancel a test run: it goes on there\./);
      await sleep(2_000);
      const reads = (await requestsSince(ctx, start)).requests.filter((r) => r.method === 'GET' && /\/test-runs\//.test(r.path));
      assert.deepEqual(reads, [], 'the run is not read');
    } finally {
      await admin(ctx, 'DELETE', '/faults');
    }
  });

  it('a group deleted on the service leaves the Test Explorer on the next refresh', async () => {
    const ctx = context!;
    const { controller } = live()!;
    const name = `Deleted elsewhere ${Date.now()}`;
    const result = await api.assistant.tool('agentRuns_createTestGroup')!.invoke({ input: { name, appId: 'app_todo', testIds: ['tst_todo_add'] }, toolInvocationToken: undefined }, none);
    const text = result?.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('') ?? '';
    const item = await waitFor(`"Group: ${name}"`, () => children(controller.items.get('app/app_todo')).find((c) => c.label === `Group: ${name}`));
    const groupId = item.id.split('/').pop()!;
    assert.match(text, new RegExp(groupId));
    // Deleted by someone else (the service's own UI): nothing in this window hears of it.
    const res = await fetch(`${ctx.emulator.baseUrl}/test-groups/${groupId}`, { method: 'DELETE', headers: { authorization: `Bearer ${ctx.emulator.tokens.default}` } });
    assert.equal(res.status, 200);
    await controller.refreshHandler!(none);
    assert.equal(children(controller.items.get('app/app_todo')).find((c) => c.label === `Group: ${name}`), undefined, 'the deleted group is gone');
    assert.ok(children(controller.items.get('app/app_todo')).some((c) => c.label.startsWith('Group: ')), 'the other groups stay');
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

  it('version A (no group list): the groups created here are read by ID and shown, runnable; the seeded ones are not guessed', async () => {
    const ctx = context!;
    const { version } = await admin(ctx, 'GET', '/wider') as { version: string };
    const { controller } = live()!;
    const name = `Made under A ${Date.now()}`;
    const made = await api.assistant.tool('agentRuns_createTestGroup')!.invoke({ input: { name, appId: 'app_todo', testIds: ['tst_todo_add', 'tst_todo_filter'] }, toolInvocationToken: undefined }, none);
    assert.doesNotMatch(made?.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('') ?? '', /Not confirmed|could not|failed/i);
    try {
      await admin(ctx, 'PUT', '/wider', { version: 'A' });
      await readSchema();
      await waitFor('the group list to turn off', () => (api.capability('serviceTestGroupList') ? undefined : true));
      assert.equal(api.capability('serviceTestGroups'), true, 'a group is still read by its ID');
      const start = (await requestsSince(ctx, 0)).next;
      await controller.refreshHandler!(none);
      const groups = children(controller.items.get('app/app_todo')).filter((c) => c.label.startsWith('Group: '));
      const item = groups.find((c) => c.label === `Group: ${name}`);
      assert.ok(item, groups.map((g) => g.label).join(' | '));
      assert.equal(item.description, '2 tests');
      assert.equal(item.tags.map((t) => t.id).join(), 'agentRuns.serviceTests.runnable');
      assert.equal(groups.find((g) => g.label === 'Group: Smoke'), undefined, 'a seeded group nobody here created is not listed');
      const log = (await requestsSince(ctx, start)).requests;
      assert.equal(log.filter((r) => r.method === 'GET' && r.path.includes('/test-groups?')).length, 0, 'no list asked for');
    } finally {
      await admin(ctx, 'PUT', '/wider', { version });
      await readSchema();
    }
  });

  it('reference profile: the controller goes away', async () => {
    await admin(context!, 'PATCH', '/settings', { preset: 'reference' });
    await readSchema();
    await waitFor('agentRuns.serviceTests to turn off', () => (api.capability('serviceTests') ? undefined : true));
    await waitFor('the controller to go', () => (live() ? undefined : true));
  });
});
