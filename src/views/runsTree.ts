/**
 * The Runs tree: the ledger grouped by app, newest first. A change to one run re-renders
 * that run's node only; runs added, removed or moved between apps rebuild the groups.
 */
import * as vscode from 'vscode';
import { isTerminalStatus } from '../api/types';
import { runTime, type LedgerChange, type RunRecord } from '../core/ledger';
import type { Connection } from '../auth/connection';
import type { Ledgers } from '../glue/ledgers';
import { Disposable } from '../util/disposable';
import { nextAgeTick } from '../util/time';
import { AppNode, RunNode, type TreeNode } from './nodes';
import { runUri } from './runDecorations';
import { groupByApp, presentRun } from './runPresentation';

export const RUNS_VIEW_ID = 'agentRuns.runs';

export class RunsTreeProvider extends Disposable implements vscode.TreeDataProvider<TreeNode> {
  private readonly changeEmitter = this._register(new vscode.EventEmitter<TreeNode | undefined>());
  readonly onDidChangeTreeData: vscode.Event<TreeNode | undefined> = this.changeEmitter.event;
  private groups: AppNode[] | undefined;
  private readonly runNodes = new Map<string, RunNode>();

  constructor(
    private readonly ledgers: Ledgers,
    private readonly connection: Connection,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this._register(ledgers.onDidChangeRuns((c) => this.onRunsChanged(c)));
    this._register(connection.onDidChange(() => this.refreshAll()));
  }

  /** Whether there is anything to list (the welcome views take over otherwise). */
  private get listing(): boolean {
    const s = this.connection.current;
    return s.baseUrl !== undefined && s.signedIn;
  }

  refreshAll(): void {
    this.groups = undefined;
    this.changeEmitter.fire(undefined);
  }

  /** Re-renders every run node (relative ages moved on) without rebuilding the groups. */
  refreshDescriptions(): void {
    for (const node of this.runNodes.values()) {
      this.changeEmitter.fire(node);
    }
  }

  getRunNode(agentId: string): RunNode | undefined {
    this.ensureGroups();
    return this.runNodes.get(agentId);
  }

  /** The oldest visible run time, for scheduling the next age re-render. */
  msUntilNextAgeChange(): number | undefined {
    let next: number | undefined;
    const now = this.now();
    for (const r of this.ledgers.current.all()) {
      const t = nextAgeTick(runTime(r), now);
      next = next === undefined ? t : Math.min(next, t);
    }
    return next;
  }

  getChildren(element?: TreeNode): TreeNode[] {
    if (!element) {
      if (!this.listing) {
        return [];
      }
      return this.ensureGroups();
    }
    if (element instanceof AppNode) {
      return element.group.runs.map((r) => this.runNodes.get(r.agentId)).filter((n): n is RunNode => n !== undefined);
    }
    return [];
  }

  getParent(element: TreeNode): TreeNode | undefined {
    return element instanceof RunNode ? element.parent : undefined;
  }

  getTreeItem(element: TreeNode): vscode.TreeItem {
    return element instanceof AppNode ? this.appItem(element) : this.runItem(element);
  }

  private ensureGroups(): AppNode[] {
    if (this.groups) {
      return this.groups;
    }
    const groups = groupByApp(this.ledgers.current.all(), vscode.l10n);
    const seen = new Set<string>();
    this.groups = groups.map((g) => {
      const app = new AppNode(g);
      for (const r of g.runs) {
        seen.add(r.agentId);
        const existing = this.runNodes.get(r.agentId);
        if (existing && existing.parent.key === g.key) {
          // Keep the instance so a later single-node refresh reaches the rendered row.
          existing.record = r;
          existing.parent = app;
        } else {
          this.runNodes.set(r.agentId, new RunNode(r, app));
        }
      }
      return app;
    });
    for (const id of [...this.runNodes.keys()]) {
      if (!seen.has(id)) {
        this.runNodes.delete(id);
      }
    }
    return this.groups;
  }

  private onRunsChanged(change: LedgerChange): void {
    if (change.structural || !this.groups) {
      this.refreshAll();
      return;
    }
    const ledger = this.ledgers.current;
    const touched: TreeNode[] = [];
    for (const id of change.agentIds) {
      const node = this.runNodes.get(id);
      const record = ledger.get(id);
      if (!node || !record || needsRegroup(node.record, record, node.parent)) {
        this.refreshAll();
        return;
      }
      if (isTerminalStatus(node.record.status) !== isTerminalStatus(record.status) && !touched.includes(node.parent)) {
        // The group's "n active" count moved.
        touched.push(node.parent);
      }
      node.record = record;
      const runs = node.parent.group.runs;
      const i = runs.findIndex((r) => r.agentId === id);
      if (i >= 0) {
        runs[i] = record;
      }
      touched.push(node);
    }
    for (const node of touched) {
      this.changeEmitter.fire(node);
    }
  }

