/**
 * Parsing of the app's tests, test runs, test groups and automations (service-api-wider.md
 * §3–§6), as tolerant as ./parse: unknown fields ignored, `null` and wrong-typed fields absent,
 * unknown enum-like values kept, list elements that are not objects (or have no id) skipped.
 * Only an identifier the extension cannot work without fails, with `ApiError` kind
 * `invalid_response`. Both published versions are read into one shape: A's flat steps (`kind`)
 * and B's graph (`stepType`, `graphNodeKey`, …); A's members (`membershipId`) and B's
 * (`isComponent`). Run statuses are spelled `canceled`, step statuses `cancelled`, whichever the
 * service wrote (`rawStatus` keeps what it wrote).
 */
import * as z from 'zod/mini';
import { compact, invalidResponse, isRecord, objectsOf, optNumber, optString, optStringList, requiredId, run } from './parse';
import type {
  AppTest, AppTestDetail, Automation, AutomationRunQueued, ServiceTestGroup, ServiceTestGroupDetail,
  ServiceTestGroupMember, TestArtifact, TestGroupChildRun, TestGroupRunDetail, TestGroupRunStarted, TestRun,
  TestRunCounts, TestRunDetail, TestRunStarted, TestRunStatus, TestRunStep, TestStepDefinition, TestStepStatus,
  TestStepType, TestUser,
} from './testTypes';
import { oneLine } from './sanitize';
import { isHttpUrl } from './validate';

const optBoolean = z.catch(z.optional(z.boolean()), undefined);

/** The elements of an array that are objects and parse; anything that is not an array is empty. */
function listOf<T>(schema: z.ZodMiniType<T>): z.ZodMiniType<T[]> {
  return z.pipe(z.optional(z.unknown()), z.transform((value): T[] => (Array.isArray(value) ? objectsOf(value, schema) : [])));
}

/** Unix milliseconds from a number, a string of digits, or an ISO date; anything else is absent. */
const optTime = z.pipe(z.optional(z.unknown()), z.transform((value): number | undefined => {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.trim();
  const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}));

/** A finite number (a position, an order, a count); anything else is absent. */
const optFinite = z.pipe(optNumber, z.transform((n) => (n !== undefined && Number.isFinite(n) ? n : undefined)));

// ---------------------------------------------------------------- statuses

const RUN_STATUSES = ['queued', 'running', 'passed', 'warning', 'error', 'canceled'];
const STEP_STATUSES = ['pending', 'passed', 'warning', 'error', 'cancelled', 'skipped'];

/**
 * A status as the extension compares it, and as the service wrote it. Known values are matched
 * without regard to case or surrounding space; `cancelled`/`canceled` is spelled `spelled`;
 * anything else is kept exactly as sent. Absent: `fallback`, with no raw status.
 */
function statusOf(raw: string | undefined, known: readonly string[], spelled: string, fallback: string): { status: string; rawStatus?: string } {
  if (raw === undefined || raw.trim() === '') return { status: fallback };
  const word = raw.trim().toLowerCase();
  const status = word === 'canceled' || word === 'cancelled' ? spelled : known.includes(word) ? word : raw;
  return { status, rawStatus: raw };
}

/** A run's or group run's status: `canceled` (one l). Absent: `queued` (nothing says it runs). */
export function runStatusOf(raw: string | undefined): { status: TestRunStatus; rawStatus?: string } {
  return statusOf(raw, RUN_STATUSES, 'canceled', 'queued');
}

/** A step's status: `cancelled` (two l). Absent: `pending`. */
export function stepStatusOf(raw: string | undefined): { status: TestStepStatus; rawStatus?: string } {
  return statusOf(raw, STEP_STATUSES, 'cancelled', 'pending');
}

/** B's `stepType`, else A's `kind` (`step`/`test`/`direct` → `test`), else a component by its reference. */
function stepTypeOf(stepType: string | undefined, kind: string | undefined, componentId: string | undefined): TestStepType | undefined {
  const given = stepType ?? kind;
  if (given === undefined || given.trim() === '') return componentId !== undefined ? 'component' : undefined;
  const word = given.trim().toLowerCase();
  if (word === 'step' || word === 'test' || word === 'direct' || word === 'instruction') return 'test';
  if (word === 'component' || word === 'component_ref' || word === 'component_reference') return 'component';
  if (word === 'condition') return 'condition';
  return given;
}

// ---------------------------------------------------------------- artifacts

