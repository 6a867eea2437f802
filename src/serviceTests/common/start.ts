/**
 * Starting the app's tests from the Test Explorer, in words: the branch remembered per service
 * and app, "live" told apart (it runs against the live app with its live test user, so it is
 * confirmed), what a failed start says (one that may have arrived is never sent again; a 409 at
 * the concurrency limit says so in a sentence, another 409 gives the service's words), and the
 * "Ask Agent to Fix" failure of a service test, built from its failed steps and their comments.
 * Pure.
 */
import { conflictCause, isApiError } from '../../api/errors';
import type { TestRunStep } from '../../api/testTypes';
import type { FailedTest } from '../../assistant/common/prompts';
import { refusalWords } from '../../automations/common/outcome';
import type { L10n } from '../../base/common/l10n';
import { orderSteps, stepLabel, stepOutcome } from './outcomes';

// The remembered test branch is one of the branches the run model knows (run/common/branches/known.ts).
export { branchKey, isLive, reviveBranch } from '../../run/common/branches/known';

export interface FailedStart {
  readonly error: unknown;
  readonly mayHaveArrived: boolean;
}

/** What a start that failed says; `what` names the test or group. */
export function startFailureText(what: string, f: FailedStart, describe: (e: unknown) => string, l10n: L10n): string {
  if (f.mayHaveArrived) {
    return l10n.t('The start of {0} may have reached the service; it was not sent again. Look in the service before starting it again ({1}).', what, describe(f.error));
  }
  if (conflictCause(f.error) === 'concurrency') {
    return l10n.t('{0} was not started: the workspace is running as many test runs as its plan allows. Wait for one to finish, then run it again.', what);
  }
  if (isApiError(f.error) && f.error.status === 409) {
    return l10n.t('The service refused to start {0}: {1}', what, refusalWords(f.error) ?? describe(f.error));
  }
  return l10n.t('{0} was not started: {1}', what, describe(f.error));
}

/** "the service run goes on": there is no endpoint that cancels a test run. */
export function stoppedReadingText(runId: string, l10n: L10n): string {
  return l10n.t('Stopped following run {0}. The service has no way to cancel a test run: it goes on there.', runId);
}

/**
 * A failed service test as "Ask Agent to Fix" takes it: the failure message lists the steps that
 * did not pass (warnings too), each with its comment, then the run's summary.
 */
export function failedServiceTest(
  t: { name: string; appId: string; runId: string; branch?: string; steps: readonly TestRunStep[]; summary?: string; runMessage?: string },
  l10n: L10n,
): FailedTest {
  const lines: string[] = [];
  for (const step of orderSteps(t.steps)) {
    const outcome = stepOutcome(step, l10n);
    if (!outcome.final || step.status === 'passed' || step.status === 'skipped') continue;
    lines.push(`- ${stepLabel(step, l10n)}`);
    if (step.details?.trim()) lines.push(`  ${l10n.t('Details: {0}', step.details.trim())}`);
    if (outcome.message) lines.push(...outcome.message.split('\n').map((l) => `  ${l}`));
  }
  const parts = [
    l10n.t('Service test run {0} of app {1}{2}.', t.runId, t.appId, t.branch ? l10n.t(' on branch {0}', t.branch) : ''),
    t.runMessage ?? '',
    lines.length > 0 ? `${l10n.t('Steps that did not pass:')}\n${lines.join('\n')}` : l10n.t('No step reported a failure.'),
    t.summary?.trim() ? `${l10n.t('Summary of the run:')}\n${t.summary.trim()}` : '',
  ].filter((p) => p !== '');
  return { name: t.name, location: l10n.t('the app’s tests on the service (app {0})', t.appId), message: parts.join('\n\n') };
}
