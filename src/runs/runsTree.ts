/**
 * The Runs tree: the ledger grouped by app, newest first. Changes are batched per tick, and
 * reshapes (which re-create every row) come at most once per RESHAPE_INTERVAL_MS.
 */
import * as vscode from 'vscode';
import { isFinishedRun, runTime, type LedgerChange } from '../run/common/ledger/ledger';
import type { Connection } from '../connection/connection';
import type { Ledgers } from '../run/ledgers';
import { Disposable } from '../base/common/disposable';
import { nextAgeTick } from '../base/common/time';
import { AppNode, RowNode, RunsTreeModel, type TreeNode } from './common/nodes';
import { runUri } from './runDecorations';
import { groupByApp, presentRun } from './common/presentation';
import { StartNoticeNode } from './startNotices';
import { runCommands } from './runCommands';
import type { UnconfirmedStarts } from '../run/unconfirmedStarts';
import { runTooltip } from '../run/rowTooltip';
import type { AppRow, AppRows, AppRowsHost, RowsGate } from '../run/appRows';

/**
 * A row of the Runs view: an app, a run, a start that may have reached the service, or another
 * feature's row (a code review's, an automation's: src/run/appRows.ts).
 */
export type RunsTreeElement = TreeNode | StartNoticeNode | AppRow;

/** A feature's rows: shown while `gate` is on; its elements' `kind` starts with `prefix`. */
interface ExtraRows {
  prefix: string;
  gate: RowsGate;
  make: () => AppRows<AppRow>;
  rows?: AppRows<AppRow>;
}

/** Batches that add or remove runs are at least this far apart; the first one after a quiet spell goes at once. */
export const RESHAPE_INTERVAL_MS = 1_000;

/** The longest a reveal keeps the tree's changes waiting. */
export const HOLD_MAX_MS = 2_000;

interface PendingChanges {
  ids: Set<string>;
  /** Runs were added or removed. */
  structural: boolean;
  /** The ledger itself was replaced (another base URL): re-render everything. */
  all: boolean;
}

export class RunsTreeProvider extends Disposable implements vscode.TreeDataProvider<RunsTreeElement>, AppRowsHost {
  private readonly changeEmitter = this._register(new vscode.EventEmitter<RunsTreeElement | RunsTreeElement[] | undefined>());
  readonly onDidChangeTreeData: vscode.Event<RunsTreeElement | RunsTreeElement[] | undefined> = this.changeEmitter.event;
  private readonly flushEmitter = this._register(new vscode.EventEmitter<void>());
  /** After a batch of changes was handed to VS Code. */
  readonly onDidApplyChanges: vscode.Event<void> = this.flushEmitter.event;
  private readonly model = new RunsTreeModel();
  private pending: PendingChanges | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastReshapeAt = Number.NEGATIVE_INFINITY;
  private starts: UnconfirmedStarts | undefined;
  /** Reveals under way: the tree VS Code was given stays as it is until they end (see `holdDuring`). */
  private holds = 0;
  private refreshAllWaiting = false;
  private readonly extra: ExtraRows[] = [];

  constructor(
    private readonly ledgers: Pick<Ledgers, 'current' | 'onDidChangeRuns'>,
    private readonly connection: Pick<Connection, 'current' | 'onDidChange'>,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this._register(ledgers.onDidChangeRuns((c) => this.onRunsChanged(c)));
    this._register(connection.onDidChange(() => this.refreshAll()));
    this._register({ dispose: () => this.clearTimer() });
  }

  /** Whether there is anything to list (the welcome views take over otherwise). */
  private get listing(): boolean {
    const s = this.connection.current;
    return s.baseUrl !== undefined && s.signedIn;
  }

  /** Shows the starts that may have reached the service above the apps, until settled or dismissed. */
  showStartNotices(starts: UnconfirmedStarts): void {
    this.starts = starts;
    this._register(starts.onDidChange(() => this.refreshAll()));
    this.refreshAll();
  }

  /** "Dismiss" on a start's row: the node is one of this tree's (a node of another bundle's class is not). */
  dismissStartNotice(node: unknown): void {
    if (node instanceof StartNoticeNode) {
      this.starts?.dismiss(node.start.id);
    }
  }

