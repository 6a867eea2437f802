/**
 * The OpenAPI 3.1 document served at `GET {base_url}/openapi.json`.
 *
 * Request bodies come from the declarations in spec.ts (the same ones the emulator validates
 * with), the `model` enum from models.ts, error codes from errors.ts: what the document says
 * and what the emulator does cannot drift apart.
 */
import type { Settings } from './domain';
import { DEPLOYED_ONLY_CODES, ERROR_CODES, type ErrorCode } from './errors';
import { MODELS } from './models';
import { deployedSchemas } from './openapiDeployed';
import { reviewPaths, reviewSchemas } from './openapiReviews';
import { testPaths, testSchemas } from './openapiTests';
import type { WiderVersion } from './testDomain';
import { effectiveHistoryDefault } from './settings';
import {
  CREATE_TEST_GROUP_BODY, FOLLOW_UP_BODY, RUN_STATUSES, REASONING_EFFORTS, PERMISSIONS, START_AGENT_BODY, requestBodySchema,
  type BodySpec, type JsonSchema,
} from './spec';
import { WEBHOOK_RETRY_STEPS } from './webhooks';

export const API_VERSION = '1.0.0-beta.1';

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const timestamp = (description: string): JsonSchema => ({ type: 'integer', minimum: 0, description: `${description} (Unix milliseconds).` });

type Shapes = Settings['shapes'];

/** The error codes the shapes send (the 409s only under deployed ones), in ERROR_CODES order. */
function knownCodes(shapes: Shapes): ErrorCode[] {
  return (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => shapes === 'deployed' || !DEPLOYED_ONLY_CODES.includes(code));
}

/** Error codes grouped by HTTP status, from ERROR_CODES. */
function codesByStatus(shapes: Shapes): Map<number, string[]> {
  const map = new Map<number, string[]>();
  for (const code of knownCodes(shapes)) map.set(ERROR_CODES[code], [...(map.get(ERROR_CODES[code]) ?? []), code]);
  return map;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request',
  401: 'Bearer token missing, invalid or revoked (no `code`)',
  402: 'Plan check failed',
  403: 'Forbidden for this project or user',
  404: 'Not found',
  413: 'Request body too large',
  415: 'Request body is not JSON',
  409: 'Conflict with the workspace\'s or the conversation\'s state',
};

function schemas(shapes: Shapes): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {
    RunStatus: { type: 'string', enum: [...RUN_STATUSES], description: '`completed` and `error` end a run; a follow-up re-opens it.' },
    StartAgentRequest: requestBodySchema(START_AGENT_BODY),
    FollowUpRequest: requestBodySchema(FOLLOW_UP_BODY),
    CreateTestGroupRequest: requestBodySchema(CREATE_TEST_GROUP_BODY),
    AgentStarted: {
      type: 'object',
      required: ['agentId', 'kind', 'status', 'appId', 'projectId', 'createdAt'],
      properties: {
        agentId: { type: 'string', description: 'Opaque identifier of the linked agent conversation.' },
        kind: { type: 'string', description: 'Kind of object: `agent` for agent runs.' },
        status: ref('RunStatus'),
        appId: { type: 'string' },
        projectId: { type: 'string' },
        createdAt: timestamp('Creation time'),
      },
    },
    FollowUpAck: {
      type: 'object',
      required: ['agentId', 'kind', 'status'],
      properties: { agentId: { type: 'string' }, kind: { type: 'string' }, status: ref('RunStatus') },
    },
    TestGroupCreated: {
      type: 'object',
      required: ['groupId'],
      properties: { groupId: { type: 'string', description: 'Opaque identifier of the project test group.' } },
    },
    AgentMessage: {
      type: 'object',
      required: ['id', 'sequence', 'role', 'content', 'createdAt'],
      properties: {
        id: { type: 'string' },
        sequence: { type: 'integer', minimum: 1, description: 'Strictly increasing within a run.' },
        role: { type: 'string', description: 'One of `user`, `assistant`, `tool`, `system`; other values may appear.' },
        content: { type: 'string', description: 'Markdown.' },
        toolName: { type: 'string', description: 'For `tool` messages.' },
        toolParameters: { type: 'string', description: 'For `tool` messages: the parameters as a JSON document.' },
        attachments: { type: 'array', items: { type: 'string' } },
        createdAt: timestamp('Creation time'),
      },
    },
    AgentLifecycle: {
      type: 'object',
      required: ['conversationState', 'sandboxState', 'queuedTurnCount', 'lastLifecycleEventAt'],
      properties: {
        conversationState: { type: 'string', description: 'e.g. `queued`, `thinking`, `running_tool`, `awaiting_input`, `finished`.' },
        sandboxState: { type: 'string', description: 'e.g. `cold`, `provisioning`, `ready`, `stopped`.' },
        queuedTurnCount: { type: 'integer', minimum: 0, description: 'Prompts accepted but not started yet.' },
        lastLifecycleEventAt: timestamp('Last lifecycle change'),
      },
    },
    Agent: {
      type: 'object',
      required: ['agentId', 'kind', 'status', 'appId', 'projectId', 'model', 'createdAt', 'updatedAt', 'history', 'lifecycle'],
      properties: {
        agentId: { type: 'string' },
        kind: { type: 'string' },
        status: ref('RunStatus'),
        appId: { type: 'string' },
        projectId: { type: 'string' },
        projectName: { type: 'string' },
        reviewId: { type: 'string', description: 'Present for code review runs.' },
        model: { type: 'string' },
        reasoningEffort: { type: 'string', enum: [...REASONING_EFFORTS] },
        permission: { type: 'string', enum: [...PERMISSIONS] },
        permittedBranches: { type: 'array', items: { type: 'string' } },
        createdAt: timestamp('Creation time'),
        updatedAt: timestamp('Last change'),
        completedAt: timestamp('When the run last reached `completed` or `error`; absent while it runs'),
        lastError: { type: 'string', description: 'Cause of the failure when status is `error`.' },
        history: {
          type: 'array',
          items: ref('AgentMessage'),
          description: 'Messages in `sequence` order. The service may return only the most recent part of a long history.',
        },
        lifecycle: ref('AgentLifecycle'),
      },
    },
    CompletionWebhookPayload: {
      type: 'object',
      required: ['event', 'agent'],
      properties: { event: { type: 'string', enum: ['agent.completed', 'review.completed'] }, agent: ref('Agent') },
    },
    Error: {
      type: 'object',
      required: ['error'],
      properties: {
        error: { type: 'string', description: 'A sentence describing the problem.' },
        code: { type: 'string', description: `Machine-readable code; absent on 401. Known codes: ${knownCodes(shapes).join(', ')}.` },
        reason: { type: 'string', description: 'For plan checks (402).' },
        field: { type: 'string', description: 'For `invalid_request` and field-specific checks: the request field at fault.' },
      },
    },
  };
  // One schema per error status, narrowing `code` to the codes that status carries.
  for (const [status, codes] of codesByStatus(shapes)) {
    out[`Error${status}`] = { allOf: [ref('Error'), { type: 'object', properties: { code: { type: 'string', enum: codes } } }] };
  }
  out.Error401 = { allOf: [ref('Error'), { type: 'object', properties: { code: false } }], description: 'No `code` on 401.' };
  return shapes === 'deployed' ? deployedSchemas(out) : out;
}

