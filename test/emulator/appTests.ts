/**
 * The app's tests, test groups, test users and automations (service-api-wider.md §3, §4, §6,
 * §7), deployed shapes only, in the published version in force (`state.wider`): `GET /tests`,
 * `GET /tests/{id}` (A and C: flat steps with `kind`; B: `stepType` and the graph), `GET
 * /test-groups` (B, C), `GET /test-groups/{id}` (A and C: `membershipId`; B: `isComponent`),
 * `PUT` and `DELETE /test-groups/{id}` (B, C), `GET /test-users` (C: wrapped), `GET
 * /test-users/{id}`, `GET /automations`, `POST /automations/{id}/run` (its outcome shows in
 * `lastRunAt`/`lastRunError` two steps of the clock later).
 */
import { ServiceChecks } from './checks';
import type { Scheduler } from './clock';
import type { Project, TestGroupRecord } from './domain';
import { CONFLICT_REASONS, ServiceError, TEST_REASONS } from './errors';
import type { Caller } from './records';
import { LIMITS, validateBody, type BodySpec } from './spec';
import { tokenCovers, type EmulatorState } from './state';
import type { AppTestRecord, AutomationRecord, TestStepRecord, TestUserRecord, WiderVersion } from './testDomain';

/** How many steps of the clock an automation run takes before `lastRunAt` moves. */
export const AUTOMATION_RUN_STEPS = 2;

export const UPDATE_TEST_GROUP_BODY: BodySpec = {
  schemaName: 'UpdateTestGroupRequest',
  fields: {
    name: { type: 'string', required: true, notBlank: true, maxLength: LIMITS.nameMaxLength, description: 'Group name.' },
    testIds: { type: 'stringArray', required: true, maxItems: LIMITS.testIdsMaxItems, itemMaxLength: 200, description: 'The members, in order: tests or components of the app.' },
    description: { type: 'string', nullable: true, maxLength: LIMITS.descriptionMaxLength, description: 'Absent: unchanged; `null`: none.' },
  },
};

const str = (input: Record<string, unknown>, key: string): string | undefined => (typeof input[key] === 'string' ? input[key] : undefined);

function testItem(t: AppTestRecord, wider: WiderVersion): Record<string, unknown> {
  return {
    id: t.id, name: t.name, description: t.description, isComponent: t.isComponent, viewportPreset: t.viewportPreset,
    liveTestUserId: t.liveTestUserId, testVersionTestUserId: t.testVersionTestUserId,
    ...(wider === 'B' ? { timeoutMinutes: t.timeoutMinutes } : {}), createdAt: t.createdAt, updatedAt: t.updatedAt,
  };
}

/** A's (and C's) step: `kind` (`test`, `component`, or `condition` for a test written in B's editor); no graph. */
function stepA(s: TestStepRecord, position: number, componentName: string | null): Record<string, unknown> {
  if (s.stepType === 'component') return { id: s.id, position, kind: 'component', componentId: s.componentId, componentName, onFailure: s.onFailure };
  return { id: s.id, position, kind: s.stepType, instruction: s.instruction, details: s.details, onFailure: s.onFailure };
}

/** B's step: `stepType`, the graph keys and the editor's layout. */
function stepB(s: TestStepRecord, position: number, componentName: string | null): Record<string, unknown> {
  const column = s.parentOutcome === 'met' ? -1 : s.parentOutcome === 'not_met' ? 1 : 0;
  return {
    id: s.id, position, stepType: s.stepType, instruction: s.instruction, details: s.details, onFailure: s.onFailure,
    componentId: s.componentId, componentName, graphNodeKey: s.key, parentGraphNodeKey: s.parentKey, parentConditionOutcome: s.parentOutcome,
    tips: s.tips, positionX: column * 280, positionY: position * 140,
  };
}

export class AppTestService {
  private readonly checks: ServiceChecks;

  constructor(private readonly state: EmulatorState, private readonly scheduler: Scheduler, private readonly stepMs: number) {
    this.checks = new ServiceChecks(state, () => scheduler.now());
  }

  /** The published version served (`state.wider`). */
  get version(): WiderVersion {
    return this.state.wider;
  }

  private get wider(): WiderVersion {
    return this.state.wider;
  }

