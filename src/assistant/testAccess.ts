/**
 * What the test and automation tools need beyond the assistant's usual deps, by the names of
 * issue 22's contract: the capability gate (`deps.capabilities`, a key on exactly when the served
 * `/openapi.json` lists all its operations), the send door's two entries (`door.startTestRun`,
 * `door.runAutomation`: sent at most once, never resent; "busy" while one is under way) and the
 * client's read calls (src/api/testTypes.ts `ServiceTestCalls`).
 *
 * The gate, the door's entries and the calls arrive with the api part of the issue (branch
 * w-tapi); until a deps object carries them, every capability reads as off, so the tools say
 * "Not done" and send nothing. Once they are in `Deps`, `testsOf` is a plain read.
 */
import type { AgentRunsApi } from '../api/contract';
import type { AutomationRunQueued, ServiceTestCalls, StartTestRunRequest, TestRunStarted } from '../api/testTypes';
import type { Deps } from '../runs/deps';
import type { NotConnected, SendFailed, SendOptions } from '../runs/sendDoor';

export type Capability = 'codeReviews' | 'serviceTests' | 'serviceTestGroupRuns' | 'serviceTestGroups'
  | 'serviceTestGroupEdit' | 'serviceTestGroupDelete' | 'automations' | 'automationRuns';

export interface Capabilities {
  has(c: Capability): boolean;
}

/** Another send for the same target is under way or may have arrived: nothing was sent. */
export interface Busy { readonly kind: 'busy' }

export type TestRunStartResult = { readonly kind: 'started'; readonly started: TestRunStarted; readonly baseUrl: string } | Busy | NotConnected | SendFailed;
export type AutomationRunResult = { readonly kind: 'queued'; readonly queued: AutomationRunQueued; readonly baseUrl: string } | Busy | NotConnected | SendFailed;

export interface TestsDoor {
  startTestRun(request: StartTestRunRequest, o: SendOptions): Promise<TestRunStartResult>;
  runAutomation(automationId: string, o: SendOptions): Promise<AutomationRunResult>;
}

export type TestsClient = AgentRunsApi & ServiceTestCalls;

export interface TestsAccess {
  readonly capabilities: Capabilities;
  readonly door: TestsDoor;
}

const NONE: Capabilities = { has: () => false };

/** The gate and the door's test entries of `deps`; a deps without a gate has every capability off. */
export function testsOf(deps: Deps): TestsAccess {
  const d = deps as Deps & { capabilities?: Capabilities; door: Partial<TestsDoor> };
  const door = d.door;
  const complete = typeof door.startTestRun === 'function' && typeof door.runAutomation === 'function';
  return { capabilities: complete && d.capabilities ? d.capabilities : NONE, door: door as TestsDoor };
}

/** The client's test calls, once a capability said the service serves them (the api part adds them to every client). */
export function testsClient(client: AgentRunsApi): TestsClient {
  return client as TestsClient;
}
