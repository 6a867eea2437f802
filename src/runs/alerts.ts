/**
 * "Your run finished": one notification per run finished by runState.ts's one rule, so every
 * surface agrees on when; skipped while the person is looking at that run's panel.
 */
import * as vscode from 'vscode';
import type { LedgerEntry } from '../run/common/ledger/ledger';
import { runCommands } from './runCommands';

const RECENT_MAX = 100;

export class RunAlerts {
  /** Notifications shown so far (exposed to tests). */
  shownCount = 0;
  /** The runs of the latest notifications, oldest first, bounded (exposed to tests: per-run counts). */
  private readonly recent: string[] = [];

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly isWatching: (agentId: string) => boolean,
    private readonly openRun: (agentId: string) => Promise<void>,
  ) {}

  /** How many of the latest notifications were about `agentId`. */
  shownFor(agentId: string): number {
    return this.recent.filter((id) => id === agentId).length;
  }

  runFinished(run: LedgerEntry): void {
    // Its wording and showing load with the run commands its buttons run (dist/runCommands.js).
    const alert = runCommands().finishedAlert(run, vscode.l10n);
    if (!alert) {
      return;
    }
    const mode = runCommands().notificationMode();
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
    runCommands().showFinished(run, alert, this.log, this.openRun);
  }
}

