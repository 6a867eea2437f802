// Pure HTML rendering of one history message. The service's text is hostile until escaped: no raw
// HTML or `style`, only http/https/mailto links, links and images inert (a click posts `openLink`),
// bidi controls shown, long fields cut before parsing so a 1 MB line costs what 20 KB does; the page
// then runs DOMPurify.
import { format, MAX_WIRE_CONTENT_CHARS, cutText, isSafeLinkUrl, isWebUrl, type WebviewStrings, type WireAttachment } from './protocol';
import { escapeHtml, safeText } from './renderText';
import { linkOpen, renderMarkdown } from './renderMarkdown';
import { formatNumber, isValidTimestamp, renderTime } from './formatting';

export { escapeHtml, neutralizeText, safeText } from './renderText';
export { renderMarkdown } from './renderMarkdown';
export { safeLocale, isValidTimestamp, formatExactTime, formatRelativeTime, formatNumber, formatDuration, renderTime } from './formatting';
export { isSafeLinkUrl, isWebUrl };

// ------------------------------------------------------------------ messages

/** The roles the service publishes, and a few common spellings of them. */
const KNOWN_ROLES: Record<string, Exclude<RoleClass, 'other'>> = {
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  agent: 'assistant',
  model: 'assistant',
  ai: 'assistant',
  thinking: 'thinking',
  tool: 'tool',
  tool_call: 'tool',
  tool_result: 'tool',
  function: 'tool',
  system: 'system',
  error: 'error',
};

export type RoleClass = 'user' | 'assistant' | 'thinking' | 'tool' | 'system' | 'error' | 'other';

export function roleClass(role: string | undefined): RoleClass {
  return (role !== undefined && Object.prototype.hasOwnProperty.call(KNOWN_ROLES, role.toLowerCase()) && KNOWN_ROLES[role.toLowerCase()]) || 'other';
}

/** The label for a role; an unknown role is shown as sent (neutralized, escaped by the caller). */
export function roleLabel(role: string | undefined, strings: WebviewStrings): string {
  switch (roleClass(role)) {
    case 'user':
      return strings.roleUser;
    case 'assistant':
      return strings.roleAssistant;
    case 'thinking':
      return strings.roleThinking;
    case 'tool':
      return strings.roleTool;
    case 'system':
      return strings.roleSystem;
    case 'error':
      return strings.roleError;
    default:
      return role && role.trim() ? cutText(role, 64) : strings.roleUnknown;
  }
}

/** Tool parameters as display text: pretty-printed when they are a JSON object or array. */
export function prettyToolParameters(raw: string): { text: string; json: boolean } {
  const t = raw.trim();
  if ((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))) {
    try {
      const v: unknown = JSON.parse(t);
      if (v !== null && typeof v === 'object') {
        return { text: JSON.stringify(v, null, 2), json: true };
      }
    } catch {
      // Not JSON after all: shown as sent.
    }
  }
  return { text: raw, json: false };
}

/** The fields renderMessage reads: a wire message (see historyMessage.ts) without its bookkeeping. */
export interface RenderableMessage {
  key?: string;
  sequence?: number;
  role?: string;
  content?: string;
  contentLength?: number;
  toolName?: string;
  toolParameters?: string;
  toolParametersLength?: number;
  /** `toolParameters` is indented JSON already (the service sent a JSON value, not a string). */
  toolParametersJson?: boolean;
  attachments?: WireAttachment[];
  attachmentCount?: number;
  createdAt?: number;
}

export interface RenderOptions {
  strings: WebviewStrings;
  locale: string;
  now: number;
  /** Content and tool parameters longer than this are cut, with a "show full message" action. */
  maxContentChars?: number;
}

const MAX_CHIPS = 50;
const MAX_CHIP_CHARS = 300;
const MAX_CHIP_NOTE_CHARS = 120;
/** Tool parameters longer than this (lines or characters) are folded away behind their call. */
export const FOLD_PARAMETER_LINES = 12;
const FOLD_PARAMETER_CHARS = 1_500;

function button(action: string, label: string, cls = 'link-button'): string {
  return `<button type="button" class="${cls}" data-action="${action}">${escapeHtml(label)}</button>`;
}

