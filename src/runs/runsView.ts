/**
 * The Runs view around runsTree.ts: unread badge, a message when the token is rejected or the
 * service unreachable, ages re-rendered while visible, reveals that wait for the row.
 */
import * as vscode from 'vscode';
import { Disposable } from '../base/common/disposable';
import type { Ledgers } from '../run/ledgers';
import type { RunsTreeElement, RunsTreeProvider } from './runsTree';
import type { RunsTreeView } from './treeView';

export interface RevealOptions {
  focus?: boolean;
  select?: boolean;
}

/**
 * The tree view around the provider: badge with the unread count, a message when the
 * token was rejected or the service is unreachable, ages re-rendered while visible.
 */
export class RunsView extends Disposable {
  readonly treeView: vscode.TreeView<RunsTreeElement>;
  private ageTimer: ReturnType<typeof setTimeout> | undefined;
  private notices: { rejected?: string; offline?: string } = {};
  /** A reveal asked for while the run's row was waiting for the next batch of changes. */
  private pendingReveal: { agentId: string; options: RevealOptions } | undefined;

  /** `shell`: the tree view made at activation (runsTreeView below); its rows come from `provider` from now on. */
  constructor(
    readonly provider: RunsTreeProvider,
    private readonly ledgers: Ledgers,
    shell: RunsTreeView,
  ) {
    super();
    this._register(provider);
    this.treeView = shell.treeView;
    this._register(shell.connect(provider));
    this._register(this.treeView.onDidChangeVisibility(() => this.scheduleAges()));
    this._register(ledgers.onDidChangeRuns((c) => {
      this.updateBadge();
      if (c.structural) {
        this.scheduleAges();
      }
    }));
    this._register(provider.onDidApplyChanges(() => {
      const waiting = this.pendingReveal;
      this.pendingReveal = undefined;
      if (waiting) {
        void this.revealNow(waiting.agentId, waiting.options);
      }
    }));
    this._register({ dispose: () => this.clearAgeTimer() });
    this.updateBadge();
    this.scheduleAges();
  }

  /**
   * Reveals a run's row, with the next batch if VS Code does not have it yet (a later reveal
   * replaces a waiting one). Never rejects: a row that cannot be revealed stays where it is.
   */
  async reveal(agentId: string, options: RevealOptions = {}): Promise<void> {
    this.pendingReveal = undefined;
    if (!this.provider.applyChangesIfDue()) {
      this.pendingReveal = { agentId, options };
      return;
    }
    await this.revealNow(agentId, options);
  }

  private async revealNow(agentId: string, options: RevealOptions): Promise<void> {
    const node = this.provider.getRunNode(agentId);
    if (!node) {
      return;
    }
    try {
      await this.provider.holdDuring(() => this.treeView.reveal(node, { select: options.select ?? true, focus: options.focus ?? false, expand: true }));
    } catch {
      // Selecting the row is a courtesy: failing to (the tree was being re-read) must not fail what asked for it.
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
