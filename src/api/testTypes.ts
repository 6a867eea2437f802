/**
 * The app's tests, test runs, test groups and automations (service-api-wider.md §3–§6), tolerant
 * like ./types; versions A (flat steps) and B (a graph with conditions) both parse into them.
 */
import type { RequestOptions } from './contract';
import type { Open } from './types';

/** How a test's browser is sized. */
export type ViewportPreset = Open<'desktop' | 'tablet' | 'mobile'>;

/** An element of `GET /tests?appId=…`: a test, or a reusable component (never run on its own). */
export interface AppTest {
  id: string;
  name?: string;
  description?: string;
  /** A reusable component: listed apart, never run. Absent counts as false. */
  isComponent: boolean;
  viewportPreset?: ViewportPreset;
  liveTestUserId?: string;
  testVersionTestUserId?: string;
  /** Version B. */
  timeoutMinutes?: number;
  createdAt?: number;
  updatedAt?: number;
}

/** What a step is: version A knows direct steps and component references; B adds conditions. */
export type TestStepType = Open<'test' | 'condition' | 'component'>;

/** What a step does when it ends in a warning or an error. */
export type OnFailure = Open<'stop' | 'continue'>;

/** A condition's outcome, and the branch of a condition a step hangs under. */
export type ConditionOutcome = Open<'met' | 'not_met'>;

/** A step of `GET /tests/{testId}`, A's `kind` and B's `stepType` both read into `stepType`. */
export interface TestStepDefinition {
  id: string;
  /** 0-based. Steps are listed in this order. */
  position: number;
  stepType: TestStepType;
  instruction?: string;
  details?: string;
  onFailure?: OnFailure;
  /** For a component reference. */
  componentId?: string;
  componentName?: string;
  /** Version B's graph: this step's key, its parent's, and which outcome of a parent condition it follows. */
  graphNodeKey?: string;
  parentGraphNodeKey?: string;
  parentConditionOutcome?: ConditionOutcome;
  tips?: string;
}

/** `GET /tests/{testId}`. */
export interface AppTestDetail extends AppTest {
  projectId?: string;
  archivedAt?: number;
  steps: TestStepDefinition[];
}

/**
 * A test run's or group run's status: `queued`, `running`, then one of `passed`, `warning`,
 * `error`, `canceled`. The service spells run statuses `canceled`; a `cancelled` read here is
 * kept as the service wrote it (`rawStatus`) and normalised to `canceled` in `status`.
 */
export type TestRunStatus = Open<'queued' | 'running' | 'passed' | 'warning' | 'error' | 'canceled'>;

/** A step's status in a run; the service spells it `cancelled` (two l), normalised here the same way. */
export type TestStepStatus = Open<'pending' | 'passed' | 'warning' | 'error' | 'cancelled' | 'skipped'>;

/** Where a run runs: on a branch with the app's test user, or live with its live test user. */
export type TestEnvironment = Open<'test' | 'live'>;

/** An artifact of a run or step (shape not documented): what can be shown of it. */
export interface TestArtifact {
  /** A name, a kind, or the URL's last segment; never empty. */
  label: string;
  /** Only an `http:` or `https:` URL; anything else is dropped. */
  url?: string;
  kind?: string;
}

/** A step of a test run, in the order the service ran or will run it. */
export interface TestRunStep {
  id: string;
  position: number;
  /** Version B: the order steps run in (conditions may reorder). */
  order?: number;
  status: TestStepStatus;
  /** Exactly as the service sent it. */
  rawStatus?: string;
  stepType?: TestStepType;
  sourceKind?: Open<'step' | 'component'>;
  sourceComponentId?: string;
  sourceComponentName?: string;
  instruction?: string;
  details?: string;
  onFailure?: OnFailure;
  /** The agent's words on the step: why it passed, warned or failed. */
  comment?: string;
  completedAt?: number;
  artifacts: TestArtifact[];
  conditionResult?: ConditionOutcome;
  dependsOnStepIds?: string[];
  graphNodeKey?: string;
  parentGraphNodeKey?: string;
  parentConditionOutcome?: ConditionOutcome;
}

/** The counts version B reports (shape not documented: only numbers are kept). */
export type TestRunCounts = Readonly<Record<string, number>>;

/** The branch fields every run carries. */
export interface TestRunBranch {
  branchId?: string;
  branchDisplay?: string;
  branchCacheId?: string;
  model?: string;
  environment?: TestEnvironment;
}

/** `run` of `GET /test-runs/{runId}`. */
export interface TestRun extends TestRunBranch {
  id: string;
  testId?: string;
  testName?: string;
  projectId?: string;
  conversationId?: string;
  groupRunId?: string;
  status: TestRunStatus;
  rawStatus?: string;
  /** The agent's summary of the run. */
  summary?: string;
  createdAt?: number;
  startedAt?: number;
  completedAt?: number;
  timeoutMinutes?: number;
  appBaseUrl?: string;
  bubbleAppName?: string;
  /** Who the run signs in as; absent when none (a run without a login) or not said (version A). */
  assignedTestUser?: { id: string; name?: string; email?: string; database?: string };
  nextPendingStepId?: string;
  counts?: TestRunCounts;
  artifacts: TestArtifact[];
}

/** `GET /test-runs/{runId}`. */
export interface TestRunDetail {
  run: TestRun;
  test?: { id: string; name?: string; description?: string };
  steps: TestRunStep[];
}

