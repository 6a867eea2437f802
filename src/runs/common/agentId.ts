/**
 * Agent IDs are opaque; this only rules out what certainly is not one (spaces, slashes,
 * URLs pasted whole), so a typo fails here instead of as a confusing 404.
 */
const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{2,199}$/;

export function isPlausibleAgentId(value: string): boolean {
  return AGENT_ID.test(value);
}

/**
 * Accepts what people paste: the bare ID, or an agent URL / deep link carrying it.
 * Returns the ID or undefined.
 */
export function extractAgentId(input: string): string | undefined {
  const v = input.trim();
  if (isPlausibleAgentId(v)) {
    return v;
  }
  try {
    const url = new URL(v);
    const fromQuery = url.searchParams.get('id');
    if (fromQuery && isPlausibleAgentId(fromQuery)) {
      return fromQuery;
    }
    const m = /\/agents\/([^/?#]+)/.exec(url.pathname);
    if (m) {
      const id = decodeURIComponent(m[1]);
      return isPlausibleAgentId(id) ? id : undefined;
    }
  } catch {
    // Not a URL either.
  }
  return undefined;
}
