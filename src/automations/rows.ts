/**
 * The Runs view's "Automations" row under each app, read when expanded, on refresh, and a little
 * after Run Now (the list's `lastRunAt`/`lastRunError` are the only outcome the service gives).
 */
import * as vscode from 'vscode';
import { isApiError } from '../api/errors';
import type { Automation } from '../api/testTypes';
import {
  AutomationsMessageNode, AutomationsNode, automationChildren, type AutomationNode, type AutomationTreeNode,
} from './common/nodes';
import { automationsDescription, presentAutomation } from './common/presentation';
import type { AppRef } from '../run/common/rows';
import { AppRowReads } from '../run/common/appRowReads';
import { Disposable } from '../base/common/disposable';
import type { AppRows } from '../run/appRows';
import { runTooltip } from '../run/rowTooltip';

/** What the rows stand on (a part of `Deps`, src/run/deps.ts). */
export interface AutomationsBase {
  getClient(options: { quiet: boolean }): Promise<{ listAutomations(appId: string): Promise<Automation[]> } | undefined>;
  readonly onDidChangeConnection: vscode.Event<unknown>;
  readonly auth: { readonly onDidChange: vscode.Event<unknown> };
  reportUnauthorized(error?: unknown): void;
  /** One sentence for a failure (the connection's `describeError`). */
  describe(error: unknown): string;
  readonly log: Pick<vscode.LogOutputChannel, 'warn'>;
}

/** After Run Now was queued, the list is read again this long after (a few seconds, then once more). */
const READ_AGAIN_AFTER_RUN_MS: readonly number[] = [4_000, 12_000];

export class AutomationRows extends Disposable implements AppRows<AutomationTreeNode> {
  private readonly lists: AppRowReads<AutomationsNode>;
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(
    private readonly b: AutomationsBase,
    /** Re-renders the whole Runs tree (runsTree.ts `refreshAll`). */
    private readonly refreshTree: () => void,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.lists = new AppRowReads({ make: (app) => new AutomationsNode(app), read: (node) => this.read(node), refreshTree: () => this.refreshTree() });
    this._register(b.onDidChangeConnection(() => this.lists.forgetAll()));
    this._register(b.auth.onDidChange(() => this.lists.forgetAll()));
    this._register({ dispose: () => this.timers.forEach(clearTimeout) });
  }

  root(app: AppRef): AutomationsNode {
    return this.lists.root(app);
  }

  children(node: AutomationTreeNode): AutomationTreeNode[] | Promise<AutomationTreeNode[]> {
    const read = node.kind === 'automations' ? this.lists.pending(node) : undefined;
    if (read) {
      return read.then(() => automationChildren(node));
    }
    return automationChildren(node);
  }

  item(node: AutomationTreeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'automations':
        return automationsItem(node);
      case 'automation':
        return this.automationItem(node);
      default:
        return messageItem(node);
    }
  }

  /** Reads the automations of the app the argument names (a row, an app row, `{ appId }`), or of every app read so far. */
  async refresh(arg?: unknown): Promise<void> {
    await this.lists.refresh(appIdOf(arg));
  }

  /** After Run Now was queued: the app's list is read again a few seconds later, then once more. */
  readAgainSoon(appId: string): void {
    for (const ms of READ_AGAIN_AFTER_RUN_MS) {
      const t = setTimeout(() => {
        this.timers.delete(t);
        void this.refresh(appId);
      }, ms);
      this.timers.add(t);
    }
  }

  /** An automation as last listed, for Run Now's confirmation. */
  find(automationId: string): AutomationNode | undefined {
    for (const node of this.lists.apps.values()) {
      const found = node.automation(automationId);
      if (found) return found;
    }
    return undefined;
  }

  /** Reads the app's list; what takes the answer (or the failure) in. */
  private async read(node: AutomationsNode): Promise<() => void> {
    try {
      const client = await this.b.getClient({ quiet: true });
      if (!client) {
        throw new Error(vscode.l10n.t('Not connected: set the base URL and an API token.'));
      }
      const list = await client.listAutomations(node.appId);
      return () => node.take(list);
    } catch (e) {
      if (isApiError(e) && e.kind === 'unauthorized') {
        this.b.reportUnauthorized(e);
      }
      const problem = this.b.describe(e);
      this.b.log.warn(`The automations of ${node.appId} could not be listed: ${problem}`);
      return () => {
        node.state = { kind: 'failed', message: new AutomationsMessageNode(node, problem) };
      };
    }
  }

  private automationItem(node: AutomationNode): vscode.TreeItem {
    const p = presentAutomation(node.item, this.now(), vscode.l10n);
    const item = new vscode.TreeItem(p.label, vscode.TreeItemCollapsibleState.None);
    item.id = `automation:${node.appId}:${node.automationId}`;
    item.description = p.description;
    item.iconPath = new vscode.ThemeIcon(p.icon.id, p.icon.color ? new vscode.ThemeColor(p.icon.color) : undefined);
    item.contextValue = p.contextValue;
    item.tooltip = runTooltip(p.label, p.details, p.warnings);
    item.accessibilityInformation = { label: vscode.l10n.t('Automation {0}, {1}', p.label, [p.description, ...p.warnings].join(', ')) };
    return item;
  }
}

function automationsItem(node: AutomationsNode): vscode.TreeItem {
  const item = new vscode.TreeItem(vscode.l10n.t('Automations'), vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `automations:${node.appId}`;
  item.iconPath = new vscode.ThemeIcon('zap');
  item.contextValue = 'automations';
  if (node.state.kind === 'listed') {
    item.description = automationsDescription(node.state.automations.map((a) => a.item), vscode.l10n);
  }
  item.tooltip = vscode.l10n.t('Automations of {0}, read from the service when expanded', node.appId);
  return item;
}

function messageItem(node: AutomationsMessageNode): vscode.TreeItem {
  const failed = node.problem !== undefined;
  const item = new vscode.TreeItem(failed ? vscode.l10n.t('Could not list the automations') : vscode.l10n.t('No automations'), vscode.TreeItemCollapsibleState.None);
  item.id = `automations.message:${node.parent.appId}`;
  if (failed) {
    item.description = node.problem;
    item.tooltip = vscode.l10n.t('{0} Click to try again.', node.problem ?? '');
    item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
    item.contextValue = 'automationsError';
    item.command = { command: 'agentRuns.automations.refresh', title: vscode.l10n.t('Try Again'), arguments: [{ appId: node.parent.appId }] };
  } else {
    item.contextValue = 'automationsEmpty';
  }
  return item;
}

/** The app a refresh is about: an automation element, an app row (`kind: 'app'`), `{ appId }` or the ID. */
function appIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg.trim() === '' ? undefined : arg.trim();
  if (typeof arg !== 'object' || arg === null) return undefined;
  const a = arg as { kind?: unknown; key?: unknown; appId?: unknown };
  if (a.kind === 'app' && typeof a.key === 'string') return a.key === '' ? undefined : a.key;
  return typeof a.appId === 'string' && a.appId.trim() !== '' ? a.appId.trim() : undefined;
}
