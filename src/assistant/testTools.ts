/**
 * The language model tools of the app's tests and automations (issue 22 §4). POSTs are confirmed
 * ("live" said plainly) and go through the sender, so one that may have arrived is never resent;
 * "Not done: …" before anything is sent when the capability is off, no client, or bad input.
 */
import * as vscode from 'vscode';
import { automationRunConfirmation, testRunConfirmation } from './common/prompts';
import { DEFAULT_TEST_LIST_LIMIT, TOOL_READ_TEST_RUN } from './common/schemas';
import { DEFAULT_TEST_TEXT_BOUNDS, groupRunAsText, isLiveBranch, refusedText, testListAsText, testRunAsText } from './common/testText';
import type { Automation, TestUser } from '../api/testTypes';
import { oneLine } from '../api/sanitize';
import { uncertainText } from '../run/common/sends/uncertainText';
import { Refusal, clientOrRefuse, failureText, notConnectedText, setting } from './common';
import type { Capability } from '../connection/common/capabilities';
import { AgentRunsTool, prepared, type Input } from './toolBase';
import { checkTestUser, environmentOf, userProblem, userWords, type UserAssignment } from '../run/common/testUsers';

/** Why a capability is off, in the words every surface of the assistant uses. */
export function capabilityOffText(c: Capability): string {
  switch (c) {
    case 'serviceTestGroupRuns':
      return vscode.l10n.t('this service does not run test groups (its API schema, /openapi.json, does not list /test-group-runs); nothing was sent.');
    case 'automations':
      return vscode.l10n.t('this service does not list automations (its API schema, /openapi.json, does not list /automations); nothing was sent.');
    case 'automationRuns':
      return vscode.l10n.t('this service does not run automations on demand (its API schema, /openapi.json, does not list /automations/{id}/run); nothing was sent.');
    default:
      return vscode.l10n.t('this service does not offer the app\'s tests (its API schema, /openapi.json, does not list /tests and /test-runs); nothing was sent.');
  }
}

abstract class TestsTool<T> extends AgentRunsTool<T> {
  protected needs(c: Capability): void {
    if (!this.deps.capabilities.has(c)) throw new Refusal(capabilityOffText(c));
  }

  protected appIdOf(input: Input): string {
    const appId = typeof input.appId === 'string' ? input.appId.trim() : setting('appId');
    if (appId === '') throw new Refusal(vscode.l10n.t('appId is required: give the App ID, or set a default in agentRuns.appId.'));
    return appId;
  }
}

export class ListAppTestsTool extends TestsTool<{ appId: string; limit: number }> {
  protected check(input: Input): { appId: string; limit: number } {
    this.needs('serviceTests');
    return { appId: this.appIdOf(input), limit: typeof input.limit === 'number' ? input.limit : DEFAULT_TEST_LIST_LIMIT };
  }

  protected confirm(c: { appId: string }): vscode.PreparedToolInvocation {
    return { invocationMessage: vscode.l10n.t('Listing the tests of {0}', c.appId) };
  }

  protected async run(c: { appId: string; limit: number }, signal: AbortSignal): Promise<string> {
    const client = await clientOrRefuse(this.deps);
    const tests = await client.listTests(c.appId, { signal });
    return testListAsText(c.appId, tests, vscode.l10n, { ...DEFAULT_TEST_TEXT_BOUNDS, maxItems: c.limit });
  }
}

interface RunTest { testId: string; testName?: string; branch: string; signsInAs?: string; userProblem?: string }

export class RunAppTestTool extends TestsTool<RunTest> {
  protected async check(input: Input, signal: AbortSignal): Promise<RunTest> {
    this.needs('serviceTests');
    const testId = String(input.testId).trim();
    const branch = String(input.branch).trim();
    // The test is read before the person is asked: the confirmation names it, and a component is refused.
    const client = await clientOrRefuse(this.deps);
    const test = await client.getTest(testId, { signal });
    if (test.isComponent) {
      throw new Refusal(vscode.l10n.t('{0} is a component: components are never run on their own. Run a test that uses it; nothing was sent.', testId));
    }
    return { testId, testName: test.name, branch, ...await this.userOf(test, branch, signal) };
  }

