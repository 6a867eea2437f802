/**
 * Parsing of test runs and test group runs (service-api-wider.md §5), as tolerant as ./parse;
 * only a run without an id fails (`ApiError` kind `invalid_response`).
 */
import * as z from 'zod/mini';
import { compact, invalidResponse, isRecord, optString, optStringList, requiredId, run } from './parse';
import type { TestGroupChildRun, TestGroupRunDetail, TestGroupRunStarted, TestRun, TestRunDetail, TestRunStarted, TestRunStep } from './testTypes';
import {
  artifactsSchema, countsSchema, listOf, optFinite, optTime, runStatusOf, sortedBy, stepStatusOf, stepTypeOf,
} from './parseTestFields';

const branchFields = {
  branchId: optString,
  branchDisplay: optString,
  branchCacheId: optString,
  model: optString,
  environment: optString,
};

/** B's and C's `assignedTestUser` (one of C's two shapes is shown): an object with an id, else absent (none: a run without a login). */
const assignedUserSchema = z.catch(z.optional(z.pipe(
  z.object({ id: requiredId, name: optString, email: optString, database: optString }),
  z.transform((u) => compact(u)),
)), undefined);

const runSchema = z.pipe(
  z.object({
    ...branchFields,
    id: requiredId,
    testId: optString,
    testName: optString,
    projectId: optString,
    conversationId: optString,
    groupRunId: optString,
    status: optString,
    summary: optString,
    createdAt: optTime,
    startedAt: optTime,
    completedAt: optTime,
    timeoutMinutes: optFinite,
    appBaseUrl: optString,
    bubbleAppName: optString,
    assignedTestUser: assignedUserSchema,
    nextPendingStepId: optString,
    counts: countsSchema,
    artifacts: artifactsSchema,
  }),
  z.transform(({ status, ...r }): TestRun => compact({ ...r, ...runStatusOf(status) })),
);

const runStepSchema = z.pipe(
  z.object({
    id: requiredId,
    position: optFinite,
    order: optFinite,
    status: optString,
    kind: optString,
    stepType: optString,
    sourceKind: optString,
    sourceComponentId: optString,
    sourceComponentName: optString,
    instruction: optString,
    details: optString,
    onFailure: optString,
    comment: optString,
    completedAt: optTime,
    artifacts: artifactsSchema,
    conditionResult: optString,
    dependsOnStepIds: optStringList,
    graphNodeKey: optString,
    parentGraphNodeKey: optString,
    parentConditionOutcome: optString,
  }),
  z.transform(({ status, kind, stepType, position, ...s }) => ({
    ...s, position, ...stepStatusOf(status), stepType: stepTypeOf(stepType, kind, undefined),
  })),
);

const testRefSchema = z.pipe(
  z.object({ id: requiredId, name: optString, description: optString }),
  z.transform((t) => compact(t)),
);

const runDetailSchema = z.object({
  run: z.optional(z.unknown()),
  test: z.optional(z.unknown()),
  steps: listOf(runStepSchema),
});

const childRunSchema = z.pipe(
  z.object({
    ...branchFields,
    id: requiredId,
    testId: optString,
    testName: optString,
    status: optString,
    createdAt: optTime,
    startedAt: optTime,
    completedAt: optTime,
  }),
  z.transform(({ status, ...r }): TestGroupChildRun => compact({ ...r, ...runStatusOf(status) })),
);

const groupRunSchema = z.pipe(
  z.object({
    ...branchFields,
    id: requiredId,
    groupId: optString,
    groupName: optString,
    status: optString,
    createdAt: optTime,
    startedAt: optTime,
    completedAt: optTime,
    counts: countsSchema,
  }),
  z.transform(({ status, ...r }): TestGroupRunDetail['run'] => compact({ ...r, ...runStatusOf(status) })),
);

const groupRunDetailSchema = z.object({ run: z.optional(z.unknown()), childRuns: listOf(childRunSchema) });

/** Parses a `POST /test-runs` response (201 `{ runId }`). */
export function parseTestRunStarted(json: unknown): TestRunStarted {
  const r = run(z.object({ runId: optString, id: optString }), json, 'test run start response');
  const runId = r.runId || r.id;
  if (runId === undefined || runId === '') throw invalidResponse('The test run start response had no runId.');
  return { runId };
}

/** Parses a `POST /test-group-runs` response (201 `{ groupRunId }`). */
export function parseTestGroupRunStarted(json: unknown): TestGroupRunStarted {
  const r = run(z.object({ groupRunId: optString, id: optString }), json, 'test group run start response');
  const groupRunId = r.groupRunId || r.id;
  if (groupRunId === undefined || groupRunId === '') throw invalidResponse('The test group run start response had no groupRunId.');
  return { groupRunId };
}

/** One object parsed by `schema`, or the refusal naming what is missing. */
function required<T>(schema: z.ZodMiniType<T>, value: unknown, what: string): T {
  if (!isRecord(value)) throw invalidResponse(`The ${what} had no run.`);
  return run(schema, value, `${what}'s run`);
}

/** Parses a `GET /test-runs/{runId}` response; steps in the order they run (`order`, else `position`). */
export function parseTestRunDetail(json: unknown): TestRunDetail {
  const d = run(runDetailSchema, json, 'test run');
  const runData = required(runSchema, d.run, 'test run');
  const test = isRecord(d.test) ? testRefSchema.safeParse(d.test) : undefined;
  const steps = sortedBy(d.steps, (s, i) => s.order ?? s.position ?? i).map((s, i): TestRunStep => compact({ ...s, position: s.position ?? i }));
  return compact({ run: runData, test: test?.success ? test.data : undefined, steps });
}

/** Parses a `GET /test-group-runs/{groupRunId}` response. */
export function parseTestGroupRunDetail(json: unknown): TestGroupRunDetail {
  const d = run(groupRunDetailSchema, json, 'test group run');
  return { run: required(groupRunSchema, d.run, 'test group run'), childRuns: d.childRuns };
}
