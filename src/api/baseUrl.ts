// The service's base URL: its one spelling, and whether it is sent in the clear.
import { ApiError } from './errors';

/** The path every base URL must end with. */
export const BASE_PATH_SUFFIX = '/api/public/v1';

/** Shown to people in messages about a wrong base URL. */
export const BASE_URL_EXAMPLE = 'https://host.example.com/api/public/v1';

function invalid(detail: string): ApiError {
  return new ApiError({
    kind: 'invalid_base_url',
    message: `${detail} Expected a URL like ${BASE_URL_EXAMPLE}.`,
    mayHaveReachedServer: false,
  });
}

/**
 * The base URL in one spelling (host lower-cased, default port and trailing slash dropped), as the
 * connection and its token are keyed by it; `invalid_base_url` for credentials, a query or a fragment.
 */
export function normalizeBaseUrl(input: string): string {
  const trimmed = typeof input === 'string' ? input.trim() : '';
  if (trimmed === '') throw invalid('The service base URL is not set.');
  if (/\s/.test(trimmed)) throw invalid('The service base URL contains spaces.');
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw invalid('The service base URL is not a valid URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalid(`The service base URL must start with https:// or http://, not ${url.protocol}//.`);
  }
  if (url.username !== '' || url.password !== '') {
    throw invalid('The service base URL must not contain a user name or password; the API token is set separately.');
  }
  // `new URL('https://h/p?')` drops an empty query, so look at the text as well.
  if (url.search !== '' || url.hash !== '' || trimmed.includes('?') || trimmed.includes('#')) {
    throw invalid('The service base URL must not contain a query (?…) or fragment (#…).');
  }
  if (url.hostname === '') throw invalid('The service base URL has no host.');
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith(BASE_PATH_SUFFIX)) {
    throw invalid(`The service base URL must end with ${BASE_PATH_SUFFIX}.`);
  }
  return `${url.origin}${path}`;
}

function toUrl(url: string | URL): URL | undefined {
  if (url instanceof URL) return url;
  try {
    return new URL(url.trim());
  } catch {
    return undefined;
  }
}

/** True for `localhost`, `*.localhost`, 127.0.0.0/8, `::1` and IPv4-mapped loopback addresses. */
export function isLoopbackHost(url: string | URL): boolean {
  const parsed = toUrl(url);
  if (!parsed) return false;
  let host = parsed.hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (/^127(\.\d{1,3}){3}$/.test(host)) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  // The URL parser writes IPv4-mapped addresses in hex: ::ffff:7f00:1 is 127.0.0.1.
  if (/^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(host)) return true;
  return /^::ffff:127(\.\d{1,3}){3}$/.test(host);
}

/** True when the URL is plain `http:` to a host other than this machine: the token would travel unencrypted. */
export function isInsecureRemote(url: string | URL): boolean {
  const parsed = toUrl(url);
  if (!parsed) return false;
  return parsed.protocol === 'http:' && !isLoopbackHost(parsed);
}
