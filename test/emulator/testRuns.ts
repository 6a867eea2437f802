/**
 * Test runs and group runs (service-api-wider.md §5, deployed shapes): `POST /test-runs`,
 * `GET /test-runs/{id}`, `POST /test-group-runs`, `GET /test-group-runs/{id}`. A run is
 * `queued`, starts on the next tick of the clock (`running`; its test user is checked then: a
 * missing or disabled one ends it `error` before its first step), runs one step per tick
 * (testRunSteps.ts) and ends `passed`, `warning` or `error`; `canceled` only when an admin
 * cancels it. A group run starts one run per runnable member at once; its status follows them.
 * At most `concurrentTestRuns` runs of a workspace are active (a group run counts once): 409.
 */
import type { Scheduler, TaskHandle } from './clock';
import type { Project, Workspace } from './domain';
import { CONFLICT_REASONS, ServiceError, TEST_REASONS, VERSION_REASONS } from './errors';
import { newId, type Caller } from './records';
import { validateBody, type BodySpec } from './spec';
import { tokenCovers, type EmulatorState } from './state';
import type { AppTestRecord, GroupRunRecord, RunBranch, TestRunRecord } from './testDomain';
import { ACTIVE_TEST_RUN_STATUSES, cancelRemaining, endStatus, expandSteps, runNextStep, summaryOf, ARTIFACTS_ORIGIN } from './testRunSteps';
import { DEFAULT_TEST_RUN_MODEL, groupRunView, groupStatus, testRunView } from './testRunViews';
import { branchOf, currentVersion, newestCompleted, VERSION_BRANCHES } from './versions';

/** Active test runs per workspace without its own number (`PUT /__admin/test-run-limit`). */
export const DEFAULT_CONCURRENT_TEST_RUNS = 3;
/** `branchId` of a live run. */
export const LIVE_BRANCH = { id: 'live', label: 'Live' } as const;

const runFields = (what: string): BodySpec['fields'] => ({
  branchId: { type: 'string', required: true, notBlank: true, maxLength: 255, description: `A branch id or its display label (\`${LIVE_BRANCH.id}\`: the live app, with its live test user) to run ${what} on.` },
  model: { type: 'string', maxLength: 200, description: `The model that drives the browser (a plain string); absent: \`${DEFAULT_TEST_RUN_MODEL}\`.` },
});

export const START_TEST_RUN_BODY: BodySpec = {
  schemaName: 'StartTestRunRequest',
  fields: { testId: { type: 'string', required: true, notBlank: true, maxLength: 200, description: 'A test of `GET /tests` (not a component).' }, ...runFields('the test') },
};

export const START_TEST_GROUP_RUN_BODY: BodySpec = {
  schemaName: 'StartTestGroupRunRequest',
  fields: { groupId: { type: 'string', required: true, notBlank: true, maxLength: 200, description: 'A test group of the app.' }, ...runFields('the group\'s tests') },
};

const str = (input: Record<string, unknown>, key: string): string | undefined => (typeof input[key] === 'string' ? input[key] : undefined);

export function testRunLimit(workspace: Workspace): number {
  return workspace.plan.concurrentTestRuns ?? DEFAULT_CONCURRENT_TEST_RUNS;
}

export class TestRunService {
  private readonly ticks = new Map<string, TaskHandle>();
  constructor(private readonly state: EmulatorState, private readonly scheduler: Scheduler, private readonly stepMs: number) {}

  reset(): void {
    for (const handle of this.ticks.values()) this.scheduler.cancel(handle);
    this.ticks.clear();
  }

  private now(): number {
    return this.scheduler.now();
  }

  private visible(caller: Caller, record: { workspaceId: string; appId: string } | undefined): Project | undefined {
    if (record === undefined || record.workspaceId !== caller.workspace.id) return undefined;
    const project = this.state.findProject(caller.workspace, record.appId);
    return project !== undefined && tokenCovers(caller.token, project) ? project : undefined;
  }

  // ---------------------------------------------------------------- starts

  start(caller: Caller, body: unknown): { runId: string } {
    const input = validateBody(START_TEST_RUN_BODY, body);
    const testId = str(input, 'testId') ?? '';
    const test = this.state.appTests.get(testId);
    const project = test?.archivedAt === null ? this.visible(caller, test) : undefined;
    if (test === undefined || project === undefined) throw ServiceError.of('test_not_found', `No test "${testId}" in this workspace.`);
    if (test.isComponent) {
      throw ServiceError.of('invalid_request', `"${test.name}" is a component: components run only as part of the tests that use them.`, { field: 'testId', reason: TEST_REASONS.component });
    }
    const branch = this.branch(project, str(input, 'branchId') ?? '', str(input, 'model'));
    this.checkConcurrency(caller.workspace);
    return { runId: this.createRun(test, branch, null).id };
  }

