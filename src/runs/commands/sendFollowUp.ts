import * as vscode from 'vscode';
import { isApiError } from '../../api/errors';
import type { GlueDeps } from '../glueDeps';
import { runLabel } from '../../core/runs/presentation';
import { resolveRun } from './pickRun';

/**
 * A follow-up from the palette, the tree or a notification: one input box. What was typed
 * survives everything: cancelling keeps it as a draft, a failure offers Retry and Edit.
 * POSTs are never retried on their own; after success the run is read fast for a while.
 */
export function registerSendFollowUp(context: vscode.ExtensionContext, deps: GlueDeps): void {
  context.subscriptions.push(vscode.commands.registerCommand('agentRuns.sendFollowUp', async (arg?: unknown) => {
    const agentId = await resolveRun(deps, arg, vscode.l10n.t('Send Follow-up'));
    if (!agentId) {
      return false;
    }
    return sendFollowUp(deps, agentId);
  }));
}

export async function sendFollowUp(deps: GlueDeps, agentId: string): Promise<boolean> {
  const record = deps.ledgers.current.get(agentId);
  const label = record ? runLabel(record, vscode.l10n, 50) : agentId;
  let text = deps.drafts.get(agentId) ?? '';
  let ask = true;
  for (;;) {
    if (ask) {
      const value = await askFollowUp(label, text, (v) => deps.drafts.set(agentId, v));
      if (value === undefined) {
        return false;
      }
      text = value;
    }
    deps.drafts.set(agentId, text);
    const client = await deps.getClient();
    if (!client) {
      return false;
    }
    try {
      const ack = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Sending follow-up…') },
        () => client.sendFollowUp(agentId, { prompt: text }),
      );
      deps.drafts.set(agentId, undefined);
      deps.log.info(`Follow-up sent to ${agentId}; the run is ${ack.status}.`);
      deps.log.trace(`Follow-up text for ${agentId}: ${text}`);
      deps.afterPost({ kind: 'followUp', agentId, ack, prompt: text });
      void vscode.window.setStatusBarMessage(vscode.l10n.t('$(check) Follow-up sent'), 4000);
      return true;
    } catch (e) {
      const retry = vscode.l10n.t('Retry');
      const edit = vscode.l10n.t('Edit');
      // A request that may have arrived must not be repeated blindly: the error text says so.
      const buttons = isApiError(e) && e.kind === 'unauthorized' ? [] : [retry, edit];
      const pick = await deps.showApiError(e, buttons);
      if (pick === retry) {
        ask = false;
        continue;
      }
      if (pick === edit) {
        ask = true;
        continue;
      }
      void vscode.window.setStatusBarMessage(vscode.l10n.t('The follow-up was kept as a draft.'), 5000);
      return false;
    }
  }
}

/**
 * An input box that keeps what is typed as the run's draft on every keystroke, so Escape or a
 * lost focus never throws text away (showInputBox would return nothing on Escape).
 */
function askFollowUp(label: string, initial: string, keep: (text: string) => void): Promise<string | undefined> {
  return new Promise((resolve) => {
    const box = vscode.window.createInputBox();
    box.title = vscode.l10n.t('Follow-up for "{0}"', label);
    box.prompt = vscode.l10n.t('Sent to the agent as the next prompt of this run. Enter sends; Escape keeps it as a draft.');
    box.placeholder = vscode.l10n.t('What should the agent do next?');
    box.value = initial;
    box.ignoreFocusOut = true;
    let accepted = false;
    box.onDidChangeValue((v) => {
      keep(v);
      box.validationMessage = undefined;
    });
    box.onDidAccept(() => {
      if (box.value.trim() === '') {
        box.validationMessage = vscode.l10n.t('Write the follow-up prompt.');
        return;
      }
      accepted = true;
      resolve(box.value);
      box.hide();
    });
    box.onDidHide(() => {
      if (!accepted) {
        resolve(undefined);
      }
      box.dispose();
    });
    box.show();
  });
}
