/**
 * The public JSON of test runs and group runs (service-api-wider.md §5) in the published
 * version in force: A's fields; B's (A's plus the timing, test user, counts, graph fields and
 * `graph`); or C's (A's plus the timing, test user, app URL and artifacts B added, nothing of
 * the graph, `model` null when the start named none). Nullable fields are sent as `null`.
 */
import type { EmulatorState } from './state';
import type { GroupRunRecord, RunStepRecord, TestRunRecord, WiderVersion } from './testDomain';
import { ACTIVE_TEST_RUN_STATUSES, stepCounts, TEST_RUN_STATUSES } from './testRunSteps';

/** The model of a run started without one, as A and B name it (C sends `null`). */
export const DEFAULT_TEST_RUN_MODEL = 'hosted/auto';

const branchFields = (r: TestRunRecord | GroupRunRecord, wider: WiderVersion): Record<string, unknown> => ({
  branchId: r.branchId, branchDisplay: r.branchDisplay, branchCacheId: r.branchCacheId, model: wider === 'C' ? r.model : r.model ?? DEFAULT_TEST_RUN_MODEL, environment: r.environment,
});

const slug = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

function stepView(step: RunStepRecord, wider: WiderVersion): Record<string, unknown> {
  const a = {
    id: step.id, position: step.position, sourceKind: step.sourceKind, sourceComponentId: step.sourceComponentId, sourceComponentName: step.sourceComponentName,
    instruction: step.instruction, details: step.details, onFailure: step.onFailure, status: step.status, comment: step.comment,
    completedAt: step.completedAt, artifacts: structuredClone(step.artifacts),
  };
  if (wider !== 'B') return a;
  return {
    ...a, order: step.order, dependsOnStepIds: [...step.dependsOnStepIds], stepType: step.stepType, conditionResult: step.conditionResult,
    graphNodeKey: step.graphNodeKey, parentGraphNodeKey: step.parentGraphNodeKey, parentConditionOutcome: step.parentConditionOutcome,
  };
}

/** B's `graph` (shape not documented; the emulator's): the steps as nodes, what each waits for as edges. */
function graphOf(run: TestRunRecord): Record<string, unknown> {
  const byId = new Map(run.steps.map((s) => [s.id, s]));
  return {
    nodes: run.steps.map((s) => ({ key: s.graphNodeKey, stepId: s.id, stepType: s.stepType, status: s.status })),
    edges: run.steps.flatMap((s) => s.dependsOnStepIds.map((from) => ({
      from: byId.get(from)?.graphNodeKey ?? from, to: s.graphNodeKey,
      ...(byId.get(from)?.stepType === 'condition' && s.parentGraphNodeKey === byId.get(from)?.graphNodeKey ? { outcome: s.parentConditionOutcome } : {}),
    }))),
  };
}

export function testRunView(run: TestRunRecord, state: EmulatorState, wider: WiderVersion): Record<string, unknown> {
  const a = {
    id: run.id, testId: run.testId, projectId: run.projectId, conversationId: run.conversationId, status: run.status, ...branchFields(run, wider),
    summary: run.summary, createdAt: run.createdAt,
  };
  const test = { id: run.testId, name: run.testName, description: run.testDescription };
  const steps = run.steps.map((s) => stepView(s, wider));
  if (wider === 'A') return { run: a, test, steps };
  const project = [...state.workspaces.values()].flatMap((w) => w.projects).find((p) => p.appId === run.appId);
  const name = slug(project?.projectName ?? run.appId);
  const appBaseUrl = run.environment === 'live' ? `https://${name}.apps.example` : `https://${slug(run.branchId)}--${name}.preview.apps.example`;
  const timing = { testName: run.testName, groupRunId: run.groupRunId, startedAt: run.startedAt, completedAt: run.completedAt };
  const user = run.assignedTestUser;
  if (wider === 'C') {
    // The app is resolved when the run starts: C's nullable app fields stay null while it is queued.
    const started = run.startedAt !== null;
    return {
      run: {
        ...a, ...timing, appBaseUrl: started ? appBaseUrl : null, bubbleAppName: started ? name : null,
        assignedTestUser: user === null ? null : { ...user }, artifacts: structuredClone(run.artifacts),
      },
      test,
      steps,
    };
  }
  const next = run.status === 'running' ? run.steps.find((s) => s.status === 'pending') : undefined;
  return {
    run: {
      ...a, ...timing, timeoutMinutes: run.timeoutMinutes, appBaseUrl, bubbleAppName: name,
      assignedTestUser: user === null ? null : { id: user.id, name: user.name, email: user.email },
      nextPendingStepId: next?.id ?? null, counts: stepCounts(run), readyStepIds: next === undefined ? [] : [next.id], artifacts: structuredClone(run.artifacts),
    },
    test,
    steps,
    graph: graphOf(run),
  };
}

/** A group run's status from its children: active while one is; then the worst of error, warning, canceled, passed. */
export function groupStatus(children: readonly TestRunRecord[]): string {
  if (children.length > 0 && children.every((c) => c.status === 'queued')) return 'queued';
  if (children.some((c) => ACTIVE_TEST_RUN_STATUSES.includes(c.status))) return 'running';
  for (const status of ['error', 'warning', 'canceled']) if (children.some((c) => c.status === status)) return status;
  return 'passed';
}

export function groupRunView(group: GroupRunRecord, children: readonly TestRunRecord[], wider: WiderVersion): Record<string, unknown> {
  const status = groupStatus(children);
  const started = children.map((c) => c.startedAt).filter((t): t is number => t !== null);
  const ended = ACTIVE_TEST_RUN_STATUSES.includes(status) ? [] : children.map((c) => c.completedAt).filter((t): t is number => t !== null);
  const run: Record<string, unknown> = {
    id: group.id, groupId: group.groupId, groupName: group.groupName, status, ...branchFields(group, wider),
    startedAt: started.length === 0 ? null : Math.min(...started), completedAt: ended.length === 0 ? null : Math.max(...ended), createdAt: group.createdAt,
  };
  if (wider === 'B') {
    const counts: Record<string, number> = { total: children.length };
    for (const s of TEST_RUN_STATUSES) counts[s] = children.filter((c) => c.status === s).length;
    run.counts = counts;
  }
  const childRuns = children.map((c) => ({
    id: c.id, testId: c.testId, testName: c.testName, status: c.status, ...branchFields(c, wider), startedAt: c.startedAt, completedAt: c.completedAt, createdAt: c.createdAt,
  }));
  return { run, childRuns };
}