  startGroup(caller: Caller, body: unknown): { groupRunId: string } {
    const input = validateBody(START_TEST_GROUP_RUN_BODY, body);
    const groupId = str(input, 'groupId') ?? '';
    const group = this.state.testGroups.get(groupId);
    const project = group?.archivedAt === undefined ? this.visible(caller, group) : undefined;
    if (group === undefined || project === undefined) throw ServiceError.of('test_group_not_found', `No test group "${groupId}" in this workspace.`);
    const branch = this.branch(project, str(input, 'branchId') ?? '', str(input, 'model'));
    const tests = group.testIds
      .map((id) => this.state.appTests.get(id))
      .filter((t): t is AppTestRecord => t !== undefined && t.appId === group.appId && t.archivedAt === null && !t.isComponent);
    if (tests.length === 0) {
      throw ServiceError.of('invalid_request', `The group "${group.name}" has no test to run (components run only inside tests).`, { field: 'groupId', reason: TEST_REASONS.nothingToRun });
    }
    this.checkConcurrency(caller.workspace);
    const groupRun: GroupRunRecord = {
      id: newId('tgr'), workspaceId: group.workspaceId, appId: group.appId, projectId: group.projectId, groupId: group.groupId, groupName: group.name,
      ...branch, createdAt: this.now(), childRunIds: [],
    };
    this.state.groupRuns.set(groupRun.id, groupRun);
    for (const test of tests) groupRun.childRunIds.push(this.createRun(test, branch, groupRun.id).id);
    return { groupRunId: groupRun.id };
  }

  /** `live`, or a branch by id or label with a completed version (never synced: 400); its cache is that version. */
  private branch(project: Project, wanted: string, model: string | undefined): RunBranch {
    // Stored as given: C says `null` for a start without one, A and B the default.
    const chosenModel = model ?? null;
    if (wanted === LIVE_BRANCH.id || wanted === LIVE_BRANCH.label) {
      return { branchId: LIVE_BRANCH.id, branchDisplay: LIVE_BRANCH.label, branchCacheId: null, model: chosenModel, environment: 'live' };
    }
    const branch = branchOf(wanted);
    if (branch === undefined) {
      const known = [LIVE_BRANCH.id, ...VERSION_BRANCHES.map((b) => b.version)].join(', ');
      throw ServiceError.of('invalid_request', `No branch "${wanted}" in ${project.projectName}; known: ${known} (or their labels).`, { field: 'branchId', reason: TEST_REASONS.unknownBranch });
    }
    const versions = (this.state.versions.get(project.appId) ?? []).map((v) => currentVersion(v, this.now(), this.stepMs));
    const cache = newestCompleted(versions, branch.version);
    if (cache === undefined) {
      throw ServiceError.of('invalid_request', `The branch "${branch.label}" (${branch.version}) has no synced version yet: sync it first (POST /versions/sync), then run the test once the sync completed.`, {
        field: 'branchId', reason: VERSION_REASONS.notSynced,
      });
    }
    return { branchId: branch.version, branchDisplay: branch.label, branchCacheId: cache.versionId, model: chosenModel, environment: 'test' };
  }

  /** Active runs of the workspace: single runs, and group runs (once each, whatever their children). */
  activeRuns(workspace: Workspace): number {
    const singles = [...this.state.testRuns.values()].filter((r) => r.workspaceId === workspace.id && r.groupRunId === null && ACTIVE_TEST_RUN_STATUSES.includes(r.status));
    const groups = [...this.state.groupRuns.values()].filter((g) => g.workspaceId === workspace.id && ACTIVE_TEST_RUN_STATUSES.includes(groupStatus(this.children(g))));
    return singles.length + groups.length;
  }

  private checkConcurrency(workspace: Workspace): void {
    const limit = testRunLimit(workspace);
    const active = this.activeRuns(workspace);
    if (active >= limit) {
      throw ServiceError.of('concurrency_limit', `Workspace "${workspace.name}" has ${active} active test runs, its limit (${limit}). Wait for one to finish, then try again.`, {
        reason: CONFLICT_REASONS.concurrentTestRunLimit,
      });
    }
  }

  private createRun(test: AppTestRecord, branch: RunBranch, groupRunId: string | null): TestRunRecord {
    const run: TestRunRecord = {
      id: newId('trn'), workspaceId: test.workspaceId, appId: test.appId, projectId: test.projectId, testId: test.id, testName: test.name,
      testDescription: test.description, conversationId: newId('conv'), groupRunId, ...branch, status: 'queued', summary: null,
      createdAt: this.now(), startedAt: null, completedAt: null, timeoutMinutes: test.timeoutMinutes, assignedTestUser: null,
      steps: expandSteps(test, (id) => this.componentOf(test, id)), artifacts: [], held: false,
    };
    this.state.testRuns.set(run.id, run);
    this.schedule(run);
    return run;
  }

  private componentOf(test: AppTestRecord, id: string): AppTestRecord | undefined {
    const found = this.state.appTests.get(id);
    return found?.isComponent === true && found.appId === test.appId ? found : undefined;
  }

  // ---------------------------------------------------------------- reads

  get(caller: Caller, runId: string): Record<string, unknown> {
    const run = this.state.testRuns.get(runId);
    if (run === undefined || this.visible(caller, run) === undefined) throw ServiceError.of('test_run_not_found', `No test run "${runId}" in this workspace.`);
    return testRunView(run, this.state, this.state.wider);
  }

