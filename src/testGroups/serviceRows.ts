/**
 * The Test Groups view with the service's groups (rules: common/serviceGroups.ts): read when first
 * shown and on Refresh; version A has no list, so the groups created here are read by ID.
 */
import * as vscode from 'vscode';
import { isApiError } from '../api/errors';
import type { AppTest, ServiceTestGroup, ServiceTestGroupDetail, ServiceTestGroupMember } from '../api/testTypes';
import { appGroups, testCountText } from '../run/common/appTestGroups';
import { appsToList, componentsUnsaid, groupContextValue, markComponents, memberRow, mergeGroups, unwritableMembers, type GroupEntry } from './common/serviceGroups';
import type { TestGroupStore } from '../run/common/testGroupStore';
import { defaultAppId } from './settings';
import type { ServiceGroupRows, TestGroupsElement } from './view';

/** What the rows read with (a part of `Deps`). */
export interface ServiceRowsBase {
  /** Another service, or what it serves changed: the lists are read again while `shown()`. */
  readonly onDidChangeCapabilities: vscode.Event<void>;
  /** Whether the service's groups are shown (`agentRuns.serviceTestGroups`): nothing is read otherwise. */
  shown(): boolean;
  /** Whether it lists an app's groups (`agentRuns.serviceTestGroupList`); else those created here are read by ID. */
  listed(): boolean;
  getClient(options: { quiet: boolean }): Promise<{
    listTestGroups(appId: string): Promise<ServiceTestGroup[]>;
    getTestGroup(groupId: string): Promise<ServiceTestGroupDetail>;
    listTests(appId: string): Promise<AppTest[]>;
  } | undefined>;
  reportUnauthorized(error?: unknown): void;
  describe(error: unknown): string;
  readonly log: Pick<vscode.LogOutputChannel, 'warn'>;
}

type Members = { kind: 'unread' } | { kind: 'loading'; promise: Promise<void> } | { kind: 'listed'; detail: ServiceTestGroupDetail } | { kind: 'failed'; problem: string };

/** A group's row: what commands receive (it carries `groupId`, `appId`, `name`). */
export class GroupNode {
  readonly kind = 'serviceGroup';
  members: Members = { kind: 'unread' };
  constructor(public entry: GroupEntry) {}
  get groupId(): string { return this.entry.groupId; }
  get appId(): string { return this.entry.appId; }
  get name(): string { return this.entry.name; }
}

export class MemberNode {
  readonly kind = 'serviceGroupMember';
  constructor(readonly parent: GroupNode, readonly member: ServiceTestGroupMember) {}
  get testId(): string { return this.member.testId; }
}

/** A line instead of rows: a list that could not be read (click to read again), or nothing to list. */
export class MessageNode {
  readonly kind = 'serviceGroupsMessage';
  constructor(readonly key: string, readonly text: string, readonly problem?: string) {}
}

type Element = GroupNode | MemberNode | MessageNode;

export class ServiceGroupsView implements ServiceGroupRows {
  private lists: { kind: 'unread' } | { kind: 'loading'; promise: Promise<void> } | { kind: 'read'; listed: Map<string, ServiceTestGroup[]>; problems: Map<string, string> } = { kind: 'unread' };
  private readonly nodes = new Map<string, GroupNode>();
  private generation = 0;

  private readonly subscriptions: Array<{ dispose(): void }>;

  constructor(private readonly b: ServiceRowsBase, private readonly store: TestGroupStore, private readonly refreshTree: () => void) {
    // A group created or removed here: the service's lists are read again (a created group is
    // listed there too). Once the service no longer serves them (another base URL, or a schema
    // without them), what was read is forgotten and nothing is asked until they are shown again.
    const again = (): void => {
      if (!this.b.shown()) {
        this.generation++;
        this.lists = { kind: 'unread' };
        this.nodes.clear();
      } else if (this.lists.kind === 'read') {
        void this.refresh();
      }
    };
    this.subscriptions = [store.onDidChange(again), b.onDidChangeCapabilities(again)];
  }