function clip(s: string, max: number): string {
  return s.length > max ? `${cutText(s, max)}…` : s;
}

/**
 * One attachment chip: its label (compact JSON, as code, when nothing known was found), a title
 * and a type beside it. Only an http/https link is offered, opened the way Markdown links are.
 */
function renderChip(a: WireAttachment): string {
  const v = typeof a === 'string' ? { label: a } : a;
  const label = v.raw ? `<code>${safeText(clip(v.label, MAX_CHIP_CHARS))}</code>` : `<bdi>${safeText(clip(v.label, MAX_CHIP_CHARS))}</bdi>`;
  const href = v.url ?? (v.raw ? undefined : v.label);
  const linked = href !== undefined && isWebUrl(href) ? `${linkOpen(href)}${label}</a>` : label;
  const notes: string[] = [];
  if (v.title !== undefined) notes.push(`<span class="chip-title"><bdi>${safeText(clip(v.title, MAX_CHIP_NOTE_CHARS))}</bdi></span>`);
  if (v.type !== undefined) notes.push(`<span class="chip-type"><bdi>${safeText(clip(v.type, MAX_CHIP_NOTE_CHARS))}</bdi></span>`);
  // The whole of it on hover: a chip is cut to one line.
  const whole = [v.label, v.title, v.type, v.url !== undefined && v.url !== v.label ? v.url : undefined].filter((x) => x !== undefined).join(' · ');
  const tip = typeof a === 'string' ? '' : ` title="${safeText(clip(whole, MAX_CHIP_CHARS * 2))}"`;
  return `<li class="chip${v.raw ? ' chip-raw' : ''}"${tip}>${[linked, ...notes].join(' ')}</li>`;
}

function renderAttachments(list: WireAttachment[], total: number, strings: WebviewStrings, locale: string): string {
  const shown = list.slice(0, MAX_CHIPS);
  const chips = shown.map(renderChip);
  if (total > shown.length) {
    chips.push(`<li class="chip chip-more">+${escapeHtml(formatNumber(total - shown.length, locale))}</li>`);
  }
  return `<ul class="chips" aria-label="${escapeHtml(strings.attachments)}">${chips.join('')}</ul>`;
}

/**
 * A tool call: its name and parameters (indented when JSON). Short parameters are shown; long
 * ones are folded into a collapsed `<details>` (the page remembers which ones are opened).
 */
function renderTool(msg: RenderableMessage, max: number, strings: WebviewStrings, locale: string): string {
  const name = typeof msg.toolName === 'string' && msg.toolName ? msg.toolName : '';
  const head = [`<span class="tool-label">${escapeHtml(strings.toolCall)}</span>`];
  if (name) {
    head.push(` <code class="tool-name"><bdi>${safeText(cutText(name, 200))}</bdi></code>`);
  }
  const body: string[] = [];
  let fold = false;
  if (typeof msg.toolParameters === 'string' && msg.toolParameters.length > 0) {
    const rawParams = cutText(msg.toolParameters, max);
    const paramsFull = Math.max(msg.toolParametersLength ?? 0, msg.toolParameters.length);
    const cut = paramsFull > rawParams.length;
    const pretty = msg.toolParametersJson ? { text: rawParams, json: true } : cut ? { text: rawParams, json: false } : prettyToolParameters(rawParams);
    const shownParams = cutText(pretty.text, max * 2);
    const lines = shownParams.split('\n', FOLD_PARAMETER_LINES + 1).length;
    fold = cut || lines > FOLD_PARAMETER_LINES || shownParams.length > FOLD_PARAMETER_CHARS;
    body.push(`<div class="tool-params-label">${escapeHtml(strings.toolParameters)}</div>`);
    body.push(`<pre class="tool-params${pretty.json ? ' json' : ''}" dir="ltr"><code>${safeText(shownParams)}</code></pre>`);
    body.push('<div class="tool-actions">');
    body.push(button('copy-params', strings.copyParameters));
    if (cut || shownParams.length < pretty.text.length) {
      body.push(button('open-in-editor', format(strings.showFullMessage, formatNumber(paramsFull, locale))));
    }
    body.push('</div>');
  } else {
    body.push(`<div class="tool-params-none">${escapeHtml(strings.noToolParameters)}</div>`);
  }
  const inner = `<div class="tool-body">${body.join('')}</div>`;
  return fold
    ? `<details class="tool"><summary>${head.join('')}</summary>${inner}</details>`
    : `<div class="tool tool-shown"><div class="tool-head">${head.join('')}</div>${inner}</div>`;
}

