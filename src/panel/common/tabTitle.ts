/**
 * A run panel's tab title: the app (or project, or short ID) and, once finished by runState's one
 * rule (`cancelled` too), how it ended; a code review's conversation shows the review's status.
 */
import { oneLine } from '../../api/sanitize';
import { isFinished } from '../../api/types';
import type { Run } from '../../run/common/ledger/runState';
import type { L10n } from '../../base/common/l10n';
import { cutText, shownReviewStatus } from './protocol';

/**
 * `run` as `runState` derives it. A review's tab shows the review's own status unless its
 * conversation failed: a review stays open after its conversation completes, and "(done)" misled.
 */
export function panelTitle(agentId: string, run: Run | undefined, l10n: L10n, reviewStatus?: string): string {
  // Service-provided: no control or bidi characters in the editor tab.
  const label = oneLine(run?.appId ?? run?.projectName ?? (agentId.length > 12 ? `${agentId.slice(0, 12)}…` : agentId), 60);
  const status = run?.status;
  const review = run?.codeReview === true;
  const ended = status === 'error' ? l10n.t('error') : status === 'completed' ? l10n.t('done') : oneLine(status ?? '', 20);
  const reviewShown = shownReviewStatus(review, status, reviewStatus);
  const shown = reviewShown === undefined ? undefined : oneLine(reviewShown, 20);
  const suffix = shown !== undefined ? ` (${shown})` : run && isFinished(run) ? ` (${ended})` : '';
  const title = review ? l10n.t('Code review: {0}', cutText(label, 60)) : l10n.t('Run: {0}', cutText(label, 60));
  return title + suffix;
}
