/**
 * The code reviews whose ID is known here, per service (global state): tracked by ID, or started
 * here and read once to learn their number. Version C lists reviews without `id`, so the Runs
 * view's rows, the chat and the tools match list items to these (run/common/reviews.ts).
 */
import type { AgentRunsApi } from '../api/contract';
import type { CodeReviewListItem, CodeReviewLists } from '../api/reviewTypes';
import { knownFromDetail, knownReviewsKey, rememberReview, reviewIdOf, reviveKnownReviews, type KnownReview } from './common/reviews';
import type { MementoLike } from '../base/common/serialStore';

/** Reviews read per list read to learn their number, at most (the rest on the next read). */
const LEARN_PER_READ = 5;

export function knownReviews(globalState: Pick<MementoLike, 'get'>, baseUrl: string): KnownReview[] {
  return reviveKnownReviews(globalState.get<unknown>(knownReviewsKey(baseUrl)));
}

/** Remembers what is known of a review (a tracked one, a detail read). */
export async function rememberKnownReview(globalState: MementoLike, baseUrl: string, k: KnownReview): Promise<void> {
  await globalState.update(knownReviewsKey(baseUrl), rememberReview(knownReviews(globalState, baseUrl), k));
}

/**
 * The known reviews, after reading once (`GET /code-reviews/{id}`, a few per call) the reviews of `appId`
 * started here when the list has items it cannot match; a failed read waits for the next list read.
 */
export async function knownReviewsForList(
  globalState: MementoLike,
  client: Pick<AgentRunsApi, 'baseUrl' | 'getCodeReview'>,
  appId: string,
  lists: CodeReviewLists,
  startedHere: ReadonlyArray<{ reviewId?: string; appId?: string }>,
  log: { info(message: string): void },
  signal?: AbortSignal,
): Promise<KnownReview[]> {
  let known = knownReviews(globalState, client.baseUrl);
  const items: CodeReviewListItem[] = [...lists.open, ...lists.merged, ...lists.closed];
  if (items.every((i) => reviewIdOf(i, appId, known) !== undefined)) return known;
  // Read once: what a read gave is remembered, whether or not it had a number.
  const learnt = new Set(known.map((k) => k.reviewId));
  const toRead = [...new Set(startedHere.filter((r) => r.appId === appId && r.reviewId !== undefined && !learnt.has(r.reviewId)).map((r) => r.reviewId as string))]
    .slice(0, LEARN_PER_READ);
  if (toRead.length === 0) return known;
  const details = await Promise.allSettled(toRead.map((id) => client.getCodeReview(id, { historyLimit: 1 }, { signal })));
  details.forEach((d, i) => {
    if (d.status === 'fulfilled') {
      known = rememberReview(known, knownFromDetail(d.value, appId));
    } else {
      log.info(`Code review ${toRead[i]} could not be read to match it in the list: ${d.reason instanceof Error ? d.reason.message : String(d.reason)}`);
    }
  });
  await globalState.update(knownReviewsKey(client.baseUrl), known);
  return known;
}
