/**
 * The service's data shapes. Tolerant because the reference leaves much "not shown": enum-like
 * fields are `KnownX | (string & {})` (an unknown value is shown, not refused), and every read
 * field but the identifier is optional.
 */

/** A string union that still accepts (and keeps) values we do not know yet. */
export type Open<T extends string> = T | (string & {});

export const KNOWN_STATUSES = ['queued', 'running', 'completed', 'error'] as const;
export type KnownStatus = (typeof KNOWN_STATUSES)[number];
export type RunStatus = Open<KnownStatus>;

export const REASONING_EFFORTS = ['none', 'low', 'medium', 'high'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export const PERMISSIONS = ['read_only', 'allow_edits'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** One of `PERMISSIONS` (the one list of them). */
export function isPermission(v: unknown): v is Permission {
  return typeof v === 'string' && (PERMISSIONS as readonly string[]).includes(v);
}

/** `completed` and `error` end a run; nothing else is assumed terminal. */
export function isTerminalStatus(status: RunStatus | undefined): boolean {
  return status === 'completed' || status === 'error';
}

/**
 * Whether a run is over: a terminal known status, or a status the reference does not list
 * (`cancelled`, `timed_out`, ...) with `completedAt` set. An unknown status without
 * `completedAt` may still move, so it is not finished (it is read slowly, see the poller).
 */
export function isFinished(run: { readonly status?: RunStatus; readonly completedAt?: number }): boolean {
  const { status } = run;
  if (status === undefined || (KNOWN_STATUSES as readonly string[]).includes(status)) {
    return isTerminalStatus(status);
  }
  return run.completedAt !== undefined;
}

export { maxSequence, sequenceCeiling } from './sequence';

/** A status the reference does not list, without `completedAt`: maybe paused, maybe stuck. */
export function isDormant(run: { readonly status?: RunStatus; readonly completedAt?: number }): boolean {
  const { status } = run;
  return status !== undefined && !(KNOWN_STATUSES as readonly string[]).includes(status) && run.completedAt === undefined;
}

// ---------------------------------------------------------------- requests

export interface StartAgentRequest {
  appId: string;
  prompt: string;
  model: string;
  /** Defaults to `medium` when omitted. */
  reasoningEffort?: ReasoningEffort;
  /** Defaults to `read_only` when omitted. */
  permission?: Permission;
  permittedBranches?: string[];
  completionWebhookUrl?: string;
  userEmail?: string;
}

export interface FollowUpRequest {
  prompt: string;
  permission?: Permission;
  permittedBranches?: string[];
  completionWebhookUrl?: string;
}

export interface CreateTestGroupRequest {
  appId: string;
  name: string;
  description?: string | null;
  testIds?: string[];
}

// ---------------------------------------------------------------- responses

/** Response of `POST /agents`. */
export interface AgentStarted {
  agentId: string;
  kind?: string;
  status: RunStatus;
  appId?: string;
  projectId?: string;
  createdAt?: number;
}

/** Response of `POST /agents/{agentId}/messages`. */
export interface FollowUpAck {
  agentId: string;
  kind?: string;
  status: RunStatus;
}

/** Response of `POST /test-groups`. */
export interface TestGroupCreated {
  groupId: string;
}

/** A value as JSON carries it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * The roles the deployed service publishes (the reference names only `user`). Any other role
 * is kept and shown as sent.
 */
export const KNOWN_ROLES = ['user', 'assistant', 'thinking', 'tool', 'system', 'error'] as const;
export type KnownRole = (typeof KNOWN_ROLES)[number];

/** An element of `history`. Only what the service sent is present (`null` counts as absent). */
export interface AgentMessage {
  id?: string;
  sequence?: number;
  role?: Open<KnownRole>;
  /** Absent for a tool call that has parameters only (the deployed service sends `null`). */
  content?: string;
  toolName?: string;
  /**
   * A tool call's arguments as sent: a string in the reference, a JSON object on the deployed
   * service, anything else kept as it came. Never `null` (that is "absent").
   */
  toolParameters?: JsonValue;
  /**
   * As sent: strings in the reference, objects (files, linked issues; shape undocumented) on
   * the deployed service. A lone object or string is kept as a one-element list.
   */
  attachments?: JsonValue[];
  createdAt?: number;
}

export interface AgentLifecycle {
  conversationState?: string;
  sandboxState?: string;
  queuedTurnCount?: number;
  lastLifecycleEventAt?: number;
}

/** Response of `GET /agents/{agentId}` and the `agent` of a completion webhook. */
export interface Agent {
  agentId: string;
  kind?: string;
  status?: RunStatus;
  appId?: string;
  projectId?: string;
  projectName?: string;
  reviewId?: string;
  model?: string;
  reasoningEffort?: Open<ReasoningEffort>;
  permission?: Open<Permission>;
  permittedBranches?: string[];
  createdAt?: number;
  updatedAt?: number;
  completedAt?: number;
  lastError?: string;
  history?: AgentMessage[];
  lifecycle?: AgentLifecycle;
}

export interface CompletionWebhookPayload {
  event: Open<'agent.completed' | 'review.completed'>;
  agent: Agent;
}

/** What the extension needs out of `GET /openapi.json`. */
export interface ServiceSchemaInfo {
  /** The allowed values of `model` on `POST /agents`, in schema order. */
  models: string[];
  /** `info.version` of the served document, when present. */
  version?: string;
  /** A stable fingerprint of the served document, to notice when it changes. */
  fingerprint: string;
  /** The history-window query parameter of `GET /agents/{agentId}`, when the document has one. */
  historyLimit?: HistoryLimitParam;
  /**
   * The paths the document lists, relative to the base URL (`/agents`, `/code-reviews/{reviewId}`),
   * sorted. Absent in schema information stored before they were kept: then nothing beyond
   * the reference's endpoints is known to be served.
   */
  paths?: string[];
  /**
   * The operations the document lists: method and path, path parameters written `{}`
   * (`GET /tests/{}`, `DELETE /test-groups/{}`), sorted. Absent in schema information stored
   * before they were kept: then only `paths` is known.
   */
  operations?: string[];
}

/** Whether the served document lists `path` (relative to the base URL, e.g. `/code-reviews`). */
export function servesPath(info: ServiceSchemaInfo | Pick<ServiceSchemaInfo, 'paths'> | undefined, path: string): boolean {
  return info?.paths?.includes(path) === true;
}

/** How the service caps `history`: the query parameter's name, its default and maximum as documented. */
export interface HistoryLimitParam {
  name: string;
  defaultLimit?: number;
  maximum?: number;
}
