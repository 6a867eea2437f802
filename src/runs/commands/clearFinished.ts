// "Clear Finished": removes the finished runs from the list (the service keeps them).
import * as vscode from 'vscode';
import { isFinishedRun } from '../../run/common/ledger/ledger';
import type { Deps } from '../../run/deps';

export async function clearFinishedCommand(deps: Deps) {
  const ledger = deps.ledger();
  const finished = ledger.all().filter(isFinishedRun).map((r) => r.agentId);
  if (finished.length === 0) {
    void vscode.window.setStatusBarMessage(vscode.l10n.t('No finished runs to clear.'), 3000);
    return 0;
  }
  const count = ledger.clearFinished();
  await deps.transcripts.remove(finished);
  void vscode.window.setStatusBarMessage(count === 1 ? vscode.l10n.t('1 finished run cleared.') : vscode.l10n.t('{0} finished runs cleared.', count), 4000);
  return count;
}
