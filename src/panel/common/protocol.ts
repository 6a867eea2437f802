/**
 * The one message protocol between the run panel's host and its page; both import it, so it uses
 * neither `vscode` nor the DOM. Every message is checked with the schemas below; one that fails
 * is ignored and reported, never acted on.
 */
import * as z from 'zod/mini';
import { PERMISSIONS } from '../../api/types';
import {
  PROTOCOL_VERSION, MAX_WIRE_CONTENT_CHARS, MAX_SHORT_CHARS, MAX_ID_CHARS, MAX_PROMPT_CHARS, MAX_BRANCHES, MAX_BRANCH_CHARS, MAX_COPY_CHARS,
  MAX_URL_CHARS, MAX_STRING_CHARS, MAX_MESSAGES_PER_POST, INIT_MESSAGES, HISTORY_CHUNK, UNSEEN_CONTEXT, str, optStr, timestamp, count,
  checkWireMessages, wireMessageSchema,
} from './historyMessage';
import { stringsSchema } from './webviewStrings';
import { reviewViewSchema } from './reviewView';

export { MAX_BRANCHES, MAX_MESSAGES_PER_POST, MAX_PROMPT_CHARS, MAX_WIRE_CONTENT_CHARS, PROTOCOL_VERSION, INIT_MESSAGES, HISTORY_CHUNK } from './historyMessage';
export { checkWireMessage, cutText, toWireMessage, wireMessageSchema, type WireAttachment, type WireMessage } from './historyMessage';
export { isSafeLinkUrl, isWebUrl } from './links';
export { STRING_KEYS, format, type StringKey, type WebviewStrings } from './webviewStrings';

// ------------------------------------------------------------------ the run views the messages carry

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
 * A follow-up the extension is sending, or may have sent, for this run. It lives in the extension
 * (per run, persisted) so reloading the panel keeps the composer locked. `uncertain`: it may have
 * reached the service; cleared when the prompt appears in the history.
 */
export const sendStateSchema = z.object({
  state: z.enum(['sending', 'uncertain']),
  prompt: str(MAX_PROMPT_CHARS),
  /** When the send started (Unix ms). */
  since: timestamp,
});
export type SendState = z.infer<typeof sendStateSchema>;

// ------------------------------------------------------------------ extension → webview

export const initMessageSchema = z.object({
  type: z.literal('init'),
  protocol: z.literal(PROTOCOL_VERSION),
  agentId: str(MAX_ID_CHARS),
  /** BCP 47 tag of the VS Code display language, for dates and numbers. */
  locale: str(64),
  /** `darwin` shows Cmd instead of Ctrl in hints; only the hint text depends on it. */
  isMac: z.boolean(),
  strings: stringsSchema,
  header: panelHeaderSchema,
  lifecycle: lifecycleViewSchema,
  activity: activityViewSchema,
  freshness: freshnessSchema,
  transcript: transcriptInfoSchema,
  messages: z.array(wireMessageSchema).check(z.maxLength(MAX_MESSAGES_PER_POST)),
  /** Key of the first message the user has not seen yet; a divider is drawn above it. */
  firstUnseenKey: optStr(MAX_ID_CHARS),
  draft: str(MAX_PROMPT_CHARS),
  /** A follow-up being sent or that may have been sent (see `sendStateSchema`). */
  send: z.optional(sendStateSchema),
  /** Cut-off used for content and tool parameters (for the "show full message" action). */
  maxContentChars: count,
});
export type InitMessage = z.infer<typeof initMessageSchema>;

/** Only what changed since the last init/update. Absent fields did not change. */
export const updateMessageSchema = z.object({
  type: z.literal('update'),
  header: z.optional(panelHeaderSchema),
  lifecycle: z.optional(lifecycleViewSchema),
  activity: z.optional(activityViewSchema),
  freshness: z.optional(freshnessSchema),
  transcript: z.optional(transcriptInfoSchema),
  /** Added or changed messages (matched by `key`). */
  messages: z.optional(z.array(wireMessageSchema).check(z.maxLength(MAX_MESSAGES_PER_POST))),
  /** Keys evicted from the transcript cache. */
  removedKeys: z.optional(z.array(str(MAX_ID_CHARS)).check(z.maxLength(MAX_MESSAGES_PER_POST))),
});
export type UpdateMessage = z.infer<typeof updateMessageSchema>;

