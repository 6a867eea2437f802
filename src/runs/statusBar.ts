/**
 * Two status bar items: the runs still going (hidden when none), and a warning only when the
 * user is needed (token rejected, service unreachable).
 */
import * as vscode from 'vscode';
import type { Ledgers } from '../run/ledgers';
import { Disposable } from '../base/common/disposable';
import { runLabel } from './common/presentation';
import { statusText } from '../run/common/rows';
import { runState } from '../run/common/ledger/runState';

const MAX_LISTED = 10;

export class RunsStatusBar extends Disposable {
  private readonly active: vscode.StatusBarItem;
  private readonly attention: vscode.StatusBarItem;
  private rejected = false;
  private offlineSince: number | undefined;

  constructor(private readonly ledgers: Ledgers) {
    super();
    this.active = this._register(vscode.window.createStatusBarItem('agentRuns.activeRuns', vscode.StatusBarAlignment.Left, 40));
    this.active.name = vscode.l10n.t('Agent Runs: active runs');
    this.active.command = 'agentRuns.runs.focus';
    this.attention = this._register(vscode.window.createStatusBarItem('agentRuns.attention', vscode.StatusBarAlignment.Left, 39));
    this.attention.name = vscode.l10n.t('Agent Runs: connection');
    this._register(ledgers.onDidChangeRuns(() => this.renderActive()));
    this.renderActive();
  }

  setRejected(rejected: boolean): void {
    this.rejected = rejected;
    this.renderAttention();
  }

  setOffline(offline: boolean): void {
    this.offlineSince = offline ? (this.offlineSince ?? Date.now()) : undefined;
    this.renderAttention();
  }

  private renderActive(): void {
    const runs = this.ledgers.current.active();
    if (runs.length === 0) {
      this.active.hide();
      return;
    }
    const running = runs.some((r) => runState(r).status === 'running');
    this.active.text = `$(${running ? 'sync~spin' : 'clock'}) ${runs.length}`;
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = false;
    md.appendMarkdown(`**${runs.length === 1 ? vscode.l10n.t('1 agent run in progress') : vscode.l10n.t('{0} agent runs in progress', runs.length)}**\n\n`);
    for (const r of runs.slice(0, MAX_LISTED)) {
      md.appendMarkdown('- ');
      md.appendText(`${runLabel(r, vscode.l10n, 60)} (${statusText(runState(r).status, vscode.l10n)})`);
      md.appendMarkdown('\n');
    }
    if (runs.length > MAX_LISTED) {
      md.appendText(vscode.l10n.t('and {0} more', runs.length - MAX_LISTED));
    }
    this.active.tooltip = md;
    this.active.accessibilityInformation = {
      label: runs.length === 1 ? vscode.l10n.t('1 agent run in progress') : vscode.l10n.t('{0} agent runs in progress', runs.length),
    };
    this.active.show();
  }

  private renderAttention(): void {
    if (this.rejected) {
      this.attention.text = `$(key) ${vscode.l10n.t('Agent Runs: token rejected')}`;
      this.attention.tooltip = vscode.l10n.t('The service rejected the API token. Updates are paused until you set a new one. Click to set it.');
      this.attention.command = 'agentRuns.setToken';
      this.attention.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
      this.attention.show();
    } else if (this.offlineSince !== undefined) {
      this.attention.text = `$(cloud-offline) ${vscode.l10n.t('Agent Runs: offline')}`;
      this.attention.tooltip = vscode.l10n.t('The service has not answered since {0}. Runs show their last known state; reads are retried with back-off. Click for the log.', new Date(this.offlineSince).toLocaleTimeString());
      this.attention.command = 'agentRuns.showLogs';
      this.attention.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
      this.attention.show();
    } else {
      this.attention.hide();
    }
  }
}
