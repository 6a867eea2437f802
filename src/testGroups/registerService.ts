/**
 * The service's test groups in the Test Groups view (activation side, kept small): shown while
 * `agentRuns.serviceTestGroups` is on, with Refresh, Rename, Edit Tests, Delete and Run Group
 * (each menu item has a `when` on its own key). The rows and the commands' bodies load with
 * dist/testGroups.js.
 */
import * as vscode from 'vscode';
import type { Capability } from '../core/capabilities';
import type { Deps } from '../runs/deps';
import { loadTestGroups } from './load';
import type { TestGroups } from './register';
import type { ServiceGroupsView } from './serviceRows';

export function registerServiceTestGroups(context: vscode.ExtensionContext, deps: Deps, groups: TestGroups): void {
  const { tree, store } = groups;
  const on = (c: Capability): boolean => deps.capabilities.has(c);
  tree.showService(() => on('serviceTestGroups'), () => loadTestGroups().serviceGroupsView(deps, store, () => tree.refresh()));
  const rows = (): ServiceGroupsView | undefined => tree.serviceRows() as ServiceGroupsView | undefined;
  const command = (id: string, c: Capability, body: (m: ReturnType<typeof loadTestGroups>, arg: unknown) => unknown): vscode.Disposable =>
    vscode.commands.registerCommand(`agentRuns.serviceTestGroups.${id}`, (arg?: unknown) => (on(c) ? body(loadTestGroups(), arg) : undefined));
  context.subscriptions.push(
    deps.capabilities.onDidChange(() => {
      void rows()?.refresh();
      tree.refresh();
    }),
    command('refresh', 'serviceTestGroups', () => rows()?.refresh()),
    command('rename', 'serviceTestGroupEdit', (m, arg) => m.renameGroup(m.serviceCommandDeps(deps), rows(), arg)),
    command('editTests', 'serviceTestGroupEdit', (m, arg) => m.editGroupTests(m.serviceCommandDeps(deps), rows(), arg)),
    command('delete', 'serviceTestGroupDelete', (m, arg) => m.deleteGroup(m.serviceCommandDeps(deps), rows(), store, arg)),
    command('run', 'serviceTestGroupRuns', (m, arg) => m.runGroup(rows(), arg)),
  );
}
