/**
 * What the deployed service stores for the app's own tests (service-api-wider.md §3–§6): tests
 * and components with their steps, test users, test runs and group runs, automations. Pure
 * types. Stored once, served in the shapes of the published version in force (`wider`: A, B or C).
 */

/**
 * Which published version of the wider API the deployed profile serves where they differ: A (flat
 * steps, `membershipId`, no group list), B (a graph, `isComponent`, group edits) or C, the newest
 * and the default (a branch required by `GET /versions`, review items without `id`, wrapped test
 * users, flat steps with `membershipId` again, C's nulls).
 */
export type WiderVersion = 'A' | 'B' | 'C';
export const WIDER_VERSIONS: readonly WiderVersion[] = ['A', 'B', 'C'];
/** What `startEmulator()` and `reset()` serve without a `wider` option. */
export const DEFAULT_WIDER: WiderVersion = 'C';
export const isWiderVersion = (value: unknown): value is WiderVersion => (WIDER_VERSIONS as readonly unknown[]).includes(value);

/** A step of a test or component as authored; the steps of a test are listed depth first (a condition, its `met` branch, its `not_met` branch). */
export interface TestStepRecord {
  id: string;
  /** B's `graphNodeKey`; unique within the test. */
  key: string;
  stepType: 'test' | 'condition' | 'component';
  /** `test` and `condition` steps. `[warn]` / `[fail]` script a step's outcome, `[not met]` a condition's. */
  instruction: string | null;
  details: string | null;
  onFailure: 'stop' | 'continue';
  /** `component` steps: the component they run. */
  componentId: string | null;
  /** The condition this step hangs under, and which of its outcomes it follows; `null` at the top level. */
  parentKey: string | null;
  parentOutcome: 'met' | 'not_met' | null;
  tips: string | null;
}

export interface AppTestRecord {
  id: string;
  workspaceId: string;
  appId: string;
  projectId: string;
  name: string;
  description: string | null;
  isComponent: boolean;
  viewportPreset: 'desktop' | 'tablet' | 'mobile' | null;
  liveTestUserId: string | null;
  testVersionTestUserId: string | null;
  timeoutMinutes: number;
  createdAt: number;
  updatedAt: number;
  archivedAt: number | null;
  steps: TestStepRecord[];
}

export interface TestUserRecord {
  id: string;
  appId: string;
  name: string;
  description: string | null;
  email: string | null;
  database: 'test' | 'live';
  isDisabled: boolean;
  createdAt: number;
}

/** A step of a run, expanded from the test (a component reference becomes the component's steps). */
export interface RunStepRecord {
  id: string;
  position: number;
  order: number;
  stepType: 'test' | 'condition';
  sourceKind: 'step' | 'component';
  sourceComponentId: string | null;
  sourceComponentName: string | null;
  instruction: string | null;
  details: string | null;
  onFailure: 'stop' | 'continue';
  /** `pending`, `passed`, `warning`, `error`, `cancelled` (two l), `skipped`. */
  status: string;
  comment: string | null;
  completedAt: number | null;
  artifacts: Record<string, unknown>[];
  conditionResult: 'met' | 'not_met' | null;
  dependsOnStepIds: string[];
  graphNodeKey: string;
  parentGraphNodeKey: string | null;
  parentConditionOutcome: 'met' | 'not_met' | null;
}

/** Where and how a run (or a group run) runs. */
export interface RunBranch {
  branchId: string;
  branchDisplay: string;
  branchCacheId: string | null;
  model: string | null;
  environment: 'test' | 'live';
}

export interface TestRunRecord extends RunBranch {
  id: string;
  workspaceId: string;
  appId: string;
  projectId: string;
  testId: string;
  testName: string;
  testDescription: string | null;
  conversationId: string;
  groupRunId: string | null;
  /** `queued`, `running`, `passed`, `warning`, `error`, `canceled` (one l). */
  status: string;
  summary: string | null;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
  timeoutMinutes: number;
  /** The test user the run signs in as, once it started; `null` before, and for a run without a login (none assigned). */
  assignedTestUser: { id: string; name: string; email: string | null; database: 'test' | 'live' } | null;
  steps: RunStepRecord[];
  artifacts: Record<string, unknown>[];
  /** Held by the admin API: it stays at its current step until released. */
  held: boolean;
}

export interface GroupRunRecord extends RunBranch {
  id: string;
  workspaceId: string;
  appId: string;
  projectId: string;
  groupId: string;
  groupName: string;
  createdAt: number;
  /** One run per runnable member, in the group's order. */
  childRunIds: string[];
}

export interface AutomationRecord {
  id: string;
  workspaceId: string;
  appId: string;
  projectId: string;
  name: string;
  enabled: boolean;
  triggerKind: string;
  triggerDescription: string;
  actionKinds: string[];
  canRunManually: boolean;
  /** `null`: made by no person the service names (C: nullable). */
  createdByName: string | null;
  createdAt: number;
  updatedAt: number;
  lastRunAt: number | null;
  lastRunError: string | null;
  /** What its next run ends with (the seed's script): `null` succeeds, a sentence fails with it. */
  nextRunError: string | null;
  /** A run queued and not finished yet. */
  queuedAt: number | null;
}
