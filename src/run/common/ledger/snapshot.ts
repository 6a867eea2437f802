/**
 * A run as the surfaces show it, in the service's `Agent` shape (the panel header, exports,
 * the read tool): the record's fields with the status and completion of `runState`, never the
 * raw last read. Pure: no vscode.
 */
import type { Agent } from '../../../api/types';
import type { RunRecord } from './record';
import { runState } from './runState';

export function runSnapshot(r: RunRecord): Agent {
  const state = runState(r);
  const agent: Agent = {
    agentId: r.agentId,
    status: state.status,
    kind: r.kind,
    reviewId: r.reviewId,
    appId: r.appId,
    projectId: r.projectId,
    projectName: r.projectName,
    model: r.model,
    reasoningEffort: r.reasoningEffort,
    permission: r.permission,
    permittedBranches: r.permittedBranches,
    createdAt: r.createdAt ?? r.addedAt,
    updatedAt: r.updatedAt,
    completedAt: state.completedAt,
    // A failure of the turn before an unsettled follow-up is not this turn's.
    lastError: state.followUp ? undefined : r.lastError,
  };
  if (r.conversationState !== undefined || r.sandboxState !== undefined || r.queuedTurnCount !== undefined || r.lastLifecycleEventAt !== undefined) {
    agent.lifecycle = {
      conversationState: r.conversationState,
      sandboxState: r.sandboxState,
      queuedTurnCount: r.queuedTurnCount,
      lastLifecycleEventAt: r.lastLifecycleEventAt,
    };
  }
  for (const k of Object.keys(agent) as (keyof Agent)[]) {
    if (agent[k] === undefined) delete agent[k];
  }
  return agent;
}
