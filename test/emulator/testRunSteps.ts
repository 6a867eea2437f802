/**
 * The script of a test run, pure: a test's steps expanded into the run's steps (a component
 * reference becomes the component's steps), what each step ends with, and the run's summary.
 *
 * Markers in a step's instruction script its outcome: `[fail]` → `error`, `[warn]` → `warning`,
 * otherwise `passed`; a condition is `met` unless its instruction says `[not met]`. A
 * condition's untaken branch is `skipped`; a warning or error on a step with `onFailure: stop`
 * cancels the steps not run yet (`cancelled`, two l) and ends the run with that status.
 */
import { newId } from './records';
import type { AppTestRecord, RunStepRecord, TestRunRecord } from './testDomain';

export const STEP_STATUSES = ['pending', 'passed', 'warning', 'error', 'cancelled', 'skipped'] as const;
export const TEST_RUN_STATUSES = ['queued', 'running', 'passed', 'warning', 'error', 'canceled'] as const;
export const ACTIVE_TEST_RUN_STATUSES: readonly string[] = ['queued', 'running'];
export const STEP_MARKERS = { fail: '[fail]', warn: '[warn]', notMet: '[not met]' } as const;

/** Where the emulator says its screenshots and recordings are (an http(s) link per artifact). */
export const ARTIFACTS_ORIGIN = 'https://artifacts.tests.example';

const clean = (text: string | null): string => (text ?? '').replace(/\s*\[(fail|warn|not met)\]/gi, '').trim();

/** The run's steps, in the order they run: the test's steps, each component reference replaced by the component's steps. */
export function expandSteps(test: AppTestRecord, component: (id: string) => AppTestRecord | undefined): RunStepRecord[] {
  const out: RunStepRecord[] = [];
  const add = (fields: Omit<RunStepRecord, 'id' | 'position' | 'order' | 'status' | 'comment' | 'completedAt' | 'artifacts' | 'conditionResult' | 'dependsOnStepIds'>): void => {
    out.push({ ...fields, id: newId('trs'), position: out.length, order: out.length, status: 'pending', comment: null, completedAt: null, artifacts: [], conditionResult: null, dependsOnStepIds: [] });
  };
  for (const step of test.steps) {
    const parent = { parentGraphNodeKey: step.parentKey, parentConditionOutcome: step.parentOutcome };
    if (step.stepType === 'component') {
      const used = step.componentId === null ? undefined : component(step.componentId);
      for (const inner of used?.steps ?? []) {
        if (inner.stepType !== 'test') continue;
        add({
          stepType: 'test', sourceKind: 'component', sourceComponentId: used?.id ?? null, sourceComponentName: used?.name ?? null,
          instruction: inner.instruction, details: inner.details, onFailure: inner.onFailure === 'stop' ? 'stop' : step.onFailure,
          graphNodeKey: `${step.key}.${inner.key}`, ...parent,
        });
      }
      continue;
    }
    add({
      stepType: step.stepType, sourceKind: 'step', sourceComponentId: null, sourceComponentName: null,
      instruction: step.instruction, details: step.details, onFailure: step.onFailure, graphNodeKey: step.key, ...parent,
    });
  }
  // Each step waits for the one before it on its branch, or for the condition it hangs under.
  out.forEach((step, i) => {
    const before = out.slice(0, i).reverse().find((s) => s.parentGraphNodeKey === step.parentGraphNodeKey && s.parentConditionOutcome === step.parentConditionOutcome);
    const condition = out.find((s) => s.stepType === 'condition' && s.graphNodeKey === step.parentGraphNodeKey);
    const on = before ?? condition;
    step.dependsOnStepIds = on === undefined ? [] : [on.id];
  });
  return out;
}

function artifact(run: TestRunRecord, step: RunStepRecord): Record<string, unknown> {
  return { kind: 'screenshot', name: `step-${step.position + 1}.png`, mimeType: 'image/png', url: `${ARTIFACTS_ORIGIN}/test-runs/${run.id}/steps/${step.id}.png` };
}

