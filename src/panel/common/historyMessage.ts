/**
 * The bounds of what crosses between the run panel and its page (in the schemas, so a hostile
 * peer cannot make the other side hold unbounded data) and one history message (`WireMessage`).
 * Tool parameters and attachments cross as bounded text so the page never parses the service's JSON.
 */
import * as z from 'zod/mini';
import type { AgentMessage, JsonValue } from '../../api/types';
import { attachmentView } from '../../run/common/transcript/parts';

export const PROTOCOL_VERSION = 1;

/** Characters of a message's content (and of its tool parameters) sent to and rendered in the webview. */
export const MAX_WIRE_CONTENT_CHARS = 20_000;
export const MAX_WIRE_ATTACHMENTS = 100;
export const MAX_ATTACHMENT_CHARS = 2_000;
export const MAX_SHORT_CHARS = 200;
export const MAX_ID_CHARS = 1_000;
/** Largest prompt the composer sends; the service's own limit is not documented. */
export const MAX_PROMPT_CHARS = 1_000_000;
export const MAX_BRANCHES = 100;
export const MAX_BRANCH_CHARS = 255;
export const MAX_COPY_CHARS = 5_000_000;
export const MAX_URL_CHARS = 8_192;
export const MAX_STRING_CHARS = 2_000;
export const MAX_MESSAGES_PER_POST = 20_000;
/**
 * Newest messages an `init` of a long run carries, the rest following in `update`s of
 * `HISTORY_CHUNK`: the page paints the end without validating 50,000 messages first, and one
 * post stays far below the cap.
 */
export const INIT_MESSAGES = 1_000;
export const HISTORY_CHUNK = 2_000;
/** Messages kept before the first unseen one when `init` is cut, so its divider has context. */
export const UNSEEN_CONTEXT = 20;

export const str = (max: number) => z.string().check(z.maxLength(max));
export const optStr = (max: number) => z.optional(str(max));
export const timestamp = z.optional(z.number().check(z.minimum(-8.64e15), z.maximum(8.64e15)));
export const count = z.int().check(z.minimum(0));

/**
 * An attachment as the page gets it: a string as sent, or what an attachment object shows —
 * its label (compact JSON when nothing known was found: `raw`), link, type and title.
 */
export const wireAttachmentSchema = z.union([
  str(MAX_ATTACHMENT_CHARS),
  z.object({
    label: str(MAX_ATTACHMENT_CHARS),
    url: optStr(MAX_ATTACHMENT_CHARS),
    type: optStr(MAX_SHORT_CHARS),
    title: optStr(MAX_SHORT_CHARS),
    raw: z.optional(z.literal(true)),
  }),
]);
export type WireAttachment = z.infer<typeof wireAttachmentSchema>;

