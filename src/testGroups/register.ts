/**
 * Test files → test groups: the commands, the context keys for their menus, and the
 * "Test Groups" view. `registerTestGroups(context, deps)` is called from `activate()`.
 *
 * The view, the store and the context keys are built here, at activation. Scanning files for
 * test IDs, creating groups and starting runs about tests are another bundle
 * (`src/testGroups/entry.ts`), loaded when one of those commands first runs.
 */
import * as vscode from 'vscode';
import type { Deps, TestGroupsAccess } from '../run/deps';
import { loadTestGroups } from './load';
import { TestFileContextKeys } from './contextKeys';
import { copyGroupId } from './copyId';
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
    new TestFileContextKeys(),
    deps.onDidChangeConnection((c) => store.setBaseUrl(c.baseUrl)),
    vscode.commands.registerCommand(CREATE_COMMAND, (...args: unknown[]) => {
      flow ??= loadTestGroups().createTestGroupFlow(deps, store);
      return flow.run(args);
    }),
    vscode.commands.registerCommand(START_RUN_COMMAND, async (...args: unknown[]) => {
      const group = args.length === 1 ? groupFromArgs(store, undefined, args[0]) : undefined;
      const scanning = loadTestGroups();
      return group ? scanning.startRunForGroup(deps, group) : scanning.startRunForFiles(deps, args);
    }),
    vscode.commands.registerCommand(COPY_ID_COMMAND, async (arg: unknown) => {
      // A group the service lists is not in the store: its row carries the ID.
      const id = groupFromArgs(store, view, arg)?.groupId ?? (arg as { groupId?: unknown } | undefined)?.groupId;
      if (typeof id === 'string') await copyGroupId(id);
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
    scanFiles: (paths) => loadTestGroups().scanFilesQuietly(paths, deps.log),
  };
}
