// The Runs view's tree view, made at activation; the run model (dist/runs.js) gives its rows.
import * as vscode from 'vscode';
import type { RunsTreeElement, RunsTreeProvider } from './runsTree';

export const RUNS_VIEW_ID = 'agentRuns.runs';

/** The Runs view as activation makes it: the tree view, whose rows the run model gives once it is built. */
export interface RunsTreeView extends vscode.Disposable {
  readonly treeView: vscode.TreeView<RunsTreeElement>;
  /** From now on the view shows `provider`'s rows and follows its changes. */
  connect(provider: RunsTreeProvider): vscode.Disposable;
}

/**
 * The tree view exists from activation (its visibility decides the capability probe, VS Code
 * needs a provider the moment the view shows); `rows` builds the run model on the view's first read.
 */
export function runsTreeView(rows: () => RunsTreeProvider): RunsTreeView {
  const changed = new vscode.EventEmitter<RunsTreeElement | RunsTreeElement[] | undefined | void>();
  const treeView = vscode.window.createTreeView<RunsTreeElement>(RUNS_VIEW_ID, {
    treeDataProvider: {
      onDidChangeTreeData: changed.event,
      getChildren: (element) => rows().getChildren(element),
      getTreeItem: (element) => rows().getTreeItem(element),
      getParent: (element) => rows().getParent(element),
    },
    showCollapseAll: false,
    canSelectMany: true,
  });
  return {
    treeView,
    connect: (provider) => provider.onDidChangeTreeData((e) => changed.fire(e)),
    dispose: () => {
      treeView.dispose();
      changed.dispose();
    },
  };
}