  children(element?: TestGroupsElement): Element[] | Promise<Element[]> {
    if (!element) {
      if (this.lists.kind === 'unread' || this.lists.kind === 'loading') return this.loadLists().then(() => this.roots());
      return this.roots();
    }
    if (element instanceof GroupNode) {
      const m = element.members;
      if (m.kind === 'unread' || m.kind === 'loading') return this.loadMembers(element).then(() => this.memberRows(element));
      return this.memberRows(element);
    }
    return [];
  }

  /** The group's row as last listed. */
  group(groupId: string): GroupNode | undefined {
    return this.nodes.get(groupId);
  }

  /** Reads the lists again (and each group's members when next expanded). */
  refresh(): Promise<void> {
    this.generation++;
    this.lists = { kind: 'unread' };
    for (const n of this.nodes.values()) n.members = { kind: 'unread' };
    const read = this.loadLists();
    this.refreshTree();
    return read;
  }

  item(element: TestGroupsElement): vscode.TreeItem {
    if (element instanceof GroupNode) return groupItem(element);
    if (element instanceof MemberNode) return memberItem(element);
    const m = element as MessageNode;
    const item = new vscode.TreeItem(m.text, vscode.TreeItemCollapsibleState.None);
    item.id = `serviceGroups.message:${m.key}`;
    if (m.problem !== undefined) {
      item.description = m.problem;
      item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
      item.tooltip = vscode.l10n.t('{0} Click to try again.', m.problem);
      item.command = { command: 'agentRuns.serviceTestGroups.refresh', title: vscode.l10n.t('Try Again') };
    }
    item.contextValue = 'serviceGroupsMessage';
    return item;
  }

  dispose(): void {
    this.generation++;
    for (const s of this.subscriptions) s.dispose();
  }

  private roots(): Element[] {
    const listed = this.lists.kind === 'read' ? this.lists.listed : new Map<string, ServiceTestGroup[]>();
    const entries = mergeGroups(this.store.list(), listed);
    const keep = new Set(entries.map((e) => e.groupId));
    for (const id of [...this.nodes.keys()]) if (!keep.has(id)) this.nodes.delete(id);
    const rows: Element[] = [];
    if (this.lists.kind === 'read') {
      for (const [appId, problem] of this.lists.problems) {
        rows.push(new MessageNode(appId, vscode.l10n.t('Could not list the test groups of {0}', appId), problem));
      }
      if (this.lists.listed.size === 0 && this.lists.problems.size === 0 && entries.length === 0) {
        rows.push(new MessageNode('noApp', vscode.l10n.t('Set agentRuns.appId to see the service\'s test groups of your app.')));
      }
    }
    for (const e of entries) {
      let node = this.nodes.get(e.groupId);
      if (!node) {
        node = new GroupNode(e);
        this.nodes.set(e.groupId, node);
      }
      node.entry = e;
      rows.push(node);
    }
    return rows;
  }

  private memberRows(node: GroupNode): Element[] {
    const m = node.members;
    if (m.kind === 'failed') return [new MessageNode(`members:${node.groupId}`, vscode.l10n.t('Could not read the group\'s tests'), m.problem)];
    if (m.kind !== 'listed') return [];
    // Members the answer did not let us read are said, never shown as an empty or a smaller group.
    const problem = unwritableMembers(m.detail, node.name, vscode.l10n);
    const rows: Element[] = m.detail.members.map((member) => new MemberNode(node, member));
    if (problem !== undefined) return [...rows, new MessageNode(`members:${node.groupId}`, vscode.l10n.t('Not every test of this group could be read'), problem)];
    if (rows.length === 0) return [new MessageNode(`members:${node.groupId}`, vscode.l10n.t('No tests in this group'))];
    return rows;
  }

  private loadLists(): Promise<void> {
    if (this.lists.kind === 'loading') return this.lists.promise;
    const generation = this.generation;
    const promise = (async () => {
      const apps = appsToList(defaultAppId(), this.store.list());
      const listed = new Map<string, ServiceTestGroup[]>();
      const problems = new Map<string, string>();
      await Promise.all(apps.map(async (appId) => {
        try {
          const client = await this.b.getClient({ quiet: true });
          if (!client) throw new Error(vscode.l10n.t('Not connected: set the base URL and an API token.'));
          listed.set(appId, await appGroups(client, appId, this.b.listed(), this.store.list()));
        } catch (e) {
          problems.set(appId, this.problem(e, `The test groups of ${appId} could not be listed`));
        }
      }));
      if (generation === this.generation) {
        // In the apps' order, whatever order the answers came in.
        this.lists = { kind: 'read', listed: new Map(apps.filter((a) => listed.has(a)).map((a) => [a, listed.get(a) ?? []])), problems };
      }
    })();
    this.lists = { kind: 'loading', promise };
    return promise;
  }