  /**
   * Another feature's rows under each app while its gate is on; the configured app gets a row
   * even with no run listed, so those rows can be found.
   */
  showRows<N extends AppRow>(prefix: string, gate: RowsGate, make: () => AppRows<N>): void {
    this.extra.push({ prefix, gate, make });
    this._register(gate.onDidChange(() => this.refreshAll()));
    this._register(vscode.workspace.onDidChangeConfiguration((e) => {
      if (gate.enabled && e.affectsConfiguration('agentRuns.appId')) {
        this.refreshAll();
      }
    }));
  }

  /** A feature's rows, made on first use while its gate is on (this loads its bundle). */
  rowsOf(prefix: string): AppRows<AppRow> | undefined {
    const r = this.extra.find((x) => x.prefix === prefix);
    return r?.gate.enabled ? (r.rows ??= this._register(r.make())) : undefined;
  }

  /** The rows an element of a feature belongs to. */
  private ownerOf(element: RunsTreeElement): AppRows<AppRow> | undefined {
    const kind = (element as { kind?: unknown }).kind;
    const r = this.extra.find((x) => typeof kind === 'string' && kind.startsWith(x.prefix));
    return r ? this.rowsOf(r.prefix) : undefined;
  }

  /**
   * Keeps VS Code's tree unchanged while a reveal runs: a refresh between its steps makes VS Code
   * log "Cannot resolve tree item". At most HOLD_MAX_MS, so a stuck reveal cannot freeze the list.
   */
  async holdDuring<T>(work: () => Thenable<T>): Promise<T> {
    this.holds++;
    let released = false;
    const release = (): void => {
      if (released) {
        return;
      }
      released = true;
      this.holds--;
      if (this.holds === 0) {
        if (this.refreshAllWaiting) {
          this.refreshAll();
        } else if (this.pending) {
          this.clearTimer();
          this.applyChanges();
        }
      }
    };
    const cap = setTimeout(release, HOLD_MAX_MS);
    try {
      return await work();
    } finally {
      clearTimeout(cap);
      release();
    }
  }

  refreshAll(): void {
    if (this.holds > 0) {
      this.refreshAllWaiting = true;
      return;
    }
    this.refreshAllWaiting = false;
    // VS Code re-reads everything: whatever was waiting is part of it.
    this.pending = undefined;
    this.clearTimer();
    this.lastReshapeAt = this.now();
    this.changeEmitter.fire(undefined);
    this.flushEmitter.fire();
  }

  /** Re-renders the runs whose relative age label moved on (nothing else changed). */
  refreshDescriptions(): void {
    const now = this.now();
    const moved: RowNode[] = [];
    for (const node of this.model.allRuns()) {
      if (node.renderedDescription !== undefined && presentRun(node.record, now, vscode.l10n).description !== node.renderedDescription) {
        moved.push(node);
      }
    }
    if (moved.length > 0) {
      this.changeEmitter.fire(moved);
    }
  }

  /** Whether ledger changes are waiting for the next batch. */
  get hasPendingChanges(): boolean {
    return this.pending !== undefined;
  }

  /**
   * Applies waiting changes now when that does not break the batching (the last batch that
   * re-read groups is long enough ago). True when nothing is waiting any more.
   */
  applyChangesIfDue(): boolean {
    if (this.pending && this.delay(this.pending) <= 0) {
      this.applyChanges();
    }
    return this.pending === undefined;
  }

