/**
 * "Your run finished": the most requested thing in every neighbouring extension. One
 * notification per run that finished by the one rule (runState.ts: `completed`, `error`, or a
 * status the reference does not list with `completedAt`, such as `cancelled`), said as what it
 * is, filtered by `agentRuns.notifications`, skipped while the user is looking at that run's panel.
 */
import * as vscode from 'vscode';
import { runOwnCommand } from '../connection/ownCommands';
import type { RunRecord } from '../core/ledger/ledger';
import { bodies } from './commands/lazyCommands';

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
    // Its wording loads with the run commands its buttons run (dist/runCommands.js).
    const alert = bodies().finishedAlert(run, vscode.l10n);
    if (!alert) {
      return;
    }
    const mode = notificationMode();
    if (mode === 'off' || (mode === 'failuresOnly' && !alert.failed)) {
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
    this.log.info(`Run ${run.agentId} ${alert.how}; notifying.`);
    const open = vscode.l10n.t('Open');
    const followUp = vscode.l10n.t('Send Follow-up');
    const buttons = alert.offerFollowUp ? [open, followUp] : [open];
    const shown = alert.failed
      ? vscode.window.showWarningMessage(alert.text, ...buttons)
      : vscode.window.showInformationMessage(alert.text, ...buttons);
    void Promise.resolve(shown).then((pick) => {
      if (pick === open) {
        return runOwnCommand('agentRuns.openRun', run.agentId);
      }
      if (pick === followUp) {
        return runOwnCommand('agentRuns.sendFollowUp', run.agentId);
      }
      return undefined;
    });
  }
}

