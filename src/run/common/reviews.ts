/**
 * A code review as every surface lists it: its groups, its label, and which review a list item is.
 * Version C lists reviews without `id`, so an item is matched to a known review by `sequence` or
 * `mergeId`, only when exactly one agrees and none contradicts: never a guessed ID. Pure.
 */
import type { CodeReviewDetail, CodeReviewListItem, CodeReviewLists } from '../../api/reviewTypes';
import type { L10n } from '../../base/common/l10n';
import { LABEL_MAX, plain } from './rows';

/** A review whose `reviewId` is known here, with what identifies it in a list without ids. */
export interface KnownReview {
  reviewId: string;
  appId?: string;
  sequence?: number;
  mergeId?: string;
}

/** At most this many are remembered per service (the newest kept). */
export const KNOWN_REVIEWS_MAX = 200;

/** The global-state key of the reviews known per service base URL. */
export function knownReviewsKey(baseUrl: string): string {
  return `agentRuns.knownReviews.v1:${baseUrl}`;
}

/** The remembered reviews from stored JSON; anything malformed is left out. Never throws. */
export function reviveKnownReviews(raw: unknown): KnownReview[] {
  if (!Array.isArray(raw)) return [];
  const out: KnownReview[] = [];
  for (const v of raw as unknown[]) {
    if (typeof v !== 'object' || v === null) continue;
    const o = v as Record<string, unknown>;
    if (typeof o.reviewId !== 'string' || o.reviewId.trim() === '' || o.reviewId.length > 200) continue;
    const k: KnownReview = { reviewId: o.reviewId.trim() };
    if (typeof o.appId === 'string' && o.appId.trim() !== '') k.appId = o.appId.trim();
    if (typeof o.sequence === 'number' && Number.isSafeInteger(o.sequence)) k.sequence = o.sequence;
    if (typeof o.mergeId === 'string' && o.mergeId !== '') k.mergeId = o.mergeId;
    out.push(k);
  }
  return out;
}

/** `list` with `k` in it (replacing what was known of that reviewId, keeping facts `k` lacks), newest last, bounded. */
export function rememberReview(list: readonly KnownReview[], k: KnownReview): KnownReview[] {
  const before = list.find((x) => x.reviewId === k.reviewId);
  const merged: KnownReview = { ...before, ...stripUndefined(k) };
  return [...list.filter((x) => x.reviewId !== k.reviewId), merged].slice(-KNOWN_REVIEWS_MAX);
}

function stripUndefined(k: KnownReview): KnownReview {
  const out: KnownReview = { reviewId: k.reviewId };
  if (k.appId !== undefined) out.appId = k.appId;
  if (k.sequence !== undefined) out.sequence = k.sequence;
  if (k.mergeId !== undefined) out.mergeId = k.mergeId;
  return out;
}

/** What a detail read tells about its review. */
export function knownFromDetail(d: CodeReviewDetail, appId: string | undefined): KnownReview {
  return stripUndefined({ reviewId: d.reviewId, appId: d.agent?.appId ?? appId, sequence: d.review.sequence, mergeId: d.review.mergeId });
}

/** Two facts disagree only when both are known and differ. */
const clash = <T>(a: T | undefined, b: T | undefined): boolean => a !== undefined && b !== undefined && a !== b;

/**
 * The `reviewId` of a list item of app `appId`: its own `id` (versions A and B), else the one
 * known review of that app with the same `sequence` (or, without one, `mergeId`) and no
 * contradicting fact. Undefined when none or more than one agree.
 */
export function reviewIdOf(item: CodeReviewListItem, appId: string, known: readonly KnownReview[]): string | undefined {
  if (item.id !== undefined && item.id !== '') return item.id;
  const agree = known.filter((k) => k.appId === appId && !clash(k.sequence, item.sequence) && !clash(k.mergeId, item.mergeId)
    && ((item.sequence !== undefined && k.sequence === item.sequence) || (item.mergeId !== undefined && k.mergeId === item.mergeId)));
  const ids = new Set(agree.map((k) => k.reviewId));
  return ids.size === 1 ? agree[0].reviewId : undefined;
}

