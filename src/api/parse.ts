/**
 * Response parsing, tolerant because the reference leaves most shapes "not shown": unknown fields
 * ignored, `null` absent, wrong-typed fields dropped (tool parameters and attachments kept: the
 * deployed service sends objects), unknown enum values kept. Only a missing identifier fails.
 */
import * as z from 'zod/mini';
import { ApiError } from './errors';
import { attachmentsOf, toolParametersOf } from './json';
import type {
  Agent, AgentLifecycle, AgentMessage, AgentStarted, CompletionWebhookPayload, FollowUpAck,
  ServiceSchemaInfo, TestGroupCreated,
} from './types';

// ---------------------------------------------------------------- building blocks

/** Drops keys whose value is `undefined`, so a dropped field is absent rather than present-but-undefined. */
export function compact<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v !== undefined) out[key] = v;
  }
  return out as T;
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Any failure (wrong type, `null`) becomes "absent". */
export const optString = z.catch(z.optional(z.string()), undefined);
export const optNumber = z.catch(z.optional(z.number()), undefined);

/** Keeps the string elements of an array; anything that is not an array becomes absent. */
export const optStringList = z.catch(
  z.optional(z.pipe(z.array(z.unknown()), z.transform((items) => items.filter((x): x is string => typeof x === 'string')))),
  undefined,
);

export const requiredId = z.string().check(z.minLength(1));

/** Any JSON value but `null` (which counts as absent). */
const optJson = z.optional(z.pipe(z.unknown(), z.transform(toolParametersOf)));

/** Attachments whatever their shape (see `attachmentsOf`). */
const optAttachments = z.optional(z.pipe(z.unknown(), z.transform(attachmentsOf)));

const messageSchema = z.pipe(
  z.object({
    id: optString,
    sequence: optNumber,
    role: optString,
    content: optString,
    toolName: optString,
    toolParameters: optJson,
    attachments: optAttachments,
    createdAt: optNumber,
  }),
  z.transform((m): AgentMessage => compact(m)),
);

/** The elements of `items` that are objects and parse with `schema`, in the order sent. */
export function objectsOf<T>(items: readonly unknown[], schema: z.ZodMiniType<T>): T[] {
  const out: T[] = [];
  for (const item of items) {
    if (!isRecord(item)) continue;
    const parsed = schema.safeParse(item);
    if (parsed.success) out.push(parsed.data);
  }
  return out;
}

/** Elements that are not objects are skipped; the rest are kept in the order sent. */
const historySchema = z.catch(
  z.optional(z.pipe(
    z.array(z.unknown()),
    z.transform((items) => objectsOf(items, messageSchema)),
  )),
  undefined,
);

const lifecycleSchema = z.catch(
  z.optional(z.pipe(
    z.object({
      conversationState: optString,
      sandboxState: optString,
      queuedTurnCount: optNumber,
      lastLifecycleEventAt: optNumber,
    }),
    z.transform((l): AgentLifecycle => compact(l)),
  )),
  undefined,
);

export const agentSchema = z.pipe(
  z.object({
    agentId: requiredId,
    kind: optString,
    status: optString,
    appId: optString,
    projectId: optString,
    projectName: optString,
    reviewId: optString,
    model: optString,
    reasoningEffort: optString,
    permission: optString,
    permittedBranches: optStringList,
    createdAt: optNumber,
    updatedAt: optNumber,
    completedAt: optNumber,
    lastError: optString,
    history: historySchema,
    lifecycle: lifecycleSchema,
  }),
  z.transform((a): Agent => compact(a)),
);

const agentRunSchema = z.pipe(
  z.object({
    agentId: requiredId,
    kind: optString,
    status: optString,
    appId: optString,
    projectId: optString,
    createdAt: optNumber,
  }),
  // The reference says a started run is `queued`; a response without a status is taken at its word.
  z.transform((r): AgentStarted => compact({ ...r, status: r.status ?? 'queued' })),
);

const followUpAckSchema = z.pipe(
  z.object({ agentId: requiredId, kind: optString, status: optString }),
  // A follow-up queues a prompt; without a status the run is taken to be queued again.
  z.transform((r): FollowUpAck => compact({ ...r, status: r.status ?? 'queued' })),
);

const testGroupSchema = z.object({ groupId: requiredId });

const schemaInfoSchema = z.pipe(
  z.object({
    models: z.catch(z.pipe(optStringList, z.transform((m) => m ?? [])), []),
    version: optString,
    fingerprint: z.string().check(z.minLength(1)),
    // Absent in what was stored before the paths were kept.
    paths: optStringList,
    // Absent in what was stored before the operations were kept.
    operations: optStringList,
  }),
  z.transform((s): ServiceSchemaInfo => compact(s)),
);

// ---------------------------------------------------------------- entry points

export function run<T>(schema: z.ZodMiniType<T>, json: unknown, what: string): T {
  if (!isRecord(json)) {
    throw invalidResponse(`The ${what} was not a JSON object.`);
  }
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const field = result.error.issues[0]?.path.map(String).join('.') || 'body';
  const present = isRecord(json) && field in json;
  throw invalidResponse(`The ${what} ${present ? 'had an invalid' : 'had no'} ${field}.`);
}

export function invalidResponse(message: string): ApiError {
  return new ApiError({ kind: 'invalid_response', message, mayHaveReachedServer: true });
}

/** Parses an agent (a `GET /agents/{id}` response, a webhook's `agent`, or stored data). */
export function parseAgent(json: unknown): Agent {
  return run(agentSchema, json, 'agent data');
}

/** Parses a `POST /agents` response. */
export function parseAgentStarted(json: unknown): AgentStarted {
  return run(agentRunSchema, json, 'start response');
}

/** Parses a `POST /agents/{id}/messages` response. */
export function parseFollowUpAck(json: unknown): FollowUpAck {
  return run(followUpAckSchema, json, 'follow-up response');
}

/** Parses a `POST /test-groups` response. */
export function parseTestGroupCreated(json: unknown): TestGroupCreated {
  const parsed = run(testGroupSchema, json, 'test group response');
  return { groupId: parsed.groupId };
}

/** Parses a completion webhook body (`{ event, agent }`). */
export function parseCompletionWebhookPayload(json: unknown): CompletionWebhookPayload {
  if (!isRecord(json)) throw invalidResponse('The webhook payload was not a JSON object.');
  const event = json.event;
  if (typeof event !== 'string' || event === '') throw invalidResponse('The webhook payload had no event.');
  if (!isRecord(json.agent)) throw invalidResponse('The webhook payload had no agent.');
  return { event, agent: run(agentSchema, json.agent, 'webhook agent') };
}

/** Parses a stored {@link ServiceSchemaInfo} (as produced by `getSchemaInfo`). */
export function parseServiceSchemaInfo(json: unknown): ServiceSchemaInfo {
  return run(schemaInfoSchema, json, 'stored schema information');
}
