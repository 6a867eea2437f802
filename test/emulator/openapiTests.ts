/**
 * The OpenAPI paths and schemas of the app's tests, test runs, test groups, test users and
 * automations (service-api-wider.md §3–§7), added to the document under `shapes: 'deployed'`
 * only, in the published version served: B and C list every operation; A has no `GET
 * /test-groups`, `PUT` or `DELETE /test-groups/{groupId}`. A's and C's shapes: flat steps with
 * `kind`, `membershipId`; B's a graph; C's runs carry B's timing, user and app fields, not its
 * graph, and its test-user list is wrapped. Request bodies come from the declarations the
 * emulator validates with.
 */
import { UPDATE_TEST_GROUP_BODY } from './appTests';
import { requestBodySchema, type JsonSchema } from './spec';
import type { WiderVersion } from './testDomain';
import { START_TEST_GROUP_RUN_BODY, START_TEST_RUN_BODY } from './testRuns';
import { STEP_STATUSES, TEST_RUN_STATUSES } from './testRunSteps';

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const ms: JsonSchema = { type: 'integer', minimum: 0, description: 'Unix milliseconds.' };
const nullableMs: JsonSchema = { type: ['integer', 'null'], minimum: 0, description: 'Unix milliseconds.' };
const string: JsonSchema = { type: 'string' };
const nullableString: JsonSchema = { type: ['string', 'null'] };
const nullableEnum = (values: readonly string[]): JsonSchema => ({ type: ['string', 'null'], enum: [...values, null] });
const strings: JsonSchema = { type: 'array', items: { type: 'string' } };
const objects: JsonSchema = { type: 'array', items: { type: 'object' }, description: 'Shape not documented; links are http(s) URLs.' };
const object = (properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({
  type: 'object', required: Object.keys(properties), properties, ...(description === undefined ? {} : { description }),
});
const onFailure: JsonSchema = { type: 'string', enum: ['stop', 'continue'], description: '`stop`: a warning or error cancels the steps after it.' };
const outcome = nullableEnum(['met', 'not_met']);
const counts: JsonSchema = { type: 'object', additionalProperties: { type: 'integer', minimum: 0 }, description: 'How many are in each status, and `total`.' };

export function testSchemas(wider: WiderVersion): Record<string, JsonSchema> {
  const b = wider === 'B';
  const c = wider === 'C';
  const test = {
    id: string, name: string, description: nullableString, isComponent: { type: 'boolean' }, viewportPreset: nullableEnum(['desktop', 'tablet', 'mobile']),
    liveTestUserId: nullableString, testVersionTestUserId: nullableString, ...(b ? { timeoutMinutes: { type: 'integer', minimum: 1 } } : {}), createdAt: ms, updatedAt: ms,
  };
  const stepA: JsonSchema = {
    type: 'object', required: ['id', 'position', 'kind'],
    properties: { id: string, position: { type: 'integer', minimum: 0 }, kind: { type: 'string', description: '`test`, or `component` (with `componentId`).' }, instruction: nullableString, details: nullableString, onFailure, componentId: nullableString, componentName: nullableString },
  };
  const stepB = object({
    id: string, position: { type: 'integer', minimum: 0 }, stepType: { type: 'string', enum: ['test', 'condition', 'component'] }, instruction: nullableString, details: nullableString, onFailure,
    componentId: nullableString, componentName: nullableString, graphNodeKey: string, parentGraphNodeKey: nullableString, parentConditionOutcome: outcome,
    tips: nullableString, positionX: { type: 'number' }, positionY: { type: 'number' },
  });
  const branch = { branchId: string, branchDisplay: string, branchCacheId: nullableString, model: nullableString, environment: { type: 'string', enum: ['test', 'live'] } };
  // C: in a group run all three branch fields are nullable.
  const groupBranch = c ? { ...branch, branchId: nullableString, branchDisplay: nullableString } : branch;
  const database: JsonSchema = { type: 'string', enum: ['test', 'live'] };
  const assignedTestUser: JsonSchema = c
    ? { type: ['object', 'null'], required: ['id', 'name', 'email', 'database'], properties: { id: string, name: string, email: nullableString, database }, description: 'The test user the run signs in as; `null` before it starts and for a run without a login.' }
    : { type: ['object', 'null'] };
  const runStatus: JsonSchema = { type: 'string', enum: [...TEST_RUN_STATUSES], description: 'A run canceled by someone is `canceled` (one l).' };
  const runStep = object({
    id: string, position: { type: 'integer', minimum: 0 }, sourceKind: { type: 'string', enum: ['step', 'component'] }, sourceComponentId: nullableString, sourceComponentName: nullableString,
    instruction: nullableString, details: nullableString, onFailure, status: { type: 'string', enum: [...STEP_STATUSES], description: 'A step not run after a stop is `cancelled` (two l).' },
    comment: nullableString, completedAt: nullableMs, artifacts: objects,
    ...(b ? { order: { type: 'integer', minimum: 0 }, dependsOnStepIds: strings, stepType: { type: 'string', enum: ['test', 'condition'] }, conditionResult: outcome, graphNodeKey: string, parentGraphNodeKey: nullableString, parentConditionOutcome: outcome } : {}),
  });
  const run = object({
    id: string, testId: string, projectId: string, conversationId: nullableString, status: runStatus, ...branch, summary: nullableString, createdAt: ms,
    ...(b ? {
      testName: string, groupRunId: nullableString, startedAt: nullableMs, completedAt: nullableMs, timeoutMinutes: { type: 'integer', minimum: 1 }, appBaseUrl: nullableString,
      bubbleAppName: nullableString, assignedTestUser, nextPendingStepId: nullableString, counts, readyStepIds: strings, artifacts: objects,
    } : {}),
    ...(c ? {
      testName: string, groupRunId: nullableString, startedAt: nullableMs, completedAt: nullableMs, appBaseUrl: nullableString, bubbleAppName: nullableString, assignedTestUser, artifacts: objects,
    } : {}),
  });
  const child = object({ id: string, testId: string, testName: string, status: runStatus, ...groupBranch, startedAt: nullableMs, completedAt: nullableMs, createdAt: ms });
  const member = object({
    testId: string, name: string, description: nullableString, liveTestUserId: nullableString, testVersionTestUserId: nullableString, updatedAt: ms,
    ...(b ? { isComponent: { type: 'boolean' } } : { membershipId: string }),
  });
  const group = { id: string, name: string, description: nullableString, testCount: { type: 'integer', minimum: 0 }, createdAt: ms, updatedAt: ms };
  return {
    AppTest: object(test),
    AppTestList: object({ tests: { type: 'array', items: ref('AppTest') } }, 'Active tests and components.'),
    AppTestStep: b ? stepB : stepA,
    AppTestDetail: object({ ...test, projectId: string, archivedAt: nullableMs, steps: { type: 'array', items: ref('AppTestStep') } }),
    StartTestRunRequest: requestBodySchema(START_TEST_RUN_BODY),
    StartTestGroupRunRequest: requestBodySchema(START_TEST_GROUP_RUN_BODY),
    TestRunStarted: object({ runId: string }),
    TestGroupRunStarted: object({ groupRunId: string }),
    TestRun: run,
    TestRunStep: runStep,
    TestRunDetail: object({
      run: ref('TestRun'), test: { type: ['object', 'null'] }, steps: { type: 'array', items: ref('TestRunStep') },
      ...(b ? { graph: { type: 'object', description: 'The steps as nodes and what each waits for as edges (shape not documented).' } } : {}),
    }),
    TestGroupRunDetail: object({
      run: object({ id: string, groupId: string, groupName: string, status: runStatus, ...groupBranch, startedAt: nullableMs, completedAt: nullableMs, createdAt: ms, ...(b ? { counts } : {}) }),
      childRuns: { type: 'array', items: child },
    }),
    TestGroupSummary: object(group),
    TestGroupMember: member,
    TestGroupDetail: object({ ...group, projectId: string, archivedAt: nullableMs, members: { type: 'array', items: ref('TestGroupMember') } }),
    ...(wider !== 'A' ? { TestGroupList: object({ groups: { type: 'array', items: ref('TestGroupSummary') } }), UpdateTestGroupRequest: requestBodySchema(UPDATE_TEST_GROUP_BODY) } : {}),
    TestUser: object({ id: string, name: string, description: nullableString, email: nullableString, database, isDisabled: { type: 'boolean' }, createdAt: ms }),
    TestUserList: c
      ? object({ testUsers: { type: 'array', items: ref('TestUser') } }, 'The app\'s test users.')
      : { type: 'array', items: ref('TestUser'), description: 'The app\'s test users (a bare array before C).' },
    Ok: object({ ok: { type: 'boolean', const: true } }),
    Automation: object({
      id: string, projectId: string, name: string, enabled: { type: 'boolean' },
      triggerKind: { type: 'string', enum: ['manual', 'live_deployed', 'branch_merged', 'branch_created', 'branch_removed', 'cron'] }, triggerDescription: nullableString,
      actionKinds: { type: 'array', items: { type: 'string', enum: ['run_tests', 'deploy_agent', 'send_message', 'send_webhook'] } }, canRunManually: { type: 'boolean' },
      createdByName: nullableString, createdAt: ms, updatedAt: ms, lastRunAt: nullableMs, lastRunError: nullableString,
    }),
    AutomationList: object({ automations: { type: 'array', items: ref('Automation') } }),
    AutomationRunQueued: object({ automationId: string, status: string, queuedAt: ms }),
  };
}

/** Builders from openapi.ts (passed in, so the two modules do not import each other). */
export interface TestPathHelpers {
  ok(status: number, description: string, schema: string): Record<string, JsonSchema>;
  errors(statuses: readonly number[]): Record<string, JsonSchema>;
}

const path = (name: string): JsonSchema => ({ name, in: 'path', required: true, schema: { type: 'string', minLength: 1 } });
const appId: JsonSchema = { name: 'appId', in: 'query', required: true, description: 'App ID of a verified project in the token\'s workspace and scope.', schema: { type: 'string', minLength: 1 } };
const body = (schema: string): JsonSchema => ({ required: true, content: { 'application/json': { schema: ref(schema) } } });

/** The paths; `/test-groups` is merged with the reference's `post` by the caller. */
export function testPaths(h: TestPathHelpers, wider: WiderVersion): Record<string, Record<string, JsonSchema>> {
  const op = (operationId: string, tag: string, summary: string, rest: JsonSchema): JsonSchema => ({ operationId, tags: [tag], summary, ...rest });
  const read = [400, 401, 402, 403, 404];
  const paths: Record<string, Record<string, JsonSchema>> = {
    '/tests': { get: op('listTests', 'tests', 'List the app\'s tests and components', { parameters: [appId], responses: { ...h.ok(200, 'Tests and components.', 'AppTestList'), ...h.errors(read) } }) },
    '/tests/{testId}': { get: op('getTest', 'tests', 'Read a test and its steps', { parameters: [path('testId')], responses: { ...h.ok(200, 'The test.', 'AppTestDetail'), ...h.errors([401, 402, 404]) } }) },
    '/test-runs': {
      post: op('startTestRun', 'test-runs', 'Run a test on a branch or live', {
        description: 'Components cannot be run (400). 409 when the workspace has as many active test runs as it may.',
        requestBody: body('StartTestRunRequest'), responses: { ...h.ok(201, 'Run created, queued.', 'TestRunStarted'), ...h.errors([400, 401, 402, 404, 409, 413, 415]) },
      }),
    },
    '/test-runs/{runId}': { get: op('getTestRun', 'test-runs', 'Read a test run step by step', { parameters: [path('runId')], responses: { ...h.ok(200, 'The run, its test and steps.', 'TestRunDetail'), ...h.errors([401, 402, 404]) } }) },
    '/test-group-runs': {
      post: op('startTestGroupRun', 'test-runs', 'Run the tests of a group', {
        requestBody: body('StartTestGroupRunRequest'), responses: { ...h.ok(201, 'Group run created.', 'TestGroupRunStarted'), ...h.errors([400, 401, 402, 404, 409, 413, 415]) },
      }),
    },
    '/test-group-runs/{groupRunId}': { get: op('getTestGroupRun', 'test-runs', 'Read a group run', { parameters: [path('groupRunId')], responses: { ...h.ok(200, 'The group run and its runs.', 'TestGroupRunDetail'), ...h.errors([401, 402, 404]) } }) },
    '/test-groups/{groupId}': {
      get: op('getTestGroup', 'test-groups', 'Read a test group and its members', { parameters: [path('groupId')], responses: { ...h.ok(200, 'The group.', 'TestGroupDetail'), ...h.errors([401, 402, 404]) } }),
    },
    '/automations': { get: op('listAutomations', 'automations', 'List the app\'s automations', { parameters: [appId], responses: { ...h.ok(200, 'Automations.', 'AutomationList'), ...h.errors(read) } }) },
    '/automations/{automationId}/run': {
      post: op('runAutomation', 'automations', 'Run a manual automation now', {
        description: 'No body. Only automations with the manual trigger (409 otherwise). Its outcome shows later in `lastRunAt`/`lastRunError`.',
        parameters: [path('automationId')], responses: { ...h.ok(202, 'Run queued.', 'AutomationRunQueued'), ...h.errors([401, 402, 404, 409]) },
      }),
    },
  };
  paths['/test-users'] = { get: op('listTestUsers', 'test-users', 'List the app\'s test users', { parameters: [appId], responses: { ...h.ok(200, 'Test users.', 'TestUserList'), ...h.errors(read) } }) };
  paths['/test-users/{testUserId}'] = { get: op('getTestUser', 'test-users', 'Read a test user', { parameters: [path('testUserId')], responses: { ...h.ok(200, 'The test user.', 'TestUser'), ...h.errors([401, 402, 404]) } }) };
  if (wider !== 'A') {
    paths['/test-groups'] = { get: op('listTestGroups', 'test-groups', 'List the app\'s test groups', { parameters: [appId], responses: { ...h.ok(200, 'Groups with their test counts.', 'TestGroupList'), ...h.errors(read) } }) };
    paths['/test-groups/{groupId}'].put = op('updateTestGroup', 'test-groups', 'Replace a group\'s name, tests and description', {
      parameters: [path('groupId')], requestBody: body('UpdateTestGroupRequest'), responses: { ...h.ok(200, 'Updated.', 'Ok'), ...h.errors([400, 401, 402, 404, 413, 415]) },
    });
    paths['/test-groups/{groupId}'].delete = op('deleteTestGroup', 'test-groups', 'Archive a test group', { parameters: [path('groupId')], responses: { ...h.ok(200, 'Archived.', 'Ok'), ...h.errors([401, 402, 404]) } });
  }
  return paths;
}
