/**
 * What one read of a run says about its ledger record: the fields it observes and what it
 * proves about the follow-ups acknowledged so far (runState.ts). Pure; the ledger (ledger.ts)
 * folds the result in.
 */
import { maxSequence, type Agent, type AgentMessage } from '../../../api/types';
import { stripUndefined, type LedgerEntry } from './record';
import { observeFollowUps } from './runState';

/** The first `sequence` of a conversation (0 or 1 are both accepted). */
const FIRST_SEQUENCE = 1;

export interface Observation {
  readonly fields: Partial<LedgerEntry>;
  /** The read is older than what the record already holds (its `updatedAt` is earlier): its fields were not taken. */
  readonly outOfOrder: boolean;
}

export function observeAgent(base: LedgerEntry, agent: Agent, now: number): Observation {
  const history = agent.history;
  // A read answered from an older copy of the run (a lagging replica, or one overtaken by a
  // newer read): the service's own clock says so. Its status is not news, but its history is
  // still evidence (merged by sequence elsewhere) and may prove an act arrived.
  const outOfOrder = agent.updatedAt !== undefined && base.updatedAt !== undefined && agent.updatedAt < base.updatedAt;
  const acts = observeFollowUps(base.acts, agent, now);
  if (outOfOrder) {
    const fields: Partial<LedgerEntry> = stripUndefined({
      lastSequence: maxSequence(history, base.lastSequence),
      messageCount: history ? Math.max(history.length, base.messageCount ?? 0) : undefined,
    });
    if (acts !== base.acts) {
      fields.acts = acts;
    }
    return { fields, outOfOrder };
  }
  const lifecycle = agent.lifecycle;
  const fields: Partial<LedgerEntry> = stripUndefined({
    status: agent.status ?? base.status,
    kind: agent.kind,
    reviewId: agent.reviewId,
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
    lastLifecycleEventAt: lifecycle?.lastLifecycleEventAt,
    createdAt: agent.createdAt,
    updatedAt: agent.updatedAt,
    completedAt: agent.completedAt,
    messageCount: history ? Math.max(history.length, base.messageCount ?? 0) : undefined,
    lastSequence: maxSequence(history, base.lastSequence),
  });
  if (acts !== base.acts) {
    fields.acts = acts;
  }
  // The label and the prompt come from what the extension sent; a run tracked by ID takes its
  // first user message, but only from a history that reaches back to the start.
  if (base.prompt === undefined && history && startsAtBeginning(history)) {
    const firstUser = history.find((m) => m.role === 'user' && typeof m.content === 'string');
    if (firstUser?.content) {
      fields.prompt = firstUser.content;
    }
  }
  return { fields, outOfOrder };
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
