/**
 * What reading code reviews needs, for the tools and `@agent-runs /reviews` alike: the served
 * schema asked first (a service without `/code-reviews` gets a clean refusal, not a 404), the
 * review a conversation belongs to, and the IDs of list items that come without one (version C).
 */
import * as vscode from 'vscode';
import type { AgentRunsApi } from '../api/contract';
import type { CodeReviewListItem, CodeReviewLists } from '../api/reviewTypes';
import type { Deps } from '../run/deps';
import { knownReviewsForList } from '../run/knownReviews';
import { CODE_REVIEWS_PATH, codeReviewsServed } from '../connection/common/codeReviewsServed';
import { reviewIdOf } from '../run/common/reviews';
import { Refusal } from './common';

export function noCodeReviewsText(): string {
  return vscode.l10n.t('this service offers no code reviews (its API schema, /openapi.json, lists no {0}).', CODE_REVIEWS_PATH);
}

/**
 * Refuses unless the service's `/openapi.json` lists `/code-reviews`. A schema that cannot be
 * read rejects with its own error (said as every failure is; a refused token reaches the 401 gate).
 */
export async function requireCodeReviews(client: AgentRunsApi, signal?: AbortSignal): Promise<void> {
  const schema = await client.getSchemaInfo({ signal });
  if (!codeReviewsServed(schema.paths)) throw new Refusal(noCodeReviewsText());
}

export interface ReviewOfRun {
  reviewId: string;
  appId?: string;
}

/** The review whose conversation `agentId` is: the listed run's `reviewId`, else one read of the run. */
export async function reviewOfRun(deps: Deps, client: AgentRunsApi, agentId: string, signal?: AbortSignal): Promise<ReviewOfRun> {
  const record = deps.ledger().get(agentId);
  if (record?.reviewId !== undefined && record.reviewId.trim() !== '') return { reviewId: record.reviewId, appId: record.appId };
  const agent = await client.getAgent(agentId, { signal });
  if (agent.reviewId !== undefined && agent.reviewId.trim() !== '') return { reviewId: agent.reviewId, appId: agent.appId };
  throw new Refusal(vscode.l10n.t('run {0} is not a code review\'s conversation: it names no review.', agentId));
}

/**
 * The review ID of each item of an app's list: its own (versions A, B), else that of a review
 * started or tracked here with the same number (src/run/knownReviews.ts); never a guess.
 */
export async function reviewIdsFor(deps: Deps, client: AgentRunsApi, appId: string, lists: CodeReviewLists, signal?: AbortSignal): Promise<(r: CodeReviewListItem) => string | undefined> {
  const known = await knownReviewsForList(deps.globalState, client, appId, lists, deps.ledger().all(), deps.log, signal);
  return (r) => reviewIdOf(r, appId, known);
}
