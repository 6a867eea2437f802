/**
 * The language model tools that read code reviews. Read-only, so nothing is confirmed; a service
 * whose schema lists no `/code-reviews` gets "Not done: …" and no request. The text is
 * ./common/reviewText.ts's: bounded, the service's words quoted as data.
 */
import * as vscode from 'vscode';
import { DEFAULT_REVIEW_LIST_LIMIT } from './common/schemas';
import { reviewAsText, reviewListAsText } from './common/reviewText';
import { Refusal, clientOrRefuse, setting } from './common';
import { requireCodeReviews, reviewIdsFor, reviewOfRun } from './reviewReads';
import { AgentRunsTool, type Input } from './toolBase';

/** Which review: by its ID, or by its conversation's agent ID (exactly one of them). */
type ReadReview = ({ reviewId: string; agentId?: undefined } | { agentId: string; reviewId?: undefined }) & { appId?: string };

export class ReadCodeReviewTool extends AgentRunsTool<ReadReview> {
  protected check(input: Input): ReadReview {
    const api = this.deps.api();
    const appId = typeof input.appId === 'string' ? input.appId.trim() : undefined;
    if (input.reviewId !== undefined && input.agentId !== undefined) {
      throw new Refusal(vscode.l10n.t('give reviewId or agentId, not both.'));
    }
    if (input.reviewId !== undefined) return { reviewId: this.validated(() => api.validateReviewId(input.reviewId)), appId };
    if (input.agentId !== undefined) return { agentId: this.validated(() => api.validateAgentId(input.agentId)), appId };
    throw new Refusal(vscode.l10n.t('reviewId is required: give the code review\'s ID, or the agentId of its conversation.'));
  }

  protected confirm(c: ReadReview): vscode.PreparedToolInvocation {
    return {
      invocationMessage: c.reviewId !== undefined
        ? vscode.l10n.t('Reading code review {0}', c.reviewId)
        : vscode.l10n.t('Reading the code review of run {0}', c.agentId),
    };
  }

  protected async run(c: ReadReview, signal: AbortSignal): Promise<string> {
    const client = await clientOrRefuse(this.deps);
    await requireCodeReviews(client, signal);
    const of = c.reviewId !== undefined ? { reviewId: c.reviewId, appId: undefined } : await reviewOfRun(this.deps, client, c.agentId, signal);
    // The review agent's history is not part of the summary: one message is the least the query takes.
    const detail = await client.getCodeReview(of.reviewId, { historyLimit: 1 }, { signal });
    return reviewAsText(detail, { appId: c.appId ?? of.appId }, vscode.l10n);
  }
}

interface ListReviews {
  appId: string;
  limit: number;
}

export class ListCodeReviewsTool extends AgentRunsTool<ListReviews> {
  protected check(input: Input): ListReviews {
    const appId = typeof input.appId === 'string' ? input.appId.trim() : setting('appId');
    if (appId === '') throw new Refusal(vscode.l10n.t('appId is required: give the App ID, or set a default in agentRuns.appId.'));
    return { appId, limit: typeof input.limit === 'number' ? input.limit : DEFAULT_REVIEW_LIST_LIMIT };
  }

  protected confirm(c: ListReviews): vscode.PreparedToolInvocation {
    return { invocationMessage: vscode.l10n.t('Listing the code reviews of {0}', c.appId) };
  }

  protected async run(c: ListReviews, signal: AbortSignal): Promise<string> {
    const client = await clientOrRefuse(this.deps);
    await requireCodeReviews(client, signal);
    // One more than shown: a list that brings it had more than the limit, and says so.
    const lists = await client.listCodeReviews(c.appId, { limit: c.limit + 1 }, { signal });
    return reviewListAsText(c.appId, lists, c.limit, vscode.l10n, await reviewIdsFor(this.deps, client, c.appId, lists, signal));
  }
}
