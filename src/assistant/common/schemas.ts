/**
 * The language model tools' names and input schemas, checked strictly because the editor does
 * not check input before `invoke`: an unknown field or a 10 MB prompt gets a sentence naming the
 * field and nothing is sent. package.json carries the same schemas (a unit test keeps them equal).
 */
import { PERMISSIONS, REASONING_EFFORTS } from '../../api/types';

import {
  TOOL_FOLLOW_UP, TOOL_LIST_REVIEWS, TOOL_LIST_TESTS, TOOL_READ, TOOL_READ_REVIEW, TOOL_READ_TEST_RUN, TOOL_RUN_AUTOMATION, TOOL_RUN_TEST,
  TOOL_START, TOOL_START_REVIEW, TOOL_TEST_GROUP, type ToolName,
} from './toolNames';

export {
  TOOL_FOLLOW_UP, TOOL_LIST_REVIEWS, TOOL_LIST_TESTS, TOOL_NAMES, TOOL_READ, TOOL_READ_REVIEW, TOOL_READ_TEST_RUN, TOOL_RUN_AUTOMATION, TOOL_RUN_TEST,
  TOOL_START, TOOL_START_REVIEW, TOOL_TEST_GROUP, type ToolName,
} from './toolNames';

/** Longest prompt a tool accepts (the launch form's own bound is the selection setting; a model gets one fixed bound). */
export const MAX_TOOL_PROMPT = 100_000;
const MAX_ID = 200;
const MAX_BRANCH = 250;
const MAX_BRANCHES = 50;
export const MAX_TEST_IDS = 1000;
export const MAX_FILES = 100;
/** Reviews listed per list (open, merged, closed) when the list tool is given no limit. */
export const DEFAULT_REVIEW_LIST_LIMIT = 10;
/** Tests (and components) listed when the list tool is given no limit. */
export const DEFAULT_TEST_LIST_LIMIT = 50;

export type JsonSchema =
  | { type: 'string'; description: string; minLength?: number; maxLength: number; enum?: readonly string[] }
  | { type: 'integer'; description: string; minimum: number; maximum: number }
  | { type: 'array'; description: string; items: JsonSchema; maxItems: number }
  | { type: 'object'; description?: string; properties: Record<string, JsonSchema>; required: readonly string[]; additionalProperties: false };

type ObjectSchema = Extract<JsonSchema, { type: 'object' }>;

const str = (description: string, maxLength: number): JsonSchema => ({ type: 'string', description, minLength: 1, maxLength });
const branches: JsonSchema = {
  type: 'array',
  description: 'Branches the run may access when the project restricts branches, e.g. ["main"]. Omit to leave the service default.',
  items: str('A branch name.', MAX_BRANCH),
  maxItems: MAX_BRANCHES,
};
const agentId = str('The run\'s agent ID, as returned when it was started (also shown in the Agent Runs view).', MAX_ID);

