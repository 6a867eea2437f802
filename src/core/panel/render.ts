/**
 * Pure HTML rendering of run content, shared by the webview app and the node tests. No DOM,
 * no `vscode`, no node APIs: only strings in, strings out.
 *
 * Everything that comes from the service is hostile until escaped. The defences here:
 * - Markdown is rendered with raw HTML off, and only http/https/mailto links survive
 *   `validateLink` (inline links, reference definitions, autolinks and linkify alike).
 * - Links and images become inert `<a data-href>` elements without `href`: the webview's
 *   click handler turns them into an `openLink` message, so nothing navigates from inside
 *   the webview and VS Code's own link handler never sees them. Images are never loaded.
 * - No `style` attribute is ever emitted (table alignment becomes a class).
 * - Bidi overrides/isolates are made visible (`⟦U+202E⟧`), ANSI escapes removed, other
 *   control characters replaced; free text sits in `dir="auto"` blocks or `<bdi>`.
 * - Long fields are cut before Markdown parsing, so a 1 MB line costs the same as 20 KB.
 * The webview additionally runs the result through DOMPurify with a strict allow-list.
 */
import MarkdownIt from 'markdown-it';
import { format, MAX_WIRE_CONTENT_CHARS, cutText, isSafeLinkUrl, isWebUrl, type WebviewStrings } from './protocol';

// ------------------------------------------------------------------ text hygiene

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

// eslint-disable-next-line no-control-regex
const ANSI_SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const OTHER_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
const LINE_SEPARATORS = /[\u2028\u2029]/g;

/**
 * Makes text safe to show: ANSI escape sequences removed, bidi embedding/override/isolate
 * characters turned into a visible `⟦U+XXXX⟧` marker (so "Trojan Source" reordering cannot
 * hide what a message says), other C0/C1 controls replaced by U+FFFD, and Unicode line
 * separators turned into newlines. Tabs and newlines are kept.
 */
export function neutralizeText(s: string): string {
  return s
    .replace(ANSI_SEQUENCE, '')
    .replace(BIDI_CONTROLS, (c) => `⟦U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟧`)
    .replace(OTHER_CONTROLS, '\ufffd')
    .replace(LINE_SEPARATORS, '\n');
}

/** Escaped, neutralized text for an HTML text node or attribute. */
export function safeText(s: string): string {
  return escapeHtml(neutralizeText(s));
}

// ------------------------------------------------------------------ links

export { isSafeLinkUrl, isWebUrl };

function linkOpen(url: string): string {
  const u = escapeHtml(url);
  return `<a class="md-link" role="link" tabindex="0" data-href="${u}" title="${u}">`;
}

// ------------------------------------------------------------------ markdown

interface MdEnv {
  imageLabel: string;
  /** For each open link: whether it was rendered as an `<a>` (true) or a `<span>` (false). */
  linkStack: boolean[];
}

function createMarkdown(): MarkdownIt {
  const md = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false, xhtmlOut: false });
  // Deeply nested lists/quotes cost recursion depth; 20 levels is plenty for messages.
  (md.options as MarkdownIt.Options & { maxNesting?: number }).maxNesting = 20;
  md.validateLink = isSafeLinkUrl;

  const rules = md.renderer.rules;
  rules.link_open = (tokens, idx, _options, env: MdEnv) => {
    const href = tokens[idx]?.attrGet('href') ?? '';
    const ok = isSafeLinkUrl(href);
    env.linkStack.push(ok);
    return ok ? linkOpen(href) : '<span class="md-link-invalid">';
  };
  rules.link_close = (_tokens, _idx, _options, env: MdEnv) => (env.linkStack.pop() ? '</a>' : '</span>');
  rules.image = (tokens, idx, options, env: MdEnv, self) => {
    const token = tokens[idx];
    const src = token?.attrGet('src') ?? '';
    const alt = token?.children ? self.renderInlineAsText(token.children, options, env) : '';
    const label = escapeHtml(format(env.imageLabel, alt || src));
    return isSafeLinkUrl(src) ? `${linkOpen(src)}${label}</a>` : `<span class="md-image-invalid">${label}</span>`;
  };
  // Table alignment arrives as a `style` attribute; no style attribute ever leaves this module.
  for (const name of ['th_open', 'td_open']) {
    rules[name] = (tokens, idx, options, _env, self) => {
      const token = tokens[idx];
      if (token?.attrs) {
        const style = token.attrGet('style') ?? '';
        token.attrs = token.attrs.filter(([k]) => k !== 'style');
        const m = /text-align:(left|center|right)/.exec(style);
        if (m) {
          token.attrJoin('class', `align-${m[1]}`);
        }
      }
      return self.renderToken(tokens, idx, options);
    };
  }
  return md;
}

let markdown: MarkdownIt | undefined;

/**
 * Markdown to HTML with raw HTML disabled and only http/https/mailto links. The input should
 * already be cut to a sane length (renderMessage does); this function neutralizes control
 * and bidi characters itself.
 */
