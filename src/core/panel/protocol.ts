/**
 * The one message protocol between the run panel (extension side, `panel.ts`) and the app
 * inside the webview (`src/panel-app`). Both sides import this file; it has no `vscode`
 * import and no DOM use, so it also runs in plain mocha.
 *
 * Every message that crosses the boundary is checked with the zod/mini schemas below; a
 * message that fails is ignored and reported, never acted on. Limits on lengths and counts
 * are part of the schemas so a confused or hostile peer cannot make the other side hold or
 * render unbounded data.
 */
import * as z from 'zod/mini';
import type { AgentMessage } from '../../api/types';

export const PROTOCOL_VERSION = 1;

/** Characters of a message's content (and of its tool parameters) sent to and rendered in the webview. */
export const MAX_WIRE_CONTENT_CHARS = 20_000;
const MAX_WIRE_ATTACHMENTS = 100;
const MAX_ATTACHMENT_CHARS = 2_000;
const MAX_SHORT_CHARS = 200;
const MAX_ID_CHARS = 1_000;
/** Largest prompt the composer sends; the service's own limit is not documented. */
export const MAX_PROMPT_CHARS = 1_000_000;
export const MAX_BRANCHES = 100;
const MAX_BRANCH_CHARS = 255;
const MAX_COPY_CHARS = 5_000_000;
const MAX_URL_CHARS = 8_192;
const MAX_STRING_CHARS = 2_000;
export const MAX_MESSAGES_PER_POST = 20_000;
/**
 * Newest messages an `init` of a long run carries; the older ones follow at once in `update`s of
 * `HISTORY_CHUNK`, newest first (see `forPosting`). The page paints the end without waiting
 * for (or validating and cloning) 50,000 messages, and one post stays far below the cap.
 */
export const INIT_MESSAGES = 1_000;
export const HISTORY_CHUNK = 2_000;
/** Messages kept before the first unseen one when `init` is cut, so its divider has context. */
const UNSEEN_CONTEXT = 20;

const str = (max: number) => z.string().check(z.maxLength(max));
const optStr = (max: number) => z.optional(str(max));
const timestamp = z.optional(z.number().check(z.minimum(-8.64e15), z.maximum(8.64e15)));
const count = z.int().check(z.minimum(0));

// ------------------------------------------------------------------ shared pieces

/**
 * User-facing strings for the webview, localized on the extension side with `vscode.l10n`.
 * `{0}` placeholders are filled in by the webview with `format()`.
 */
export const STRING_KEYS = [
  'loading',
  'roleUser',
  'roleAssistant',
  'roleTool',
  'roleSystem',
  'roleUnknown',
  'toolCall',
  'toolParameters',
  'noToolParameters',
  'attachments',
  'image',
  'emptyMessage',
  'messageActions',
  'copyMessage',
  'copyParameters',
  'openInEditor',
  'showFullMessage',
  'sequence',
  'statusQueued',
  'statusRunning',
  'statusCompleted',
  'statusError',
  'statusUnknown',
  'runTitle',
  'fieldApp',
  'fieldProject',
  'fieldModel',
  'fieldEffort',
  'fieldPermission',
  'fieldBranches',
  'fieldCreated',
  'fieldUpdated',
  'fieldCompleted',
  'fieldAgentId',
  'notSet',
  'permissionReadOnly',
  'permissionAllowEdits',
  'effortNone',
  'effortLow',
  'effortMedium',
  'effortHigh',
  'copyAgentId',
  'copied',
  'toolbarLabel',
  'refresh',
  'exportMarkdown',
  'exportJson',
  'cloneRun',
  'lastErrorTitle',
  'staleAsOf',
  'offlineAsOf',
  'earlierUnavailable',
  'missingMessages',
  'droppedMessages',
  'newSinceLastLooked',
  'lifecycleTitle',
  'laneConversation',
  'laneSandbox',
  'laneNotReported',
  'queuedTurns',
  'queuedTurn',
  'noQueuedTurns',
  'lastLifecycleEvent',
  'stalled',
  'transcriptLabel',
  'noMessages',
  'newMessages',
  'composerLabel',
  'composerPlaceholder',
  'composerHint',
  'send',
  'sending',
  'permissionLabel',
  'permissionKeep',
  'branchesLabel',
  'branchesPlaceholder',
  'sendFailed',
  'skipToComposer',
  'composerOptions',
  // The page for long runs: gaps, find, filters, jumps, the extension-owned send state.
  'gapMessages',
  'gapUnknown',
  'findLabel',
  'findPlaceholder',
  'findCount',
  'findNone',
  'findNext',
  'findPrevious',
  'findClose',
  'findOpen',
  'filtersLabel',
  'filterPrompts',
  'filterAgent',
  'filterTools',
  'filterErrors',
  'previousPrompt',
  'nextPrompt',
  'latestMessage',
  'navHint',
  'sendUncertain',
  'resend',
  'editFollowUp',
] as const;
export type StringKey = (typeof STRING_KEYS)[number];
export type WebviewStrings = Record<StringKey, string>;