  /**
   * Who the run signs in as, from the default app's test users, and why it will fail if it will:
   * said in the confirmation. A user not among that app's is not judged (the test may be another app's).
   */
  private async userOf(test: UserAssignment & { name?: string; id: string }, branch: string, signal: AbortSignal): Promise<{ signsInAs?: string; userProblem?: string }> {
    const appId = setting('appId');
    if (appId === '') return {};
    const client = await clientOrRefuse(this.deps);
    let users: TestUser[] | undefined;
    try {
      users = await client.listTestUsers(appId, { signal });
    } catch {
      // Not read: nothing is judged (the service still fails the run if it must).
    }
    const env = environmentOf(branch);
    const checked = checkTestUser(test, env, users);
    if (checked.kind === 'missing' || checked.kind === 'unread') return {};
    const problem = userProblem(test.name?.trim() || test.id, checked, env, vscode.l10n);
    return { signsInAs: userWords(checked, vscode.l10n), ...(problem ? { userProblem: problem } : {}) };
  }

  protected confirm(c: RunTest): vscode.PreparedToolInvocation {
    const invocation = isLiveBranch(c.branch)
      ? vscode.l10n.t('Running test {0} on the LIVE app', c.testId)
      : vscode.l10n.t('Running test {0} on branch {1}', c.testId, c.branch);
    return prepared(testRunConfirmation(c, vscode.l10n), invocation);
  }

  protected async run(c: RunTest, signal: AbortSignal): Promise<string> {
    const client = await clientOrRefuse(this.deps);
    const result = await this.deps.sender.startTestRun({ testId: c.testId, branchId: c.branch }, { from: 'language model tool', signal, client, quiet: true });
    const where = isLiveBranch(c.branch) ? vscode.l10n.t('the LIVE app') : vscode.l10n.t('branch {0}', c.branch);
    switch (result.kind) {
      case 'notConnected':
        throw new Refusal(notConnectedText(this.deps));
      case 'busy':
        throw new Refusal(vscode.l10n.t('a run of test {0} is already on its way; nothing was sent. Do not start it again before the Test Explorer or the service shows whether it started.', c.testId));
      case 'uncertain':
        throw new Refusal(uncertainText(vscode.l10n.t('a run of test {0}', c.testId), result.since, vscode.l10n));
      case 'failed': {
        if (result.mayHaveArrived) {
          return vscode.l10n.t('Not confirmed: {0} The run of test {1} on {2} may have started anyway. Do not start it again: it was not resent, and the person can look for it in the service.', failureText(this.deps, result.error), c.testId, where);
        }
        const refused = refusedText(result.error, vscode.l10n);
        throw refused !== undefined ? new Refusal(refused) : result.error;
      }
      case 'started':
        return vscode.l10n.t('Started test run {0} of test {1} on {2}. Runs take minutes; read its results with the {3} tool (runId {0}).',
          result.started.runId, c.testName !== undefined ? `${c.testId} (${JSON.stringify(oneLine(c.testName, 120))})` : c.testId, where, TOOL_READ_TEST_RUN);
    }
  }
}

type ReadRun = { runId: string; groupRunId?: undefined } | { groupRunId: string; runId?: undefined };

export class ReadTestRunTool extends TestsTool<ReadRun> {
  protected check(input: Input): ReadRun {
    if (input.runId !== undefined && input.groupRunId !== undefined) throw new Refusal(vscode.l10n.t('give runId or groupRunId, not both.'));
    if (typeof input.groupRunId === 'string') {
      this.needs('serviceTestGroupRuns');
      return { groupRunId: input.groupRunId.trim() };
    }
    if (typeof input.runId !== 'string') throw new Refusal(vscode.l10n.t('runId is required: give the test run\'s ID, or a groupRunId.'));
    this.needs('serviceTests');
    return { runId: input.runId.trim() };
  }

