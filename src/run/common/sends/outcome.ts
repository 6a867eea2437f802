/** What a person is told after a send of the Test Groups view or a Run Now, and the service's words for a refusal; nothing here resends. */
import { isApiError } from '../../../api/errors';
import type { L10n } from '../../../base/common/l10n';
import { uncertainText } from './uncertainText';

/** What the sender answers for these sends, as far as the words need it (src/run/sender.ts). */
export type SendAnswer =
  | { readonly kind: 'done' | 'queued' }
  | { readonly kind: 'busy' }
  /** An earlier send for the same target began at `since` and may have arrived: nothing was sent. */
  | { readonly kind: 'uncertain'; readonly since: number }
  | { readonly kind: 'notConnected' }
  | { readonly kind: 'failed'; readonly error: unknown; readonly mayHaveArrived: boolean };

/** How the person is told: an information, a warning or an error notification; nothing when `undefined`. */
export interface Notice {
  severity: 'info' | 'warning' | 'error';
  text: string;
}

/** A `reason` such as `automation_run_in_progress`: a code for programs, not words for a person. */
const CODE_LIKE = /^[a-z0-9]+(?:[_.-][a-z0-9]+)+$/i;

/** The service's words for a refusal: a worded `reason`, else its `error` sentence, else a coded `reason`. */
export function refusalWords(error: { readonly reason?: string; readonly serverMessage?: string }): string | undefined {
  const texts = [error.reason, error.serverMessage].filter((t): t is string => typeof t === 'string' && t.trim() !== '').map((t) => t.trim());
  return texts.find((t) => !CODE_LIKE.test(t)) ?? texts[0];
}

/**
 * The service's reason for refusing (a 409 or a 400): `refusalWords`, else the error's sentence.
 * Undefined when the failure is not a refusal.
 */
export function refusalReason(error: unknown, describe: (e: unknown) => string): string | undefined {
  if (!isApiError(error) || (error.status !== 409 && error.status !== 400)) {
    return undefined;
  }
  return refusalWords(error) ?? describe(error);
}

/**
 * The notice for an unacknowledged send (`what`: "Deleting test group “Smoke”"); one that may have
 * arrived is said, never resent; none when not connected (the client already said what is missing).
 */
export function failureNotice(answer: SendAnswer, what: string, describe: (e: unknown) => string, l10n: L10n): Notice | undefined {
  switch (answer.kind) {
    case 'done':
    case 'queued':
    case 'notConnected':
      return undefined;
    case 'busy':
      return { severity: 'info', text: l10n.t('{0}: already under way; nothing more was sent.', what) };
    case 'uncertain':
      return { severity: 'warning', text: l10n.t('{0}: not sent. {1}', what, uncertainText(undefined, answer.since, l10n)) };
    default:
      break;
  }
  if (answer.mayHaveArrived) {
    return {
      severity: 'warning',
      // "No answer confirmed it": true of a cut, a timeout and a 502 after the work alike; the cause follows.
      text: l10n.t('{0}: the request may have reached the service, but no answer confirmed it ({1}). It is not sent again; refresh to see whether it took effect.', what, describe(answer.error)),
    };
  }
  const reason = refusalReason(answer.error, describe);
  if (reason !== undefined) {
    return { severity: 'error', text: l10n.t('{0}: the service refused: {1}', what, reason) };
  }
  return { severity: 'error', text: l10n.t('{0} failed: {1}', what, describe(answer.error)) };
}