/**
 * What keeps a list item apart from the others of its app for as long as it is listed: its
 * `id`, else its `sequence`, else its `mergeId`; undefined when it has none of them (it is then
 * shown as it is, never merged with another).
 */
export function reviewKey(item: CodeReviewListItem): string | undefined {
  if (item.id !== undefined && item.id !== '') return `id:${item.id}`;
  if (item.sequence !== undefined) return `seq:${item.sequence}`;
  return item.mergeId !== undefined && item.mergeId !== '' ? `merge:${item.mergeId}` : undefined;
}

/**
 * Whether tracking `reviewId` (read as `detail`) from the row of `item` may tie them together:
 * refused when a fact of the detail contradicts the row (another review's ID was typed).
 */
export function trackedMatchesRow(detail: KnownReview, item: Pick<CodeReviewListItem, 'sequence' | 'mergeId'>): boolean {
  return !clash(detail.sequence, item.sequence) && !clash(detail.mergeId, item.mergeId);
}

export type ReviewBucket = keyof CodeReviewLists;

/** The groups in the order they are shown. */
export const REVIEW_BUCKETS: readonly ReviewBucket[] = ['open', 'merged', 'closed'];

export interface ReviewGroup {
  status: ReviewBucket;
  /** Newest first. */
  reviews: CodeReviewListItem[];
}

const timeOf = (r: CodeReviewListItem): number => r.createdAt ?? r.updatedAt ?? 0;

/**
 * The non-empty groups, Open then Merged then Closed, newest first in each (the service says it
 * sends them so; this does not count on it). A review listed twice (it moved between lists
 * while the service answered) is shown once, in the first list that has it.
 */
export function groupReviews(lists: CodeReviewLists): ReviewGroup[] {
  const seen = new Set<string>();
  const groups: ReviewGroup[] = [];
  for (const status of REVIEW_BUCKETS) {
    // An item with nothing that tells it apart (no id, sequence or mergeId) is never taken for another.
    const reviews = lists[status].filter((r) => {
      const key = reviewKey(r);
      return key === undefined || (!seen.has(key) && seen.add(key));
    });
    if (reviews.length > 0) {
      groups.push({ status, reviews: [...reviews].sort((a, b) => timeOf(b) - timeOf(a)) });
    }
  }
  return groups;
}

/** "#<sequence> " and the title, else the branches or versions compared (version C titles may be null). */
export function reviewLabel(r: CodeReviewListItem, l10n: L10n): string {
  const title = plain(r.title ?? '', LABEL_MAX);
  const name = title !== '' ? title : r.fromVersion !== undefined || r.toVersion !== undefined || r.id === undefined ? reviewVersions(r) : l10n.t('Review {0}', plain(r.id, LABEL_MAX));
  return r.sequence !== undefined ? `#${r.sequence} ${name}` : name;
}

/** The versions compared: their labels, else their IDs (`?` when neither came). */
export function reviewVersions(r: CodeReviewListItem): string {
  const side = (label: string | undefined, id: string | undefined): string => plain(label ?? id ?? '', 40) || '?';
  return `${side(r.fromVersionLabel, r.fromVersion)} → ${side(r.toVersionLabel, r.toVersion)}`;
}

/** The label of a picked version: its display text, else its id. */
export function versionShown(id: string, label: string | undefined): string {
  return label !== undefined && label.trim() !== '' ? label.trim() : id.trim();
}

/**
 * What names a code review in the run list, the "may have started" notice and the panel: its
 * title, else "Code review <from> → <to>" (the versions' labels where known). Takes a review
 * list item as the service sends it as well as the form's values.
 */
export function reviewPrompt(r: { title?: string; fromVersion?: string; toVersion?: string; fromVersionLabel?: string; toVersionLabel?: string }, l10n: L10n): string {
  const title = r.title?.trim() ?? '';
  if (title !== '') return title;
  return l10n.t('Code review {0} → {1}', versionShown(r.fromVersion ?? '', r.fromVersionLabel), versionShown(r.toVersion ?? '', r.toVersionLabel));
}