export const followUpResultMessageSchema = z.union([
  z.object({ type: z.literal('followUpResult'), requestId: count, ok: z.literal(true) }),
  z.object({ type: z.literal('followUpResult'), requestId: count, ok: z.literal(false), error: str(MAX_STRING_CHARS) }),
]);
export type FollowUpResultMessage = z.infer<typeof followUpResultMessageSchema>;

export const draftMessageSchema = z.object({ type: z.literal('draft'), text: str(MAX_PROMPT_CHARS) });
export type DraftMessage = z.infer<typeof draftMessageSchema>;


/** The run's follow-up send state changed (`send` absent = idle again). */
export const sendStateMessageSchema = z.object({ type: z.literal('sendState'), send: z.optional(sendStateSchema) });
export type SendStateMessage = z.infer<typeof sendStateMessageSchema>;

/** The code review of a review's conversation (reviewView.ts); `problem` when the last read failed (the last good review stays). */
export const reviewMessageSchema = z.object({ type: z.literal('review'), review: z.optional(reviewViewSchema), problem: optStr(MAX_STRING_CHARS) });
export type ReviewMessage = z.infer<typeof reviewMessageSchema>;

export type ExtensionToWebviewMessage = InitMessage | UpdateMessage | FollowUpResultMessage | DraftMessage | SendStateMessage | ReviewMessage;

// ------------------------------------------------------------------ webview → extension

const branchList = z.array(str(MAX_BRANCH_CHARS)).check(z.maxLength(MAX_BRANCHES));

const webviewToExtensionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ready') }),
  z.strictObject({
    type: z.literal('sendFollowUp'),
    requestId: count,
    prompt: str(MAX_PROMPT_CHARS).check(z.refine((s) => s.trim().length > 0)),
    permission: z.optional(z.enum(PERMISSION_VALUES)),
    permittedBranches: z.optional(branchList),
  }),
  // `restored`: the page's own saved copy of a draft, sent when the extension had none (after a reload).
  z.strictObject({ type: z.literal('draftChanged'), text: str(MAX_PROMPT_CHARS), restored: z.optional(z.literal(true)) }),
  /** The person chose to send an `uncertain` follow-up again, knowing it may already have arrived. */
  z.strictObject({ type: z.literal('resendFollowUp') }),
  /** The person gave up an `uncertain` follow-up: its text goes back to the draft, nothing is sent. */
  z.strictObject({ type: z.literal('discardFollowUp') }),
  z.strictObject({ type: z.literal('copy'), text: str(MAX_COPY_CHARS) }),
  z.strictObject({ type: z.literal('openLink'), url: str(MAX_URL_CHARS) }),
  z.strictObject({ type: z.literal('export'), format: z.enum(['markdown', 'json']) }),
  z.strictObject({ type: z.literal('clone') }),
  z.strictObject({ type: z.literal('openInEditor'), messageKey: str(MAX_ID_CHARS) }),
  z.strictObject({ type: z.literal('refresh') }),
  z.strictObject({ type: z.literal('refreshReview') }),
  z.strictObject({ type: z.literal('markSeen') }),
]);
export type WebviewToExtensionMessage = z.infer<typeof webviewToExtensionSchema>;

// ------------------------------------------------------------------ validation

export type ParseResult<T> = { ok: true; message: T } | { ok: false; reason: string };

function describe(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    return typeof value;
  }
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' ? `type "${type.slice(0, 40)}"` : 'object without a type';
}

function issueSummary(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const first = error.issues[0];
  if (!first) {
    return 'invalid';
  }
  const where = first.path.map((p) => String(p)).join('.');
  return where ? `${where}: ${first.message}` : first.message;
}

/** Validates a message from the webview. Unknown types, extra fields and out-of-range values fail. */
export function parseWebviewMessage(value: unknown): ParseResult<WebviewToExtensionMessage> {
  const r = webviewToExtensionSchema.safeParse(value);
  return r.success ? { ok: true, message: r.data } : { ok: false, reason: `${describe(value)}: ${issueSummary(r.error)}` };
}

