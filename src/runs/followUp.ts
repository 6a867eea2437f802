/**
 * One way to send a follow-up, for the panel's composer and the palette/tree/notification
 * command alike: the run's `FollowUpSends` entry is the lock, the draft is emptied while the
 * text is on its way (the send entry holds it) and gets it back only when nothing arrived.
 */
import * as vscode from 'vscode';
import { isApiError } from '../api/errors';
import { describeError } from '../connection/showApiError';
import { describeFollowUpFailure, type FollowUpFailure, type FollowUpInput, type SendOutcome } from './followUpSends';
import type { GlueDeps } from './glueDeps';
import type { FollowUpSends } from './followUpSends';
import type { Ledgers } from './ledgers';
import type { RunSync } from './runSync';

export type FollowUpResult =
  | SendOutcome
  /** No client (the person was told what is missing); the text stays in the draft. */
  | { kind: 'notConnected' };

export async function submitFollowUp(d: GlueDeps, agentId: string, input: FollowUpInput, options: { resend?: boolean; from: string }): Promise<FollowUpResult> {
  const waiting = d.sends.get(agentId);
  if (waiting && !(options.resend && waiting.state === 'uncertain')) {
    return { kind: 'busy', send: waiting };
  }
  const client = await d.getClient();
  if (!client) {
    return { kind: 'notConnected' };
  }
  const started = d.sends.send(agentId, input, (i) => client.sendFollowUp(agentId, {
    prompt: i.prompt,
    ...(i.permission ? { permission: i.permission } : {}),
    ...(i.permittedBranches && i.permittedBranches.length > 0 ? { permittedBranches: i.permittedBranches } : {}),
  }), { resend: options.resend, knownIds: knownUserMessageIds(d, agentId, input.prompt) });
  // The lock is taken synchronously by send(): from here the text lives in the send entry.
  if (d.sends.get(agentId)?.state === 'sending') {
    d.drafts.set(agentId, undefined);
  }
  const outcome = await started;
  if (outcome.kind === 'sent') {
    d.log.info(`Follow-up sent to ${agentId} from the ${options.from}; the run is ${outcome.ack.status}.`);
    d.log.trace(`Follow-up text for ${agentId}: ${input.prompt}`);
    d.afterPost({ kind: 'followUp', agentId, ack: outcome.ack, prompt: input.prompt, permission: input.permission, permittedBranches: input.permittedBranches });
  } else if (outcome.kind === 'failed') {
    d.log.warn(`Follow-up to ${agentId} failed${outcome.mayHaveArrived ? ' (it may have arrived)' : ''}: ${describeError(d.conn, outcome.error)}`);
    if (isApiError(outcome.error) && outcome.error.kind === 'unauthorized') {
      d.gate.report(outcome.error, { interactive: true });
    }
    if (outcome.mayHaveArrived) {
      // Read the run fast for a while: its history says whether the prompt arrived.
      d.sync.poller.burst(agentId);
    } else if ((d.drafts.get(agentId) ?? '').trim() === '') {
      d.drafts.set(agentId, input.prompt);
    }
  }
  return outcome;
}

/** The person's failure text and offers for a failed outcome. */
export function followUpFailure(d: GlueDeps, outcome: Extract<SendOutcome, { kind: 'failed' }>): FollowUpFailure {
  return describeFollowUpFailure(outcome.error, outcome.mayHaveArrived, describeError(d.conn, outcome.error), vscode.l10n);
}

/** Gives up an `uncertain` follow-up: its text goes back to the draft (ahead of anything typed since). */
export function discardFollowUp(d: GlueDeps, agentId: string): string | undefined {
  const text = d.sends.discard(agentId);
  if (text !== undefined) {
    const typed = d.drafts.get(agentId) ?? '';
    d.drafts.set(agentId, typed.trim() === '' ? text : `${text}\n\n${typed}`);
  }
  return text;
}

/** User messages with this text the run already has: they are not the one being sent. */
function knownUserMessageIds(d: GlueDeps, agentId: string, prompt: string): string[] {
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
