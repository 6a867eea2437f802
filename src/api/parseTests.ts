/**
 * Parsing of the app's tests, test groups and test users (service-api-wider.md §3, §4, §7), as
 * tolerant as ./parse. Both published versions read into one shape: A's flat steps and members
 * (`kind`, `membershipId`), B's graph and members (`stepType`, `graphNodeKey`, `isComponent`).
 */
import * as z from 'zod/mini';
import { compact, invalidResponse, isRecord, objectsOf, optString, requiredId, run } from './parse';
import type {
  AppTest, AppTestDetail, ServiceTestGroup, ServiceTestGroupDetail, ServiceTestGroupMember, TestStepDefinition, TestUser,
} from './testTypes';
import { listOf, optBoolean, optFinite, optTime, sortedBy, stepTypeOf } from './parseTestFields';

const appTestFields = {
  id: requiredId,
  name: optString,
  description: optString,
  isComponent: optBoolean,
  viewportPreset: optString,
  liveTestUserId: optString,
  testVersionTestUserId: optString,
  timeoutMinutes: optFinite,
  createdAt: optTime,
  updatedAt: optTime,
};

const appTestSchema = z.pipe(
  z.object(appTestFields),
  z.transform((t): AppTest => compact({ ...t, isComponent: t.isComponent === true })),
);

const stepDefinitionSchema = z.pipe(
  z.object({
    id: requiredId,
    position: optFinite,
    kind: optString,
    stepType: optString,
    instruction: optString,
    details: optString,
    onFailure: optString,
    componentId: optString,
    componentName: optString,
    graphNodeKey: optString,
    parentGraphNodeKey: optString,
    parentConditionOutcome: optString,
    tips: optString,
  }),
  z.transform(({ kind, stepType, position, ...s }) => ({
    ...s, position, stepType: stepTypeOf(stepType, kind, s.componentId) ?? 'test',
  })),
);

const appTestDetailSchema = z.object({
  ...appTestFields,
  projectId: optString,
  archivedAt: optTime,
  steps: listOf(stepDefinitionSchema),
});

const groupFields = {
  id: optString,
  groupId: optString,
  name: optString,
  description: optString,
  testCount: optFinite,
  createdAt: optTime,
  updatedAt: optTime,
};

/** A group's id is `id` (A and B), else `groupId`. */
function groupOf<T extends { id?: string; groupId?: string }>(g: T): (Omit<T, 'id' | 'groupId'> & { id: string }) | undefined {
  const { id, groupId, ...rest } = g;
  const chosen = id !== undefined && id !== '' ? id : groupId !== undefined && groupId !== '' ? groupId : undefined;
  return chosen === undefined ? undefined : { ...rest, id: chosen };
}

const groupListItemSchema = z.pipe(z.object(groupFields), z.transform((g) => groupOf(g)));

const memberSchema = z.pipe(
  z.object({
    testId: requiredId,
    name: optString,
    description: optString,
    membershipId: optString,
    isComponent: optBoolean,
    liveTestUserId: optString,
    testVersionTestUserId: optString,
    updatedAt: optTime,
  }),
  z.transform((m): ServiceTestGroupMember => compact(m)),
);

/**
 * The members, and whether that is all of them: `members` not a list (null, missing, anything
 * else) or an element that is not a member with a `testId` leaves the list incomplete, and a
 * list the extension could not read is never written back (Rename, Edit Tests).
 */
const membersSchema = z.pipe(z.optional(z.unknown()), z.transform((value): { members: ServiceTestGroupMember[]; unread: number | 'list' } => {
  if (!Array.isArray(value)) return { members: [], unread: 'list' };
  const members = objectsOf(value, memberSchema);
  return { members, unread: value.length - members.length };
}));

const groupDetailSchema = z.object({
  ...groupFields,
  projectId: optString,
  archivedAt: optTime,
  members: membersSchema,
});

const testUserSchema = z.pipe(
  z.object({
    id: requiredId,
    name: optString,
    description: optString,
    email: optString,
    database: optString,
    isDisabled: optBoolean,
    createdAt: optTime,
  }),
  z.transform((u): TestUser => compact({ ...u, isDisabled: u.isDisabled === true })),
);

/** Parses a `GET /tests?appId=…` response: tests and components, in the order sent. */
export function parseAppTests(json: unknown): AppTest[] {
  return run(z.object({ tests: listOf(appTestSchema) }), json, 'test list').tests;
}

/** Parses a `GET /tests/{testId}` response; steps in `position` order (a step without one keeps its place). */
export function parseAppTestDetail(json: unknown): AppTestDetail {
  const { steps, isComponent, ...t } = run(appTestDetailSchema, json, 'test');
  const ordered = sortedBy(steps, (s, i) => s.position ?? i).map((s, i): TestStepDefinition => compact({ ...s, position: s.position ?? i }));
  return compact({ ...t, isComponent: isComponent === true, steps: ordered });
}

/** Parses a `GET /test-groups?appId=…` response (version B). */
export function parseServiceTestGroups(json: unknown): ServiceTestGroup[] {
  const list = run(z.object({ groups: listOf(groupListItemSchema) }), json, 'test group list').groups;
  return list.filter((g): g is NonNullable<typeof g> => g !== undefined).map((g): ServiceTestGroup => compact(g));
}

/** Parses a `GET /test-groups/{groupId}` response. */
export function parseServiceTestGroupDetail(json: unknown): ServiceTestGroupDetail {
  const g = groupOf(run(groupDetailSchema, json, 'test group'));
  if (g === undefined) throw invalidResponse('The test group had no id.');
  const { members, ...rest } = g;
  return compact({ ...rest, members: members.members, ...(members.unread === 0 ? {} : { unreadMembers: members.unread }) });
}

/** Parses `PUT`/`DELETE /test-groups/{groupId}`'s 200 `{ ok: true }` (a body without `ok`, or none, is taken as done). */
export function parseOk(json: unknown): void {
  if (json === undefined) return;
  if (!isRecord(json)) throw invalidResponse('The response was not a JSON object.');
  if (json.ok === false) throw invalidResponse('The service answered without confirming the change (ok: false).');
}

/** Parses a `GET /test-users?appId=…` response: C's `{ testUsers: [...] }` or A's and B's bare array. */
export function parseTestUsers(json: unknown): TestUser[] {
  if (Array.isArray(json)) return objectsOf(json, testUserSchema);
  return run(z.object({ testUsers: listOf(testUserSchema) }), json, 'test user list').testUsers;
}
