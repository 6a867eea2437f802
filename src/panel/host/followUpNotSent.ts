/**
 * A panel follow-up that was not sent, worded for the composer with the palette's own function
 * (run/followUp.ts `followUpFailure`). In the panel's bundle (dist/panel.js): only a panel sends
 * through the host, so the activation bundle does not carry the wording.
 */
import * as vscode from 'vscode';
import { whyNoClient } from '../../connection/common/whyNoClient';
import { noFollowUpsText } from '../../run/common/refusals';
import { followUpFailure } from '../../run/followUp';
import type { GlueDeps } from '../../run/glueDeps';
import type { SendFailed } from '../../run/sendDoor';
import type { FollowUpSubmitResult } from './manager';

export function followUpNotSent(d: GlueDeps, agentId: string, outcome: SendFailed | { readonly kind: 'noFollowUps' } | { readonly kind: 'notConnected' }): FollowUpSubmitResult {
  if (outcome.kind === 'notConnected') {
    return { kind: 'failed', message: whyNoClient(d.connection(), vscode.l10n), mayHaveArrived: false, offerClone: false };
  }
  if (outcome.kind === 'noFollowUps') {
    // A page that still offered the composer: the way forward is a new run.
    return { kind: 'failed', message: noFollowUpsText(vscode.l10n), mayHaveArrived: false, offerClone: true };
  }
  const failure = followUpFailure(d, agentId, outcome);
  return { kind: 'failed', message: failure.message, mayHaveArrived: outcome.mayHaveArrived, offerClone: failure.actions.includes('cloneRun') };
}
