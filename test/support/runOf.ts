// A service read as the panel and the other surfaces get it: observed into a record, then derived (runState).
import type { Agent } from '../../src/api/types';
import { observeAgent } from '../../src/run/common/ledger/observe';
import { runState, type Run } from '../../src/run/common/ledger/runState';

export function runOf(agent: Agent, now = 0): Run {
  const base = { agentId: agent.agentId, source: 'tracked' as const, addedAt: now, status: agent.status ?? 'queued', unread: false };
  return runState({ ...base, ...observeAgent(base, agent, now).fields });
}