const stringsSchema = z.object(
  Object.fromEntries(STRING_KEYS.map((k) => [k, str(MAX_STRING_CHARS)])) as Record<StringKey, ReturnType<typeof str>>,
);

/** Fill `{0}`, `{1}`… in a localized template. Unknown placeholders stay as they are. */
export function format(template: string, ...args: (string | number)[]): string {
  return template.replace(/\{(\d+)\}/g, (m, i: string) => {
    const v = args[Number(i)];
    return v === undefined ? m : String(v);
  });
}

/** One history item as the webview gets it: the service's fields (capped) plus its transcript key. */
export const wireMessageSchema = z.object({
  key: str(MAX_ID_CHARS),
  /** Order of first arrival in the extension's transcript; the last tie-breaker for ordering. */
  arrival: count,
  id: optStr(MAX_ID_CHARS),
  sequence: z.optional(z.number()),
  role: optStr(MAX_SHORT_CHARS),
  content: optStr(MAX_WIRE_CONTENT_CHARS),
  /** Full length of `content` when it was cut to fit; absent when `content` is complete. */
  contentLength: z.optional(count),
  toolName: optStr(MAX_SHORT_CHARS),
  toolParameters: optStr(MAX_WIRE_CONTENT_CHARS),
  toolParametersLength: z.optional(count),
  attachments: z.optional(z.array(str(MAX_ATTACHMENT_CHARS)).check(z.maxLength(MAX_WIRE_ATTACHMENTS))),
  /** Number of attachments when more than were sent. */
  attachmentCount: z.optional(count),
  createdAt: timestamp,
  /**
   * Messages just before this one that the service no longer returns and that were never seen
   * here: about this many (0 when the count is unknown). The panel and exports show the gap here.
   */
  gapBefore: z.optional(count),
});
export type WireMessage = z.infer<typeof wireMessageSchema>;

// The same checks as `wireMessageSchema`, written out by hand for the webview: zod took 40-55 ms
// to check the messages of a 5,000-message `init` in a fresh page, before anything could be
// drawn; this is 4-5 times faster. The unit tests check that both accept and reject the same
// values and give the same result.

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isStr = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max;
const isTimestamp = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= -8.64e15 && v <= 8.64e15;

/** One wire message, checked like `wireMessageSchema` (unknown fields dropped): the message, or the name of the first bad field. */
export function checkWireMessage(v: unknown): WireMessage | string {
  if (!isRecord(v)) {
    return '';
  }
  const { key, arrival, id, sequence, role, content, contentLength, toolName, toolParameters, toolParametersLength, attachments, attachmentCount, createdAt, gapBefore } = v;
  if (!isStr(key, MAX_ID_CHARS)) return 'key';
  if (!isCount(arrival)) return 'arrival';
  const w: WireMessage = { key, arrival };
  if (id !== undefined) {
    if (!isStr(id, MAX_ID_CHARS)) return 'id';
    w.id = id;
  }
  if (sequence !== undefined) {
    if (typeof sequence !== 'number' || !Number.isFinite(sequence)) return 'sequence';
    w.sequence = sequence;
  }
  if (role !== undefined) {
    if (!isStr(role, MAX_SHORT_CHARS)) return 'role';
    w.role = role;
  }
  if (content !== undefined) {
    if (!isStr(content, MAX_WIRE_CONTENT_CHARS)) return 'content';
    w.content = content;
  }
  if (contentLength !== undefined) {
    if (!isCount(contentLength)) return 'contentLength';
    w.contentLength = contentLength;
  }
  if (toolName !== undefined) {
    if (!isStr(toolName, MAX_SHORT_CHARS)) return 'toolName';
    w.toolName = toolName;
  }
  if (toolParameters !== undefined) {
    if (!isStr(toolParameters, MAX_WIRE_CONTENT_CHARS)) return 'toolParameters';
    w.toolParameters = toolParameters;
  }
  if (toolParametersLength !== undefined) {
    if (!isCount(toolParametersLength)) return 'toolParametersLength';
    w.toolParametersLength = toolParametersLength;
  }
  if (attachments !== undefined) {
    if (!Array.isArray(attachments) || attachments.length > MAX_WIRE_ATTACHMENTS) return 'attachments';
    const list: string[] = [];
    for (const a of attachments as unknown[]) {
      if (!isStr(a, MAX_ATTACHMENT_CHARS)) return 'attachments';
      list.push(a);
    }
    w.attachments = list;
  }
  if (attachmentCount !== undefined) {
    if (!isCount(attachmentCount)) return 'attachmentCount';
    w.attachmentCount = attachmentCount;
  }
  if (createdAt !== undefined) {
    if (!isTimestamp(createdAt)) return 'createdAt';
    w.createdAt = createdAt;
  }
  if (gapBefore !== undefined) {
    if (!isCount(gapBefore)) return 'gapBefore';
    w.gapBefore = gapBefore;
  }
  return w;
}

