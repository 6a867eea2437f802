/**
 * Run Now: a modal confirmation, one POST through the sender, then the list read again a little
 * later; a send that may have arrived is said and never sent again.
 */
import * as vscode from 'vscode';
import type { AutomationRunQueued } from '../api/testTypes';
import { automationRefOf } from './common/nodes';
import { failureNotice, type SendAnswer, type Notice } from '../run/common/sends/outcome';
import { actionsLine, triggerLine } from './common/presentation';
import type { SendOptions } from '../run/sender';
import type { AutomationRows } from './rows';

/** The sender's answer to `runAutomation` (src/run/sender.ts), as far as Run Now reads it. */
export type RunAutomationAnswer = Exclude<SendAnswer, { kind: 'done' | 'queued' }> | { readonly kind: 'queued'; readonly queued: AutomationRunQueued };

export interface RunNowDeps {
  readonly sender: { runAutomation(automationId: string, options: SendOptions): Promise<RunAutomationAnswer> };
  describe(error: unknown): string;
  readonly log: Pick<vscode.LogOutputChannel, 'info' | 'warn'>;
}

/** What Run Now did: `cancelled` when nothing was sent. */
export type RunNowOutcome = 'queued' | 'cancelled' | RunAutomationAnswer['kind'];

export async function runNow(d: RunNowDeps, rows: Pick<AutomationRows, 'find' | 'readAgainSoon'> | undefined, arg: unknown): Promise<RunNowOutcome> {
  const ref = automationRefOf(arg);
  if (!ref) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Pick an automation in the Runs view (under its app\'s Automations) to run it.'));
    return 'cancelled';
  }
  const listed = rows?.find(ref.automationId);
  const name = ref.name ?? listed?.item.name ?? ref.automationId;
  const appId = ref.appId ?? listed?.appId;
  const run = vscode.l10n.t('Run Now');
  const detail = listed
    ? vscode.l10n.t('Trigger: {0}\nActions: {1}', triggerLine(listed.item, vscode.l10n), actionsLine(listed.item, vscode.l10n))
    : vscode.l10n.t('Automation ID: {0}', ref.automationId);
  const pick = await vscode.window.showWarningMessage(vscode.l10n.t('Run the automation “{0}” now?', name), { modal: true, detail }, run);
  if (pick !== run) {
    return 'cancelled';
  }
  const answer = await d.sender.runAutomation(ref.automationId, { from: 'Runs view' });
  const what = vscode.l10n.t('Running the automation “{0}”', name);
  if (answer.kind === 'queued') {
    d.log.info(`Automation ${ref.automationId} queued (${answer.queued.status ?? 'no status'}).`);
    void vscode.window.showInformationMessage(vscode.l10n.t('The automation “{0}” is queued. Its last run shows in the Runs view once the service has run it.', name));
    if (appId !== undefined) {
      rows?.readAgainSoon(appId);
    }
    return 'queued';
  }
  show(failureNotice(answer, what, (e) => d.describe(e), vscode.l10n), d);
  return answer.kind;
}

function show(notice: Notice | undefined, d: Pick<RunNowDeps, 'log'>): void {
  if (!notice) return;
  d.log.warn(notice.text);
  if (notice.severity === 'info') void vscode.window.showInformationMessage(notice.text);
  else if (notice.severity === 'warning') void vscode.window.showWarningMessage(notice.text);
  else void vscode.window.showErrorMessage(notice.text);
}

export { show as showNotice };
