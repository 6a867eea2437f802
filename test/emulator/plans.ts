/**
 * What a workspace's plan allows beyond API access: how many agent conversations may be
 * active at once. The deployed service refuses a start (and a follow-up that would re-open a
 * finished run) with 409 `concurrency_limit` at that number; the reference knows no limit, so
 * it applies under `shapes: 'deployed'` only. The numbers are the emulator's choice: the
 * deployed service says only that the limit "depends on the plan".
 */
import type { Plan } from './domain';

/** Concurrent active agent conversations per plan id. */
export const PLAN_CONCURRENT_AGENTS: Readonly<Record<string, number>> = Object.freeze({
  free: 1,
  starter: 2,
  team: 3,
  business: 5,
  enterprise: 20,
});

/** For a plan id the table does not know. */
export const DEFAULT_CONCURRENT_AGENTS = 2;

/** A conversation in one of these statuses counts against the limit. */
export const ACTIVE_STATUSES: readonly string[] = ['queued', 'running'];

/** The plan's own number (seed or `PATCH /__admin/workspaces/:id {concurrentAgentLimit}`), else the table's. */
export function concurrentAgentLimit(plan: Plan): number {
  return plan.concurrentAgents ?? PLAN_CONCURRENT_AGENTS[plan.id] ?? DEFAULT_CONCURRENT_AGENTS;
}