export const TOOL_SCHEMAS: Record<ToolName, ObjectSchema> = {
  [TOOL_START]: {
    type: 'object',
    properties: {
      prompt: str('What the hosted agent should do, complete and self-contained: it cannot see this conversation or the local files.', MAX_TOOL_PROMPT),
      appId: str('App ID of the project to work on. Omit to use the person\'s default (setting agentRuns.appId).', MAX_ID),
      model: str('One of the service\'s model IDs. Omit to use the person\'s default (setting agentRuns.defaultModel).', MAX_ID),
      reasoningEffort: { type: 'string', description: 'How hard the model thinks. Default medium.', maxLength: 10, enum: REASONING_EFFORTS },
      permission: {
        type: 'string',
        description: 'read_only (default): the agent may only read the project. allow_edits: the agent may change the project\'s code; ask for it only when the person wants changes made.',
        maxLength: 20,
        enum: PERMISSIONS,
      },
      permittedBranches: branches,
    },
    required: ['prompt'],
    additionalProperties: false,
  },
  [TOOL_READ]: {
    type: 'object',
    properties: {
      agentId,
      maxMessages: { type: 'integer', description: 'How many of the latest messages to include (default 5).', minimum: 1, maximum: 20 },
    },
    required: ['agentId'],
    additionalProperties: false,
  },
  [TOOL_FOLLOW_UP]: {
    type: 'object',
    properties: {
      agentId,
      prompt: str('The follow-up instruction for the agent, self-contained.', MAX_TOOL_PROMPT),
      permission: {
        type: 'string',
        description: 'Change the run\'s permission: read_only or allow_edits (the agent may change code). Omit to keep it as it is.',
        maxLength: 20,
        enum: PERMISSIONS,
      },
      permittedBranches: branches,
    },
    required: ['agentId', 'prompt'],
    additionalProperties: false,
  },
  [TOOL_TEST_GROUP]: {
    type: 'object',
    properties: {
      name: str('Name of the test group.', MAX_ID),
      appId: str('App ID of the project. Omit to use the person\'s default (setting agentRuns.appId).', MAX_ID),
      description: str('Optional description of the group.', 2000),
      testIds: { type: 'array', description: 'Test IDs, in the order wanted.', items: str('A test ID.', MAX_ID), maxItems: MAX_TEST_IDS },
      files: {
        type: 'array',
        description: 'Workspace-relative paths of test files whose test IDs (@testId annotations or testId keys) make up the group, in order. Used when testIds is omitted.',
        items: str('A workspace-relative file path.', 1000),
        maxItems: MAX_FILES,
      },
    },
    required: ['name'],
    additionalProperties: false,
  },
  [TOOL_START_REVIEW]: {
    type: 'object',
    properties: {
      appId: str('App ID of the project whose branches or versions are compared.', MAX_ID),
      fromVersion: str('The source: a branch ID or label of the app (its newest synced version is compared; the common case is a feature branch), or a versionId the service lists for the app (GET /versions).', MAX_ID),
      toVersion: str('The target the source is compared with: a branch ID or label (e.g. main) or a versionId of the app.', MAX_ID),
      title: str('A title for the review. Omit to let the service name it after the two versions.', 200),
      description: str('What changed and why, for the review agent.', 5000),
      focusAreas: str('What the review agent should look at first, e.g. error handling or the new API calls.', 2000),
      model: str('One of the service\'s model IDs for the review agent. Omit to leave the choice to the service.', MAX_ID),
    },
    required: ['appId', 'fromVersion', 'toVersion'],
    additionalProperties: false,
  },
  // Exactly one of reviewId and agentId: JSON schema's oneOf is not in this subset, the tool checks it.
  [TOOL_READ_REVIEW]: {
    type: 'object',
    properties: {
      reviewId: str('The code review\'s ID (reviewId), as agentRuns_listCodeReviews or agentRuns_startCodeReview returned it. Give this or agentId.', MAX_ID),
      agentId: str('Instead of reviewId: the agent ID of the review\'s conversation (a run of kind code_review).', MAX_ID),
      appId: str('App ID of the review\'s project, when known: named in the summary when the service does not say it.', MAX_ID),
    },
    required: [],
    additionalProperties: false,
  },
  [TOOL_LIST_REVIEWS]: {
    type: 'object',
    properties: {
      appId: str('App ID of the project whose code reviews are listed. Omit to use the person\'s default (setting agentRuns.appId).', MAX_ID),
      limit: { type: 'integer', description: `How many reviews to list in each of open, merged and closed, newest first (default ${DEFAULT_REVIEW_LIST_LIMIT}).`, minimum: 1, maximum: 20 },
    },
    required: [],
    additionalProperties: false,
  },
  [TOOL_LIST_TESTS]: {
    type: 'object',
    properties: {
      appId: str('App ID of the project whose tests are listed. Omit to use the person\'s default (setting agentRuns.appId).', MAX_ID),
      limit: { type: 'integer', description: `How many tests, and how many components, to list at most (default ${DEFAULT_TEST_LIST_LIMIT}).`, minimum: 1, maximum: 200 },
    },
    required: [],
    additionalProperties: false,
  },
  [TOOL_RUN_TEST]: {
    type: 'object',
    properties: {
      testId: str('The test\'s ID, as agentRuns_listAppTests lists it (a test, not a component).', MAX_ID),
      branch: str('The branch to run the test on: its ID or display label, or "live" to run it against the live app with its live test user (only when the person asks for live).', MAX_BRANCH),
    },
    required: ['testId', 'branch'],
    additionalProperties: false,
  },
  // Exactly one of runId and groupRunId: the tool checks it.
  [TOOL_READ_TEST_RUN]: {
    type: 'object',
    properties: {
      runId: str('The test run\'s ID, as agentRuns_runAppTest returned it. Give this or groupRunId.', MAX_ID),
      groupRunId: str('Instead of runId: a test group run\'s ID; its test runs are listed, each readable by its runId.', MAX_ID),
    },
    required: [],
    additionalProperties: false,
  },
  [TOOL_RUN_AUTOMATION]: {
    type: 'object',
    properties: {
      automationId: str('The automation\'s ID (only automations with the manual trigger can run on demand).', MAX_ID),
      appId: str('App ID of the automation\'s project, to name it in the confirmation. Omit to use the person\'s default (setting agentRuns.appId).', MAX_ID),
    },
    required: ['automationId'],
    additionalProperties: false,
  },
};

