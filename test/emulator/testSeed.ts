/**
 * The app's tests the deployed profile starts with (service-api-wider.md §3–§6), for
 * `ws_acme`/`app_todo`: a sign-in component, tests that pass, warn, fail with `onFailure: stop`,
 * branch on a condition, use the component, or have no usable test user; two groups (one with
 * the component among its members); test users; automations (manual ones whose next run
 * succeeds or fails, a cron one with a last error, a disabled one). Put back with the other
 * deployed seeds (deployedSeed.ts) when missing.
 */
import type { TestGroupRecord } from './domain';
import { SEED } from './seed';
import type { EmulatorState } from './state';
import type { AppTestRecord, AutomationRecord, TestStepRecord, TestUserRecord } from './testDomain';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** Ids tests and demos can rely on. */
export const SEEDED_TESTS = Object.freeze({
  appId: SEED.apps.todo,
  component: 'cmp_todo_sign_in',
  /** Passes; starts with the sign-in component. */
  add: 'tst_todo_add',
  /** A condition (met: its `not_met` branch is skipped) and a last step that warns: ends `warning`. */
  filter: 'tst_todo_filter',
  /** A step that fails with `onFailure: stop`: the steps after it are cancelled, the run ends `error`. */
  remove: 'tst_todo_delete',
  /** Its test-version test user is disabled: a branch run fails before its first step; it has no live one: a live run starts without a login. */
  share: 'tst_todo_share',
  users: { test: 'tu_todo_test', live: 'tu_todo_live', disabled: 'tu_todo_disabled' },
  groups: { smoke: 'tg_todo_smoke', regression: 'tg_todo_regression' },
  automations: { smoke: 'aut_todo_smoke', notes: 'aut_todo_release_notes', nightly: 'aut_todo_nightly', merged: 'aut_todo_merged' },
});

type StepSeed = [key: string, type: TestStepRecord['stepType'], text: string, extra?: Partial<TestStepRecord>];

function steps(testId: string, seeds: readonly StepSeed[]): TestStepRecord[] {
  return seeds.map(([key, stepType, text, extra]) => ({
    id: `${testId.replace(/^(tst|cmp)_/, 'stp_')}_${key}`,
    key,
    stepType,
    instruction: stepType === 'component' ? null : text,
    details: null,
    onFailure: 'continue',
    componentId: stepType === 'component' ? text : null,
    parentKey: null,
    parentOutcome: null,
    tips: null,
    ...extra,
  }));
}

const T = SEEDED_TESTS;

const TESTS: readonly (Pick<AppTestRecord, 'id' | 'name' | 'description' | 'isComponent' | 'viewportPreset' | 'liveTestUserId' | 'testVersionTestUserId'> & { steps: StepSeed[] })[] = [
  {
    id: T.component, name: 'Sign in', description: null, isComponent: true, viewportPreset: null,
    liveTestUserId: null, testVersionTestUserId: null,
    steps: [
      ['open', 'test', 'Open the sign-in page'],
      ['submit', 'test', 'Sign in with the test user\'s email and password', { onFailure: 'stop', details: 'The todo list shows after sign-in.' }],
    ],
  },
  {
    id: T.add, name: 'Add a todo', description: 'A new todo goes to the end of the list.', isComponent: false, viewportPreset: 'desktop',
    liveTestUserId: T.users.live, testVersionTestUserId: T.users.test,
    steps: [
      ['signin', 'component', T.component, { onFailure: 'stop' }],
      ['type', 'test', 'Type "Buy milk" in the new todo field and press Enter'],
      ['check', 'test', 'Check that "Buy milk" is the last item of the list', { tips: 'Scroll down if the list is long.' }],
    ],
  },
  {
    id: T.filter, name: 'Filter completed todos', description: 'The Completed filter lists only completed todos.', isComponent: false, viewportPreset: 'mobile',
    liveTestUserId: T.users.live, testVersionTestUserId: T.users.test,
    steps: [
      ['open', 'test', 'Open the todo list'],
      ['any', 'condition', 'Is at least one todo marked as completed?'],
      ['choose', 'test', 'Choose the Completed filter', { parentKey: 'any', parentOutcome: 'met' }],
      ['only', 'test', 'Check that only completed todos are listed', { parentKey: 'any', parentOutcome: 'met' }],
      ['mark', 'test', 'Mark the first todo as completed', { parentKey: 'any', parentOutcome: 'not_met' }],
      ['clear', 'test', 'Clear the filter and check that every todo is listed [warn]', { details: 'The counter may lag behind the list.' }],
    ],
  },
  {
    id: T.remove, name: 'Delete a todo', description: 'A deleted todo is gone, also after a reload.', isComponent: false, viewportPreset: 'desktop',
    liveTestUserId: T.users.live, testVersionTestUserId: T.users.test,
    steps: [
      ['open', 'test', 'Open the todo list'],
      ['delete', 'test', 'Delete the first todo [fail]', { onFailure: 'stop' }],
      ['gone', 'test', 'Check that the todo is gone from the list'],
      ['reload', 'test', 'Reload and check that it stays gone'],
    ],
  },
  {
    id: T.share, name: 'Share a list', description: 'A shared list opens for the person it was shared with.', isComponent: false, viewportPreset: 'tablet',
    liveTestUserId: null, testVersionTestUserId: T.users.disabled,
    steps: [
      ['share', 'test', 'Share the list with friend@todo.example'],
      ['open', 'test', 'Open the share link in a private window'],
    ],
  },
];