  private loadMembers(node: GroupNode): Promise<void> {
    if (node.members.kind === 'loading') return node.members.promise;
    const generation = this.generation;
    const promise = (async () => {
      let next: Members;
      try {
        const client = await this.b.getClient({ quiet: true });
        if (!client) throw new Error(vscode.l10n.t('Not connected: set the base URL and an API token.'));
        const detail = await client.getTestGroup(node.groupId);
        next = { kind: 'listed', detail: componentsUnsaid(detail) ? await this.marked(client, node.appId, detail) : detail };
      } catch (e) {
        next = { kind: 'failed', problem: this.problem(e, `The tests of group ${node.groupId} could not be read`) };
      }
      if (generation === this.generation) node.members = next;
    })();
    node.members = { kind: 'loading', promise };
    return promise;
  }

  /** Members marked as components from the app's tests (A and C members do not say); unmarked when they cannot be read. */
  private async marked(client: { listTests(appId: string): Promise<AppTest[]> }, appId: string, detail: ServiceTestGroupDetail): Promise<ServiceTestGroupDetail> {
    try {
      return markComponents(detail, await client.listTests(appId));
    } catch (e) {
      this.b.log.warn(`The tests of ${appId} could not be read to mark a group's components: ${this.b.describe(e)}`);
      return detail;
    }
  }

  private problem(e: unknown, logLine: string): string {
    if (isApiError(e) && e.kind === 'unauthorized') this.b.reportUnauthorized(e);
    const text = this.b.describe(e);
    this.b.log.warn(`${logLine}: ${text}`);
    return text;
  }
}

function groupItem(node: GroupNode): vscode.TreeItem {
  const e = node.entry;
  const item = new vscode.TreeItem(e.name, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = e.groupId;
  const count = e.testCount === undefined ? '' : testCountText(e.testCount, vscode.l10n);
  const where = e.service ? (e.local ? vscode.l10n.t('created here') : '') : vscode.l10n.t('not listed by the service');
  item.description = [e.appId, count, where].filter((p) => p !== '').join(' · ');
  item.iconPath = new vscode.ThemeIcon(e.service ? 'beaker' : 'beaker-stop');
  item.contextValue = groupContextValue(e);
  const md = new vscode.MarkdownString(undefined, true);
  md.isTrusted = false;
  md.appendMarkdown('**');
  md.appendText(e.name);
  md.appendMarkdown('**\n\n');
  const lines: Array<[string, string]> = [[vscode.l10n.t('Group ID'), e.groupId], [vscode.l10n.t('App'), e.appId]];
  if (count !== '') lines.push([vscode.l10n.t('Tests'), count]);
  if (e.description) lines.push([vscode.l10n.t('Description'), e.description]);
  if (e.local && e.local.files.length > 0) lines.push([vscode.l10n.t('From'), e.local.files.join(', ')]);
  if (!e.service) lines.push([vscode.l10n.t('Service'), vscode.l10n.t('not listed by the service for this app')]);
  for (const [k, v] of lines) {
    md.appendText(`${k}: ${v}`);
    md.appendMarkdown('  \n');
  }
  item.tooltip = md;
  item.accessibilityInformation = { label: vscode.l10n.t('Test group {0}, app {1}, {2}, ID {3}', e.name, e.appId, count, e.groupId) };
  return item;
}

function memberItem(node: MemberNode): vscode.TreeItem {
  const r = memberRow(node.member, vscode.l10n);
  const item = new vscode.TreeItem(r.label, vscode.TreeItemCollapsibleState.None);
  item.id = `${node.parent.groupId}/${node.member.membershipId ?? node.testId}`;
  item.description = r.description;
  item.iconPath = new vscode.ThemeIcon(r.contextValue.endsWith('component') ? 'symbol-module' : 'beaker');
  item.contextValue = r.contextValue;
  if (node.member.description) item.tooltip = node.member.description;
  return item;
}
