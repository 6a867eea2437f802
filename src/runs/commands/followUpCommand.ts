// "Send Follow-up" from the palette, the tree and notifications: one input box, one send.
import * as vscode from 'vscode';
import { runOwnCommand } from '../../connection/ownCommands';
import type { Deps } from '../../run/deps';
import { runState } from '../../run/common/ledger/runState';
import { runLabel } from '../common/presentation';
import { noFollowUpsText } from '../../run/common/refusals';
import { followUpFailure, submitFollowUp } from '../../run/followUp';
import type { FollowUpOffer } from '../../run/followUp';
import type { PendingSend } from '../../run/followUpSends';
import { resolveRunHere } from './pickRun';

/**
 * "Send Follow-up" as one input box; what was typed survives cancel and failure. While a
 * follow-up is on its way (or may have arrived) the run is shown instead, so a second click never
 * sends the same text twice.
 */
export async function followUpCommand(deps: Deps, arg?: unknown): Promise<boolean> {
  const agentId = await resolveRunHere(deps, arg, vscode.l10n.t('Send Follow-up'));
  if (!agentId) {
    return false;
  }
  return followUpFromPalette(deps, agentId);
}

export async function followUpFromPalette(deps: Deps, agentId: string): Promise<boolean> {
  const record = deps.ledger().get(agentId);
  if (record && !runState(record).takesFollowUps) {
    // Said before a box opens: nothing typed for a run that would refuse it.
    return showNoFollowUps(agentId);
  }
  const waiting = deps.sends.get(agentId);
  if (waiting) {
    return showWaiting(deps, agentId, waiting);
  }
  const label = record ? runLabel(record, vscode.l10n, 50) : agentId;
  let text = deps.drafts.get(agentId) ?? '';
  let ask = true;
  let resend = false;
  for (;;) {
    if (ask) {
      const value = await askFollowUp(label, text, (v) => deps.drafts.set(agentId, v));
      if (value === undefined) {
        return false;
      }
      text = value;
    }
    deps.drafts.set(agentId, text);
    const outcome = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Sending follow-up…') },
      () => submitFollowUp(deps, agentId, { prompt: text }, { resend, from: 'palette' }),
    );
    resend = false;
    switch (outcome.kind) {
      case 'sent':
        void vscode.window.setStatusBarMessage(vscode.l10n.t('$(check) Follow-up sent'), 4000);
        return true;
      case 'notConnected':
        return false;
      case 'noFollowUps':
        return showNoFollowUps(agentId);
      case 'busy':
        // Another window of this run (its panel) started a send while the box was open.
        return showWaiting(deps, agentId, outcome.send);
      case 'failed': {
        const failure = followUpFailure(deps, agentId, outcome);
        const pick = await showFailure(failure.message, failure.actions);
        if (pick === 'retry' || pick === 'resend') {
          ask = false;
          resend = pick === 'resend';
          continue;
        }
        if (pick === 'edit') {
          ask = true;
          continue;
        }
        if (pick === 'openRun') {
          await deps.openRun(agentId);
        } else if (pick === 'showRuns') {
          // The active runs; the text stays the run's draft, to send once one has finished.
          await runOwnCommand('agentRuns.runs.focus');
          void vscode.window.setStatusBarMessage(vscode.l10n.t('The follow-up was kept as a draft.'), 5000);
        } else if (pick === 'cloneRun') {
          await runOwnCommand('agentRuns.cloneRun', agentId);
        } else if (!outcome.mayHaveArrived) {
          void vscode.window.setStatusBarMessage(vscode.l10n.t('The follow-up was kept as a draft.'), 5000);
        }
        return false;
      }
    }
  }
}

/** The run's conversation takes no follow-ups (a code review's): say so, offer a new run. */
async function showNoFollowUps(agentId: string): Promise<boolean> {
  const clone = vscode.l10n.t('Clone Run');
  if (await vscode.window.showErrorMessage(noFollowUpsText(vscode.l10n), clone) === clone) {
    await runOwnCommand('agentRuns.cloneRun', agentId);
  }
  return false;
}

/** A send of this run is under way or may have arrived: say so and show the run, never a new box. */
async function showWaiting(deps: Deps, agentId: string, send: PendingSend): Promise<boolean> {
  await deps.openRun(agentId);
  if (send.state === 'sending') {
    void vscode.window.showInformationMessage(vscode.l10n.t('A follow-up to this run is being sent. Its panel shows when it has arrived.'));
    return false;
  }
  const resend = vscode.l10n.t('Resend Anyway');
  const discard = vscode.l10n.t('Back to Draft');
  const pick = await vscode.window.showWarningMessage(
    vscode.l10n.t('A follow-up to this run may already have reached the service ("{0}"). The run is being read to check; resend it only if its history does not show it.', firstWords(send.prompt)),
    resend,
    discard,
  );
  if (pick === discard) {
    deps.sender.discardFollowUp(agentId);
    return false;
  }
  if (pick === resend && deps.sends.get(agentId)?.state === 'uncertain') {
    const outcome = await submitFollowUp(deps, agentId, { prompt: send.prompt }, { resend: true, from: 'palette' });
    if (outcome.kind === 'failed') {
      const failure = followUpFailure(deps, agentId, outcome);
      void vscode.window.showErrorMessage(failure.message);
    }
    return outcome.kind === 'sent';
  }
  return false;
}

async function showFailure(message: string, actions: readonly FollowUpOffer[]): Promise<FollowUpOffer | undefined> {
  const labels: Record<FollowUpOffer, string> = {
    openRun: vscode.l10n.t('Check the Run'),
    resend: vscode.l10n.t('Resend Anyway'),
    retry: vscode.l10n.t('Retry'),
    edit: vscode.l10n.t('Edit'),
    cloneRun: vscode.l10n.t('Clone Run'),
    showRuns: vscode.l10n.t('Show Runs'),
  };
  const pick = await vscode.window.showErrorMessage(message, ...actions.map((a) => labels[a]));
  return actions.find((a) => labels[a] === pick);
}

function firstWords(text: string): string {
  const line = text.split(/\r?\n/).find((l) => l.trim() !== '')?.trim() ?? '';
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
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
      if (accepted) {
        return;
      }
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
