/**
 * Request checks before anything is sent (a refused request costs nothing; a sent one may be
 * queued). Each returns a normalised copy or throws `invalid_input` naming the field; the prompt is never altered.
 */
import { ApiError } from './errors';
import { oneLine } from './sanitize';
import {
  PERMISSIONS, REASONING_EFFORTS,
  type CreateTestGroupRequest, type FollowUpRequest, type Permission, type ReasoningEffort,
  type StartAgentRequest,
} from './types';

export interface ValidateOptions {
  /**
   * The service's model ids (from `getSchemaInfo`). When given and non-empty, `model` must be
   * one of them; when absent or empty the check is skipped and the service decides.
   */
  knownModels?: readonly string[];
}

/** A start request as it is sent: defaults filled in. */
export type NormalizedStartAgentRequest = StartAgentRequest & {
  reasoningEffort: ReasoningEffort;
  permission: Permission;
};

export function refuse(message: string): ApiError {
  return new ApiError({ kind: 'invalid_input', message, mayHaveReachedServer: false });
}

/** A user-supplied value quoted in a message: bounded and on one line. */
export function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return `"${oneLine(text, 60)}"`;
}

export type Fields = Record<string, unknown>;

export function asObject(input: unknown, what: string): Fields {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw refuse(`The ${what} must be an object.`);
  }
  return input as Fields;
}

export function requiredTrimmed(fields: Fields, name: string, hint: string): string {
  const value = fields[name];
  if (value === undefined || value === null) throw refuse(`${name} is required: ${hint}.`);
  if (typeof value !== 'string') throw refuse(`${name} must be text.`);
  const trimmed = value.trim();
  if (trimmed === '') throw refuse(`${name} is empty: ${hint}.`);
  return trimmed;
}

function prompt(fields: Fields): string {
  const value = fields.prompt;
  if (value === undefined || value === null) throw refuse('prompt is required: write what the agent should do.');
  if (typeof value !== 'string') throw refuse('prompt must be text.');
  if (value.trim() === '') throw refuse('prompt is empty: write what the agent should do.');
  return value;
}

function optionalEnum<T extends string>(fields: Fields, name: string, allowed: readonly T[]): T | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value.trim())) return value.trim() as T;
  throw refuse(`${name} must be one of ${allowed.join(', ')} (got ${quote(value)}).`);
}

function optionalStringList(fields: Fields, name: string, itemName: string): string[] | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw refuse(`${name} must be a list of ${itemName}s.`);
  return value.map((item: unknown, index) => {
    if (typeof item !== 'string') throw refuse(`${name} must be a list of ${itemName}s; item ${index + 1} is not text.`);
    const trimmed = item.trim();
    if (trimmed === '') throw refuse(`${name} must be a list of ${itemName}s; item ${index + 1} is empty.`);
    return trimmed;
  });
}

// The shape JSON Schema validators (ajv-formats) accept for `format: email`.
const EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/** True when `value` has the shape of an email address (as `format: email` checks it). */
export function isEmailAddress(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

export function optionalEmail(fields: Fields, name: string): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw refuse(`${name} must be an email address.`);
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (!isEmailAddress(trimmed)) throw refuse(`${name} ${quote(trimmed)} is not an email address.`);
  return trimmed;
}

/** True for an absolute `http:`/`https:` URL with a host and no spaces. */
export function isHttpUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export function optionalWebhookUrl(fields: Fields, name: string): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw refuse(`${name} must be a URL.`);
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (!isHttpUrl(trimmed)) {
    throw refuse(`${name} ${quote(trimmed)} must be an absolute http:// or https:// URL, e.g. https://hooks.example.com/agent-done.`);
  }
  return trimmed;
}

function rejectFields(fields: Fields, names: readonly string[], what: string): void {
  for (const name of names) {
    if (fields[name] !== undefined) throw refuse(`${name} cannot be set on ${what}; it is fixed when the run starts.`);
  }
}

