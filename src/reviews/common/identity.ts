/**
 * Which review a list item is, when the list does not say: version C lists code reviews without
 * their `id`, and only `POST /code-reviews` (started here) or a detail read (tracked by ID here)
 * gives a `reviewId`. A list item is matched to a known review by its per-project `sequence` or
 * its `mergeId`, and only when exactly one known review of that app agrees and none contradicts:
 * an item not matched is shown without one, never with a guessed one. Pure.
 */
import type { CodeReviewDetail, CodeReviewListItem } from '../../api/reviewTypes';

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
