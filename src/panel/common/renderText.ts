/**
 * Text hygiene for the panel's HTML (see render.ts): escaping, and making control, ANSI and
 * bidi characters harmless and visible. Pure: no DOM, no `vscode`, no node APIs.
 */

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
 * Makes text safe to show: ANSI removed, bidi controls shown as `⟦U+XXXX⟧` (so "Trojan Source"
 * reordering cannot hide what a message says), other controls U+FFFD, line separators newlines.
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
