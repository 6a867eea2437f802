/**
 * "Your run finished": the most requested thing in every neighbouring extension. One
 * notification per run that finished by the one rule (runState.ts: `completed`, `error`, or a
 * status the reference does not list with `completedAt`, such as `cancelled`), said as what it
 * is, filtered by `agentRuns.notifications`, skipped while the user is looking at that run's panel.
 */
import * as vscode from 'vscode';
import type { RunRecord } from '../core/ledger/ledger';
import { plain, runLabel, statusText } from '../core/runs/presentation';
import { runState } from '../core/ledger/runState';

export type NotificationMode = 'all' | 'failuresOnly' | 'off';

export function notificationMode(): NotificationMode {
  const v = vscode.workspace.getConfiguration('agentRuns').get<string>('notifications', 'all');
  return v === 'failuresOnly' || v === 'off' ? v : 'all';
}

const RECENT_MAX = 100;

export class RunAlerts {
  /** Notifications shown so far (exposed to tests). */
  shownCount = 0;
  /** The runs of the latest notifications, oldest first, bounded (exposed to tests: per-run counts). */
  private readonly recent: string[] = [];

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly isWatching: (agentId: string) => boolean,
  ) {}

  /** How many of the latest notifications were about `agentId`. */
  shownFor(agentId: string): number {
    return this.recent.filter((id) => id === agentId).length;
  }

  runFinished(run: RunRecord): void {
    const state = runState(run);
    if (!state.finished) {
      return;
    }
    const failed = state.outcome === 'error';
    const mode = notificationMode();
    if (mode === 'off' || (mode === 'failuresOnly' && !failed)) {
      return;
    }
    if (vscode.window.state.focused && this.isWatching(run.agentId)) {
      return;
    }
    this.shownCount++;
    this.recent.push(run.agentId);
    if (this.recent.length > RECENT_MAX) {
      this.recent.shift();
    }
    const label = runLabel(run, vscode.l10n, 60);
    this.log.info(`Run ${run.agentId} ${failed ? 'failed' : state.outcome === 'completed' ? 'completed' : `ended (${plain(state.status, 40)})`}; notifying.`);
    const open = vscode.l10n.t('Open');
    const followUp = vscode.l10n.t('Send Follow-up');
    const shown = failed
      ? vscode.window.showWarningMessage(
        run.lastError
          ? vscode.l10n.t('Agent run failed: {0}. {1}', label, plain(run.lastError, 200))
          : vscode.l10n.t('Agent run failed: {0}', label),
        open, followUp)
      : state.outcome === 'completed'
        ? vscode.window.showInformationMessage(vscode.l10n.t('Agent run completed: {0}', label), open, followUp)
        // An end the reference does not list (`cancelled`, `timed_out`): said as the service said it.
        : vscode.window.showInformationMessage(vscode.l10n.t('Agent run ended ({0}): {1}', statusText(state.status, vscode.l10n), label), open, followUp);
    void Promise.resolve(shown).then((pick) => {
      if (pick === open) {
        return vscode.commands.executeCommand('agentRuns.openRun', run.agentId);
      }
      if (pick === followUp) {
        return vscode.commands.executeCommand('agentRuns.sendFollowUp', run.agentId);
      }
      return undefined;
    });
  }
}

