import type { Agent } from '../api/types';
import type { RunRecord } from '../core/ledger/ledger';

/** A ledger record as an Agent, for runs not read in this session (after a reload). */
export function recordToAgent(r: RunRecord): Agent {
  const agent: Agent = {
    agentId: r.agentId,
    status: r.status,
    appId: r.appId,
    projectId: r.projectId,
    projectName: r.projectName,
    model: r.model,
    reasoningEffort: r.reasoningEffort,
    permission: r.permission,
    permittedBranches: r.permittedBranches,
    createdAt: r.createdAt ?? r.addedAt,
    updatedAt: r.updatedAt,
    completedAt: r.completedAt,
    lastError: r.lastError,
  };
  if (r.conversationState !== undefined || r.sandboxState !== undefined || r.queuedTurnCount !== undefined) {
    agent.lifecycle = { conversationState: r.conversationState, sandboxState: r.sandboxState, queuedTurnCount: r.queuedTurnCount };
  }
  return agent;
}
