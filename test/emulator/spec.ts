/**
 * The request contract of the emulated service, declared once. Request validation
 * (`validateBody`) and the OpenAPI document (`requestBodySchema`) are both derived from
 * these declarations, so the served schema cannot drift from what the emulator accepts.
 */
import { ServiceError } from './errors';
import { MODEL_IDS } from './models';

export const BASE_PATH = '/api/public/v1';
export const ADMIN_PATH = '/__admin';

export const RUN_STATUSES = ['queued', 'running', 'completed', 'error'] as const;
export const TERMINAL_STATUSES: readonly string[] = ['completed', 'error'];
export const REASONING_EFFORTS = ['none', 'low', 'medium', 'high'] as const;
export const PERMISSIONS = ['read_only', 'allow_edits'] as const;
export const DEFAULT_REASONING_EFFORT = 'medium';
export const DEFAULT_PERMISSION = 'read_only';
export const AGENT_KIND = 'agent';

/** Limits the reference leaves "not shown"; these are the emulator's. */
export const LIMITS = {
  bodyMaxBytes: 1024 * 1024,
  promptMaxLength: 50_000,
  nameMaxLength: 200,
  descriptionMaxLength: 5_000,
  testIdsMaxItems: 1_000,
  branchesMaxItems: 100,
} as const;

/** The same expression ajv-formats uses for `format: email`, so both sides agree. */
const EMAIL_PATTERN =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;
const HTTP_URL_PATTERN = '^[hH][tT][tT][pP][sS]?://';
const NOT_BLANK_PATTERN = '\\S';

// ---------------------------------------------------------------- declarations

interface FieldBase {
  required?: boolean;
  description: string;
}
export interface StringField extends FieldBase {
  type: 'string';
  notBlank?: boolean;
  maxLength?: number;
  format?: 'email' | 'uri';
  nullable?: boolean;
}
export interface EnumField extends FieldBase {
  type: 'enum';
  values: readonly string[];
  default?: string;
}
export interface StringArrayField extends FieldBase {
  type: 'stringArray';
  maxItems?: number;
  itemMaxLength?: number;
}
export type FieldSpec = StringField | EnumField | StringArrayField;

export interface BodySpec {
  /** Name of the schema in `components.schemas`. */
  schemaName: string;
  fields: Record<string, FieldSpec>;
}

const permissionField: EnumField = {
  type: 'enum',
  values: PERMISSIONS,
  description: 'Edit permission of the run.',
};
const branchesField: StringArrayField = {
  type: 'stringArray',
  maxItems: LIMITS.branchesMaxItems,
  itemMaxLength: 255,
  description: 'Branches the run may access when branch restrictions apply. Empty or absent: no restriction.',
};
export const webhookField: StringField = {
  type: 'string',
  format: 'uri',
  maxLength: 2048,
  description: 'http(s) URL that receives `{event: "agent.completed", agent}` when the run reaches a terminal state.',
};
const promptField: StringField = {
  type: 'string',
  required: true,
  notBlank: true,
  maxLength: LIMITS.promptMaxLength,
  description: 'User prompt sent to the model.',
};

export const START_AGENT_BODY: BodySpec = {
  schemaName: 'StartAgentRequest',
  fields: {
    appId: { type: 'string', required: true, notBlank: true, maxLength: 200, description: 'App ID of a verified project in the token\'s workspace and scope.' },
    prompt: promptField,
    model: { type: 'enum', required: true, values: MODEL_IDS, description: 'Model identifier.' },
    reasoningEffort: { type: 'enum', values: REASONING_EFFORTS, default: DEFAULT_REASONING_EFFORT, description: 'Reasoning effort.' },
    permission: { ...permissionField, default: DEFAULT_PERMISSION },
    permittedBranches: branchesField,
    completionWebhookUrl: webhookField,
    userEmail: {
      type: 'string',
      format: 'email',
      maxLength: 320,
      description: 'Required for connected provider models: the workspace member whose provider credentials run the model.',
    },
  },
};

export const FOLLOW_UP_BODY: BodySpec = {
  schemaName: 'FollowUpRequest',
  fields: {
    prompt: promptField,
    permission: permissionField,
    permittedBranches: branchesField,
    completionWebhookUrl: webhookField,
  },
};

export const CREATE_TEST_GROUP_BODY: BodySpec = {
  schemaName: 'CreateTestGroupRequest',
  fields: {
    appId: { type: 'string', required: true, notBlank: true, maxLength: 200, description: 'App ID of the workspace project.' },
    name: { type: 'string', required: true, notBlank: true, maxLength: LIMITS.nameMaxLength, description: 'Group name.' },
    description: { type: 'string', nullable: true, maxLength: LIMITS.descriptionMaxLength, description: 'Optional description.' },
    testIds: {
      type: 'stringArray',
      maxItems: LIMITS.testIdsMaxItems,
      itemMaxLength: 200,
      description: 'Ordered test IDs to include; order is kept.',
    },
  },
};

