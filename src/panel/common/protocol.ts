/**
 * The one message protocol between the run panel (extension side, `src/panel/host/manager.ts`) and the app
 * inside the webview (`src/panel/page`). Both sides import this file; it has no `vscode`
 * import and no DOM use, so it also runs in plain mocha.
 *
 * Every message that crosses the boundary is checked with the zod/mini schemas below; a
 * message that fails is ignored and reported, never acted on. Limits on lengths and counts
 * are part of the schemas so a confused or hostile peer cannot make the other side hold or
 * render unbounded data.
 *
 * This file holds the messages themselves and their validation; the pieces they are built from
 * live beside it and are re-exported here: the limits (limits.ts), one history message
 * (wire.ts), safe links (links.ts), the page's strings (webviewStrings.ts), the run views
 * (viewSchemas.ts), and cutting a message into posts (posting.ts).
 */
import * as z from 'zod/mini';
import { PROTOCOL_VERSION, MAX_ID_CHARS, MAX_PROMPT_CHARS, MAX_BRANCHES, MAX_BRANCH_CHARS, MAX_COPY_CHARS, MAX_URL_CHARS, MAX_STRING_CHARS, MAX_MESSAGES_PER_POST, str, optStr, count } from './limits';
import { checkWireMessages, wireMessageSchema } from './wire';
import { stringsSchema } from './webviewStrings';
import { reviewViewSchema } from './reviewView';
import { panelHeaderSchema, lifecycleViewSchema, activityViewSchema, freshnessSchema, transcriptInfoSchema, sendStateSchema, PERMISSION_VALUES } from './viewSchemas';

export { MAX_BRANCHES, MAX_MESSAGES_PER_POST, MAX_PROMPT_CHARS, MAX_WIRE_CONTENT_CHARS, PROTOCOL_VERSION, INIT_MESSAGES, HISTORY_CHUNK } from './limits';
export { checkWireMessage, cutText, toWireMessage, wireMessageSchema, type WireAttachment, type WireMessage } from './wire';
export { isSafeLinkUrl, isWebUrl } from './links';
export { STRING_KEYS, format, type StringKey, type WebviewStrings } from './webviewStrings';
export {
  panelHeaderSchema,
  lifecycleViewSchema,
  activityViewSchema,
  freshnessSchema,
  transcriptInfoSchema,
  sendStateSchema,
  PERMISSION_VALUES,
  isPermissionValue,
  type PanelHeader,
  type LaneView,
  type LifecycleView,
  type ActivityView,
  type Freshness,
  type TranscriptInfo,
  type SendState,
} from './viewSchemas';
export { forPosting } from './posting';

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
 * The status a code review's panel shows, in its tab and on its badge: the review's own once
 * read, unless its conversation failed (a review stays open after its conversation completed).
 * Undefined: show the run's status.
 */
export function shownReviewStatus(codeReview: boolean, runStatus: string | undefined, reviewStatus: string | undefined): string | undefined {
  return codeReview && runStatus !== 'error' && reviewStatus !== undefined && reviewStatus.trim() !== '' ? reviewStatus : undefined;
}
