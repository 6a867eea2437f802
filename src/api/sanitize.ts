/**
 * Text hygiene for anything that ends up in an error message or a log line: server-provided
 * text is untrusted (control characters, bidi overrides, unbounded length) and the token must
 * never appear, even when the server echoes it back.
 */

/** Longest server-provided text kept in a message. */
export const MAX_SERVER_TEXT = 200;

/** Server text is cut to this before any other processing, so a huge body costs little. */
const MAX_RAW_TEXT = 4096;

/** A run of at least this many consecutive characters of a secret is treated as the secret. */
const MIN_SECRET_FRAGMENT = 12;

const REDACTED = '[redacted]';

// C0/C1 controls, DEL, zero-width and bidi controls (which can make text read differently
// than it is), line/paragraph separators, BOM.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/**
 * Redacts each secret ignoring case (a host name echoes it lower-cased), and any run of
 * {@link MIN_SECRET_FRAGMENT}+ characters of one (an echo that cut the token must not leak most of it).
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    out = redactOne(out, secret.toLowerCase());
  }
  return out;
}

function redactOne(text: string, secret: string): string {
  // Case-insensitive matching needs positions that mean the same in both spellings; the rare
  // text whose lower-case form has another length is redacted in lower case.
  const lower = text.toLowerCase();
  const source = lower.length === text.length ? text : lower;
  const k = Math.min(MIN_SECRET_FRAGMENT, secret.length);
  const seeds = new Set<string>();
  for (let i = 0; i + k <= secret.length; i++) seeds.add(secret.slice(i, i + k));
  let out = '';
  let i = 0;
  while (i < lower.length) {
    // Secrets shorter than a fragment have one seed, themselves: they are only redacted whole.
    if (i + k <= lower.length && seeds.has(lower.slice(i, i + k))) {
      let end = i + k;
      while (end < lower.length && secret.includes(lower.slice(i, end + 1))) end++;
      out += REDACTED;
      i = end;
    } else {
      out += source[i];
      i++;
    }
  }
  return out;
}

/** One line: control characters removed, whitespace collapsed, capped at `max` characters. */
export function oneLine(text: string, max = MAX_SERVER_TEXT): string {
  const flat = text.replace(CONTROL_CHARS, ' ').replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  // Do not cut a surrogate pair in half.
  let cut = max - 1;
  const code = flat.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${flat.slice(0, cut)}…`;
}

/**
 * Makes untrusted server text safe to show: bounded, one line, no control characters, no
 * secret. Secrets are redacted both before and after control characters are removed, so a
 * token split by an injected control character is still caught.
 */
export function sanitizeServerText(text: string, secrets: readonly string[], max = MAX_SERVER_TEXT): string {
  const raw = text.length > MAX_RAW_TEXT ? text.slice(0, MAX_RAW_TEXT) : text;
  const pass1 = redactSecrets(raw, secrets);
  // Line breaks and tabs become spaces; other invisible characters are removed outright.
  const stripped = pass1.replace(/[\t\n\v\f\r\u0085\u2028\u2029]/g, ' ').replace(CONTROL_CHARS, '');
  const pass2 = redactSecrets(stripped, secrets);
  return oneLine(pass2, max);
}

/** `scheme://host[:port]/path` of a URL without credentials, query or fragment; for messages. */
export function displayUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
