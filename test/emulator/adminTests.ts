/**
 * Admin routes for the app's tests and versions (deployed shapes; see README.md "The app's tests"
 * and "Code reviews and versions"):
 * - `GET /wider`, `PUT /wider {version: "A" | "B" | "C"}`: the published version served where they differ;
 * - `PUT /sync-wait {steps}`: how many steps of the clock `POST /versions/sync` waits (0: none, 202);
 * - `PUT /sync-failure {appId?, version, error}`: every sync of that branch fails with `error` (`null` clears);
 * - `GET /test-runs`: every test run and group run as stored (with `held`);
 * - `POST /test-runs/:id/hold` | `/release` | `/cancel`: a test run, or every child of a group
 *   run: held runs stay at their current step; cancel ends active ones `canceled`;
 * - `PUT /test-run-limit {limit: N | null, workspaceId?: "ws_acme"}`: active test runs allowed
 *   (a group run counts once); `null`: the default (3);
 * - `PATCH /automations/:id {nextRunError?: string | null, enabled?: boolean}`: what its next run ends with.
 */
import { parseJsonBody, jsonReply, type ReadBody, type Reply } from './http';
import { syncFailureKey } from './codeReviews';
import type { EmulatorState } from './state';
import { isWiderVersion, WIDER_VERSIONS } from './testDomain';
import { branchOf } from './versions';
import { DEFAULT_CONCURRENT_TEST_RUNS, testRunLimit, type TestRunService } from './testRuns';

export interface TestAdminContext {
  state: EmulatorState;
  testRuns: TestRunService;
}

type Json = Record<string, unknown>;

const fail = (status: number, error: string): Reply => jsonReply(status, { error });

class BadBody extends Error {}

function body(read: ReadBody): Json {
  let parsed: unknown;
  try {
    parsed = parseJsonBody(read.text);
  } catch (error) {
    throw new BadBody(error instanceof Error ? error.message : 'Invalid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new BadBody('The body must be a JSON object.');
  return parsed as Json;
}

/** The answer of a test admin route, or undefined when `method` and `parts` name none. */
export function testAdminRoute(ctx: TestAdminContext, method: string, parts: readonly string[], read: ReadBody): Reply | undefined {
  try {
    return route(ctx, method, parts, read);
  } catch (error) {
    if (error instanceof BadBody) return fail(400, error.message);
    throw error;
  }
}

function route(ctx: TestAdminContext, method: string, parts: readonly string[], read: ReadBody): Reply | undefined {
  const [first, id, action] = parts;
  if (first === 'wider' && parts.length === 1) {
    if (method === 'GET') return jsonReply(200, { version: ctx.state.wider });
    if (method !== 'PUT') return undefined;
    const input = body(read);
    const version = input.version;
    if (!isWiderVersion(version)) return fail(400, `"version" must be one of: ${WIDER_VERSIONS.join(', ')}.`);
    ctx.state.wider = version;
    return jsonReply(200, { version: ctx.state.wider });
  }
  if (first === 'sync-wait' && parts.length === 1 && method === 'PUT') {
    const steps = body(read).steps;
    if (typeof steps !== 'number' || !Number.isInteger(steps) || steps < 0) return fail(400, '"steps" must be an integer of at least 0.');
    ctx.state.syncWaitSteps = steps;
    return jsonReply(200, { steps });
  }
  if (first === 'sync-failure' && parts.length === 1 && method === 'PUT') {
    const input = body(read);
    const appId = typeof input.appId === 'string' ? input.appId : 'app_todo';
    const branch = typeof input.version === 'string' ? branchOf(input.version) : undefined;
    if (branch === undefined) return fail(400, '"version" must name a branch of the app (its id or label).');
    const error = input.error;
    if (error !== null && (typeof error !== 'string' || error.trim() === '')) return fail(400, '"error" must be a sentence, or null to let the syncs of the branch succeed again.');
    if (error === null) ctx.state.syncFailures.delete(syncFailureKey(appId, branch.version));
    else ctx.state.syncFailures.set(syncFailureKey(appId, branch.version), error);
    return jsonReply(200, { appId, version: branch.version, error });
  }
  if (first === 'test-runs' && parts.length === 1 && method === 'GET') {
    return jsonReply(200, { testRuns: [...ctx.state.testRuns.values()], groupRuns: [...ctx.state.groupRuns.values()] });
  }
  if (first === 'test-runs' && parts.length === 3 && method === 'POST' && ['hold', 'release', 'cancel'].includes(action)) {
    const done = action === 'hold' ? ctx.testRuns.hold(id) : action === 'release' ? ctx.testRuns.release(id) : ctx.testRuns.cancel(id);
    return done ? jsonReply(200, { ok: true, id }) : fail(404, `No test run or group run "${id}".`);
  }
  if (first === 'test-run-limit' && parts.length === 1 && method === 'PUT') {
    const input = body(read);
    const workspace = ctx.state.workspaces.get(typeof input.workspaceId === 'string' ? input.workspaceId : 'ws_acme');
    if (workspace === undefined) return fail(400, '"workspaceId" must name a workspace.');
    const limit = input.limit;
    if (limit !== null && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)) {
      return fail(400, `"limit" must be an integer of at least 1, or null (the default, ${DEFAULT_CONCURRENT_TEST_RUNS}).`);
    }
    if (limit === null) delete workspace.plan.concurrentTestRuns;
    else workspace.plan.concurrentTestRuns = limit;
    return jsonReply(200, { workspaceId: workspace.id, limit: testRunLimit(workspace), active: ctx.testRuns.activeRuns(workspace) });
  }
  if (first === 'automations' && parts.length === 2 && method === 'PATCH') {
    const automation = ctx.state.automations.get(id);
    if (automation === undefined) return fail(404, `No automation "${id}".`);
    const input = body(read);
    const { nextRunError, enabled } = input;
    if (nextRunError !== undefined && nextRunError !== null && typeof nextRunError !== 'string') return fail(400, '"nextRunError" must be a string or null.');
    if (enabled !== undefined && typeof enabled !== 'boolean') return fail(400, '"enabled" must be a boolean.');
    if (nextRunError !== undefined) automation.nextRunError = nextRunError;
    if (enabled !== undefined) automation.enabled = enabled;
    return jsonReply(200, automation);
  }
  return undefined;
}