/**
 * A transcript key as an attribute value. The HTML parser changes a NUL or control character and
 * markup can make the sanitiser drop the attribute (the message would vanish), so everything
 * outside a plain set, `%` too, is written `%xxxx`: one to one, `keyFromDom` reverses it.
 */
export function domKey(key: string): string {
  return key.replace(/[^A-Za-z0-9_.:-]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function keyFromDom(value: string): string {
  return value.replace(/%([0-9a-f]{4})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The HTML of one history item; all service text escaped or through the restricted Markdown renderer. */
export function renderMessage(msg: RenderableMessage, opts: RenderOptions): string {
  const { strings, locale, now } = opts;
  const max = Math.max(1, Math.min(opts.maxContentChars ?? MAX_WIRE_CONTENT_CHARS, MAX_WIRE_CONTENT_CHARS));
  const rc = roleClass(msg.role);
  const parts: string[] = [];

  const keyAttr = msg.key !== undefined ? ` data-key="${escapeHtml(domKey(msg.key))}"` : '';
  parts.push(`<article class="msg role-${rc}"${keyAttr}>`);

  // Head: role, time, sequence, actions.
  parts.push('<header class="msg-head">');
  parts.push(`<span class="msg-role"><bdi>${safeText(roleLabel(msg.role, strings))}</bdi></span>`);
  if (isValidTimestamp(msg.createdAt)) {
    parts.push(renderTime(msg.createdAt, now, locale, 'time msg-time'));
  }
  if (typeof msg.sequence === 'number' && Number.isFinite(msg.sequence)) {
    parts.push(`<span class="msg-seq">${escapeHtml(format(strings.sequence, msg.sequence))}</span>`);
  }
  parts.push(`<span class="msg-actions" role="group" aria-label="${escapeHtml(strings.messageActions)}">`);
  if (typeof msg.content === 'string' && msg.content.length > 0) {
    parts.push(button('copy-message', strings.copyMessage));
  }
  parts.push(button('open-in-editor', strings.openInEditor));
  parts.push('</span></header>');

  // Content; a model's thinking folded away (a `<details>` the reader opens).
  const content = typeof msg.content === 'string' ? msg.content : '';
  const fullLength = Math.max(msg.contentLength ?? 0, content.length);
  const shown = cutText(content, max);
  const hasTool = typeof msg.toolName === 'string' || typeof msg.toolParameters === 'string';
  const attachments = Array.isArray(msg.attachments) ? msg.attachments : [];
  if (shown.length > 0) {
    const body = `<div class="msg-body md" dir="auto">${renderMarkdown(shown, { imageLabel: strings.image })}</div>`;
    parts.push(
      rc === 'thinking'
        ? `<details class="thinking"><summary>${escapeHtml(format(strings.thinkingSummary, formatNumber(fullLength, locale)))}</summary>${body}</details>`
        : body,
    );
  } else if (!hasTool && attachments.length === 0) {
    parts.push(`<div class="msg-body msg-empty">${escapeHtml(strings.emptyMessage)}</div>`);
  }
  if (fullLength > shown.length) {
    parts.push(
      `<div class="msg-truncated">${button('open-in-editor', format(strings.showFullMessage, formatNumber(fullLength, locale)))}</div>`,
    );
  }

  if (hasTool) {
    parts.push(renderTool(msg, max, strings, locale));
  }

  if (attachments.length > 0) {
    parts.push(renderAttachments(attachments, Math.max(msg.attachmentCount ?? 0, attachments.length), strings, locale));
  }

  parts.push('</article>');
  return parts.join('');
}