const USERS: readonly Omit<TestUserRecord, 'appId' | 'createdAt'>[] = [
  { id: T.users.test, name: 'Test user', description: 'Signs in on branch runs.', email: 'test-user@todo.example', database: 'test', isDisabled: false },
  { id: T.users.live, name: 'Live test user', description: 'Signs in on live runs.', email: 'live-user@todo.example', database: 'live', isDisabled: false },
  { id: T.users.disabled, name: 'Former test user', description: null, email: null, database: 'test', isDisabled: true },
];

const GROUPS: readonly Pick<TestGroupRecord, 'groupId' | 'name' | 'description' | 'testIds'>[] = [
  { groupId: T.groups.smoke, name: 'Smoke', description: 'Quick checks before a release.', testIds: [T.add, T.filter] },
  { groupId: T.groups.regression, name: 'Regression', description: null, testIds: [T.add, T.filter, T.remove, T.component] },
];

type AutomationSeed = Pick<AutomationRecord, 'id' | 'name' | 'enabled' | 'triggerKind' | 'triggerDescription' | 'actionKinds' | 'canRunManually' | 'lastRunError' | 'nextRunError'> & {
  lastRunHoursAgo: number | null;
  /** `null`: made by no person the service names (C's nullable `createdByName`). */
  createdByName: string | null;
};

const AUTOMATIONS: readonly AutomationSeed[] = [
  {
    id: T.automations.smoke, name: 'Run smoke tests', enabled: true, triggerKind: 'manual', triggerDescription: 'Run by hand',
    actionKinds: ['run_tests', 'send_message'], canRunManually: true, lastRunHoursAgo: 26, createdByName: 'Admin',
    lastRunError: '1 of 2 tests ended with a warning: Filter completed todos.', nextRunError: null,
  },
  {
    id: T.automations.notes, name: 'Send release notes', enabled: true, triggerKind: 'manual', triggerDescription: 'Run by hand',
    actionKinds: ['send_message', 'send_webhook'], canRunManually: true, lastRunHoursAgo: null, createdByName: 'Admin',
    lastRunError: null, nextRunError: 'The webhook https://hooks.todo.example/release-notes answered HTTP 500.',
  },
  {
    id: T.automations.nightly, name: 'Nightly regression', enabled: true, triggerKind: 'cron', triggerDescription: 'Every day at 02:00 UTC',
    actionKinds: ['run_tests', 'deploy_agent', 'send_message'], canRunManually: false, lastRunHoursAgo: 22, createdByName: 'Admin',
    lastRunError: 'Delete a todo: the todo was still listed after Delete.', nextRunError: null,
  },
  {
    id: T.automations.merged, name: 'Review merged branches', enabled: false, triggerKind: 'branch_merged', triggerDescription: 'When a branch is merged into Main',
    actionKinds: ['deploy_agent'], canRunManually: false, lastRunHoursAgo: null, createdByName: null, lastRunError: null, nextRunError: null,
  },
];

/** Adds the seeded tests, users, groups and automations that are missing (a seed without `app_todo` gets none). */
export function seedAppTests(state: EmulatorState, now: number): void {
  const workspace = state.workspaces.get(SEED.workspaces.main);
  const project = workspace === undefined ? undefined : state.findProject(workspace, T.appId);
  if (workspace === undefined || project === undefined) return;
  const where = { workspaceId: workspace.id, appId: project.appId, projectId: project.projectId };
  TESTS.forEach((seed, i) => {
    if (state.appTests.has(seed.id)) return;
    const createdAt = now - (30 - i) * DAY_MS;
    state.appTests.set(seed.id, {
      ...seed, ...where, timeoutMinutes: 15, createdAt, updatedAt: createdAt + 2 * DAY_MS, archivedAt: null, steps: steps(seed.id, seed.steps),
    });
  });
  for (const user of USERS) {
    if (!state.testUsers.has(user.id)) state.testUsers.set(user.id, { ...user, appId: project.appId, createdAt: now - 40 * DAY_MS });
  }
  GROUPS.forEach((group, i) => {
    if (state.testGroups.has(group.groupId)) return;
    const createdAt = now - (10 - i) * DAY_MS;
    state.testGroups.set(group.groupId, { ...group, testIds: [...group.testIds], ...where, createdAt, updatedAt: createdAt, createdByTokenId: 'tok_default' });
  });
  AUTOMATIONS.forEach(({ lastRunHoursAgo, ...seed }, i) => {
    if (state.automations.has(seed.id)) return;
    const createdAt = now - (20 - i) * DAY_MS;
    state.automations.set(seed.id, {
      ...seed, actionKinds: [...seed.actionKinds], ...where, createdAt, updatedAt: createdAt,
      lastRunAt: lastRunHoursAgo === null ? null : now - lastRunHoursAgo * HOUR_MS, queuedAt: null,
    });
  });
}