  protected confirm(c: ReadRun): vscode.PreparedToolInvocation {
    return { invocationMessage: c.runId !== undefined ? vscode.l10n.t('Reading test run {0}', c.runId) : vscode.l10n.t('Reading test group run {0}', c.groupRunId) };
  }

  protected async run(c: ReadRun, signal: AbortSignal): Promise<string> {
    const client = await clientOrRefuse(this.deps);
    if (c.runId !== undefined) return testRunAsText(await client.getTestRun(c.runId, { signal }), vscode.l10n);
    return groupRunAsText(await client.getTestGroupRun(c.groupRunId, { signal }), vscode.l10n);
  }
}

interface RunAutomation { automationId: string; appId?: string; listed?: Automation }

export class RunAutomationTool extends TestsTool<RunAutomation> {
  protected async check(input: Input, signal: AbortSignal): Promise<RunAutomation> {
    this.needs('automationRuns');
    const automationId = String(input.automationId).trim();
    const appId = typeof input.appId === 'string' ? input.appId.trim() : setting('appId');
    if (appId === '' || !this.deps.capabilities.has('automations')) return { automationId };
    // Read from the app's list when the service lists them: the confirmation names it, and one
    // that cannot run on demand is refused before the person is asked.
    const client = await clientOrRefuse(this.deps);
    const listed = (await client.listAutomations(appId, { signal })).find((a) => a.id === automationId);
    if (!listed) {
      throw new Refusal(vscode.l10n.t('app {0} has no automation {1}; give the appId of its project. Nothing was sent.', appId, automationId));
    }
    if (!listed.canRunManually) {
      throw new Refusal(vscode.l10n.t('automation {0} runs only on its trigger ({1}): the service runs on demand only automations with the manual trigger. Nothing was sent.',
        automationId, oneLine(listed.triggerKind ?? '?', 40)));
    }
    return { automationId, appId, listed };
  }

  protected confirm(c: RunAutomation): vscode.PreparedToolInvocation {
    const confirmation = automationRunConfirmation({
      automationId: c.automationId, appId: c.appId, name: c.listed?.name, triggerKind: c.listed?.triggerKind, actionKinds: c.listed?.actionKinds,
    }, vscode.l10n);
    return prepared(confirmation, vscode.l10n.t('Running automation {0}', c.automationId));
  }

  protected async run(c: RunAutomation, signal: AbortSignal): Promise<string> {
    const client = await clientOrRefuse(this.deps);
    const result = await this.deps.sender.runAutomation(c.automationId, { from: 'language model tool', signal, client, quiet: true });
    switch (result.kind) {
      case 'notConnected':
        throw new Refusal(notConnectedText(this.deps));
      case 'busy':
        throw new Refusal(vscode.l10n.t('a run of automation {0} is already on its way; nothing was sent.', c.automationId));
      case 'uncertain':
        throw new Refusal(uncertainText(vscode.l10n.t('a run of automation {0}', c.automationId), result.since, vscode.l10n));
      case 'failed': {
        if (result.mayHaveArrived) {
          return vscode.l10n.t('Not confirmed: {0} Automation {1} may have been queued anyway. Do not run it again: it was not resent; its last run shows in the app\'s automations a little later.', failureText(this.deps, result.error), c.automationId);
        }
        const refused = refusedText(result.error, vscode.l10n);
        throw refused !== undefined ? new Refusal(refused) : result.error;
      }
      case 'queued': {
        const status = result.queued.status !== undefined ? oneLine(result.queued.status, 40) : 'queued';
        return vscode.l10n.t('Queued automation {0} (the service answered “{1}”). The service offers no way to read an automation run\'s outcome: its last run and any error show in the app\'s automations list a little later.', c.automationId, status);
      }
    }
  }
}