// ---------------------------------------------------------------- validation

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isHttpUrl(value: string): boolean {
  if (!new RegExp(HTTP_URL_PATTERN).test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function checkString(name: string, spec: StringField, value: unknown): void {
  if (value === null && spec.nullable) return;
  if (typeof value !== 'string') {
    throw ServiceError.invalid(name, `\`${name}\` must be a string${spec.nullable ? ' or null' : ''}, got ${describe(value)}.`);
  }
  if (spec.notBlank && value.trim() === '') throw ServiceError.invalid(name, `\`${name}\` must not be empty.`);
  if (spec.maxLength !== undefined && value.length > spec.maxLength) {
    throw ServiceError.invalid(name, `\`${name}\` is too long (${value.length} characters; at most ${spec.maxLength}).`);
  }
  if (spec.format === 'email' && !EMAIL_PATTERN.test(value)) {
    throw ServiceError.invalid(name, `\`${name}\` must be a valid email address.`);
  }
  if (spec.format === 'uri' && !isHttpUrl(value)) {
    throw ServiceError.invalid(name, `\`${name}\` must be an absolute http or https URL.`);
  }
}

function checkField(name: string, spec: FieldSpec, value: unknown): void {
  switch (spec.type) {
    case 'string':
      checkString(name, spec, value);
      return;
    case 'enum':
      if (typeof value !== 'string' || !spec.values.includes(value)) {
        throw ServiceError.invalid(name, `\`${name}\` must be one of: ${spec.values.join(', ')}.`);
      }
      return;
    case 'stringArray': {
      if (!Array.isArray(value)) throw ServiceError.invalid(name, `\`${name}\` must be an array of strings, got ${describe(value)}.`);
      if (spec.maxItems !== undefined && value.length > spec.maxItems) {
        throw ServiceError.invalid(name, `\`${name}\` has too many items (${value.length}; at most ${spec.maxItems}).`);
      }
      value.forEach((item: unknown, i) => {
        if (typeof item !== 'string' || item.trim() === '') {
          throw ServiceError.invalid(`${name}[${i}]`, `\`${name}[${i}]\` must be a non-empty string.`);
        }
        if (spec.itemMaxLength !== undefined && item.length > spec.itemMaxLength) {
          throw ServiceError.invalid(`${name}[${i}]`, `\`${name}[${i}]\` is too long (at most ${spec.itemMaxLength} characters).`);
        }
      });
      return;
    }
  }
}

/**
 * Checks a parsed JSON body against a declaration: an object, no unknown fields, required
 * fields present, each field of the right type. Throws `invalid_request` naming the field.
 */
export function validateBody(spec: BodySpec, body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ServiceError.invalid(undefined, `The request body must be a JSON object, got ${describe(body)}.`);
  }
  const record = body as Record<string, unknown>;
  const allowed = Object.keys(spec.fields);
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) {
      throw ServiceError.invalid(key, `Unknown field \`${key}\`: this request accepts only ${allowed.join(', ')}.`);
    }
  }
  for (const [name, field] of Object.entries(spec.fields)) {
    const value = record[name];
    if (value === undefined) {
      if (field.required) throw ServiceError.invalid(name, `\`${name}\` is required.`);
      continue;
    }
    checkField(name, field, value);
  }
  return record;
}

// ---------------------------------------------------------------- JSON Schema (for OpenAPI)

export type JsonSchema = Record<string, unknown>;

function fieldSchema(spec: FieldSpec): JsonSchema {
  switch (spec.type) {
    case 'string': {
      const schema: JsonSchema = { type: spec.nullable ? ['string', 'null'] : 'string', description: spec.description };
      if (spec.notBlank) Object.assign(schema, { minLength: 1, pattern: NOT_BLANK_PATTERN });
      if (spec.maxLength !== undefined) schema.maxLength = spec.maxLength;
      if (spec.format === 'email') schema.format = 'email';
      if (spec.format === 'uri') Object.assign(schema, { format: 'uri', pattern: HTTP_URL_PATTERN });
      return schema;
    }
    case 'enum': {
      const schema: JsonSchema = { type: 'string', enum: [...spec.values], description: spec.description };
      if (spec.default !== undefined) schema.default = spec.default;
      return schema;
    }
    case 'stringArray': {
      const items: JsonSchema = { type: 'string', minLength: 1, pattern: NOT_BLANK_PATTERN };
      if (spec.itemMaxLength !== undefined) items.maxLength = spec.itemMaxLength;
      const schema: JsonSchema = { type: 'array', items, description: spec.description };
      if (spec.maxItems !== undefined) schema.maxItems = spec.maxItems;
      return schema;
    }
  }
}

export function requestBodySchema(spec: BodySpec): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, field] of Object.entries(spec.fields)) properties[name] = fieldSchema(field);
  return {
    type: 'object',
    properties,
    required: Object.entries(spec.fields).filter(([, f]) => f.required).map(([n]) => n),
    additionalProperties: false,
  };
}