  getRunNode(agentId: string): RowNode | undefined {
    if (!this.listing) {
      return undefined;
    }
    this.model.roots(() => this.groups());
    return this.model.run(agentId);
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

  getChildren(element?: RunsTreeElement): RunsTreeElement[] | Promise<RunsTreeElement[]> {
    if (!element) {
      const notices = (): StartNoticeNode[] => this.starts?.uncertain().map((s) => new StartNoticeNode(s)) ?? [];
      if (this.holds > 0 && this.model.built) {
        // A reveal under way: VS Code asks for the roots again while it resolves the row's
        // parents, which must be those of the tree it was given (a run removed or another base
        // URL's runs taken in now made it log "Cannot resolve tree item"). What changed
        // meanwhile comes when the reveal ends.
        return [...notices(), ...this.model.roots(() => this.groups())];
      }
      if (!this.listing) {
        this.model.clear();
        return [];
      }
      // VS Code re-reads the whole tree: take every waiting change in now.
      if (this.model.built) {
        this.model.update(this.groups(), new Set());
      }
      const waited = this.pending !== undefined;
      this.pending = undefined;
      this.clearTimer();
      const roots = this.model.roots(() => this.groups());
      if (waited) {
        this.flushEmitter.fire();
      }
      return [...notices(), ...roots];
    }
    if (element instanceof AppNode) {
      const runs = this.model.children(element);
      const extra = element.key === '' ? [] : this.extra.map((x) => this.rowsOf(x.prefix)?.root(element)).filter((n) => n !== undefined);
      return [...extra, ...runs];
    }
    if (element instanceof RowNode || element instanceof StartNoticeNode) {
      return [];
    }
    return this.ownerOf(element)?.children(element) ?? [];
  }

  getParent(element: RunsTreeElement): RunsTreeElement | undefined {
    return 'parent' in element ? element.parent : undefined;
  }

  getTreeItem(element: RunsTreeElement): vscode.TreeItem {
    if (element instanceof StartNoticeNode) {
      return runCommands().startNoticeItem(element);
    }
    if (element instanceof AppNode) {
      return this.appItem(element);
    }
    if (element instanceof RowNode) {
      return this.runItem(element);
    }
    // A feature's rows come only from its `rows`, so they exist.
    return this.ownerOf(element)?.item(element) ?? new vscode.TreeItem('');
  }

  private groups() {
    const appId = this.extra.some((x) => x.gate.enabled) ? vscode.workspace.getConfiguration('agentRuns').get<string>('appId')?.trim() : undefined;
    return groupByApp(this.ledgers.current.all(), vscode.l10n, appId);
  }

  private onRunsChanged(change: LedgerChange): void {
    const p = this.pending ?? { ids: new Set<string>(), structural: false, all: false };
    for (const id of change.agentIds) {
      p.ids.add(id);
    }
    p.structural ||= change.structural;
    // A structural change naming no run: the ledger was swapped for another base URL's.
    p.all ||= change.structural && change.agentIds.length === 0;
    this.pending = p;
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.applyChanges();
      }, this.delay(p));
    }
  }

  /** 0 (the next tick) for changes to runs' rows; for runs added or removed, what is left of the interval. */
  private delay(p: PendingChanges): number {
    return p.structural ? Math.max(0, this.lastReshapeAt + RESHAPE_INTERVAL_MS - this.now()) : 0;
  }

  private applyChanges(): void {
    const p = this.pending;
    if (!p || this.holds > 0) {
      // Held: applied when the reveal under way ends.
      return;
    }
    const wait = this.delay(p);
    if (wait > 0) {
      // A structural change joined a batch of row changes: it waits for the interval.
      this.clearTimer();
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.applyChanges();
      }, wait);
      return;
    }
    this.pending = undefined;
    this.clearTimer();
    if (!this.model.built || !this.listing) {
      // Nothing shown from the model: VS Code asks for the tree when it shows it.
      this.flushEmitter.fire();
      return;
    }
    const refresh = this.model.update(this.groups(), p.ids);
    if (p.all || refresh.all) {
      this.lastReshapeAt = this.now();
      this.changeEmitter.fire(undefined);
    } else if (refresh.nodes.length > 0) {
      this.changeEmitter.fire(refresh.nodes);
    }
    this.flushEmitter.fire();
  }

  private clearTimer(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private appItem(node: AppNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.group.label, vscode.TreeItemCollapsibleState.Expanded);
    item.id = `app:${node.key}`;
    const active = node.group.runs.filter((r) => !isFinishedRun(r)).length;
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

  private runItem(node: RowNode): vscode.TreeItem {
    const r = node.record;
    const p = presentRun(r, this.now(), vscode.l10n);
    node.renderedDescription = p.description;
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
        ? vscode.l10n.t('{0}, {1}, changed since you last looked', p.label, `${p.status}, ${p.description}`)
        : `${p.label}, ${p.status}, ${p.description}`,
    };
    return item;
  }
}
