/** The client's test, test run, test group and automation calls (service-api-wider.md §3–§6), under ./client's policy (a POST, PUT or DELETE sent at most once). */
import type { RequestOptions } from './contract';
import { parseAutomationRunQueued, parseAutomations } from './parseAutomations';
import { parseTestGroupRunDetail, parseTestGroupRunStarted, parseTestRunDetail, parseTestRunStarted } from './parseTestRuns';
import { parseAppTestDetail, parseAppTests, parseOk, parseServiceTestGroupDetail, parseServiceTestGroups, parseTestUsers } from './parseTests';
import type { ServiceTestCalls } from './testTypes';
import {
  appIdOf, validateStartTestGroupRunRequest, validateStartTestRunRequest, validateTestPathId, validateUpdateTestGroupRequest,
} from './validateTests';

export type TestMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What ./client's `call` takes (its `CallSpec`). */
export interface TestCallSpec {
  method: TestMethod;
  path: string;
  body?: unknown;
  signal?: AbortSignal;
  model?: string;
}

const at = (base: string, id: string): string => `${base}/${encodeURIComponent(id)}`;
const forApp = (path: string, appId: unknown): string => `${path}?${new URLSearchParams({ appId: appIdOf(appId) }).toString()}`;

/** The calls, given the client's one exchange (`call`) and its parser wrapper (`parsed`). */
export function testCalls(
  call: (spec: TestCallSpec) => Promise<unknown>,
  parsed: <T>(method: TestMethod, path: string, json: unknown, parse: (j: unknown) => T) => T,
): ServiceTestCalls {
  /** A read: GET `path` (with its query), parsed; errors name `shown` (the path without its query). */
  const read = async <T>(path: string, shown: string, parse: (j: unknown) => T, opts?: RequestOptions): Promise<T> =>
    parsed('GET', shown, await call({ method: 'GET', path, signal: opts?.signal }), parse);
  const change = async <T>(method: TestMethod, path: string, body: unknown, parse: (j: unknown) => T, opts?: RequestOptions, model?: string): Promise<T> =>
    parsed(method, path, await call({ method, path, body, signal: opts?.signal, model }), parse);
  return {
    async listTests(appId, opts) {
      return await read(forApp('/tests', appId), '/tests', parseAppTests, opts);
    },

    async getTest(testId, opts) {
      const path = at('/tests', validateTestPathId(testId, 'testId'));
      return await read(path, path, parseAppTestDetail, opts);
    },

    async startTestRun(req, opts) {
      const body = validateStartTestRunRequest(req);
      return await change('POST', '/test-runs', body, parseTestRunStarted, opts, body.model);
    },

    async getTestRun(runId, opts) {
      const path = at('/test-runs', validateTestPathId(runId, 'runId'));
      return await read(path, path, parseTestRunDetail, opts);
    },

    async startTestGroupRun(req, opts) {
      const body = validateStartTestGroupRunRequest(req);
      return await change('POST', '/test-group-runs', body, parseTestGroupRunStarted, opts, body.model);
    },

    async getTestGroupRun(groupRunId, opts) {
      const path = at('/test-group-runs', validateTestPathId(groupRunId, 'groupRunId'));
      return await read(path, path, parseTestGroupRunDetail, opts);
    },

    async listTestGroups(appId, opts) {
      return await read(forApp('/test-groups', appId), '/test-groups', parseServiceTestGroups, opts);
    },

    async getTestGroup(groupId, opts) {
      const path = at('/test-groups', validateTestPathId(groupId, 'groupId'));
      return await read(path, path, parseServiceTestGroupDetail, opts);
    },

    async updateTestGroup(groupId, req, opts) {
      const path = at('/test-groups', validateTestPathId(groupId, 'groupId'));
      return await change('PUT', path, validateUpdateTestGroupRequest(req), parseOk, opts);
    },

    async deleteTestGroup(groupId, opts) {
      const path = at('/test-groups', validateTestPathId(groupId, 'groupId'));
      return await change('DELETE', path, undefined, parseOk, opts);
    },

    async listTestUsers(appId, opts) {
      return await read(forApp('/test-users', appId), '/test-users', parseTestUsers, opts);
    },

    async listAutomations(appId, opts) {
      return await read(forApp('/automations', appId), '/automations', parseAutomations, opts);
    },

    async runAutomation(automationId, opts) {
      const id = validateTestPathId(automationId, 'automationId');
      return await change('POST', `${at('/automations', id)}/run`, undefined, (j) => parseAutomationRunQueued(j, id), opts);
    },
  };
}