export function renderMarkdown(text: string, opts: { imageLabel?: string } = {}): string {
  markdown ??= createMarkdown();
  const env: MdEnv = { imageLabel: opts.imageLabel ?? '{0}', linkStack: [] };
  return markdown.render(neutralizeText(text), env);
}

// ------------------------------------------------------------------ time and numbers

const formatterCache = new Map<string, Intl.RelativeTimeFormat | Intl.DateTimeFormat | Intl.NumberFormat>();

function cached<T extends Intl.RelativeTimeFormat | Intl.DateTimeFormat | Intl.NumberFormat>(key: string, make: () => T): T {
  let f = formatterCache.get(key);
  if (!f) {
    f = make();
    formatterCache.set(key, f);
  }
  return f as T;
}

/** A locale Intl accepts, falling back to English for a bad tag. */
export function safeLocale(locale: string): string {
  try {
    return Intl.getCanonicalLocales(locale)[0] ?? 'en';
  } catch {
    return 'en';
  }
}

export function isValidTimestamp(ts: unknown): ts is number {
  return typeof ts === 'number' && Number.isFinite(ts) && Math.abs(ts) <= 8.64e15;
}

export function formatExactTime(ts: number, locale: string): string {
  const loc = safeLocale(locale);
  return cached(`dt:${loc}`, () => new Intl.DateTimeFormat(loc, { dateStyle: 'medium', timeStyle: 'medium' })).format(ts);
}

/** "now", "5 minutes ago", "in 2 hours", … in the given locale. */
export function formatRelativeTime(ts: number, now: number, locale: string): string {
  const loc = safeLocale(locale);
  const rtf = cached(`rt:${loc}`, () => new Intl.RelativeTimeFormat(loc, { numeric: 'auto', style: 'long' }));
  const diff = ts - now;
  const abs = Math.abs(diff);
  const sign = diff < 0 ? -1 : 1;
  if (abs < 45_000) {
    return rtf.format(0, 'second');
  }
  if (abs < 3_600_000) {
    return rtf.format(sign * Math.max(1, Math.round(abs / 60_000)), 'minute');
  }
  if (abs < 86_400_000) {
    return rtf.format(sign * Math.round(abs / 3_600_000), 'hour');
  }
  if (abs < 30 * 86_400_000) {
    return rtf.format(sign * Math.round(abs / 86_400_000), 'day');
  }
  return cached(`d:${loc}`, () => new Intl.DateTimeFormat(loc, { dateStyle: 'medium' })).format(ts);
}

export function formatNumber(n: number, locale: string): string {
  const loc = safeLocale(locale);
  return cached(`n:${loc}`, () => new Intl.NumberFormat(loc)).format(n);
}

/** "2 h 5 min", "3 min 12 s", "45 s" with localized narrow units; at most two units. */
export function formatDuration(ms: number, locale: string): string {
  const loc = safeLocale(locale);
  const unit = (u: 'day' | 'hour' | 'minute' | 'second', v: number) =>
    cached(`u:${u}:${loc}`, () => new Intl.NumberFormat(loc, { style: 'unit', unit: u, unitDisplay: 'narrow' })).format(v);
  const total = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3_600);
  const m = Math.floor((total % 3_600) / 60);
  const s = total % 60;
  if (d > 0) {
    return h > 0 ? `${unit('day', d)} ${unit('hour', h)}` : unit('day', d);
  }
  if (h > 0) {
    return m > 0 ? `${unit('hour', h)} ${unit('minute', m)}` : unit('hour', h);
  }
  if (m > 0) {
    return s > 0 ? `${unit('minute', m)} ${unit('second', s)}` : unit('minute', m);
  }
  return unit('second', s);
}

/** `<time>` with a relative label, the exact time on hover, and `data-ts` for live refresh. */
export function renderTime(ts: number, now: number, locale: string, cls = 'time'): string {
  const iso = new Date(ts).toISOString();
  return `<time class="${cls}" datetime="${iso}" data-ts="${ts}" title="${escapeHtml(formatExactTime(ts, locale))}">${escapeHtml(
    formatRelativeTime(ts, now, locale),
  )}</time>`;
}

// ------------------------------------------------------------------ messages

const KNOWN_ROLES: Record<string, 'user' | 'assistant' | 'tool' | 'system'> = {
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  agent: 'assistant',
  model: 'assistant',
  ai: 'assistant',
  tool: 'tool',
  tool_call: 'tool',
  tool_result: 'tool',
  function: 'tool',
  system: 'system',
};

export type RoleClass = 'user' | 'assistant' | 'tool' | 'system' | 'other';

export function roleClass(role: string | undefined): RoleClass {
  return (role !== undefined && KNOWN_ROLES[role.toLowerCase()]) || 'other';
}

