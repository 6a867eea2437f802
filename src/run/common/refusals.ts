/**
 * The words for a send refused for what the run is (a follow-up to a code review, the service's 409s), the
 * same on every surface. A 409 is a refusal: nothing was sent, so the text is kept and nothing "may have
 * arrived". Pure.
 */
import { conflictCause, isApiError, type ConflictCause } from '../../api/errors';
import type { L10n } from '../../base/common/l10n';

/** The sentence for the panel and the palette. */
export function noFollowUpsText(l10n: L10n): string {
  return l10n.t('This conversation (a code review) does not take follow-ups. Start a new run instead.');
}

/** The same, as the chat and the tools put it after "Not done: ". */
export function noFollowUpsReason(l10n: L10n): string {
  return l10n.t('this conversation (a code review) does not take follow-ups. Start a new run instead.');
}

/** A start refused at the workspace's concurrent-agent limit (409). */
export function startConflictText(l10n: L10n): string {
  return l10n.t('The workspace is running as many agent runs as its plan allows. Wait for a run to finish (see the active runs in the Runs view), then start again.');
}

/** A start refused with 409: its sentence; undefined for any other failure. */
export function startConflict(error: unknown, l10n: L10n): string | undefined {
  return isApiError(error) && error.status === 409 ? startConflictText(l10n) : undefined;
}

export interface FollowUpConflict {
  readonly cause: ConflictCause;
  readonly message: string;
}

/**
 * A follow-up refused with 409: which refusal, and its sentence; undefined for any other failure.
 * What the answer says decides (`conflictCause`); when it says neither, the run's kind does: a
 * code review's conversation takes no follow-ups, any other was refused at the limit.
 */
export function followUpConflict(error: unknown, run: { readonly codeReview: boolean } | undefined, l10n: L10n): FollowUpConflict | undefined {
  if (!isApiError(error) || error.status !== 409) {
    return undefined;
  }
  const codeReview = run?.codeReview === true;
  const cause = conflictCause(error) ?? (codeReview ? 'noFollowUps' : 'concurrency');
  if (cause === 'concurrency') {
    return { cause, message: l10n.t('The workspace is running as many agent runs as its plan allows, so the follow-up was not sent. Wait for a run to finish (see the active runs in the Runs view), then send it again; your text is kept.') };
  }
  return {
    cause,
    message: codeReview ? noFollowUpsText(l10n) : l10n.t('This conversation does not take follow-ups (the service answered 409). Start a new run instead.'),
  };
}
