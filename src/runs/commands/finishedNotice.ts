/**
 * "Your run finished" as shown (../alerts.ts decides whether): loaded with the run commands its
 * buttons run (dist/runCommands.js), not at activation.
 */
import * as vscode from 'vscode';
import { runOwnCommand } from '../../connection/ownCommands';
import type { LedgerEntry } from '../../run/common/ledger/ledger';
import type { FinishedAlert } from '../common/finishedAlert';

export type NotificationMode = 'all' | 'failuresOnly' | 'off';

export function notificationMode(): NotificationMode {
  const v = vscode.workspace.getConfiguration('agentRuns').get<string>('notifications', 'all');
  return v === 'failuresOnly' || v === 'off' ? v : 'all';
}

/** Shows the notification of a finished run, with Open (and Send Follow-up when it takes one). */
export function showFinished(run: LedgerEntry, alert: FinishedAlert, log: Pick<vscode.LogOutputChannel, 'info'>, openRun: (agentId: string) => Promise<void>): void {
  log.info(`Run ${run.agentId} ${alert.how}; notifying.`);
  const open = vscode.l10n.t('Open');
  const followUp = vscode.l10n.t('Send Follow-up');
  const buttons = alert.offerFollowUp ? [open, followUp] : [open];
  const shown = alert.failed
    ? vscode.window.showWarningMessage(alert.text, ...buttons)
    : vscode.window.showInformationMessage(alert.text, ...buttons);
  void Promise.resolve(shown).then((pick) => {
    if (pick === open) {
      return openRun(run.agentId);
    }
    if (pick === followUp) {
      return runOwnCommand('agentRuns.sendFollowUp', run.agentId);
    }
    return undefined;
  });
}

/** "The service cannot be reached", once per spell of trouble (src/extension.ts decides when). */
export function showOffline(log: Pick<vscode.LogOutputChannel, 'show'>): void {
  const showLogs = vscode.l10n.t('Show Logs');
  void vscode.window.showWarningMessage(vscode.l10n.t('Agent Runs cannot reach the service. Runs show their last known state and are read again when it answers.'), showLogs)
    .then((pick) => (pick === showLogs ? log.show(true) : undefined));
}
