/**
 * Test files → test groups: the commands, the context keys for their menus, and the
 * "Test Groups" view. `registerTestGroups(context, deps)` is called from `activate()`.
 */
import * as vscode from 'vscode';
import type { Deps } from '../deps';
import { TestFileContextKeys } from './contextKeys';
import { CREATE_COMMAND, CreateTestGroupFlow, copyGroupId, type CreateResult } from './createGroup';
import { START_RUN_COMMAND, startRunForFiles, startRunForGroup, type RunPrefill } from './startRun';
import { TestGroupStore } from './store';
import { TestGroupsTree, VIEW_ID, groupFromArgs, type TestGroupNode } from './view';

export const COPY_ID_COMMAND = 'agentRuns.testGroups.copyId';
export const REMOVE_COMMAND = 'agentRuns.testGroups.remove';

export { CREATE_COMMAND, START_RUN_COMMAND, VIEW_ID };
export type { CreateResult, RunPrefill };

export interface TestGroups {
  readonly store: TestGroupStore;
}

export function registerTestGroups(context: vscode.ExtensionContext, deps: Deps): TestGroups {
  const store = new TestGroupStore(context.globalState, deps.connection().baseUrl);
  const tree = new TestGroupsTree(store);
  const view = vscode.window.createTreeView<TestGroupNode>(VIEW_ID, { treeDataProvider: tree, showCollapseAll: false });
  const flow = new CreateTestGroupFlow(deps, store);

  context.subscriptions.push(
    store,
    tree,
    view,
    new TestFileContextKeys(),
    deps.onDidChangeConnection((c) => store.setBaseUrl(c.baseUrl)),
    vscode.commands.registerCommand(CREATE_COMMAND, (...args: unknown[]) => flow.run(args)),
    vscode.commands.registerCommand(START_RUN_COMMAND, async (...args: unknown[]) => {
      const group = args.length === 1 ? groupFromArgs(store, undefined, args[0]) : undefined;
      return group ? startRunForGroup(deps, group) : startRunForFiles(deps, args);
    }),
    vscode.commands.registerCommand(COPY_ID_COMMAND, async (arg: unknown) => {
      const group = groupFromArgs(store, view, arg);
      if (group) await copyGroupId(group.groupId);
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
  return { store };
}
