/** Untrusted service text made safe to show or quote: controls dropped, cut without splitting a pair, fenced. Pure. */
// C0/C1 controls but tab and newline, zero-width and bidi controls.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** Multi-line service text made safe to show: no control characters, CRLF as LF. */
export function cleanText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(CONTROL, '');
}

/** Cuts `text` to `max` characters (not inside a surrogate pair); says whether it did. */
export function cut(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  let end = Math.max(0, max);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), cut: true };
}

/** The longest run of backticks in `text` (0 without any). */
export function longestBacktickRun(text: string): number {
  return Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
}

/** A fence (backticks) longer than any backtick run in `text`, at least three. */
export function fence(text: string): string {
  return '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
}