  /** `appId` of a list: required (400), then the app checks (404, 403). */
  private app(caller: Caller, appId: string | null): Project {
    if (appId === null || appId.trim() === '') throw ServiceError.invalid('appId', '`appId` is required.');
    return this.checks.resolveProject(caller, appId);
  }

  private visible(caller: Caller, record: { workspaceId: string; appId: string } | undefined): boolean {
    if (record === undefined || record.workspaceId !== caller.workspace.id) return false;
    const project = this.state.findProject(caller.workspace, record.appId);
    return project !== undefined && tokenCovers(caller.token, project);
  }

  private testsOf(appId: string, workspaceId: string): AppTestRecord[] {
    return [...this.state.appTests.values()].filter((t) => t.appId === appId && t.workspaceId === workspaceId && t.archivedAt === null);
  }

  // ---------------------------------------------------------------- tests

  list(caller: Caller, query: URLSearchParams): { tests: Record<string, unknown>[] } {
    const project = this.app(caller, query.get('appId'));
    return { tests: this.testsOf(project.appId, caller.workspace.id).map((t) => testItem(t, this.wider)) };
  }

  get(caller: Caller, testId: string): Record<string, unknown> {
    const test = this.state.appTests.get(testId);
    if (test === undefined || test.archivedAt !== null || !this.visible(caller, test)) throw ServiceError.of('test_not_found', `No test "${testId}" in this workspace.`);
    const nameOf = (s: TestStepRecord): string | null => (s.componentId === null ? null : this.state.appTests.get(s.componentId)?.name ?? null);
    const steps = test.steps.map((s, i) => (this.wider === 'B' ? stepB(s, i, nameOf(s)) : stepA(s, i, nameOf(s))));
    return { ...testItem(test, this.wider), projectId: test.projectId, archivedAt: test.archivedAt, steps };
  }

  // ---------------------------------------------------------------- groups

  private group(caller: Caller, groupId: string): TestGroupRecord {
    const group = this.state.testGroups.get(groupId);
    if (group === undefined || group.archivedAt !== undefined || !this.visible(caller, group)) throw ServiceError.of('test_group_not_found', `No test group "${groupId}" in this workspace.`);
    return group;
  }

  /** The members that are tests or components of the group's app (an unknown ID given to `POST /test-groups` is not one). */
  private members(group: TestGroupRecord): AppTestRecord[] {
    return group.testIds.map((id) => this.state.appTests.get(id)).filter((t): t is AppTestRecord => t !== undefined && t.appId === group.appId && t.archivedAt === null);
  }

  private groupItem(group: TestGroupRecord): Record<string, unknown> {
    return {
      id: group.groupId, name: group.name, description: group.description, testCount: this.members(group).length,
      createdAt: group.createdAt, updatedAt: group.updatedAt ?? group.createdAt,
    };
  }

  listGroups(caller: Caller, query: URLSearchParams): { groups: Record<string, unknown>[] } {
    const project = this.app(caller, query.get('appId'));
    const groups = this.state.testGroupList().filter((g) => g.appId === project.appId && g.workspaceId === caller.workspace.id && g.archivedAt === undefined);
    return { groups: groups.map((g) => this.groupItem(g)) };
  }

  getGroup(caller: Caller, groupId: string): Record<string, unknown> {
    const group = this.group(caller, groupId);
    const members = this.members(group).map((t) => ({
      testId: t.id, name: t.name, description: t.description, liveTestUserId: t.liveTestUserId, testVersionTestUserId: t.testVersionTestUserId, updatedAt: t.updatedAt,
      ...(this.wider === 'B' ? { isComponent: t.isComponent } : { membershipId: `tgm_${group.groupId.replace(/^tg_/, '')}_${t.id}` }),
    }));
    return { ...this.groupItem(group), projectId: group.projectId, archivedAt: null, members };
  }

  /** `PUT /test-groups/{id}` (B): the whole group as it should be; every ID must be a test or component of the app. */
  updateGroup(caller: Caller, groupId: string, body: unknown): { ok: true } {
    const input = validateBody(UPDATE_TEST_GROUP_BODY, body);
    const group = this.group(caller, groupId);
    const testIds = (input.testIds as string[]).slice();
    const known = new Set(this.testsOf(group.appId, group.workspaceId).map((t) => t.id));
    const unknown = testIds.filter((id) => !known.has(id));
    if (unknown.length > 0) {
      throw ServiceError.of('invalid_request', `Not tests of this app: ${unknown.join(', ')}.`, { field: 'testIds', reason: TEST_REASONS.unknownTests });
    }
    group.name = str(input, 'name') ?? group.name;
    group.testIds = [...new Set(testIds)];
    if (input.description !== undefined) group.description = str(input, 'description') ?? null;
    group.updatedAt = this.scheduler.now();
    return { ok: true };
  }

