/**
 * What the service tests feature stands on (issue 22's contract): the capability keys
 * (`deps.capabilities`), the sender's test-run entries, the client's test calls.
 */
import { isApiError } from '../api/errors';
import type { Deps } from '../run/deps';

/** What the feature uses: the one Deps (its `capabilities`, its sender's test-run entries). */
export type ServiceTestsDeps = Deps;

/** What the sender answers to a test's or a group's run. */
export type TestStartResult = Awaited<ReturnType<Deps['sender']['startTestRun']>> | Awaited<ReturnType<Deps['sender']['startTestGroupRun']>>;

/** `agentRuns.serviceTests.runGroup`'s argument (the Test Groups view's Run Group passes it). */
export interface RunGroupArgument {
  groupId: string;
  appId?: string;
  name?: string;
}

export function isRunGroupArgument(v: unknown): v is RunGroupArgument {
  if (typeof v !== 'object' || v === null) return false;
  const a = v as Record<string, unknown>;
  return typeof a.groupId === 'string' && a.groupId.trim() !== '' && (a.appId === undefined || typeof a.appId === 'string') && (a.name === undefined || typeof a.name === 'string');
}

/** A failure in one sentence (the service's words for an ApiError). */
export function describeError(deps: Pick<ServiceTestsDeps, 'api'>, e: unknown): string {
  return isApiError(e) ? deps.api().describeApiError(e) : e instanceof Error ? e.message : String(e);
}
