// Looking for a secret in a sink: the whole token in any letter case, its URL-encoded and
// base64 forms, the secret part without the `agr_` prefix, and any 12-character piece of the
// secret part (the client redacts fragments from 12 characters on; a sink holding most of a
// token leaks it even when the rest was cut). Only `node:`-free code: used everywhere.

/** Pieces of a secret at least this long count as the secret. */
export const MIN_FRAGMENT = 12;

function variants(secret: string): { label: string; value: string }[] {
  const out = [
    { label: 'the whole token', value: secret },
    { label: 'the URL-encoded token', value: encodeURIComponent(secret) },
    { label: 'the base64 token', value: Buffer.from(secret, 'utf8').toString('base64').replace(/=+$/, '') },
  ];
  const underscore = secret.indexOf('_');
  if (underscore > 0 && underscore < secret.length - MIN_FRAGMENT) {
    out.push({ label: 'the secret part of the token', value: secret.slice(underscore + 1) });
  }
  return out;
}

/**
 * Describes where `secret` (or a telling piece of it) occurs in `text`, without repeating it;
 * undefined when it does not.
 */
export function findSecret(text: string, secret: string): string | undefined {
  const lower = text.toLowerCase();
  for (const v of variants(secret)) {
    const at = lower.indexOf(v.value.toLowerCase());
    if (at >= 0) {
      return `${v.label} at offset ${at} (${context(text, at, v.value.length)})`;
    }
  }
  const underscore = secret.indexOf('_');
  const body = (underscore > 0 ? secret.slice(underscore + 1) : secret).toLowerCase();
  for (let i = 0; i + MIN_FRAGMENT <= body.length; i++) {
    const piece = body.slice(i, i + MIN_FRAGMENT);
    const at = lower.indexOf(piece);
    if (at >= 0) {
      return `a ${MIN_FRAGMENT}-character piece of the token at offset ${at} (${context(text, at, MIN_FRAGMENT)})`;
    }
  }
  return undefined;
}

/** The text around a match with the match itself masked, to say where it was. */
function context(text: string, at: number, length: number): string {
  const before = text.slice(Math.max(0, at - 40), at).replace(/\s+/g, ' ');
  const after = text.slice(at + length, at + length + 40).replace(/\s+/g, ' ');
  return `…${before}[SECRET]${after}…`;
}
