/** The "Test Groups" view: the groups this editor created against the current base URL. */
import * as vscode from 'vscode';
import type { TestGroupRecord, TestGroupStore } from '../run/common/testGroupStore';
import { testCountText } from '../run/common/appTestGroups';

export const VIEW_ID = 'agentRuns.testGroups';
export const GROUP_CONTEXT_VALUE = 'testGroup';

/** A tree node is the record itself; commands receive it as their first argument. */
export type TestGroupNode = TestGroupRecord;

/** The view's rows while `agentRuns.serviceTestGroups` is on (serviceRows.ts); they carry `groupId`, so the commands above take them too. */
export interface ServiceGroupRows {
  children(element?: TestGroupsElement): ServiceElement[] | Promise<ServiceElement[]>;
  item(element: ServiceElement): vscode.TreeItem;
  refresh(): Promise<void>;
  dispose(): void;
}

/** A row of the view: a record kept here, or a row of the service's groups. */
export type TestGroupsElement = TestGroupNode | ServiceElement;
export interface ServiceElement { readonly kind: string }

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}

export class TestGroupsTree implements vscode.TreeDataProvider<TestGroupsElement>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TestGroupsElement | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscription: { dispose(): void };
  private service: { enabled(): boolean; make(): ServiceGroupRows; rows?: ServiceGroupRows } | undefined;

  constructor(private readonly store: TestGroupStore) {
    this.subscription = store.onDidChange(() => this.refresh());
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  /** Shows the service's groups while `enabled()`; `make` loads their bundle on first use. */
  showService(enabled: () => boolean, make: () => ServiceGroupRows): void {
    this.service = { enabled, make };
  }

  /** The service's group rows, while shown. */
  serviceRows(): ServiceGroupRows | undefined {
    const s = this.service;
    return s?.enabled() ? (s.rows ??= s.make()) : undefined;
  }

  getChildren(element?: TestGroupsElement): TestGroupsElement[] | Promise<TestGroupsElement[]> {
    const s = this.serviceRows();
    if (s) return s.children(element);
    return element ? [] : this.store.list();
  }

  getTreeItem(g: TestGroupsElement): vscode.TreeItem {
    if ('kind' in g) return this.serviceRows()?.item(g) ?? new vscode.TreeItem('');
    const item = new vscode.TreeItem(g.name, vscode.TreeItemCollapsibleState.None);
    item.id = g.groupId;
    item.description = [g.appId, testCountText(g.testCount, vscode.l10n), g.groupId].filter((p) => p !== '').join(' · ');
    item.iconPath = new vscode.ThemeIcon('beaker');
    item.contextValue = GROUP_CONTEXT_VALUE;
    item.accessibilityInformation = {
      label: vscode.l10n.t('Test group {0}, app {1}, {2}, ID {3}', g.name, g.appId, testCountText(g.testCount, vscode.l10n), g.groupId),
    };
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**${escapeMarkdown(g.name)}**\n\n`);
    md.appendMarkdown(`${vscode.l10n.t('Group ID')}: \`${g.groupId.replace(/`/g, '')}\`  \n`);
    md.appendMarkdown(`${vscode.l10n.t('App')}: ${escapeMarkdown(g.appId)}  \n`);
    md.appendMarkdown(`${vscode.l10n.t('Tests')}: ${g.testCount}  \n`);
    if (g.description) md.appendMarkdown(`${vscode.l10n.t('Description')}: ${escapeMarkdown(g.description)}  \n`);
    if (g.files.length > 0) md.appendMarkdown(`${vscode.l10n.t('From')}: ${g.files.map(escapeMarkdown).join(', ')}  \n`);
    if (g.createdAt > 0) md.appendMarkdown(`${vscode.l10n.t('Created')}: ${new Date(g.createdAt).toLocaleString()}  \n`);
    if (g.testIds.length > 0) {
      const shown = g.testIds.slice(0, 20).map((id) => `\`${id.replace(/`/g, '')}\``).join(', ');
      md.appendMarkdown(`\n${shown}${g.testIds.length > 20 ? ` ${vscode.l10n.t('and {0} more', g.testCount - 20)}` : ''}`);
    }
    item.tooltip = md;
    return item;
  }

  dispose(): void {
    this.subscription.dispose();
    this.service?.rows?.dispose();
    this.changed.dispose();
  }
}

/** The group a view command is about: the clicked node, else the selected one. */
export function groupFromArgs(store: TestGroupStore, view: vscode.TreeView<TestGroupsElement> | undefined, arg: unknown): TestGroupRecord | undefined {
  if (typeof arg === 'object' && arg !== null && typeof (arg as { groupId?: unknown }).groupId === 'string') {
    return store.get((arg as { groupId: string }).groupId);
  }
  if (typeof arg === 'string') return store.get(arg);
  const selected = view?.selection[0];
  const id = (selected as { groupId?: unknown } | undefined)?.groupId;
  return typeof id === 'string' ? store.get(id) : undefined;
}