const URL_KEYS = ['url', 'href', 'link', 'downloadUrl', 'signedUrl', 'publicUrl', 'src'];
const LABEL_KEYS = ['name', 'label', 'title', 'filename', 'fileName'];
const KIND_KEYS = ['kind', 'type', 'mimeType', 'contentType'];

function firstString(r: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const v = r[key];
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
  }
  return undefined;
}

/** The last segment of a URL's path, decoded; undefined when it has none. */
function lastSegment(url: string): string | undefined {
  const segment = new URL(url).pathname.split('/').filter((s) => s !== '').pop();
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** One artifact of undocumented shape: a URL string, or an object naming one. */
function artifactOf(item: unknown): TestArtifact | undefined {
  const r: Record<string, unknown> = typeof item === 'string' ? { url: item } : isRecord(item) ? item : {};
  const rawUrl = firstString(r, URL_KEYS);
  // Only a web link is ever offered: a `javascript:`, `file:` or `command:` one is dropped.
  const url = rawUrl !== undefined && isHttpUrl(rawUrl) ? rawUrl : undefined;
  const kind = firstString(r, KIND_KEYS);
  const label = firstString(r, LABEL_KEYS) ?? kind ?? (url !== undefined ? lastSegment(url) ?? new URL(url).host : undefined);
  if (label === undefined) return undefined;
  return compact({ label: oneLine(label, 200), url, kind: kind === undefined ? undefined : oneLine(kind, 80) });
}

/** Artifacts whatever their shape: a list, or one; those with neither a web link nor a name are dropped. */
const artifactsSchema = z.pipe(z.optional(z.unknown()), z.transform((value): TestArtifact[] => {
  const items = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return items.map(artifactOf).filter((a): a is TestArtifact => a !== undefined);
}));

/** Counts of undocumented shape: only finite numbers are kept; anything else is absent. */
const countsSchema = z.pipe(z.optional(z.unknown()), z.transform((value): TestRunCounts | undefined => {
  if (!isRecord(value)) return undefined;
  const out: Record<string, number> = {};
  for (const [key, n] of Object.entries(value)) {
    if (typeof n === 'number' && Number.isFinite(n)) out[key] = n;
  }
  return out;
}));

/** Elements sorted by a number (stable; those without one keep their place after those before them). */
function sortedBy<T>(items: T[], key: (item: T, index: number) => number): T[] {
  return items.map((item, index) => ({ item, at: key(item, index), index }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map((e) => e.item);
}

// ---------------------------------------------------------------- tests (§3)

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

// ---------------------------------------------------------------- runs (§5)

const branchFields = {
  branchId: optString,
  branchDisplay: optString,
  branchCacheId: optString,
  model: optString,
  environment: optString,
};

/** B's and C's `assignedTestUser` (one of C's two shapes is shown): an object with an id, else absent (none: a run without a login). */
const assignedUserSchema = z.catch(z.optional(z.pipe(
  z.object({ id: requiredId, name: optString, email: optString, database: optString }),
  z.transform((u) => compact(u)),
)), undefined);

const runSchema = z.pipe(
  z.object({
    ...branchFields,
    id: requiredId,
    testId: optString,
    testName: optString,
    projectId: optString,
    conversationId: optString,
    groupRunId: optString,
    status: optString,
    summary: optString,
    createdAt: optTime,
    startedAt: optTime,
    completedAt: optTime,
    timeoutMinutes: optFinite,
    appBaseUrl: optString,
    bubbleAppName: optString,
    assignedTestUser: assignedUserSchema,
    nextPendingStepId: optString,
    counts: countsSchema,
    artifacts: artifactsSchema,
  }),
  z.transform(({ status, ...r }): TestRun => compact({ ...r, ...runStatusOf(status) })),
);

const runStepSchema = z.pipe(
  z.object({
    id: requiredId,
    position: optFinite,
    order: optFinite,
    status: optString,
    kind: optString,
    stepType: optString,
    sourceKind: optString,
    sourceComponentId: optString,
    sourceComponentName: optString,
    instruction: optString,
    details: optString,
    onFailure: optString,
    comment: optString,
    completedAt: optTime,
    artifacts: artifactsSchema,
    conditionResult: optString,
    dependsOnStepIds: optStringList,
    graphNodeKey: optString,
    parentGraphNodeKey: optString,
    parentConditionOutcome: optString,
  }),
  z.transform(({ status, kind, stepType, position, ...s }) => ({
    ...s, position, ...stepStatusOf(status), stepType: stepTypeOf(stepType, kind, undefined),
  })),
);

const testRefSchema = z.pipe(
  z.object({ id: requiredId, name: optString, description: optString }),
  z.transform((t) => compact(t)),
);

const runDetailSchema = z.object({
  run: z.optional(z.unknown()),
  test: z.optional(z.unknown()),
  steps: listOf(runStepSchema),
});

const childRunSchema = z.pipe(
  z.object({
    ...branchFields,
    id: requiredId,
    testId: optString,
    testName: optString,
    status: optString,
    createdAt: optTime,
    startedAt: optTime,
    completedAt: optTime,
  }),
  z.transform(({ status, ...r }): TestGroupChildRun => compact({ ...r, ...runStatusOf(status) })),
);

const groupRunSchema = z.pipe(
  z.object({
    ...branchFields,
    id: requiredId,
    groupId: optString,
    groupName: optString,
    status: optString,
    createdAt: optTime,
    startedAt: optTime,
    completedAt: optTime,
    counts: countsSchema,
  }),
  z.transform(({ status, ...r }): TestGroupRunDetail['run'] => compact({ ...r, ...runStatusOf(status) })),
);

const groupRunDetailSchema = z.object({ run: z.optional(z.unknown()), childRuns: listOf(childRunSchema) });

// ---------------------------------------------------------------- groups (§4)

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

// ---------------------------------------------------------------- test users (§7)

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

// ---------------------------------------------------------------- automations (§6)

const automationSchema = z.pipe(
  z.object({
    id: requiredId,
    projectId: optString,
    name: optString,
    enabled: optBoolean,
    triggerKind: optString,
    triggerDescription: optString,
    actionKinds: optStringList,
    canRunManually: optBoolean,
    createdByName: optString,
    createdAt: optTime,
    updatedAt: optTime,
    lastRunAt: optTime,
    lastRunError: optString,
  }),
  z.transform((a): Automation => compact({
    ...a, enabled: a.enabled === true, canRunManually: a.canRunManually === true, actionKinds: a.actionKinds ?? [],
  })),
);

// ---------------------------------------------------------------- entry points

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

/** Parses a `POST /test-runs` response (201 `{ runId }`). */
export function parseTestRunStarted(json: unknown): TestRunStarted {
  const r = run(z.object({ runId: optString, id: optString }), json, 'test run start response');
  const runId = r.runId || r.id;
  if (runId === undefined || runId === '') throw invalidResponse('The test run start response had no runId.');
  return { runId };
}

/** Parses a `POST /test-group-runs` response (201 `{ groupRunId }`). */
export function parseTestGroupRunStarted(json: unknown): TestGroupRunStarted {
  const r = run(z.object({ groupRunId: optString, id: optString }), json, 'test group run start response');
  const groupRunId = r.groupRunId || r.id;
  if (groupRunId === undefined || groupRunId === '') throw invalidResponse('The test group run start response had no groupRunId.');
  return { groupRunId };
}

/** One object parsed by `schema`, or the refusal naming what is missing. */
function required<T>(schema: z.ZodMiniType<T>, value: unknown, what: string): T {
  if (!isRecord(value)) throw invalidResponse(`The ${what} had no run.`);
  return run(schema, value, `${what}'s run`);
}

/** Parses a `GET /test-runs/{runId}` response; steps in the order they run (`order`, else `position`). */
export function parseTestRunDetail(json: unknown): TestRunDetail {
  const d = run(runDetailSchema, json, 'test run');
  const runData = required(runSchema, d.run, 'test run');
  const test = isRecord(d.test) ? testRefSchema.safeParse(d.test) : undefined;
  const steps = sortedBy(d.steps, (s, i) => s.order ?? s.position ?? i).map((s, i): TestRunStep => compact({ ...s, position: s.position ?? i }));
  return compact({ run: runData, test: test?.success ? test.data : undefined, steps });
}

/** Parses a `GET /test-group-runs/{groupRunId}` response. */
export function parseTestGroupRunDetail(json: unknown): TestGroupRunDetail {
  const d = run(groupRunDetailSchema, json, 'test group run');
  return { run: required(groupRunSchema, d.run, 'test group run'), childRuns: d.childRuns };
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

/** Parses a `GET /automations?appId=…` response. */
export function parseAutomations(json: unknown): Automation[] {
  return run(z.object({ automations: listOf(automationSchema) }), json, 'automation list').automations;
}

/** Parses `POST /automations/{id}/run`'s 202; the automation's id is the one asked for when the answer leaves it out. */
export function parseAutomationRunQueued(json: unknown, automationId: string): AutomationRunQueued {
  const r = run(z.object({ automationId: optString, status: optString, queuedAt: optTime }), json, 'automation run response');
  return compact({ ...r, automationId: r.automationId || automationId });
}