  getGroup(caller: Caller, groupRunId: string): Record<string, unknown> {
    const group = this.state.groupRuns.get(groupRunId);
    if (group === undefined || this.visible(caller, group) === undefined) throw ServiceError.of('test_run_not_found', `No test group run "${groupRunId}" in this workspace.`);
    return groupRunView(group, this.children(group), this.state.wider);
  }

  children(group: GroupRunRecord): TestRunRecord[] {
    return group.childRunIds.map((id) => this.state.testRuns.get(id)).filter((r): r is TestRunRecord => r !== undefined);
  }

  // ---------------------------------------------------------------- progression

  private schedule(run: TestRunRecord): void {
    if (this.ticks.has(run.id) || run.held || !ACTIVE_TEST_RUN_STATUSES.includes(run.status)) return;
    this.ticks.set(run.id, this.scheduler.schedule(this.stepMs, () => {
      this.ticks.delete(run.id);
      this.tick(run);
    }));
  }

  private tick(run: TestRunRecord): void {
    if (run.held || this.state.testRuns.get(run.id) !== run || !ACTIVE_TEST_RUN_STATUSES.includes(run.status)) return;
    const now = this.now();
    if (run.status === 'queued') {
      run.status = 'running';
      run.startedAt = now;
      const problem = this.assignTestUser(run);
      if (problem !== undefined) {
        // Fails before its first step: the steps were never run and stay pending.
        run.status = 'error';
        run.summary = problem;
        run.completedAt = now;
        return;
      }
    } else if (runNextStep(run, now)) {
      this.finish(run, now);
      return;
    }
    this.schedule(run);
  }

  /**
   * The test user of the run's environment (`liveTestUserId` live, `testVersionTestUserId` on a
   * branch). None assigned: the run starts without a login. A sentence when the assigned one is
   * missing, disabled or of the other environment's database: the run fails before its first step.
   */
  private assignTestUser(run: TestRunRecord): string | undefined {
    const test = this.state.appTests.get(run.testId);
    const userId = run.environment === 'live' ? test?.liveTestUserId : test?.testVersionTestUserId;
    const kind = run.environment === 'live' ? 'live test user' : 'test-version test user';
    if (userId === null || userId === undefined) return undefined;
    const user = this.state.testUsers.get(userId);
    if (user === undefined || user.appId !== run.appId) return `The run could not start: its ${kind} "${userId}" no longer exists. Assign another one (or none, to run without a login) and run it again.`;
    const who = `"${user.name}"${user.email === null ? '' : ` (${user.email})`}`;
    if (user.isDisabled) return `The run could not start: its ${kind} ${who} is disabled. Enable it or assign another one.`;
    if (user.database !== run.environment) {
      return `The run could not start: its ${kind} ${who} belongs to the ${user.database} database, and a ${run.environment === 'live' ? 'live' : 'branch'} run signs in to the ${run.environment} one. Assign a ${run.environment}-database test user.`;
    }
    run.assignedTestUser = { id: user.id, name: user.name, email: user.email, database: user.database };
    return undefined;
  }

  private finish(run: TestRunRecord, now: number): void {
    run.status = endStatus(run);
    run.summary = summaryOf(run);
    run.completedAt = now;
    run.artifacts = [{ kind: 'video', name: 'recording.webm', mimeType: 'video/webm', url: `${ARTIFACTS_ORIGIN}/test-runs/${run.id}/recording.webm` }];
  }

  // ---------------------------------------------------------------- admin

  /** The runs an admin hook acts on: a test run, or every child of a group run; undefined when unknown. */
  private targets(id: string): TestRunRecord[] | undefined {
    const run = this.state.testRuns.get(id);
    if (run !== undefined) return [run];
    const group = this.state.groupRuns.get(id);
    return group === undefined ? undefined : this.children(group);
  }

  /** Keeps the run at its current step until `release`; false when unknown. */
  hold(id: string): boolean {
    const runs = this.targets(id);
    for (const run of runs ?? []) {
      run.held = true;
      this.scheduler.cancel(this.ticks.get(run.id));
      this.ticks.delete(run.id);
    }
    return runs !== undefined;
  }

  release(id: string): boolean {
    const runs = this.targets(id);
    for (const run of runs ?? []) {
      run.held = false;
      this.schedule(run);
    }
    return runs !== undefined;
  }

  /** An admin's cancel: `canceled` (one l), the steps not run `cancelled` (two l). */
  cancel(id: string): boolean {
    const runs = this.targets(id);
    for (const run of runs ?? []) {
      if (!ACTIVE_TEST_RUN_STATUSES.includes(run.status)) continue;
      this.scheduler.cancel(this.ticks.get(run.id));
      this.ticks.delete(run.id);
      cancelRemaining(run, 'Not run: the run was canceled.');
      run.status = 'canceled';
      run.summary = 'Canceled before it finished.';
      run.completedAt = this.now();
    }
    return runs !== undefined;
  }
}
