/**
 * After the service acknowledged a start or a follow-up: the run is listed (or updated), followed,
 * and read fast for a while so the person sees it move. Every POST path comes through here.
 */
import type { CodeReviewStarted, StartCodeReviewRequest } from '../api/reviewTypes';
import type { AgentStarted, FollowUpAck, StartAgentRequest } from '../api/types';
import type { FollowUpBaseline, RunLedger, RunSource } from './common/ledger/ledger';
import type { Poller } from './common/polling/poller';

export type AfterPost =
  | {
      kind: 'start';
      run: AgentStarted;
      request: StartAgentRequest;
      /** How the run entered the list; `started` unless a caller says otherwise. */
      source?: RunSource;
    }
  | {
      kind: 'followUp';
      agentId: string;
      ack: FollowUpAck;
      prompt: string;
      permission?: string;
      permittedBranches?: string[];
      /** The run's facts when the follow-up was sent (RunLedger.followUpBaseline before the POST). */
      before?: FollowUpBaseline;
    }
  | {
      /** A code review started: its conversation is listed as a run of kind `code_review`. */
      kind: 'codeReview';
      review: CodeReviewStarted;
      request: StartCodeReviewRequest;
      /** What names the review in the list (run/common/reviews.ts `reviewPrompt`). */
      prompt: string;
    };

export function afterPost(ledger: RunLedger, poller: Pick<Poller, 'track' | 'burst'>, post: AfterPost, now = Date.now()): void {
  if (post.kind === 'start') {
    const { run, request } = post;
    ledger.upsert({
      agentId: run.agentId,
      source: post.source ?? 'started',
      status: run.status,
      kind: run.kind,
      appId: run.appId ?? request.appId,
      projectId: run.projectId,
      createdAt: run.createdAt,
      prompt: request.prompt,
      model: request.model,
      reasoningEffort: request.reasoningEffort,
      permission: request.permission,
      permittedBranches: request.permittedBranches,
      completionWebhookUrl: request.completionWebhookUrl,
      userEmail: request.userEmail,
    }, now);
    poller.track(run.agentId);
    poller.burst(run.agentId);
    return;
  }
  if (post.kind === 'codeReview') {
    const { review, request } = post;
    ledger.upsert({
      agentId: review.agentId,
      source: 'started',
      status: review.status,
      kind: review.kind ?? 'code_review',
      reviewId: review.reviewId,
      appId: request.appId,
      createdAt: review.createdAt,
      prompt: post.prompt,
      model: request.model,
      completionWebhookUrl: request.completionWebhookUrl,
      userEmail: request.userEmail,
    }, now);
    poller.track(review.agentId);
    poller.burst(review.agentId);
    return;
  }
  const { agentId, ack } = post;
  if (!ledger.has(agentId)) {
    // A follow-up to a run that is not listed yet (a tool or the chat named it): list it.
    ledger.upsert({ agentId, source: 'tracked', status: ack.status }, now);
  }
  ledger.recordFollowUp(agentId, {
    prompt: post.prompt,
    ackStatus: ack.status,
    permission: post.permission,
    permittedBranches: post.permittedBranches,
    ...(post.before ? { before: post.before } : {}),
  }, now);
  poller.track(agentId);
  poller.burst(agentId, { reopening: true });
}
