/**
 * The editor's side of a follow-up, for the panel's composer and the commands alike: the send goes
 * through the sender, a refused token to the 401 gate, and a failure is worded for the person.
 */
import * as vscode from 'vscode';
import { isApiError } from '../api/errors';
import { describeError } from '../connection/showApiError';
import { runState } from './common/ledger/runState';
import { describeNoClient } from '../connection/common/describeNoClient';
import { followUpConflict, noFollowUpsText } from './common/refusals';
import { describeFollowUpFailure, type FollowUpFailureAction, type FollowUpInput, type FollowUpSends } from './followUpSends';
import type { Deps } from './deps';
import type { Ledgers } from './ledgers';
import type { RunSync } from './runSync';
import type { FollowUpResult, SendFailed } from './sender';

export type { FollowUpResult };

export async function submitFollowUp(d: Deps, agentId: string, input: FollowUpInput, options: { resend?: boolean; from: string }): Promise<FollowUpResult> {
  const outcome = await d.sender.followUp(agentId, input, options);
  if (outcome.kind === 'failed' && isApiError(outcome.error) && outcome.error.kind === 'unauthorized') {
    d.reportUnauthorized(outcome.error, { interactive: true });
  }
  return outcome;
}

/** What a failed follow-up may offer: those of followUpSends.ts, and the Runs view (its active runs). */
export type FollowUpOffer = FollowUpFailureAction | 'showRuns';

export interface FollowUpFailureText {
  message: string;
  actions: FollowUpOffer[];
}

/**
 * The person's failure text and offers: a 409 says which refusal it was; at the workspace's limit the
 * Runs view shows the active runs and the text is kept; a conversation that takes none needs a new run.
 */
export function followUpFailure(d: Deps, agentId: string, outcome: SendFailed): FollowUpFailureText {
  const record = d.ledger().get(agentId);
  const conflict = followUpConflict(outcome.error, record ? runState(record) : undefined, vscode.l10n);
  if (conflict) {
    return { message: conflict.message, actions: conflict.cause === 'concurrency' ? ['showRuns', 'retry', 'edit'] : ['cloneRun'] };
  }
  return describeFollowUpFailure(outcome.error, outcome.mayHaveArrived, describeError(d, outcome.error), vscode.l10n);
}

/** A follow-up the run did not take, as the panel's composer says it (Clone Run offered when only a new run can go on). */
export interface FollowUpNotSent {
  readonly kind: 'failed';
  readonly message: string;
  readonly mayHaveArrived: boolean;
  readonly offerClone: boolean;
}

/** The panel's wording of a follow-up that was not sent (loaded with dist/panel.js: only a panel asks). */
export function followUpNotSent(d: Deps, agentId: string, outcome: SendFailed | { readonly kind: 'noFollowUps' } | { readonly kind: 'notConnected' }): FollowUpNotSent {
  if (outcome.kind === 'notConnected') {
    return { kind: 'failed', message: describeNoClient(d.connection(), vscode.l10n), mayHaveArrived: false, offerClone: false };
  }
  if (outcome.kind === 'noFollowUps') {
    return { kind: 'failed', message: noFollowUpsText(vscode.l10n), mayHaveArrived: false, offerClone: true };
  }
  const failure = followUpFailure(d, agentId, outcome);
  return { kind: 'failed', message: failure.message, mayHaveArrived: outcome.mayHaveArrived, offerClone: failure.actions.includes('cloneRun') };
}

/** User messages with this text the run already has: they are not the one being sent. */
export function knownUserMessageIds(d: Pick<Deps, 'transcripts'>, agentId: string, prompt: string): string[] {
  if (!d.transcripts.isLoaded(agentId)) {
    return [];
  }
  const wanted = prompt.trim();
  return d.transcripts.store.get(agentId).snapshot().entries
    .map((e) => e.message)
    .filter((m) => m.role === 'user' && typeof m.content === 'string' && m.content.trim() === wanted && typeof m.id === 'string')
    .map((m) => m.id as string);
}

/**
 * Reads each run with an `uncertain` follow-up (one cut by a reload) fast for a while, so its
 * history can settle it; a run removed from the list takes its send state with it.
 */
export function watchFollowUpSends(sends: FollowUpSends, ledgers: Ledgers, sync: RunSync): vscode.Disposable {
  for (const id of sends.uncertain()) {
    if (ledgers.current.has(id)) {
      sync.poller.burst(id);
    }
  }
  return ledgers.onDidChangeRuns((change) => {
    for (const id of change.agentIds) {
      if (!ledgers.current.has(id)) {
        sends.forget(id);
      }
    }
  });
}