  private appItem(node: AppNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.group.label, vscode.TreeItemCollapsibleState.Expanded);
    item.id = `app:${node.key}`;
    const active = node.group.runs.filter((r) => !isTerminalStatus(r.status)).length;
    const parts: string[] = [];
    if (node.group.description) {
      parts.push(node.group.description);
    }
    const total = node.group.runs.length;
    const runs = total === 1 ? vscode.l10n.t('1 run') : vscode.l10n.t('{0} runs', total);
    parts.push(active > 0 ? vscode.l10n.t('{0}, {1} active', runs, active) : runs);
    item.description = parts.join(' · ');
    item.iconPath = new vscode.ThemeIcon('project');
    item.contextValue = 'app;';
    item.tooltip = node.key === ''
      ? vscode.l10n.t('Runs whose app is not known yet')
      : vscode.l10n.t('App {0}', node.key);
    return item;
  }

  private runItem(node: RunNode): vscode.TreeItem {
    const r = node.record;
    const p = presentRun(r, this.now(), vscode.l10n);
    const item = new vscode.TreeItem(p.label, vscode.TreeItemCollapsibleState.None);
    item.id = `run:${r.agentId}`;
    item.description = p.description;
    item.iconPath = new vscode.ThemeIcon(p.icon.id, p.icon.color ? new vscode.ThemeColor(p.icon.color) : undefined);
    item.contextValue = p.contextValue;
    item.tooltip = runTooltip(p.label, p.details, p.warnings);
    // For the unread/stale badge (RunDecorations); the icon stays the status icon.
    item.resourceUri = runUri(r.agentId);
    item.command = { command: 'agentRuns.openRun', title: vscode.l10n.t('Open Run'), arguments: [r.agentId] };
    item.accessibilityInformation = {
      label: r.unread
        ? vscode.l10n.t('{0}, {1}, changed since you last looked', p.label, p.description)
        : `${p.label}, ${p.description}`,
    };
    return item;
  }
}

function needsRegroup(before: RunRecord, after: RunRecord, parent: AppNode): boolean {
  return (after.appId ?? '') !== parent.key
    || runTime(before) !== runTime(after)
    // The group shows the project name once known.
    || (after.projectName !== undefined && after.projectName !== before.projectName);
}

/** Untrusted markdown: values are escaped text, no command links, no HTML. */
export function runTooltip(label: string, details: Array<[string, string]>, warnings: string[]): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.isTrusted = false;
  md.supportHtml = false;
  md.appendMarkdown('**');
  md.appendText(label);
  md.appendMarkdown('**\n\n');
  for (const [k, v] of details) {
    md.appendText(k);
    md.appendMarkdown(': ');
    md.appendText(v);
    md.appendMarkdown('  \n');
  }
  for (const w of warnings) {
    md.appendMarkdown('\n\n$(warning) ');
    md.appendText(w);
  }
  return md;
}

/**
 * The tree view around the provider: badge with the unread count, a message when the
 * token was rejected or the service is unreachable, ages re-rendered while visible.
 */
export class RunsView extends Disposable {
  readonly treeView: vscode.TreeView<TreeNode>;
  private ageTimer: ReturnType<typeof setTimeout> | undefined;
  private notices: { rejected?: string; offline?: string } = {};

  constructor(
    readonly provider: RunsTreeProvider,
    private readonly ledgers: Ledgers,
  ) {
    super();
    this._register(provider);
    this.treeView = this._register(vscode.window.createTreeView(RUNS_VIEW_ID, {
      treeDataProvider: provider,
      showCollapseAll: false,
      canSelectMany: true,
    }));
    this._register(this.treeView.onDidChangeVisibility(() => this.scheduleAges()));
    this._register(ledgers.onDidChangeRuns((c) => {
      this.updateBadge();
      if (c.structural) {
        this.scheduleAges();
      }
    }));
    this._register({ dispose: () => this.clearAgeTimer() });
    this.updateBadge();
    this.scheduleAges();
  }

  async reveal(agentId: string, options: { focus?: boolean; select?: boolean } = {}): Promise<void> {
    const node = this.provider.getRunNode(agentId);
    if (node) {
      await this.treeView.reveal(node, { select: options.select ?? true, focus: options.focus ?? false, expand: true });
    }
  }

  setNotice(kind: 'rejected' | 'offline', text: string | undefined): void {
    this.notices[kind] = text;
    // The token problem is what the user must act on first.
    this.treeView.message = this.notices.rejected ?? this.notices.offline;
  }

  private updateBadge(): void {
    const unread = this.ledgers.current.all().filter((r) => r.unread).length;
    this.treeView.badge = unread > 0
      ? { value: unread, tooltip: unread === 1 ? vscode.l10n.t('1 run changed since you last looked') : vscode.l10n.t('{0} runs changed since you last looked', unread) }
      : undefined;
  }

  private scheduleAges(): void {
    this.clearAgeTimer();
    if (!this.treeView.visible) {
      return;
    }
    const wait = this.provider.msUntilNextAgeChange();
    if (wait === undefined) {
      return;
    }
    // Recursive timer: re-armed after each render, at the next moment a label changes.
    this.ageTimer = setTimeout(() => {
      this.ageTimer = undefined;
      this.provider.refreshDescriptions();
      this.scheduleAges();
    }, Math.max(1_000, wait + 50));
  }

  private clearAgeTimer(): void {
    if (this.ageTimer !== undefined) {
      clearTimeout(this.ageTimer);
      this.ageTimer = undefined;
    }
  }
}
