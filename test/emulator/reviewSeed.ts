/**
 * The code reviews the deployed profile starts with, so each bucket of `GET /code-reviews` has
 * content: one merged and one closed review of `ws_acme`/`app_todo`, their conversations
 * written by the review script (reviews.ts) as they ran two and three days before the clock's
 * start. Put back with the retired-model run (deployedSeed.ts).
 */
import type { AgentRecord, CodeReviewRecord, Message } from './domain';
import { messageOf } from './records';
import { planReviewTurn, reviewPrompt } from './reviews';
import { SEED } from './seed';
import { lifecycleWords } from './shapes';
import type { EmulatorState } from './state';

const DAY_MS = 24 * 60 * 60 * 1000;
const STEP_MS = 1000;

interface SeededReview {
  reviewId: string;
  agentId: string;
  status: 'merged' | 'closed';
  daysAgo: number;
  fromVersion: string;
  toVersion: string;
  title: string;
  description: string;
  model: string;
  userEmail?: string;
  requestedByEmail: string;
}

/** The seeded reviews: ids and values tests can rely on (oldest first; sequences 1 and 2). */
export const SEEDED_REVIEWS: readonly SeededReview[] = Object.freeze([
  {
    reviewId: 'rev_seed_closed', agentId: 'agt_seed_review_closed', status: 'closed', daysAgo: 3,
    fromVersion: 'ver_todo_003', toVersion: 'ver_todo_006', title: 'Retry timed-out requests',
    description: 'Superseded by a timeout per endpoint.', model: 'hosted/pro', requestedByEmail: SEED.emails.admin,
  },
  {
    reviewId: 'rev_seed_merged', agentId: 'agt_seed_review_merged', status: 'merged', daysAgo: 2,
    fromVersion: 'ver_todo_002', toVersion: 'ver_todo_004', title: 'Settings page (TODO-140)',
    description: 'The settings page, merged into main.', model: 'anthropic/claude-sonnet-4-5', userEmail: SEED.emails.dev, requestedByEmail: SEED.emails.dev,
  },
]);

function seededReview(state: EmulatorState, seed: SeededReview, sequence: number, now: number): { agent: AgentRecord; review: CodeReviewRecord } | undefined {
  const workspace = state.workspaces.get(SEED.workspaces.main);
  const project = workspace === undefined ? undefined : state.findProject(workspace, SEED.apps.todo);
  if (workspace === undefined || project === undefined) return undefined;
  const info = { reviewId: seed.reviewId, fromVersion: seed.fromVersion, toVersion: seed.toVersion, title: seed.title, description: seed.description, focusAreas: null };
  const createdAt = now - seed.daysAgo * DAY_MS;
  const context = { prompt: reviewPrompt(info), turnNumber: 1, appId: project.appId, projectName: project.projectName, model: seed.model, permission: 'read_only', permittedBranches: [], shapes: 'deployed' as const };
  const script = planReviewTurn(context, info);
  // As the service writes it: the prompt on the first tick, then one step per tick.
  let at = createdAt + STEP_MS;
  const history: Message[] = [messageOf({ role: 'user', content: context.prompt }, 1, at)];
  for (const step of script.steps) {
    at += STEP_MS;
    for (const draft of step.messages) history.push(messageOf(structuredClone(draft), history.length + 1, at));
  }
  const completedAt = at + STEP_MS;
  const settledAt = completedAt + 6 * 60 * 60 * 1000;
  const agent: AgentRecord = {
    agentId: seed.agentId, kind: 'code_review', review: info, workspaceId: workspace.id, appId: project.appId, projectId: project.projectId,
    projectName: project.projectName, model: seed.model, reasoningEffort: null, permission: 'read_only', permittedBranches: [],
    ...(seed.userEmail !== undefined ? { userEmail: seed.userEmail } : {}),
    createdByTokenId: 'tok_default', status: 'completed', createdAt, updatedAt: completedAt, completedAt, history,
    lifecycle: { ...lifecycleWords('deployed').turnEnd('completed'), queuedTurnCount: 0, lastLifecycleEventAt: completedAt },
    pendingTurns: [], turnCount: 1, creditsCharged: 0, extraFields: {}, halted: false,
  };
  const review: CodeReviewRecord = {
    reviewId: seed.reviewId, agentId: seed.agentId, workspaceId: workspace.id, appId: project.appId, sequence, status: seed.status,
    title: seed.title, description: seed.description, focusAreas: null, fromVersion: seed.fromVersion, toVersion: seed.toVersion,
    requestedByEmail: seed.requestedByEmail, origin: 'ui', requesterNamed: true, titleGiven: true, fromVersionId: seed.fromVersion, toVersionId: seed.toVersion,
    model: seed.model, createdAt, updatedAt: settledAt,
    mergedAt: seed.status === 'merged' ? settledAt : null, closedAt: seed.status === 'closed' ? settledAt : null,
    mergeId: seed.status === 'merged' ? 'mrg_seed_settings_page' : null,
  };
  return { agent, review };
}

/** Adds the seeded reviews that are missing; returns their conversations (for the stale-read versions). */
export function seedReviews(state: EmulatorState, now: number): AgentRecord[] {
  const added: AgentRecord[] = [];
  SEEDED_REVIEWS.forEach((seed, i) => {
    if (state.codeReviews.has(seed.reviewId)) return;
    const made = seededReview(state, seed, i + 1, now);
    if (made === undefined) return;
    state.agents.set(made.agent.agentId, made.agent);
    state.codeReviews.set(made.review.reviewId, made.review);
    added.push(made.agent);
  });
  return added;
}
