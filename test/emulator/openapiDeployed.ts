/**
 * The OpenAPI document's schemas under `shapes: 'deployed'` (service-api-wider.md §1): what the
 * deployed service's own document says where it differs from the reference. openapi.ts builds
 * the reference document and replaces these; the reference document is never changed by them.
 */
import { READABLE_MODEL_IDS } from './models';
import { DEPLOYED_CONVERSATION_STATES, DEPLOYED_ROLES, DEPLOYED_SANDBOX_STATES, KINDS } from './shapes';
import { REASONING_EFFORTS, type JsonSchema } from './spec';

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const nullableTimestamp = (description: string): JsonSchema => ({ type: ['integer', 'null'], minimum: 0, description: `${description} (Unix milliseconds).` });
const kind: JsonSchema = { type: 'string', enum: [...KINDS], description: '`agent`, or `code_review` for a code review\'s conversation (which takes no follow-ups).' };

type Schemas = Record<string, JsonSchema>;

/** A copy of `schema` (an object schema) with some properties replaced and more required ones. */
function withProperties(schema: JsonSchema, properties: Schemas, required: readonly string[] = []): JsonSchema {
  const base = schema as { properties: Schemas; required: string[] };
  return { ...schema, required: [...base.required, ...required.filter((r) => !base.required.includes(r))], properties: { ...base.properties, ...properties } };
}

/** The reference schemas with the deployed service's shapes in place. */
export function deployedSchemas(reference: Schemas): Schemas {
  const out: Schemas = { ...reference };
  out.AgentStarted = withProperties(reference.AgentStarted, { kind });
  out.FollowUpAck = withProperties(reference.FollowUpAck, { kind });
  out.AgentMessage = withProperties(reference.AgentMessage, {
    role: { type: 'string', enum: [...DEPLOYED_ROLES] },
    content: { type: ['string', 'null'], description: 'Markdown; `null` for a tool call with parameters only.' },
    toolName: { type: ['string', 'null'], description: 'For `tool` messages.' },
    toolParameters: { type: ['object', 'null'], description: 'For `tool` messages: the tool\'s arguments as a JSON object.' },
    attachments: {
      type: 'array',
      items: { type: 'object' },
      description: 'Files (`name`, `url`, `mimeType`, …), linked issues (`identifier`, `title`, `url`) and other kinds; the fields depend on the kind.',
    },
  }, ['toolName', 'toolParameters', 'attachments']);
  out.AgentLifecycle = withProperties(reference.AgentLifecycle, {
    conversationState: { type: 'string', enum: [...DEPLOYED_CONVERSATION_STATES] },
    sandboxState: { type: 'string', enum: [...DEPLOYED_SANDBOX_STATES] },
    lastLifecycleEventAt: nullableTimestamp('Last lifecycle change; `null` before the first'),
  });
  out.Agent = withProperties(reference.Agent, {
    kind,
    reviewId: { type: ['string', 'null'], description: 'The code review of a `code_review` conversation; `null` otherwise.' },
    model: {
      type: 'string',
      enum: [...READABLE_MODEL_IDS],
      description: 'The model of the run: one `POST /agents` accepts, or a retired one an older run keeps.',
    },
    reasoningEffort: { type: ['string', 'null'], enum: [...REASONING_EFFORTS, null], description: '`null` when none was chosen.' },
    completedAt: nullableTimestamp('When the run last reached `completed` or `error`; `null` while it runs'),
    lastError: { type: ['string', 'null'], description: 'Cause of the failure when status is `error`; `null` otherwise.' },
    lifecycle: ref('AgentLifecycle'),
  }, ['reviewId', 'reasoningEffort', 'completedAt', 'lastError']);
  // A start without `reasoningEffort` stores none (`null`): no default.
  const start = reference.StartAgentRequest as { properties: Schemas };
  const { default: _unused, ...effort } = start.properties.reasoningEffort;
  out.StartAgentRequest = { ...reference.StartAgentRequest, properties: { ...start.properties, reasoningEffort: { ...effort, description: 'Reasoning effort; absent: none (`null` on the run).' } } };
  const error = reference.Error as { properties: Schemas };
  out.Error = { ...reference.Error, properties: { ...error.properties, reason: { type: 'string', description: 'For plan checks (402) and conflicts (409).' } } };
  return out;
}