/** What `checkToolInput` found wrong, as one sentence naming the field. */
export class ToolInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolInputError';
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'number' ? 'a number' : typeof value === 'string' ? 'text' : typeof value === 'object' ? 'an object' : typeof value;
}

function checkValue(schema: JsonSchema, value: unknown, at: string): void {
  switch (schema.type) {
    case 'string': {
      if (typeof value !== 'string') throw new ToolInputError(`${at} must be text, not ${typeName(value)}.`);
      if (value.trim().length < (schema.minLength ?? 0)) throw new ToolInputError(`${at} is empty.`);
      if (value.length > schema.maxLength) {
        throw new ToolInputError(`${at} is too long: ${value.length} characters, at most ${schema.maxLength}.`);
      }
      if (schema.enum && !schema.enum.includes(value)) throw new ToolInputError(`${at} must be one of ${schema.enum.join(', ')}.`);
      return;
    }
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) throw new ToolInputError(`${at} must be a whole number.`);
      if (value < schema.minimum || value > schema.maximum) throw new ToolInputError(`${at} must be between ${schema.minimum} and ${schema.maximum}.`);
      return;
    case 'array':
      if (!Array.isArray(value)) throw new ToolInputError(`${at} must be a list, not ${typeName(value)}.`);
      if (value.length > schema.maxItems) throw new ToolInputError(`${at} has ${value.length} items, at most ${schema.maxItems}.`);
      value.forEach((item: unknown, i) => checkValue(schema.items, item, `${at}[${i}]`));
      return;
    case 'object':
      checkObject(schema, value, at);
  }
}

function checkObject(schema: ObjectSchema, value: unknown, at: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ToolInputError(`${at} must be an object, not ${typeName(value)}.`);
  }
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!(key in schema.properties)) {
      throw new ToolInputError(`Unknown field ${JSON.stringify(key.slice(0, 40))}; allowed: ${Object.keys(schema.properties).join(', ')}.`);
    }
  }
  for (const key of schema.required) {
    if (fields[key] === undefined) throw new ToolInputError(`${key} is required.`);
  }
  for (const [key, sub] of Object.entries(schema.properties)) {
    if (fields[key] !== undefined) checkValue(sub, fields[key], key);
  }
}

/**
 * Checks `input` against the tool's schema; throws `ToolInputError` with one sentence on the
 * first problem. The request checks of src/api/validate.ts run after this, before any POST.
 */
export function checkToolInput(tool: ToolName, input: unknown): Record<string, unknown> {
  checkObject(TOOL_SCHEMAS[tool], input, 'The input');
  return input as Record<string, unknown>;
}
