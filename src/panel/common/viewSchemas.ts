/**
 * The shared pieces of the panel protocol's messages: the run header, lifecycle lanes,
 * activity, freshness, transcript figures and follow-up send state the extension shows on the
 * page. protocol.ts builds its messages from them and re-exports them; no `vscode` import, no
 * DOM use.
 */
import * as z from 'zod/mini';
import { PERMISSIONS } from '../../api/types';
import { MAX_WIRE_CONTENT_CHARS, MAX_SHORT_CHARS, MAX_ID_CHARS, MAX_PROMPT_CHARS, MAX_BRANCHES, MAX_BRANCH_CHARS, MAX_STRING_CHARS, str, optStr, timestamp, count } from './limits';

export const panelHeaderSchema = z.object({
  agentId: str(MAX_ID_CHARS),
  status: optStr(MAX_SHORT_CHARS),
  kind: optStr(MAX_SHORT_CHARS),
  appId: optStr(MAX_ID_CHARS),
  projectId: optStr(MAX_ID_CHARS),
  projectName: optStr(MAX_ID_CHARS),
  reviewId: optStr(MAX_ID_CHARS),
  model: optStr(MAX_SHORT_CHARS),
  reasoningEffort: optStr(MAX_SHORT_CHARS),
  permission: optStr(MAX_SHORT_CHARS),
  permittedBranches: z.optional(z.array(str(MAX_BRANCH_CHARS)).check(z.maxLength(MAX_BRANCHES * 10))),
  createdAt: timestamp,
  updatedAt: timestamp,
  completedAt: timestamp,
  lastError: optStr(MAX_WIRE_CONTENT_CHARS),
  /** A code review's conversation (decided by the extension, run/common/ledger/runState.ts `conversationOf`). */
  codeReview: z.optional(z.literal(true)),
  /** The conversation takes no follow-ups: the page offers no composer (the same rule). */
  noFollowUps: z.optional(z.literal(true)),
});
export type PanelHeader = z.infer<typeof panelHeaderSchema>;

const laneSchema = z.object({
  /** The state now, when the service reported one. */
  current: optStr(MAX_SHORT_CHARS),
  /** When the current state began (best estimate, Unix ms). */
  currentSince: timestamp,
  /** Every state seen so far, in order of first appearance, with closed time spent in it (ms). */
  segments: z.array(z.object({ state: str(MAX_SHORT_CHARS), totalMs: z.number().check(z.minimum(0)) })).check(z.maxLength(200)),
});
export type LaneView = z.infer<typeof laneSchema>;

export const lifecycleViewSchema = z.object({
  conversation: laneSchema,
  sandbox: laneSchema,
  queuedTurnCount: z.optional(count),
  lastLifecycleEventAt: timestamp,
  /** Set once the run reached a terminal status: the open state stops accruing time there. */
  endedAt: timestamp,
});
export type LifecycleView = z.infer<typeof lifecycleViewSchema>;

export const activityViewSchema = z.object({
  /** Newest sign of life: lifecycle event, update, message or observed change (Unix ms). */
  lastActivityAt: timestamp,
  /** A running run with no activity for this long is shown as stalled. */
  stallAfterMs: z.number().check(z.minimum(1_000)),
});
export type ActivityView = z.infer<typeof activityViewSchema>;

export const freshnessSchema = z.object({
  /** `live`: polled recently; `stale`: polls failing, last state shown; `offline`: no network. */
  state: z.enum(['live', 'stale', 'offline']),
  /** When the shown state was last confirmed by the service (Unix ms). */
  asOf: timestamp,
  /** A short user-facing reason (already localized by the host). */
  detail: optStr(MAX_STRING_CHARS),
});
export type Freshness = z.infer<typeof freshnessSchema>;

export const transcriptInfoSchema = z.object({
  /** The service no longer returns some earlier messages and they were never seen here. */
  earlierMessagesUnavailable: z.boolean(),
  /** Estimated count of messages missing from gaps in `sequence` (0 when unknown). */
  missingMessageCount: count,
  /** Messages evicted from the bounded transcript cache. */
  droppedMessageCount: count,
});
export type TranscriptInfo = z.infer<typeof transcriptInfoSchema>;

/** The permissions the page may send: the API's one list. */
export const PERMISSION_VALUES = PERMISSIONS;
export { isPermission as isPermissionValue } from '../../api/types';

/**
 * A follow-up the extension is sending, or may have sent, for this run. The state lives in the
 * extension (per run, persisted), not in the page: hiding, showing or reloading the panel keeps
 * the composer locked. `sending`: the POST is under way. `uncertain`: the request may have
 * reached the service but no answer came (timeout, cut connection, reload mid-send); the
 * extension reads the history and clears this when the prompt appears there. Absent: idle.
 */
export const sendStateSchema = z.object({
  state: z.enum(['sending', 'uncertain']),
  prompt: str(MAX_PROMPT_CHARS),
  /** When the send started (Unix ms). */
  since: timestamp,
});
export type SendState = z.infer<typeof sendStateSchema>;