function errorResponses(shapes: Shapes, statuses: readonly number[]): Record<string, JsonSchema> {
  const responses: Record<string, JsonSchema> = {};
  const codes = codesByStatus(shapes);
  for (const status of statuses) {
    const list = codes.get(status);
    const text = STATUS_TEXT[status] ?? 'Error';
    responses[String(status)] = {
      description: list === undefined ? text : `${text}: ${list.map((c) => `\`${c}\``).join(', ')}.`,
      content: { 'application/json': { schema: ref(`Error${status}`) } },
    };
  }
  responses.default = { description: 'Any other error (405, 429, 5xx).', content: { 'application/json': { schema: ref('Error') } } };
  return responses;
}

function jsonBody(spec: BodySpec): JsonSchema {
  return { required: true, content: { 'application/json': { schema: ref(spec.schemaName) } } };
}

function ok(status: number, description: string, schema: string): Record<string, JsonSchema> {
  return { [String(status)]: { description, content: { 'application/json': { schema: ref(schema) } } } };
}

const agentIdParameter: JsonSchema = {
  name: 'agentId',
  in: 'path',
  required: true,
  description: 'Identifier of the agent conversation.',
  schema: { type: 'string', minLength: 1 },
};

/** `historyLimit` as the current settings serve it: the document follows `PATCH /__admin/settings`. */
function historyLimitParameter(settings: Settings): JsonSchema {
  const schema: JsonSchema = { type: 'integer', minimum: 1 };
  if (settings.historyMax !== null) schema.maximum = settings.historyMax;
  const byDefault = effectiveHistoryDefault(settings);
  if (byDefault !== null) schema.default = byDefault;
  const parts = [
    'How many of the most recent messages `history` holds. `sequence` stays that of the whole conversation, so a first returned `sequence` above 1 means older messages were left out.',
    byDefault === null ? 'Without it, the whole history.' : `Without it, ${byDefault}.`,
    settings.historyMax === null ? '' : `A value above ${settings.historyMax} is served as ${settings.historyMax}.`,
    'Not an integer of at least 1: 400 `invalid_request` with `field: "historyLimit"`.',
  ];
  return { name: 'historyLimit', in: 'query', required: false, description: parts.filter((p) => p !== '').join(' '), schema };
}

/** `wider`: which published version of the app's tests, runs, groups and automations the deployed shapes list (openapiTests.ts). */
export function buildOpenApi(baseUrl: string, settings: Settings, wider: WiderVersion = 'B'): Record<string, unknown> {
  const modelKinds = Object.fromEntries(MODELS.map((m) => [m.id, m.kind]));
  const { shapes } = settings;
  const deployed = shapes === 'deployed';
  // The deployed service accepts a start with 202 and refuses with 409 at the concurrency limit
  // (and a follow-up to a code review's conversation).
  const postErrors = (conflicts: boolean): Record<string, JsonSchema> => errorResponses(shapes, conflicts ? [400, 401, 402, 403, 404, 409, 413, 415] : [400, 401, 402, 403, 404, 413, 415]);
  const document = {
    openapi: '3.1.0',
    info: {
      title: 'Agent, Code Review and Test Group REST Service',
      version: API_VERSION,
      description: [
        'Workspace-scoped, asynchronous REST API for agent runs and project test groups (beta).',
        'Served by the local emulator. Service-hosted models (`hosted/*`) spend workspace paid credits per turn;',
        'connected provider models (`<provider>/*`) need `userEmail` of a member with active credentials for that provider.',
        'This document is served without a token.',
      ].join(' '),
    },
    servers: [{ url: baseUrl, description: 'This emulator' }],
    security: [{ bearerAuth: [] }],
    tags: [{ name: 'agents' }, { name: 'test-groups' }, { name: 'schema' }],
    paths: {
      '/agents': {
        post: {
          operationId: 'startAgent',
          tags: ['agents'],
          summary: 'Start an agent run',
          description: 'Starts a workspace-scoped agent conversation for the given app and immediately queues the initial prompt.',
          requestBody: jsonBody(START_AGENT_BODY),
          responses: { ...ok(deployed ? 202 : 201, 'Run accepted and queued.', 'AgentStarted'), ...postErrors(deployed) },
        },
      },
      '/agents/{agentId}': {
        get: {
          operationId: 'getAgent',
          tags: ['agents'],
          summary: 'Read an agent run',
          parameters: [agentIdParameter, historyLimitParameter(settings)],
          responses: { ...ok(200, 'The run.', 'Agent'), ...errorResponses(shapes, [400, 401, 402, 404]) },
        },
      },
      '/agents/{agentId}/messages': {
        post: {
          operationId: 'sendFollowUp',
          tags: ['agents'],
          summary: 'Send a follow-up message',
          description: 'Queues a follow-up turn. A busy run keeps its status and `queuedTurnCount` grows; a finished run re-opens (`queued`, then `running`).',
          parameters: [agentIdParameter],
          requestBody: jsonBody(FOLLOW_UP_BODY),
          responses: { ...ok(202, 'Turn accepted.', 'FollowUpAck'), ...postErrors(deployed) },
        },
      },
      '/test-groups': {
        post: {
          operationId: 'createTestGroup',
          tags: ['test-groups'],
          summary: 'Create a test group',
          requestBody: jsonBody(CREATE_TEST_GROUP_BODY),
          responses: { ...ok(201, 'Group created.', 'TestGroupCreated'), ...postErrors(false) },
        },
      },
      '/openapi.json': {
        get: {
          operationId: 'getOpenApi',
          tags: ['schema'],
          summary: 'This document',
          security: [],
          responses: { '200': { description: 'The OpenAPI document.', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      },
    },
    webhooks: {
      'agent.completed': {
        post: {
          summary: 'A run reached a terminal state',
          description: `Sent to the \`completionWebhookUrl\` of the start or latest follow-up. Non-2xx or no answer: retried ${WEBHOOK_RETRY_STEPS.length} times, after ${WEBHOOK_RETRY_STEPS.join(', ')} step(s) of the run clock.`,
          requestBody: { required: true, content: { 'application/json': { schema: ref('CompletionWebhookPayload') } } },
          responses: { '2XX': { description: 'Delivered.' } },
        },
      },
    },
    components: {
      schemas: schemas(shapes),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'agr_<secret>',
          description: 'Workspace REST API token, scoped to all projects or a list of projects.',
        },
      },
    },
  };
  if (deployed) {
    // Code reviews and versions (openapiReviews.ts): a client lights its review features up when it sees `/code-reviews`.
    Object.assign(document.paths, reviewPaths({ ok, errors: (statuses) => errorResponses(shapes, statuses), historyLimit: historyLimitParameter(settings) }, wider));
    Object.assign(document.components.schemas, reviewSchemas(settings, wider));
    document.tags.push({ name: 'code-reviews' }, { name: 'versions' });
    // The app's tests, runs, groups and automations (openapiTests.ts); `/test-groups` keeps its `post`.
    const paths: Record<string, Record<string, unknown>> = document.paths;
    for (const [template, operations] of Object.entries(testPaths({ ok, errors: (statuses) => errorResponses(shapes, statuses) }, wider))) {
      paths[template] = { ...paths[template], ...operations };
    }
    Object.assign(document.components.schemas, testSchemas(wider));
    document.tags.push({ name: 'tests' }, { name: 'test-runs' }, { name: 'test-users' }, { name: 'automations' });
  }
  // Which models are service-hosted and which need a connected provider.
  const startSchema = document.components.schemas.StartAgentRequest as { properties: Record<string, JsonSchema> };
  startSchema.properties.model = { ...startSchema.properties.model, 'x-model-kinds': modelKinds };
  return document;
}