/** A list of wire messages as `init` and `update` carry it: the checked copies, or why not. */
function checkWireMessages(v: unknown): WireMessage[] | string {
  if (!Array.isArray(v)) {
    return 'messages: expected an array';
  }
  if (v.length > MAX_MESSAGES_PER_POST) {
    return 'messages: too many';
  }
  const out: WireMessage[] = new Array<WireMessage>(v.length);
  for (let i = 0; i < v.length; i++) {
    const w = checkWireMessage((v as unknown[])[i]);
    if (typeof w === 'string') {
      return `messages.${i}${w ? `.${w}` : ''}: invalid`;
    }
    out[i] = w;
  }
  return out;
}

export const runHeaderSchema = z.object({
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
});
export type RunHeader = z.infer<typeof runHeaderSchema>;

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

export const PERMISSION_VALUES = ['read_only', 'allow_edits'] as const;

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
  header: runHeaderSchema,
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
  header: z.optional(runHeaderSchema),
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

export type ExtensionToWebviewMessage = InitMessage | UpdateMessage | FollowUpResultMessage | DraftMessage | SendStateMessage;

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
  z.strictObject({ type: z.literal('draftChanged'), text: str(MAX_PROMPT_CHARS) }),
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

/**
 * A message as it is posted: an `init` or `update` with more messages than fit in one post is
 * cut into several — an `init` with the newest messages (from the first unseen one, when that
 * is not too far back), then `update`s with the older ones, newest chunk first. The page files
 * each message by its order fields, so the result is the same as one big post.
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

// ------------------------------------------------------------------ links

const ALLOWED_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/** True only for absolute http/https URLs with a host, and mailto: URLs. */
export function isSafeLinkUrl(url: string): boolean {
  // Bidi and zero-width characters too: the confirmation that shows the URL must show what opens.
  // eslint-disable-next-line no-control-regex
  if (url.length > 8_192 || url !== url.trim() || /[\s\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/.test(url)) {
    return false;
  }
  if (!/^(?:https?:\/\/|mailto:)/i.test(url)) {
    return false;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (!ALLOWED_PROTOCOLS.has(parsed.protocol)) {
    return false;
  }
  if (parsed.protocol === 'mailto:') {
    return parsed.pathname.length > 0;
  }
  return parsed.hostname.length > 0;
}

/** True for http/https URLs only (attachment chips link only those). */
export function isWebUrl(url: string): boolean {
  return isSafeLinkUrl(url) && /^https?:/i.test(url);
}

// ------------------------------------------------------------------ wire helpers

/** Cuts `s` to at most `max` UTF-16 units without splitting a surrogate pair. */
export function cutText(s: string, max: number): string {
  if (s.length <= max) {
    return s;
  }
  let end = max;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) {
    end -= 1;
  }
  return s.slice(0, end);
}

/**
 * A transcript message as posted to the webview: long fields are cut (the full text stays on
 * the extension side for "open in editor", copy and export), wrong-typed fields dropped.
 */
export function toWireMessage(
  key: string,
  arrival: number,
  m: AgentMessage,
  maxChars: number = MAX_WIRE_CONTENT_CHARS,
): WireMessage {
  const w: WireMessage = { key: cutText(key, MAX_ID_CHARS), arrival };
  if (typeof m.id === 'string') {
    w.id = cutText(m.id, MAX_ID_CHARS);
  }
  if (typeof m.sequence === 'number' && Number.isFinite(m.sequence)) {
    w.sequence = m.sequence;
  }
  if (typeof m.role === 'string') {
    w.role = cutText(m.role, MAX_SHORT_CHARS);
  }
  if (typeof m.content === 'string') {
    w.content = cutText(m.content, Math.min(maxChars, MAX_WIRE_CONTENT_CHARS));
    if (w.content.length < m.content.length) {
      w.contentLength = m.content.length;
    }
  }
  if (typeof m.toolName === 'string') {
    w.toolName = cutText(m.toolName, MAX_SHORT_CHARS);
  }
  if (typeof m.toolParameters === 'string') {
    w.toolParameters = cutText(m.toolParameters, Math.min(maxChars, MAX_WIRE_CONTENT_CHARS));
    if (w.toolParameters.length < m.toolParameters.length) {
      w.toolParametersLength = m.toolParameters.length;
    }
  }
  if (Array.isArray(m.attachments)) {
    const all = m.attachments.filter((a): a is string => typeof a === 'string');
    w.attachments = all.slice(0, MAX_WIRE_ATTACHMENTS).map((a) => cutText(a, MAX_ATTACHMENT_CHARS));
    if (all.length > w.attachments.length) {
      w.attachmentCount = all.length;
    }
  }
  if (typeof m.createdAt === 'number' && Number.isFinite(m.createdAt) && Math.abs(m.createdAt) <= 8.64e15) {
    w.createdAt = m.createdAt;
  }
  return w;
}

/** The fields that decide where a message goes in the transcript. */