/** The label for a role; an unknown role is shown as sent (neutralized, escaped by the caller). */
export function roleLabel(role: string | undefined, strings: WebviewStrings): string {
  switch (roleClass(role)) {
    case 'user':
      return strings.roleUser;
    case 'assistant':
      return strings.roleAssistant;
    case 'tool':
      return strings.roleTool;
    case 'system':
      return strings.roleSystem;
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

/** The fields renderMessage reads: an AgentMessage plus the wire extras. */
export interface RenderableMessage {
  key?: string;
  sequence?: number;
  role?: string;
  content?: string;
  contentLength?: number;
  toolName?: string;
  toolParameters?: string;
  toolParametersLength?: number;
  attachments?: string[];
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

function button(action: string, label: string, cls = 'link-button'): string {
  return `<button type="button" class="${cls}" data-action="${action}">${escapeHtml(label)}</button>`;
}

function renderAttachments(list: string[], total: number, strings: WebviewStrings, locale: string): string {
  const shown = list.slice(0, MAX_CHIPS);
  const chips = shown.map((a) => {
    const label = safeText(a.length > MAX_CHIP_CHARS ? `${cutText(a, MAX_CHIP_CHARS)}…` : a);
    return isWebUrl(a)
      ? `<li class="chip">${linkOpen(a)}<bdi>${label}</bdi></a></li>`
      : `<li class="chip"><bdi>${label}</bdi></li>`;
  });
  if (total > shown.length) {
    chips.push(`<li class="chip chip-more">+${escapeHtml(formatNumber(total - shown.length, locale))}</li>`);
  }
  return `<ul class="chips" aria-label="${escapeHtml(strings.attachments)}">${chips.join('')}</ul>`;
}

/**
 * A transcript key as an attribute value. Keys come from the service's message IDs: a NUL or
 * a control character is changed by the HTML parser, and markup in it can make the sanitiser
 * drop the attribute; either way the message would vanish from the panel. Everything outside
 * a plain set (the escape character `%` too) is written as `%xxxx`, so every key survives
 * unchanged and the mapping is one to one; `keyFromDom` reverses it.
 */
export function domKey(key: string): string {
  return key.replace(/[^A-Za-z0-9_.:-]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function keyFromDom(value: string): string {
  return value.replace(/%([0-9a-f]{4})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * The HTML of one history item: an `<article>` with role label, time, content as Markdown, a
 * collapsed tool-call block and attachment chips. All service text is escaped or rendered
 * through the restricted Markdown renderer.
 */
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

  // Content.
  const content = typeof msg.content === 'string' ? msg.content : '';
  const fullLength = Math.max(msg.contentLength ?? 0, content.length);
  const shown = cutText(content, max);
  const hasTool = typeof msg.toolName === 'string' || typeof msg.toolParameters === 'string';
  const attachments = Array.isArray(msg.attachments) ? msg.attachments.filter((a) => typeof a === 'string') : [];
  if (shown.length > 0) {
    parts.push(`<div class="msg-body md" dir="auto">${renderMarkdown(shown, { imageLabel: strings.image })}</div>`);
  } else if (!hasTool && attachments.length === 0) {
    parts.push(`<div class="msg-body msg-empty">${escapeHtml(strings.emptyMessage)}</div>`);
  }
  if (fullLength > shown.length) {
    parts.push(
      `<div class="msg-truncated">${button('open-in-editor', format(strings.showFullMessage, formatNumber(fullLength, locale)))}</div>`,
    );
  }

  // Tool call: collapsed by default.
  if (hasTool) {
    const name = typeof msg.toolName === 'string' && msg.toolName ? msg.toolName : '';
    parts.push('<details class="tool"><summary>');
    parts.push(`<span class="tool-label">${escapeHtml(strings.toolCall)}</span>`);
    if (name) {
      parts.push(` <code class="tool-name"><bdi>${safeText(cutText(name, 200))}</bdi></code>`);
    }
    parts.push('</summary><div class="tool-body">');
    if (typeof msg.toolParameters === 'string' && msg.toolParameters.length > 0) {
      const rawParams = cutText(msg.toolParameters, max);
      const paramsFull = Math.max(msg.toolParametersLength ?? 0, msg.toolParameters.length);
      const cut = paramsFull > rawParams.length;
      const pretty = cut ? { text: rawParams, json: false } : prettyToolParameters(rawParams);
      const shownParams = cutText(pretty.text, max * 2);
      parts.push(`<div class="tool-params-label">${escapeHtml(strings.toolParameters)}</div>`);
      parts.push(
        `<pre class="tool-params${pretty.json ? ' json' : ''}" dir="ltr"><code>${safeText(shownParams)}</code></pre>`,
      );
      parts.push('<div class="tool-actions">');
      parts.push(button('copy-params', strings.copyParameters));
      if (cut || shownParams.length < pretty.text.length) {
        parts.push(button('open-in-editor', format(strings.showFullMessage, formatNumber(paramsFull, locale))));
      }
      parts.push('</div>');
    } else {
      parts.push(`<div class="tool-params-none">${escapeHtml(strings.noToolParameters)}</div>`);
    }
    parts.push('</div></details>');
  }

  if (attachments.length > 0) {
    parts.push(renderAttachments(attachments, Math.max(msg.attachmentCount ?? 0, attachments.length), strings, locale));
  }

  parts.push('</article>');
  return parts.join('');
}
