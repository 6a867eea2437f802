/** Which links the page may offer to open: checked on both sides. */

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
