/**
 * What one read of a run says about its ledger record: the fields it observes, and whether an
 * acknowledged follow-up shows yet. Pure; the ledger (ledger.ts) folds the result in.
 */
import { isFinished, maxSequence, type Agent, type AgentMessage } from '../../api/types';
import { stripUndefined, type RunRecord } from './record';

/**
 * How long an acknowledged follow-up may stay invisible before reads are believed again. The
 * service normally shows it within seconds; this only keeps a run from being followed forever
 * when it never does.
 */
export const FOLLOW_UP_WAIT_MS = 10 * 60_000;

/** The first `sequence` of a conversation (0 or 1 are both accepted). */
const FIRST_SEQUENCE = 1;

export interface Observation {
  readonly fields: Partial<RunRecord>;
  /** The pending follow-up showed in this read (or was given up on): clear the pending fields. */
  readonly followUpSettled: boolean;
}

export function observeAgent(base: RunRecord, agent: Agent, now: number): Observation {
  const lifecycle = agent.lifecycle;
  const history = agent.history;
  const pending = base.pendingFollowUpAt !== undefined;
  const settled = pending && (followUpShows(base, agent) || now - (base.pendingFollowUpAt ?? now) >= FOLLOW_UP_WAIT_MS);
  // A read from before the follow-up took effect still says the last turn's `completed`:
  // it is not a completion, so the acknowledged status stays.
  const stale = pending && !settled && isFinished(agent);
  const fields: Partial<RunRecord> = stripUndefined({
    status: stale ? base.status : agent.status ?? base.status,
    appId: agent.appId,
    projectId: agent.projectId,
    projectName: agent.projectName,
    model: agent.model,
    reasoningEffort: agent.reasoningEffort,
    permission: agent.permission,
    permittedBranches: agent.permittedBranches,
    lastError: agent.lastError,
    queuedTurnCount: lifecycle?.queuedTurnCount,
    conversationState: lifecycle?.conversationState,
    sandboxState: lifecycle?.sandboxState,
    createdAt: agent.createdAt,
    updatedAt: agent.updatedAt,
    completedAt: stale ? base.completedAt : agent.completedAt,
    messageCount: history ? Math.max(history.length, base.messageCount ?? 0) : undefined,
    lastSequence: maxSequence(history, base.lastSequence),
  });
  // The label and the prompt come from what the extension sent; a run tracked by ID takes its
  // first user message, but only from a history that reaches back to the start.
  if (base.prompt === undefined && history && startsAtBeginning(history)) {
    const firstUser = history.find((m) => m.role === 'user' && typeof m.content === 'string');
    if (firstUser?.content) {
      fields.prompt = firstUser.content;
    }
  }
  return { fields, followUpSettled: settled };
}

/** The service shows the follow-up: a new turn is queued or running, the run was updated, or the prompt is in the history. */
function followUpShows(base: RunRecord, agent: Agent): boolean {
  if (agent.status !== undefined && !isFinished(agent)) {
    return true;
  }
  if ((agent.lifecycle?.queuedTurnCount ?? 0) > 0) {
    return true;
  }
  if (agent.updatedAt !== undefined && base.updatedAt !== undefined && agent.updatedAt > base.updatedAt) {
    return true;
  }
  const prompt = base.pendingFollowUpPrompt;
  const after = base.lastSequence;
  return prompt !== undefined && (agent.history ?? []).some((m) =>
    m.role === 'user' && m.content === prompt && (after === undefined || m.sequence === undefined || m.sequence > after));
}

/** Whether `history` holds the conversation's first message (without sequences there is no telling: assume so). */
function startsAtBeginning(history: readonly AgentMessage[]): boolean {
  let min: number | undefined;
  for (const m of history) {
    if (m.sequence !== undefined && Number.isFinite(m.sequence)) {
      min = min === undefined ? m.sequence : Math.min(min, m.sequence);
    }
  }
  return min === undefined || min <= FIRST_SEQUENCE;
}
