/**
 * How a message's tool parameters and attachments are shown, whatever shape the service sent (strings in
 * the reference, undocumented objects deployed): nothing is dropped, the unknown shows as compact JSON.
 */
import type { JsonValue } from '../../../api/types';

export interface ToolParametersView {
  /** What to show: a string as sent, anything else as JSON indented by two spaces. */
  readonly text: string;
  /** Whether `text` is JSON (a structured value, or a string that parses as an object or list). */
  readonly json: boolean;
}

/** Tool parameters as text. A string holding a JSON object or list is indented too. */
export function toolParametersView(v: JsonValue): ToolParametersView {
  if (typeof v === 'string') {
    const trimmed = v.trim();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        const parsed: unknown = JSON.parse(trimmed);
        if (parsed !== null && typeof parsed === 'object') return { text: JSON.stringify(parsed, null, 2), json: true };
      } catch {
        // Shown as sent.
      }
    }
    return { text: v, json: false };
  }
  return { text: JSON.stringify(v, null, 2), json: true };
}

/** Tool parameters on one line (the chat, the read tool): compact JSON or the string as sent. */
export function toolParametersLine(v: JsonValue): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export interface AttachmentView {
  /** What the chip says: the attachment's name, title or identifier, or compact JSON. */
  readonly label: string;
  /** A link the attachment carries (not checked here: callers decide what they open). */
  readonly url?: string;
  /** Its type (`file`, `linear_issue`, a MIME type...), as sent. */
  readonly type?: string;
  /** A title beside the label (an issue's title when the label is its identifier). */
  readonly title?: string;
  /** The label is compact JSON: nothing known was found in the attachment. */
  readonly raw?: true;
}

const LABEL_KEYS = ['name', 'fileName', 'filename', 'identifier', 'title', 'displayName', 'label', 'path', 'key', 'id'];
const URL_KEYS = ['url', 'href', 'link', 'webUrl', 'htmlUrl', 'downloadUrl', 'uri'];
const TYPE_KEYS = ['type', 'kind', 'mimeType', 'contentType', 'mediaType'];

function firstString(o: { [key: string]: JsonValue }, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const v = o[key];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return undefined;
}

/** One attachment as a chip. */
export function attachmentView(a: JsonValue): AttachmentView {
  if (typeof a === 'string') return { label: a };
  if (a === null || typeof a !== 'object' || Array.isArray(a)) return { label: JSON.stringify(a), raw: true };
  const url = firstString(a, URL_KEYS);
  const type = firstString(a, TYPE_KEYS);
  const label = firstString(a, LABEL_KEYS) ?? url;
  if (label === undefined) return { label: JSON.stringify(a), raw: true, ...(type !== undefined ? { type } : {}) };
  const title = firstString(a, ['title']);
  return {
    label,
    ...(url !== undefined ? { url } : {}),
    ...(type !== undefined ? { type } : {}),
    ...(title !== undefined && title !== label ? { title } : {}),
  };
}

/** One attachment on one line of text: label, title, type and link, as far as known. */
export function attachmentLine(a: JsonValue): string {
  const v = attachmentView(a);
  const parts = [v.label];
  if (v.title !== undefined) parts.push(`— ${v.title}`);
  if (v.type !== undefined) parts.push(`(${v.type})`);
  if (v.url !== undefined && v.url !== v.label) parts.push(`<${v.url}>`);
  return parts.join(' ');
}
