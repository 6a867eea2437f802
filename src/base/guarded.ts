// A command body's unexpected failure, logged and shown once instead of VS Code's bare "command failed".
import * as vscode from 'vscode';

/** Runs a command body; an unexpected failure goes to `log` and to one error message with Show Logs. */
export function guarded(log: vscode.LogOutputChannel, name: string, body: (...args: unknown[]) => Promise<void>): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    try {
      await body(...args);
    } catch (err) {
      log.error(`${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      const showLogs = vscode.l10n.t('Show Logs');
      const pick = await vscode.window.showErrorMessage(vscode.l10n.t('{0} failed unexpectedly. Your input was kept; run the command again to continue.', name), showLogs);
      if (pick === showLogs) log.show(true);
    }
  };
}
