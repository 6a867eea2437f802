// Test files → test groups: the commands, their menus' context keys and the "Test Groups" view,
// built at activation; the rest is dist/testGroups.js (./bundle.ts), loaded on first use.
import * as vscode from 'vscode';
import { lazyBundle } from '../base/common/lazyBundle';
import type { Deps, TestGroupsAccess } from '../run/deps';
import type * as TestGroupsBundle from './bundle';
import { TestFileContextKeys } from './contextKeys';
import type { CreateResult, CreateTestGroupFlow } from './createGroup';
import type { RunPrefill } from './startRun';
import { TestGroupStore } from '../run/common/testGroupStore';
import { TestGroupsTree, VIEW_ID, groupFromArgs, type TestGroupsElement } from './view';

export const CREATE_COMMAND = 'agentRuns.testGroups.create';
export const START_RUN_COMMAND = 'agentRuns.testGroups.startRun';
export const COPY_ID_COMMAND = 'agentRuns.testGroups.copyId';
export const REMOVE_COMMAND = 'agentRuns.testGroups.remove';

export { VIEW_ID };
export type { CreateResult, RunPrefill };

/** Scanning and what is built on it (./bundle.ts): the first such command, or a change of the test-ID pattern. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const testGroupsBundle = lazyBundle(() => require('./testGroups.js') as typeof TestGroupsBundle);

export interface TestGroups extends TestGroupsAccess {
  readonly store: TestGroupStore;
  readonly tree: TestGroupsTree;
  readonly view: vscode.TreeView<TestGroupsElement>;
}

export function registerTestGroups(context: vscode.ExtensionContext, deps: Deps): TestGroups {
  const store = new TestGroupStore(deps.globalState, deps.connection().baseUrl);
  const tree = new TestGroupsTree(store);
  const view = vscode.window.createTreeView<TestGroupsElement>(VIEW_ID, { treeDataProvider: tree, showCollapseAll: false });
  // Created on first use; kept, since it remembers the inputs of an unfinished attempt.
  let flow: CreateTestGroupFlow | undefined;

  context.subscriptions.push(
    store,
    tree,
    view,
    new TestFileContextKeys(() => testGroupsBundle().checkPatternSetting()),
    deps.onDidChangeConnection((c) => store.setBaseUrl(c.baseUrl)),
    vscode.commands.registerCommand(CREATE_COMMAND, (...args: unknown[]) => {
      flow ??= testGroupsBundle().createTestGroupFlow(deps, store);
      return flow.run(args);
    }),
    vscode.commands.registerCommand(START_RUN_COMMAND, async (...args: unknown[]) => {
      const group = args.length === 1 ? groupFromArgs(store, undefined, args[0]) : undefined;
      const scanning = testGroupsBundle();
      return group ? scanning.startRunForGroup(deps, group) : scanning.startRunForFiles(deps, args);
    }),
    vscode.commands.registerCommand(COPY_ID_COMMAND, async (arg: unknown) => {
      // A group the service lists is not in the store: its row carries the ID.
      const id = groupFromArgs(store, view, arg)?.groupId ?? (arg as { groupId?: unknown } | undefined)?.groupId;
      if (typeof id === 'string') await testGroupsBundle().copyGroupId(id);
    }),
    vscode.commands.registerCommand(REMOVE_COMMAND, async (arg: unknown) => {
      const group = groupFromArgs(store, view, arg);
      if (!group) return;
      await store.remove(group.groupId);
      vscode.window.setStatusBarMessage(
        vscode.l10n.t('Removed “{0}” from the list. The group still exists on the service.', group.name),
        5000,
      );
    }),
  );
  return {
    store,
    tree,
    view,
    remember: (record) => store.add(record),
    scanFiles: (paths) => testGroupsBundle().scanFilesQuietly(paths, deps.log),
  };
}

/** The service's test groups in the view; each command checks its capability again, as it can be run without its menu. */
export function registerServiceTestGroups(context: vscode.ExtensionContext, deps: Deps, groups: TestGroups): void {
  const { tree, store } = groups;
  tree.showService(() => deps.capabilities.has('serviceTestGroups'), () => testGroupsBundle().serviceGroupsView(deps, store, () => tree.refresh()));
  context.subscriptions.push(
    deps.capabilities.onDidChange(() => tree.refresh()),
    ...(['refresh', 'rename', 'editTests', 'delete', 'run'] as const).map((id) => vscode.commands.registerCommand(
      `agentRuns.serviceTestGroups.${id}`,
      (arg?: unknown) => testGroupsBundle().serviceGroupCommand(id, deps, tree, store, arg),
    )),
  );
}
