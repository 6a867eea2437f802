/**
 * What the test and automation tools need beyond the assistant's usual deps, by the names of
 * issue 22's contract: the capability gate (`deps.capabilities`, a key on exactly when the served
 * `/openapi.json` lists all its operations) and the send door's two entries
 * (`door.startTestRun`, `door.runAutomation`: sent at most once, never resent; "busy" while one is
 * under way for the same target).
 *
 * The door's entries arrive with the api part of the issue; until the door has them, the
 * capabilities that send (`serviceTests` for a run, `automationRuns`) read as off for sending,
 * so the send tools say "Not done" and send nothing. Once `SendDoor` declares them, `doorOf` is
 * a plain read.
 */
import type { AutomationRunQueued, StartTestRunRequest, TestRunStarted } from '../api/testTypes';
import type { Capability } from '../core/capabilities';
import type { Deps } from '../runs/deps';
import type { NotConnected, SendFailed, SendOptions } from '../runs/sendDoor';

export type { Capability };

/** Another send for the same target is under way or may have arrived: nothing was sent. */
export interface Busy { readonly kind: 'busy' }

export type TestRunStartResult = { readonly kind: 'started'; readonly started: TestRunStarted; readonly baseUrl: string } | Busy | NotConnected | SendFailed;
export type AutomationRunResult = { readonly kind: 'queued'; readonly queued: AutomationRunQueued; readonly baseUrl: string } | Busy | NotConnected | SendFailed;

export interface TestsDoor {
  startTestRun(request: StartTestRunRequest, o: SendOptions): Promise<TestRunStartResult>;
  runAutomation(automationId: string, o: SendOptions): Promise<AutomationRunResult>;
}

/** The door's test entries, when it has them. */
export function doorOf(deps: Deps): TestsDoor | undefined {
  const door = deps.door as Partial<TestsDoor>;
  return typeof door.startTestRun === 'function' && typeof door.runAutomation === 'function' ? (door as TestsDoor) : undefined;
}

/** Whether `c` is on; for sending, also whether the door can send it. */
export function capable(deps: Deps, c: Capability, sending = false): boolean {
  return deps.capabilities.has(c) && (!sending || doorOf(deps) !== undefined);
}
