/** Test, test run, test group and automation request checks (service-api-wider.md §3–§6), like ./validate's. */
import type { StartTestGroupRunRequest, StartTestRunRequest, UpdateTestGroupRequest } from './testTypes';
import { asObject, quote, refuse, requiredTrimmed, type Fields } from './validate';
import { appIdOf, pathId } from './validateReviews';

export { appIdOf };

/** `model` is a plain string here (the service takes any): trimmed, blank counts as left out. */
function optionalModel(fields: Fields): string | undefined {
  const value = fields.model;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw refuse('model must be text.');
  return value.trim() === '' ? undefined : value.trim();
}

const BRANCH_HINT = 'pick the branch to run on (its ID or its name, e.g. "live")';

/** Checks and normalises a `POST /test-runs` body. */
export function validateStartTestRunRequest(input: unknown): StartTestRunRequest {
  const fields = asObject(input, 'test run request');
  const out: StartTestRunRequest = {
    testId: requiredTrimmed(fields, 'testId', 'the ID of one of the app\'s tests'),
    branchId: requiredTrimmed(fields, 'branchId', BRANCH_HINT),
  };
  const model = optionalModel(fields);
  if (model !== undefined) out.model = model;
  return out;
}

/** Checks and normalises a `POST /test-group-runs` body. */
export function validateStartTestGroupRunRequest(input: unknown): StartTestGroupRunRequest {
  const fields = asObject(input, 'test group run request');
  const out: StartTestGroupRunRequest = {
    groupId: requiredTrimmed(fields, 'groupId', 'the ID of one of the app\'s test groups'),
    branchId: requiredTrimmed(fields, 'branchId', BRANCH_HINT),
  };
  const model = optionalModel(fields);
  if (model !== undefined) out.model = model;
  return out;
}

/**
 * Checks and normalises a `PUT /test-groups/{groupId}` body: the whole group as it should be.
 * The order of `testIds` is kept, a repeated ID sent once; an empty list is allowed (a group
 * emptied on purpose). A description given is sent trimmed, even empty (it clears the old one).
 */
export function validateUpdateTestGroupRequest(input: unknown): UpdateTestGroupRequest {
  const fields = asObject(input, 'test group');
  const name = requiredTrimmed(fields, 'name', 'give the test group a name');
  const raw = fields.testIds;
  if (!Array.isArray(raw)) throw refuse('testIds is required: the list of the group\'s test IDs (it may be empty).');
  const testIds: string[] = [];
  raw.forEach((item: unknown, index) => {
    if (typeof item !== 'string' || item.trim() === '') throw refuse(`testIds must be a list of test IDs; item ${index + 1} is ${typeof item === 'string' ? 'empty' : `not text (${quote(item)})`}.`);
    if (!testIds.includes(item.trim())) testIds.push(item.trim());
  });
  const out: UpdateTestGroupRequest = { name, testIds };
  const description = fields.description;
  if (description !== undefined && description !== null) {
    if (typeof description !== 'string') throw refuse('description must be text.');
    out.description = description.trim();
  }
  return out;
}

/** Checks an id used in a path (`testId`, `runId`, `groupRunId`, `groupId`, `automationId`); returns it trimmed. */
export function validateTestPathId(value: unknown, name: 'testId' | 'runId' | 'groupRunId' | 'groupId' | 'automationId'): string {
  return pathId(value, name);
}
