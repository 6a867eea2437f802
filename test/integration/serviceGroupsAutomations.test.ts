// The service's test groups in the Test Groups view and the automations under each app in the
// Runs view, end to end in the extension host against the emulator: with its deployed profile
// (which lists GET /test-groups, GET /automations… in /openapi.json) the capability keys turn on,
// the Test Groups view lists the service's groups with their counts and opens them to their
// members, and the app's row gets an "Automations" row listing them in the service's order with
// trigger, last run and its error; with its reference profile the keys are off and neither shows.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Automation } from '../../src/api/testTypes';
import type { AppNode } from '../../src/runs/common/nodes';
import type { AgentRunsTestApi } from '../../src/extension';
import type { RunsTreeElement } from '../../src/runs/runsTree';
import type { TestGroupsElement } from '../../src/testGroups/view';
import { readTestContext } from '../support/testContext';
import { activateForApp, admin, none, requestsSince, restoreReference, waitFor } from './emulatorAdmin';

describe('Service test groups and automations, against the emulator', function () {
  this.timeout(120_000);
  const context = readTestContext();
  let api: AgentRunsTestApi;

  const kindOf = (e: object): unknown => (e as { kind?: unknown }).kind;
  const isApp = (e: RunsTreeElement): e is AppNode => kindOf(e) === 'app';
  const runsChildren = async (e?: RunsTreeElement): Promise<RunsTreeElement[]> => api.runsTree.getChildren(e);
  const groupsChildren = async (e?: TestGroupsElement): Promise<TestGroupsElement[]> => (await api.testGroupsTree.getChildren(e)) ?? [];
  const groupItem = async (e: TestGroupsElement): Promise<vscode.TreeItem> => api.testGroupsTree.getTreeItem(e);
  const labelOf = (item: vscode.TreeItem): string => (typeof item.label === 'string' ? item.label : item.label?.label ?? '');
  const served = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${context!.emulator.baseUrl}${path}`, { headers: { authorization: `Bearer ${context!.emulator.tokens.default}` } });
    assert.equal(res.status, 200, path);
    return (await res.json()) as T;
  };
  /** Starts a run with the tool, which reads /openapi.json: the capability keys learn from it. */
  const readSchema = async (prompt: string): Promise<void> => {
    const result = await api.assistant.tool('agentRuns_startRun')!.invoke({ input: { prompt }, toolInvocationToken: undefined }, none);
    const text = result?.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('') ?? '';
    assert.match(text, /Started agent run \S+ on app_todo/);
  };

  /** The published version the emulator served before this suite. */
  let wider = 'C';

  before(async function () {
    if (!context) this.skip();
    ({ api } = await activateForApp(context));
    // Version B's groups (a list, components marked among the members); A's have their own test.
    ({ version: wider } = await admin(context, 'GET', '/wider') as { version: string });
    await admin(context, 'PUT', '/wider', { version: 'B' });
  });

  after(async () => {
    if (!context) return;
    await admin(context, 'PUT', '/wider', { version: wider });
    await restoreReference(context);
  });

  it('deployed profile: the service\'s groups are listed with their counts and open to their members, components marked', async () => {
    await admin(context!, 'PATCH', '/settings', { preset: 'deployed', staleReadMs: null, staleStatusAfterFollowUpMs: null });
    await readSchema('Integration: the Test Groups view learns that groups are served');
    await waitFor('agentRuns.serviceTestGroups to turn on', () => (api.capability('serviceTestGroups') ? true : undefined));

    const list = await served<{ groups: Array<{ id: string; name: string; testCount: number }> }>('/test-groups?appId=app_todo');
    assert.ok(list.groups.length >= 2, 'the emulator seeds two groups');
    const roots = await waitFor('the service\'s groups', async () => {
      const r = await groupsChildren();
      return r.some((e) => kindOf(e) === 'serviceGroup') ? r : undefined;
    });
    const items = await Promise.all(roots.filter((e) => kindOf(e) === 'serviceGroup').map(async (e) => ({ e, item: await groupItem(e) })));
    for (const g of list.groups) {
      const row = items.find((i) => i.item.id === g.id);
      assert.ok(row, `${g.id} is listed`);
      assert.equal(labelOf(row.item), g.name);
      assert.ok(String(row.item.description).includes(`${g.testCount} test`), `${g.id}: ${String(row.item.description)}`);
      assert.match(String(row.item.contextValue), /^testGroup;service/);
    }
    // A group with a component among its members (B marks it).
    let sawComponent = false;
    for (const g of list.groups) {
      const detail = await served<{ members: Array<{ testId: string; isComponent?: boolean }> }>(`/test-groups/${g.id}`);
      const row = items.find((i) => i.item.id === g.id)!;
      const members = await Promise.all((await groupsChildren(row.e)).map(groupItem));
      if (detail.members.length === 0) {
        // A group without tests says so instead of showing nothing.
        assert.deepEqual(members.map((m) => [labelOf(m), m.contextValue]), [['No tests in this group', 'serviceGroupsMessage']], `${g.id}: empty`);
        continue;
      }
      assert.deepEqual(members.map((m) => String(m.description).replace(/^component · /, '')), detail.members.map((m) => m.testId), `${g.id}: its members in order`);
      for (const [i, m] of detail.members.entries()) {
        assert.equal(members[i]?.contextValue, m.isComponent ? 'testGroupMember;component' : 'testGroupMember');
        sawComponent ||= m.isComponent === true;
      }
    }
    assert.ok(sawComponent, 'a seeded group has a component member');
  });

  it('Rename of a group whose members the answer does not give as a list: refused at once, nothing sent (no name asked, no PUT)', async () => {
    const ctx = context!;
    await waitFor('agentRuns.serviceTestGroupEdit', () => (api.capability('serviceTestGroupEdit') ? true : undefined));
    for (const fault of [{ extraFields: { members: null } }, { dropFields: ['members'] }, { extraFields: { members: [{ testId: null, membershipId: 'm1' }, { testId: 'tst_todo_add', membershipId: 'm2' }] } }]) {
      await admin(ctx, 'POST', '/faults', { method: 'GET', path: '^/test-groups/tg_todo_smoke$', times: 0, ...fault });
      try {
        const start = (await requestsSince(ctx, 0)).next;
        // Without the refusal an input box would wait for a name: the command would not settle on its own.
        const outcome = await Promise.race([
          vscode.commands.executeCommand<string>('agentRuns.serviceTestGroups.rename', { groupId: 'tg_todo_smoke', appId: 'app_todo', name: 'Smoke' }),
          new Promise<string>((r) => setTimeout(() => r('still waiting'), 5_000)),
        ]);
        assert.equal(outcome, 'cancelled', JSON.stringify(fault));
        const log = (await requestsSince(ctx, start)).requests;
        assert.ok(log.some((r) => r.method === 'GET' && r.path.endsWith('/test-groups/tg_todo_smoke')), 'the group was read');
        assert.deepEqual(log.filter((r) => r.method !== 'GET'), [], 'nothing written');
      } finally {
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        await admin(ctx, 'DELETE', '/faults');
      }
    }
    // The view says so instead of showing a smaller group.
    const roots = await groupsChildren();
    await admin(ctx, 'POST', '/faults', { method: 'GET', path: '^/test-groups/tg_todo_smoke$', times: 0, extraFields: { members: null } });
    try {
      await vscode.commands.executeCommand('agentRuns.serviceTestGroups.refresh');
      const smoke = (await groupsChildren()).find((e) => (e as { groupId?: string }).groupId === 'tg_todo_smoke');
      assert.ok(smoke, `among ${roots.length} rows`);
      const rows = await Promise.all((await groupsChildren(smoke)).map(groupItem));
      assert.deepEqual(rows.map((r) => [labelOf(r), r.contextValue]), [['Not every test of this group could be read', 'serviceGroupsMessage']]);
      assert.match(String(rows[0].description), /no list of its tests that this extension can read/);
    } finally {
      await admin(ctx, 'DELETE', '/faults');
      await vscode.commands.executeCommand('agentRuns.serviceTestGroups.refresh');
    }
  });

  it('version A (no group list): the groups created here are read by ID, shown as the service has them, and open to their members', async () => {
    const ctx = context!;
    const { version } = await admin(ctx, 'GET', '/wider') as { version: string };
    const name = `Created here, A ${Date.now()}`;
    const made = await api.assistant.tool('agentRuns_createTestGroup')!.invoke({ input: { name, appId: 'app_todo', testIds: ['tst_todo_filter', 'tst_todo_add'] }, toolInvocationToken: undefined }, none);
    const groupId = /\b(tg_[\w-]+)/.exec(made?.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('') ?? '')?.[1];
    assert.ok(groupId, 'the tool says the new group\'s ID');
    try {
      await admin(ctx, 'PUT', '/wider', { version: 'A' });
      await readSchema('Integration: version A lists no groups');
      await waitFor('the group list to turn off', () => (api.capability('serviceTestGroupList') ? undefined : true));
      await vscode.commands.executeCommand('agentRuns.serviceTestGroups.refresh');
      const roots = await groupsChildren();
      const mine = roots.find((e) => (e as { groupId?: string }).groupId === groupId);
      assert.ok(mine && kindOf(mine) === 'serviceGroup', `a service row for ${groupId}`);
      const item = await groupItem(mine);
      assert.match(String(item.contextValue), /^testGroup;service;local$/);
      assert.match(String(item.description), /2 tests/);
      assert.doesNotMatch(String(item.description), /not listed by the service/);
      assert.ok(roots.every((e) => (e as { groupId?: string }).groupId !== 'tg_todo_smoke'), 'no group nobody here created');
      const members = await Promise.all((await groupsChildren(mine)).map(groupItem));
      assert.deepEqual(members.map((m) => m.description), ['tst_todo_filter', 'tst_todo_add']);
    } finally {
      await admin(ctx, 'PUT', '/wider', { version });
      await readSchema('Integration: back to the version before');
    }
  });

  it('deployed profile: the app\'s automations are under its "Automations" row, in the service\'s order, with trigger, last run and its error', async () => {
    await waitFor('agentRuns.automations to turn on', () => (api.capability('automations') ? true : undefined));
    const app = await waitFor('the app_todo row', async () => (await runsChildren()).find((e): e is AppNode => isApp(e) && e.key === 'app_todo'));
    const rows = await runsChildren(app);
    const autos = rows.find((e) => kindOf(e) === 'automations');
    assert.ok(autos, 'an "Automations" row under the app');
    assert.equal(labelOf(api.runsTree.getTreeItem(autos)), 'Automations');
    assert.ok(rows.some((e) => kindOf(e) === 'codeReviews'), 'the "Code reviews" row is still there');

    const servedList = (await served<{ automations: Automation[] }>('/automations?appId=app_todo')).automations;
    const shown = (await runsChildren(autos)).map((e) => api.runsTree.getTreeItem(e));
    assert.deepEqual(shown.map((i) => i.id), servedList.map((a) => `automation:app_todo:${a.id}`));
    for (const [i, a] of servedList.entries()) {
      const item = shown[i];
      assert.equal(labelOf(item), a.name);
      // The tooltip's text as a person reads it (appendText escapes it).
      const tooltip = (item.tooltip as vscode.MarkdownString).value.replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');
      assert.ok(a.triggerDescription === undefined || tooltip.includes(a.triggerDescription), `${a.id}: trigger description in ${tooltip}`);
      assert.equal(String(item.description).startsWith('disabled'), !a.enabled, `${a.id}: ${String(item.description)}`);
      assert.equal(String(item.contextValue).includes('manual;'), a.canRunManually === true, `${a.id}: Run Now only for those that can run by hand`);
      if (a.lastRunError) assert.ok(tooltip.includes('The last run failed'), `${a.id}: its error as a warning`);
    }
    assert.ok(servedList.some((a) => a.lastRunError), 'a seeded automation has a last run error');
  });

  it('reference profile: the keys are off, no "Automations" row, and the Test Groups view lists only the groups created here', async () => {
    await admin(context!, 'PATCH', '/settings', { preset: 'reference' });
    await readSchema('Integration: the views learn that groups and automations are not served');
    await waitFor('agentRuns.automations to turn off', () => (api.capability('automations') || api.capability('serviceTestGroups') ? undefined : true));
    for (const root of await runsChildren()) {
      if (!isApp(root)) continue;
      const rows = await runsChildren(root);
      assert.ok(rows.every((e) => kindOf(e) !== 'automations'), `${root.key}: no automations row`);
    }
    const groups = await groupsChildren();
    assert.ok(groups.every((e) => kindOf(e) === undefined), 'only the records kept here');
  });
});
