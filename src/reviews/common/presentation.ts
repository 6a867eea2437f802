/**
 * How an app's code reviews look in the Runs view, as plain data (their order and labels:
 * run/common/reviews.ts; src/reviews/rows.ts turns it into TreeItems). Pure.
 */
import type { CodeReviewListItem } from '../../api/reviewTypes';
import type { L10n } from '../../base/common/l10n';
import { plain, type IconSpec, type RowPresentation } from '../../run/common/rows';
import { formatAge, formatTimestamp } from '../../base/common/time';
import { reviewLabel, reviewVersions, type ReviewBucket } from '../../run/common/reviews';

/** Reviews asked for per list (`limit` applies to each of open, merged and closed). */
export const REVIEW_LIST_LIMIT = 50;

export function bucketText(status: ReviewBucket, l10n: L10n): string {
  return status === 'open' ? l10n.t('Open') : status === 'merged' ? l10n.t('Merged') : l10n.t('Closed');
}

/** A group's description: how many, or that only the newest were asked for. */
export function groupDescription(count: number, l10n: L10n, limit = REVIEW_LIST_LIMIT): string {
  return count >= limit ? l10n.t('newest {0}', limit) : String(count);
}

/** Who asked for the review: the name, else the email. */
export function reviewRequester(r: CodeReviewListItem): string | undefined {
  const who = plain(r.requestedByName ?? '', 60) || plain(r.requestedByEmail ?? '', 80);
  return who === '' ? undefined : who;
}

/** Where the review agent's conversation stands, when it says more than the review's status. */
export type ConversationPhase = 'starting' | 'working' | 'failed' | undefined;

export function conversationPhase(r: CodeReviewListItem): ConversationPhase {
  if (r.conversationStatus === 'errored' || r.conversationErrorCode !== undefined) {
    return 'failed';
  }
  if (r.conversationStatus === 'running_turn') {
    return 'working';
  }
  return r.conversationStatus === 'draft' ? 'starting' : undefined;
}

function phaseText(phase: NonNullable<ConversationPhase>, l10n: L10n): string {
  return phase === 'failed' ? l10n.t('failed') : phase === 'working' ? l10n.t('reviewing') : l10n.t('starting');
}

export function reviewIcon(r: CodeReviewListItem): IconSpec {
  switch (conversationPhase(r)) {
    case 'failed':
      return { id: 'error', color: 'testing.iconFailed' };
    case 'working':
      return { id: 'loading~spin' };
    case 'starting':
      return { id: 'clock', color: 'charts.yellow' };
    default:
      break;
  }
  switch (r.status) {
    case 'open':
      return { id: 'git-pull-request', color: 'charts.green' };
    case 'merged':
      return { id: 'git-merge', color: 'charts.purple' };
    case 'closed':
      return { id: 'git-pull-request-closed', color: 'descriptionForeground' };
    default:
      return { id: 'git-pull-request' };
  }
}

/**
 * A review's row: label, description (versions, who asked, age), icon, tooltip lines.
 * `reviewId`: the review's ID when known here (from the list, or a review started or tracked
 * here); without it the row says it cannot be opened here.
 */
export function presentReview(r: CodeReviewListItem, now: number, l10n: L10n, reviewId: string | undefined = r.id): RowPresentation {
  const phase = conversationPhase(r);
  const parts: string[] = [];
  if (reviewId === undefined) {
    parts.push(l10n.t('ID not known here'));
  }
  if (phase !== undefined) {
    parts.push(phaseText(phase, l10n));
  }
  if (plain(r.title ?? '') !== '') {
    parts.push(reviewVersions(r));
  }
  const who = reviewRequester(r);
  if (who !== undefined) {
    parts.push(who);
  }
  const time = r.createdAt ?? r.updatedAt;
  if (time !== undefined) {
    parts.push(formatAge(time, now, l10n));
  }

  const details: Array<[string, string]> = [];
  const add = (label: string, value: string | number | undefined): void => {
    const text = value === undefined ? '' : plain(String(value));
    if (text !== '') {
      details.push([label, text]);
    }
  };
  const at = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : formatTimestamp(ms));
  const version = (label: string | undefined, id: string | undefined): string | undefined =>
    label !== undefined && id !== undefined && label !== id ? `${label} (${id})` : label ?? id;
  add(l10n.t('Status'), r.status);
  add(l10n.t('Conversation'), r.conversationErrorCode !== undefined ? `${r.conversationStatus ?? '?'} (${r.conversationErrorCode})` : r.conversationStatus);
  add(l10n.t('Model'), r.provider !== undefined && r.model !== undefined ? `${r.model} (${r.provider})` : r.model ?? r.provider);
  add(l10n.t('From'), version(r.fromVersionLabel, r.fromVersion));
  add(l10n.t('To'), version(r.toVersionLabel, r.toVersion));
  add(l10n.t('Requested by'), r.requestedByName !== undefined && r.requestedByEmail !== undefined ? `${r.requestedByName} <${r.requestedByEmail}>` : r.requestedByName ?? r.requestedByEmail);
  add(l10n.t('Issue'), r.linearIssueIdentifier);
  add(l10n.t('Created'), at(r.createdAt));
  add(l10n.t('Completed'), at(r.completedAt));
  add(l10n.t('Merged'), at(r.mergedAt));
  add(l10n.t('Closed'), at(r.closedAt));
  add(l10n.t('Review ID'), reviewId ?? l10n.t('not known here'));
  add(l10n.t('Description'), r.description);
  const warnings = phase === 'failed' ? [l10n.t('The review agent\'s conversation failed.')] : [];
  if (reviewId === undefined) {
    warnings.push(l10n.t('The service lists this review without its ID, and it was not started or tracked here, so it cannot be opened here. Click to track it by its review ID.'));
  }

  return {
    label: reviewLabel(r, l10n),
    description: parts.join(' · '),
    icon: reviewIcon(r),
    contextValue: reviewId === undefined ? 'codeReviewUnknown' : 'codeReview',
    details,
    warnings,
  };
}