/** `model` when the service offers it (or its models are not known); else refused. */
export function offeredModel(model: string, options: ValidateOptions): string {
  const known = options.knownModels;
  if (known && known.length > 0 && !known.includes(model)) {
    const list = known.length <= 12 ? known.join(', ') : `${known.slice(0, 12).join(', ')}, …`;
    throw refuse(`model ${quote(model)} is not offered by the service; choose one of: ${list}.`);
  }
  return model;
}

/** Checks and normalises a `POST /agents` body. */
export function validateStartAgentRequest(input: unknown, options: ValidateOptions = {}): NormalizedStartAgentRequest {
  const fields = asObject(input, 'start request');
  const appId = requiredTrimmed(fields, 'appId', 'the App ID of a verified project in the workspace');
  const text = prompt(fields);
  const model = offeredModel(requiredTrimmed(fields, 'model', 'choose one of the service\'s models'), options);
  const out: NormalizedStartAgentRequest = {
    appId,
    prompt: text,
    model,
    reasoningEffort: optionalEnum(fields, 'reasoningEffort', REASONING_EFFORTS) ?? 'medium',
    permission: optionalEnum(fields, 'permission', PERMISSIONS) ?? 'read_only',
  };
  const branches = optionalStringList(fields, 'permittedBranches', 'branch name');
  if (branches) out.permittedBranches = branches;
  const webhook = optionalWebhookUrl(fields, 'completionWebhookUrl');
  if (webhook) out.completionWebhookUrl = webhook;
  const email = optionalEmail(fields, 'userEmail');
  if (email) out.userEmail = email;
  return out;
}

/**
 * Checks and normalises a `POST /agents/{agentId}/messages` body. No default is filled in for
 * `permission`: leaving it out keeps the run's current permission, and a default would
 * silently take edit rights away.
 */
export function validateFollowUpRequest(input: unknown): FollowUpRequest {
  const fields = asObject(input, 'follow-up');
  rejectFields(fields, ['appId', 'model', 'reasoningEffort', 'userEmail'], 'a follow-up');
  const out: FollowUpRequest = { prompt: prompt(fields) };
  const permission = optionalEnum(fields, 'permission', PERMISSIONS);
  if (permission) out.permission = permission;
  const branches = optionalStringList(fields, 'permittedBranches', 'branch name');
  if (branches) out.permittedBranches = branches;
  const webhook = optionalWebhookUrl(fields, 'completionWebhookUrl');
  if (webhook) out.completionWebhookUrl = webhook;
  return out;
}

/** Checks and normalises a `POST /test-groups` body. The order of `testIds` is kept. */
export function validateCreateTestGroupRequest(input: unknown): CreateTestGroupRequest {
  const fields = asObject(input, 'test group');
  const out: CreateTestGroupRequest = {
    appId: requiredTrimmed(fields, 'appId', 'the App ID of the workspace project'),
    name: requiredTrimmed(fields, 'name', 'give the test group a name'),
  };
  const description = fields.description;
  if (description === null) {
    out.description = null;
  } else if (description !== undefined) {
    if (typeof description !== 'string') throw refuse('description must be text.');
    const trimmed = description.trim();
    if (trimmed !== '') out.description = trimmed;
  }
  const testIds = optionalStringList(fields, 'testIds', 'test ID');
  if (testIds) out.testIds = testIds;
  return out;
}

/** Checks an agent id used in a path; returns it trimmed. */
export function validateAgentId(agentId: unknown): string {
  if (typeof agentId !== 'string' || agentId.trim() === '') throw refuse('agentId is required.');
  const trimmed = agentId.trim();
  // `.` and `..` would be resolved as path segments and address another endpoint.
  if (trimmed === '.' || trimmed === '..') throw refuse(`agentId ${quote(trimmed)} is not a valid agent id.`);
  return trimmed;
}
