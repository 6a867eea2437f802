/**
 * What "your run finished" says by runState's one rule: failed, completed, or ended with an
 * unlisted status (`cancelled`) said as the service said it; `undefined` while not finished.
 */
import type { L10n } from '../../base/common/l10n';
import type { LedgerEntry } from '../../run/common/ledger/record';
import { runState } from '../../run/common/ledger/runState';
import { runLabel } from './presentation';
import { plain, statusText } from '../../run/common/rows';

export interface FinishedAlert {
  /** A warning (the run failed) rather than information. */
  readonly failed: boolean;
  readonly text: string;
  /** For the log: `failed`, `completed` or `ended (<status>)`. */
  readonly how: string;
  /** Offer "Send Follow-up": not for a conversation that takes none (a code review's). */
  readonly offerFollowUp: boolean;
}

export function finishedAlert(run: LedgerEntry, l10n: L10n): FinishedAlert | undefined {
  const state = runState(run);
  if (!state.finished) {
    return undefined;
  }
  const label = runLabel(run, l10n, 60);
  const offerFollowUp = state.takesFollowUps;
  // A code review's conversation is said as one: it is not an agent run the person started.
  const review = state.codeReview;
  if (state.outcome === 'error') {
    const text = run.lastError
      ? (review ? l10n.t('Code review failed: {0}. {1}', label, plain(run.lastError, 200)) : l10n.t('Agent run failed: {0}. {1}', label, plain(run.lastError, 200)))
      : (review ? l10n.t('Code review failed: {0}', label) : l10n.t('Agent run failed: {0}', label));
    return { failed: true, text, how: 'failed', offerFollowUp };
  }
  if (state.outcome === 'completed') {
    const text = review ? l10n.t('Code review completed: {0}', label) : l10n.t('Agent run completed: {0}', label);
    return { failed: false, text, how: 'completed', offerFollowUp };
  }
  const status = statusText(state.status, l10n);
  const text = review ? l10n.t('Code review ended ({0}): {1}', status, label) : l10n.t('Agent run ended ({0}): {1}', status, label);
  return { failed: false, text, how: `ended (${plain(state.status, 40)})`, offerFollowUp };
}