/** An element of a group run's `childRuns`. */
export interface TestGroupChildRun extends TestRunBranch {
  id: string;
  testId?: string;
  testName?: string;
  status: TestRunStatus;
  rawStatus?: string;
  createdAt?: number;
  startedAt?: number;
  completedAt?: number;
}

/** `GET /test-group-runs/{groupRunId}`. */
export interface TestGroupRunDetail {
  run: TestRunBranch & {
    id: string;
    groupId?: string;
    groupName?: string;
    status: TestRunStatus;
    rawStatus?: string;
    createdAt?: number;
    startedAt?: number;
    completedAt?: number;
    counts?: TestRunCounts;
  };
  childRuns: TestGroupChildRun[];
}

/** `POST /test-runs` and `POST /test-group-runs`: the test (or group), the branch (id or display label), a model. */
export interface StartTestRunRequest { testId: string; branchId: string; model?: string }
export interface StartTestGroupRunRequest { groupId: string; branchId: string; model?: string }
export interface TestRunStarted { runId: string }
export interface TestGroupRunStarted { groupRunId: string }

/** An element of `GET /test-groups?appId=…` (version B). */
export interface ServiceTestGroup {
  id: string;
  name?: string;
  description?: string;
  testCount?: number;
  createdAt?: number;
  updatedAt?: number;
}

/** A member of a group: A adds `membershipId`, B `isComponent`. */
export interface ServiceTestGroupMember {
  testId: string;
  name?: string;
  description?: string;
  membershipId?: string;
  isComponent?: boolean;
  liveTestUserId?: string;
  testVersionTestUserId?: string;
  updatedAt?: number;
}

/** `GET /test-groups/{groupId}`. */
export interface ServiceTestGroupDetail extends ServiceTestGroup {
  projectId?: string;
  archivedAt?: number;
  /** The members that could be read, in the group's order. */
  members: ServiceTestGroupMember[];
  /**
   * What could not be read of them: `list` when `members` was not a list (null, missing, …), else
   * how many elements were not a member with a `testId`. Absent: every member was read.
   */
  unreadMembers?: number | 'list';
}

/** `PUT /test-groups/{groupId}` (version B): the whole group as it should be. */
export interface UpdateTestGroupRequest { name: string; testIds: string[]; description?: string }

/** The database a test user signs in to: `test` for branch runs, `live` for live runs. */
export type TestUserDatabase = Open<'test' | 'live'>;

/** An element of `GET /test-users?appId=…` (C: `{ testUsers: [...] }`, A/B: a bare array). */
export interface TestUser {
  id: string;
  name?: string;
  description?: string;
  email?: string;
  database?: TestUserDatabase;
  /** Absent counts as false. */
  isDisabled: boolean;
  createdAt?: number;
}

/** When an automation runs. */
export type AutomationTrigger = Open<'manual' | 'live_deployed' | 'branch_merged' | 'branch_created' | 'branch_removed' | 'cron'>;

/** What an automation does, in order. */
export type AutomationAction = Open<'run_tests' | 'deploy_agent' | 'send_message' | 'send_webhook'>;

/** An element of `GET /automations?appId=…`. */
export interface Automation {
  id: string;
  projectId?: string;
  name?: string;
  /** Absent counts as false. */
  enabled: boolean;
  triggerKind?: AutomationTrigger;
  triggerDescription?: string;
  actionKinds: AutomationAction[];
  /** Absent counts as false: only those that say so are offered Run Now. */
  canRunManually: boolean;
  createdByName?: string;
  createdAt?: number;
  updatedAt?: number;
  lastRunAt?: number;
  lastRunError?: string;
}

/** `POST /automations/{id}/run` → 202 (the status value is not documented: kept as sent). */
export interface AutomationRunQueued { automationId: string; status?: string; queuedAt?: number }

/**
 * The client's calls for all of the above, each an `ApiError` on failure like the others. POST,
 * PUT and DELETE are sent at most once (a failure after the request may have arrived says so:
 * `mayHaveReachedServer`); only the sender (src/run/sender.ts) calls them.
 */
export interface ServiceTestCalls {
  listTests(appId: string, options?: RequestOptions): Promise<AppTest[]>;
  getTest(testId: string, options?: RequestOptions): Promise<AppTestDetail>;
  startTestRun(request: StartTestRunRequest, options?: RequestOptions): Promise<TestRunStarted>;
  getTestRun(runId: string, options?: RequestOptions): Promise<TestRunDetail>;
  startTestGroupRun(request: StartTestGroupRunRequest, options?: RequestOptions): Promise<TestGroupRunStarted>;
  getTestGroupRun(groupRunId: string, options?: RequestOptions): Promise<TestGroupRunDetail>;
  listTestGroups(appId: string, options?: RequestOptions): Promise<ServiceTestGroup[]>;
  getTestGroup(groupId: string, options?: RequestOptions): Promise<ServiceTestGroupDetail>;
  updateTestGroup(groupId: string, request: UpdateTestGroupRequest, options?: RequestOptions): Promise<void>;
  deleteTestGroup(groupId: string, options?: RequestOptions): Promise<void>;
  listTestUsers(appId: string, options?: RequestOptions): Promise<TestUser[]>;
  listAutomations(appId: string, options?: RequestOptions): Promise<Automation[]>;
  runAutomation(automationId: string, options?: RequestOptions): Promise<AutomationRunQueued>;
}
