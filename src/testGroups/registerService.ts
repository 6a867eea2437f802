/**
 * The service's test groups in the Test Groups view (activation side, kept small): shown while
 * `agentRuns.serviceTestGroups` is on, with Refresh, Rename, Edit Tests, Delete and Run Group
 * (each menu item has a `when` on its own key, and each body checks it again). The rows and the
 * commands' bodies load with dist/testGroups.js (src/testGroups/serviceCommands.ts).
 */
import * as vscode from 'vscode';
import type { Deps } from '../run/deps';
import { loadTestGroups } from './load';
import type { TestGroups } from './register';

export function registerServiceTestGroups(context: vscode.ExtensionContext, deps: Deps, groups: TestGroups): void {
  const { tree, store } = groups;
  tree.showService(() => deps.capabilities.has('serviceTestGroups'), () => loadTestGroups().serviceGroupsView(deps, store, () => tree.refresh()));
  context.subscriptions.push(
    deps.capabilities.onDidChange(() => tree.refresh()),
    ...(['refresh', 'rename', 'editTests', 'delete', 'run'] as const).map((id) => vscode.commands.registerCommand(
      `agentRuns.serviceTestGroups.${id}`,
      (arg?: unknown) => loadTestGroups().serviceGroupCommand(id, deps, tree, store, arg),
    )),
  );
}