/** The steps under a condition's branch, and under the conditions in it. */
function branchOf(steps: readonly RunStepRecord[], key: string, outcome: 'met' | 'not_met'): RunStepRecord[] {
  const direct = steps.filter((s) => s.parentGraphNodeKey === key && s.parentConditionOutcome === outcome);
  return direct.flatMap((s) => (s.stepType === 'condition' ? [s, ...branchOf(steps, s.graphNodeKey, 'met'), ...branchOf(steps, s.graphNodeKey, 'not_met')] : [s]));
}

/**
 * Runs the next pending step (one per tick). Returns true when the run has nothing left to run
 * (it ended; the caller finishes it).
 */
export function runNextStep(run: TestRunRecord, now: number): boolean {
  const step = run.steps.find((s) => s.status === 'pending');
  if (step === undefined) return true;
  const text = step.instruction ?? '';
  const lower = text.toLowerCase();
  step.completedAt = now;
  step.artifacts = [artifact(run, step)];
  if (step.stepType === 'condition') {
    const outcome = lower.includes(STEP_MARKERS.notMet) ? 'not_met' : 'met';
    step.status = 'passed';
    step.conditionResult = outcome;
    step.comment = `The condition is ${outcome === 'met' ? 'met' : 'not met'}: ${clean(text)}`;
    for (const skipped of branchOf(run.steps, step.graphNodeKey, outcome === 'met' ? 'not_met' : 'met')) {
      skipped.status = 'skipped';
      skipped.comment = `Skipped: the condition "${clean(text)}" is ${outcome === 'met' ? 'met' : 'not met'}.`;
    }
  } else if (lower.includes(STEP_MARKERS.fail)) {
    step.status = 'error';
    step.comment = `Failed: ${clean(text)}. The expected change did not appear within 10 s; see the screenshot.`;
  } else if (lower.includes(STEP_MARKERS.warn)) {
    step.status = 'warning';
    step.comment = `Done with a warning: ${clean(text)}. The page took 4.2 s to respond (the budget is 3 s).`;
  } else {
    step.status = 'passed';
    step.comment = `As expected: ${clean(text)}.`;
  }
  if ((step.status === 'warning' || step.status === 'error') && step.onFailure === 'stop') {
    for (const rest of run.steps) {
      if (rest.status !== 'pending') continue;
      rest.status = 'cancelled';
      rest.comment = `Not run: step ${step.position + 1} ended with ${step.status === 'error' ? 'an error' : 'a warning'} and stops the test.`;
    }
  }
  return !run.steps.some((s) => s.status === 'pending');
}

/** How many steps are in each status (B's `counts`; the shape is the emulator's choice). */
export function stepCounts(run: TestRunRecord): Record<string, number> {
  const counts: Record<string, number> = { total: run.steps.length };
  for (const status of STEP_STATUSES) counts[status] = run.steps.filter((s) => s.status === status).length;
  return counts;
}

/** The run's status from its steps, once none is pending: the worst of error, warning, passed. */
export function endStatus(run: TestRunRecord): string {
  if (run.steps.some((s) => s.status === 'error')) return 'error';
  return run.steps.some((s) => s.status === 'warning') ? 'warning' : 'passed';
}

/** The agent's summary at the end: what passed, what did not and the first problem. */
export function summaryOf(run: TestRunRecord): string {
  const c = stepCounts(run);
  const ran = c.passed + c.warning + c.error;
  const parts = [`${c.passed} of ${ran} steps run passed`];
  if (c.warning > 0) parts.push(`${c.warning} with a warning`);
  if (c.error > 0) parts.push(`${c.error} failed`);
  if (c.skipped > 0) parts.push(`${c.skipped} skipped (a condition's other branch)`);
  if (c.cancelled > 0) parts.push(`${c.cancelled} cancelled`);
  const problem = run.steps.find((s) => s.status === 'error') ?? run.steps.find((s) => s.status === 'warning');
  const first = problem === undefined ? '' : ` First problem: step ${problem.position + 1}, "${clean(problem.instruction)}".`;
  return `${parts.join(', ')}.${first}`;
}

/** Ends every step not run yet (an admin cancel, or a run that could not start keeps them pending). */
export function cancelRemaining(run: TestRunRecord, why: string): void {
  for (const step of run.steps) {
    if (step.status !== 'pending') continue;
    step.status = 'cancelled';
    step.comment = why;
  }
}