  /** `DELETE /test-groups/{id}` (B): archives it; it is gone from every read after. */
  deleteGroup(caller: Caller, groupId: string): { ok: true } {
    const group = this.group(caller, groupId);
    group.archivedAt = this.scheduler.now();
    group.updatedAt = group.archivedAt;
    return { ok: true };
  }

  // ---------------------------------------------------------------- test users

  private testUserItem(u: TestUserRecord): Record<string, unknown> {
    return { id: u.id, name: u.name, description: u.description, email: u.email, database: u.database, isDisabled: u.isDisabled, createdAt: u.createdAt };
  }

  /** `GET /test-users?appId`: C wraps the list (`{testUsers}`); A and B answer a bare array. */
  listTestUsers(caller: Caller, query: URLSearchParams): unknown {
    const project = this.app(caller, query.get('appId'));
    const users = [...this.state.testUsers.values()].filter((u) => u.appId === project.appId).map((u) => this.testUserItem(u));
    return this.wider === 'C' ? { testUsers: users } : users;
  }

  getTestUser(caller: Caller, userId: string): Record<string, unknown> {
    const user = this.state.testUsers.get(userId);
    const project = user === undefined ? undefined : this.state.findProject(caller.workspace, user.appId);
    if (user === undefined || project === undefined || !tokenCovers(caller.token, project)) throw ServiceError.of('test_user_not_found', `No test user "${userId}" in this workspace.`);
    return this.testUserItem(user);
  }

  // ---------------------------------------------------------------- automations

  listAutomations(caller: Caller, query: URLSearchParams): { automations: Record<string, unknown>[] } {
    const project = this.app(caller, query.get('appId'));
    const list = [...this.state.automations.values()].filter((a) => a.appId === project.appId && a.workspaceId === caller.workspace.id);
    return {
      automations: list.map((a) => ({
        id: a.id, projectId: a.projectId, name: a.name, enabled: a.enabled, triggerKind: a.triggerKind, triggerDescription: a.triggerDescription,
        actionKinds: [...a.actionKinds], canRunManually: a.canRunManually, createdByName: a.createdByName, createdAt: a.createdAt, updatedAt: a.updatedAt,
        lastRunAt: a.lastRunAt, lastRunError: a.lastRunError,
      })),
    };
  }

  /** `POST /automations/{id}/run`: manual, enabled and idle ones only (409 with the reason); 202, then the outcome on the clock. */
  runAutomation(caller: Caller, automationId: string): Record<string, unknown> {
    const automation = this.state.automations.get(automationId);
    if (automation === undefined || !this.visible(caller, automation)) throw ServiceError.of('automation_not_found', `No automation "${automationId}" in this workspace.`);
    const refuse = (reason: string, message: string): ServiceError => ServiceError.of('automation_not_runnable', message, { reason });
    if (automation.triggerKind !== 'manual' || !automation.canRunManually) {
      throw refuse(CONFLICT_REASONS.triggerNotManual, `"${automation.name}" runs on its trigger (${automation.triggerKind}), not by hand.`);
    }
    if (!automation.enabled) throw refuse(CONFLICT_REASONS.automationDisabled, `"${automation.name}" is disabled.`);
    if (automation.queuedAt !== null) throw refuse(CONFLICT_REASONS.automationRunInProgress, `"${automation.name}" is already running; wait for it to finish.`);
    const queuedAt = this.scheduler.now();
    automation.queuedAt = queuedAt;
    this.scheduler.schedule(AUTOMATION_RUN_STEPS * this.stepMs, () => this.finishRun(automation));
    return { automationId: automation.id, status: 'queued', queuedAt };
  }

  private finishRun(automation: AutomationRecord): void {
    if (this.state.automations.get(automation.id) !== automation) return;
    automation.lastRunAt = this.scheduler.now();
    automation.lastRunError = automation.nextRunError;
    automation.queuedAt = null;
  }
}