/** One history item as the webview gets it: the service's fields (capped) plus its transcript key. */
export const wireMessageSchema = z.object({
  key: str(MAX_ID_CHARS),
  /** Order of first arrival in the extension's transcript; the last tie-breaker for ordering. */
  arrival: count,
  id: optStr(MAX_ID_CHARS),
  sequence: z.optional(z.number()),
  /**
   * Where it is ordered, when not by its own `sequence`: a sequence no run could reach (see
   * api/sequence.ts) is shown as sent but placed at the newest believed one when it arrived.
   */
  orderSequence: z.optional(z.number()),
  role: optStr(MAX_SHORT_CHARS),
  content: optStr(MAX_WIRE_CONTENT_CHARS),
  /** Full length of `content` when it was cut to fit; absent when `content` is complete. */
  contentLength: z.optional(count),
  toolName: optStr(MAX_SHORT_CHARS),
  /** As sent when the service sent a string; structured parameters as indented JSON. */
  toolParameters: optStr(MAX_WIRE_CONTENT_CHARS),
  toolParametersLength: z.optional(count),
  /** `toolParameters` is the service's JSON value, indented (not a string it sent). */
  toolParametersJson: z.optional(z.literal(true)),
  attachments: z.optional(z.array(wireAttachmentSchema).check(z.maxLength(MAX_WIRE_ATTACHMENTS))),
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

/** One wire attachment, checked like `wireAttachmentSchema` (unknown fields dropped), or undefined. */
function checkAttachment(v: unknown): WireAttachment | undefined {
  if (typeof v === 'string') {
    return v.length <= MAX_ATTACHMENT_CHARS ? v : undefined;
  }
  if (!isRecord(v) || !isStr(v.label, MAX_ATTACHMENT_CHARS)) return undefined;
  const { label, url, type, title, raw } = v;
  const a: WireAttachment = { label };
  if (url !== undefined) {
    if (!isStr(url, MAX_ATTACHMENT_CHARS)) return undefined;
    a.url = url;
  }
  if (type !== undefined) {
    if (!isStr(type, MAX_SHORT_CHARS)) return undefined;
    a.type = type;
  }
  if (title !== undefined) {
    if (!isStr(title, MAX_SHORT_CHARS)) return undefined;
    a.title = title;
  }
  if (raw !== undefined) {
    if (raw !== true) return undefined;
    a.raw = raw;
  }
  return a;
}

/** One wire message, checked like `wireMessageSchema` (unknown fields dropped): the message, or the name of the first bad field. */
export function checkWireMessage(v: unknown): WireMessage | string {
  if (!isRecord(v)) {
    return '';
  }
  const { key, arrival, id, sequence, orderSequence, role, content, contentLength, toolName, toolParameters, toolParametersLength, toolParametersJson, attachments, attachmentCount, createdAt, gapBefore } = v;
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
  if (orderSequence !== undefined) {
    if (typeof orderSequence !== 'number' || !Number.isFinite(orderSequence)) return 'orderSequence';
    w.orderSequence = orderSequence;
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
  if (toolParametersJson !== undefined) {
    if (toolParametersJson !== true) return 'toolParametersJson';
    w.toolParametersJson = toolParametersJson;
  }
  if (attachments !== undefined) {
    if (!Array.isArray(attachments) || attachments.length > MAX_WIRE_ATTACHMENTS) return 'attachments';
    const list: WireAttachment[] = [];
    for (const item of attachments as unknown[]) {
      const a = checkAttachment(item);
      if (a === undefined) return 'attachments';
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
export function checkWireMessages(v: unknown): WireMessage[] | string {
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

/** An attachment for the page: a string cut to the limit, an object as its chip. */
function toWireAttachment(a: JsonValue): WireAttachment {
  if (typeof a === 'string') {
    return cutText(a, MAX_ATTACHMENT_CHARS);
  }
  const v = attachmentView(a);
  const w: WireAttachment = { label: cutText(v.label, MAX_ATTACHMENT_CHARS) };
  // A link cut short would open something else: a longer one is not offered.
  if (v.url !== undefined && v.url.length <= MAX_ATTACHMENT_CHARS) w.url = v.url;
  if (v.type !== undefined) w.type = cutText(v.type, MAX_SHORT_CHARS);
  if (v.title !== undefined) w.title = cutText(v.title, MAX_SHORT_CHARS);
  if (v.raw) w.raw = true;
  return w;
}

/**
 * A transcript message as posted: long fields cut (the full text stays on the extension side for
 * open, copy and export), tool parameters and attachments as text, nothing of theirs dropped.
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
  if (m.toolParameters !== undefined && m.toolParameters !== null) {
    const json = typeof m.toolParameters !== 'string';
    const text = typeof m.toolParameters === 'string' ? m.toolParameters : JSON.stringify(m.toolParameters, null, 2);
    w.toolParameters = cutText(text, Math.min(maxChars, MAX_WIRE_CONTENT_CHARS));
    if (w.toolParameters.length < text.length) {
      w.toolParametersLength = text.length;
    }
    if (json) {
      w.toolParametersJson = true;
    }
  }
  if (Array.isArray(m.attachments)) {
    const all = m.attachments.filter((a) => a !== null && a !== undefined);
    w.attachments = all.slice(0, MAX_WIRE_ATTACHMENTS).map(toWireAttachment);
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
