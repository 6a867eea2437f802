/**
 * What a person reads when a send is refused for what the run is: a follow-up to a conversation
 * that takes none (a code review's, by the one rule `conversationOf` in core/ledger/runState.ts).
 * The same words on every surface: the panel and the palette say it as a sentence, the chat and
 * the tools after "Not done:". Pure: no vscode.
 */
import type { L10n } from '../l10n';

/** The sentence for the panel and the palette. */
export function noFollowUpsText(l10n: L10n): string {
  return l10n.t('This conversation (a code review) does not take follow-ups. Start a new run instead.');
}

/** The same, as the chat and the tools put it after "Not done: ". */
export function noFollowUpsReason(l10n: L10n): string {
  return l10n.t('this conversation (a code review) does not take follow-ups. Start a new run instead.');
}
