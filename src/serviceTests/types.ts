/**
 * What the service tests feature stands on, as the contract of issue 22 names it: the
 * capability keys (`deps.capabilities`), the send door's test-run entries and a client with the
 * test calls. Written against the contract, so the feature builds on its own.
 */
import type * as vscode from 'vscode';
import type { AgentRunsApi } from '../api/contract';
import { isApiError } from '../api/errors';
import type { ServiceTestCalls, StartTestGroupRunRequest, StartTestRunRequest, TestGroupRunStarted, TestRunStarted } from '../api/testTypes';
import type { Deps } from '../runs/deps';
import type { NotConnected, SendFailed, SendOptions } from '../runs/sendDoor';

export type Capability = 'codeReviews' | 'serviceTests' | 'serviceTestGroupRuns' | 'serviceTestGroups'
  | 'serviceTestGroupEdit' | 'serviceTestGroupDelete' | 'automations' | 'automationRuns';

export interface CapabilitiesLike {
  has(c: Capability): boolean;
  readonly onDidChange: vscode.Event<void>;
}

export type DoorStart<T> = { readonly kind: 'started'; readonly started: T; readonly baseUrl: string } | { readonly kind: 'busy' } | NotConnected | SendFailed;

export interface TestRunDoor {
  startTestRun(req: StartTestRunRequest, o: SendOptions): Promise<DoorStart<TestRunStarted>>;
  startTestGroupRun(req: StartTestGroupRunRequest, o: SendOptions): Promise<DoorStart<TestGroupRunStarted>>;
}

export interface ServiceTestsDeps extends Omit<Deps, 'door' | 'getClient'> {
  readonly capabilities: CapabilitiesLike;
  readonly door: TestRunDoor;
  getClient(options?: { quiet?: boolean }): Promise<(AgentRunsApi & ServiceTestCalls) | undefined>;
}

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