const extensionToWebviewSchemas = {
  init: initMessageSchema,
  update: updateMessageSchema,
  followUpResult: followUpResultMessageSchema,
  draft: draftMessageSchema,
  sendState: sendStateMessageSchema,
  review: reviewMessageSchema,
} as const;

/** Validates a message from the extension. */
export function parseExtensionMessage(value: unknown): ParseResult<ExtensionToWebviewMessage> {
  if (value === null || typeof value !== 'object') {
    return { ok: false, reason: describe(value) };
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || !Object.prototype.hasOwnProperty.call(extensionToWebviewSchemas, type)) {
    return { ok: false, reason: `unknown ${describe(value)}` };
  }
  const messages = (value as { messages?: unknown }).messages;
  if ((type === 'init' || type === 'update') && messages !== undefined) {
    // The messages are checked by hand (see checkWireMessage), the rest by the schema.
    const list = checkWireMessages(messages);
    if (typeof list === 'string') {
      return { ok: false, reason: `${describe(value)}: ${list}` };
    }
    const rest = { ...(value as Record<string, unknown>), messages: [] };
    const r = type === 'init' ? initMessageSchema.safeParse(rest) : updateMessageSchema.safeParse(rest);
    return r.success
      ? { ok: true, message: { ...r.data, messages: list } }
      : { ok: false, reason: `${describe(value)}: ${issueSummary(r.error)}` };
  }
  const schema = extensionToWebviewSchemas[type as keyof typeof extensionToWebviewSchemas];
  const r = schema.safeParse(value);
  return r.success
    ? { ok: true, message: r.data }
    : { ok: false, reason: `${describe(value)}: ${issueSummary(r.error)}` };
}

/** What the webview keeps in `vscode.setState`; the serializer only trusts `agentId`. */
const panelStateSchema = z.object({ agentId: z.string().check(z.minLength(1), z.maxLength(MAX_ID_CHARS)) });

export function parsePanelState(value: unknown): { agentId: string } | undefined {
  const r = panelStateSchema.safeParse(value);
  return r.success ? { agentId: r.data.agentId } : undefined;
}

/**
 * A code review panel's status (tab and badge): the review's own once read, unless its
 * conversation failed. Undefined: show the run's status.
 */
export function shownReviewStatus(codeReview: boolean, runStatus: string | undefined, reviewStatus: string | undefined): string | undefined {
  return codeReview && runStatus !== 'error' && reviewStatus !== undefined && reviewStatus.trim() !== '' ? reviewStatus : undefined;
}

// ------------------------------------------------------------------ posting

/**
 * A message as posted: an `init` or `update` too big for one post is cut into an `init` with the
 * newest messages, then `update`s with older ones, newest first; the page files each message by
 * its order fields, so the result is the same as one big post.
 */
export function forPosting(message: ExtensionToWebviewMessage): ExtensionToWebviewMessage[] {
  if (message.type === 'init') {
    const all = message.messages;
    if (all.length <= INIT_MESSAGES) {
      return [message];
    }
    let cut = all.length - INIT_MESSAGES;
    if (message.firstUnseenKey !== undefined) {
      const unseen = all.findIndex((m) => m.key === message.firstUnseenKey);
      if (unseen >= 0) {
        cut = Math.max(all.length - MAX_MESSAGES_PER_POST, Math.min(cut, unseen - UNSEEN_CONTEXT));
      }
    }
    cut = Math.max(0, cut);
    const out: ExtensionToWebviewMessage[] = [{ ...message, messages: all.slice(cut) }];
    for (let end = cut; end > 0; end -= HISTORY_CHUNK) {
      out.push({ type: 'update', messages: all.slice(Math.max(0, end - HISTORY_CHUNK), end) });
    }
    return out;
  }
  if (message.type === 'update' && message.messages && message.messages.length > MAX_MESSAGES_PER_POST) {
    const all = message.messages;
    const out: ExtensionToWebviewMessage[] = [{ ...message, messages: all.slice(0, HISTORY_CHUNK) }];
    for (let start = HISTORY_CHUNK; start < all.length; start += HISTORY_CHUNK) {
      out.push({ type: 'update', messages: all.slice(start, start + HISTORY_CHUNK) });
    }
    return out;
  }
  return [message];
}
