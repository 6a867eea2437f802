// The network under the client (proxy, trusted CAs, one bounded exchange). undici bypasses the editor's
// patched `http`, so the editor's network settings are applied here. Through a proxy every request,
// http:// too, goes in a CONNECT tunnel so the proxy never sees the bearer token (and
// `http.proxyAuthorization` goes on the CONNECT only).
import * as fs from 'node:fs';
import * as tls from 'node:tls';
import type { Dispatcher } from 'undici';
import { Agent, ProxyAgent } from './undici';
import type { ProxySettings, Timeouts } from './contract';
import { BodyDeadlineError, BodyTooLargeError } from './describe';
import { ApiError } from './errors';

/** Responses larger than this are refused (`invalid_response`). The schema document is the largest expected. */
export const MAX_RESPONSE_BYTES = 20 * 1024 * 1024;

type Env = Readonly<Record<string, string | undefined>>;

/** Where the operating system keeps its CA bundle (Debian/Ubuntu, Fedora/RHEL, openSUSE, Alpine/macOS). */
export const OS_CA_FILES: readonly string[] = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/ca-bundle.pem',
  '/etc/ssl/cert.pem',
];

/** Which way requests to one origin go. */
export type Route =
  | { kind: 'direct'; /** Why a configured proxy is skipped: the matching noProxy entry. */ bypassedBy?: string }
  | { kind: 'proxy'; uri: string; /** The setting or variable it came from, named in messages. */ source: string };

function envVar(env: Env, name: string): string | undefined {
  for (const key of [name.toLowerCase(), name.toUpperCase()]) {
    const v = env[key]?.trim();
    if (v) return v;
  }
  return undefined;
}

/** The proxy candidate for `target`, before noProxy: http.proxy, then the environment. */
function proxyCandidate(target: URL, settings: ProxySettings | undefined, env: Env): { uri: string; source: string } | undefined {
  const explicit = settings?.url?.trim();
  if (explicit) return { uri: explicit, source: 'http.proxy' };
  const names = target.protocol === 'https:' ? ['HTTPS_PROXY', 'HTTP_PROXY'] : ['HTTP_PROXY'];
  for (const name of names) {
    const uri = envVar(env, name);
    if (uri) return { uri, source: name };
  }
  return undefined;
}

/**
 * The noProxy entry (from `http.noProxy` or NO_PROXY) that covers `target`, if any. Entries, as
 * curl and the editor read them: `*` (everything), a host or IP (itself and, for names, its
 * subdomains), `.example.com` / `*.example.com` (subdomains), each optionally `:port`.
 */
export function noProxyMatch(target: URL, entries: readonly string[]): string | undefined {
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return raw.trim();
    // A bare IPv6 address has colons of its own and no port.
    const bareV6 = (entry.match(/:/g) ?? []).length > 1 && !entry.startsWith('[');
    const m = bareV6 ? undefined : /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry);
    if (!bareV6 && !m) continue;
    const name = (m?.[1] ?? entry).replace(/^\[|\]$/g, '').replace(/^\*?\./, '');
    if (m?.[2] !== undefined && m[2] !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return raw.trim();
  }
  return undefined;
}

function splitList(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,]+/).filter((s) => s !== '');
}

/** Direct or through which proxy a request to `target` goes, by the editor's rules. */
export function chooseRoute(target: URL, settings: ProxySettings | undefined, env: Env): Route {
  const candidate = proxyCandidate(target, settings, env);
  if (!candidate) return { kind: 'direct' };
  const bypassedBy = noProxyMatch(target, [...(settings?.noProxy ?? []), ...splitList(envVar(env, 'NO_PROXY'))]);
  if (bypassedBy !== undefined) return { kind: 'direct', bypassedBy };
  return { kind: 'proxy', ...candidate };
}

function readPemFile(file: string | undefined): string[] {
  if (!file) return [];
  try {
    const text = fs.readFileSync(file, 'utf8');
    return text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  } catch {
    return []; // An unreadable store is the same as an empty one: Node's own roots still apply.
  }
}

/**
 * The CAs to trust, or undefined for Node's defaults. NODE_EXTRA_CA_CERTS is added back to the OS
 * bundle (SSL_CERT_FILE first, as OpenSSL reads it) because an explicit `ca` would drop it.
 */
export function trustedCertificates(settings: ProxySettings | undefined, env: Env, exists: (f: string) => boolean = fs.existsSync): string[] | undefined {
  if (settings?.systemCertificates === false) return undefined;
  const osFile = env.SSL_CERT_FILE?.trim() || OS_CA_FILES.find((f) => exists(f));
  const os = readPemFile(osFile);
  const extra = readPemFile(env.NODE_EXTRA_CA_CERTS?.trim());
  if (os.length === 0 && extra.length === 0) return undefined;
  return [...new Set([...tls.rootCertificates, ...os, ...extra])];
}

export interface Transport {
  dispatcher: Dispatcher;
  route: Route;
  /** The one TLS context of every connection, when CAs beyond Node's defaults are trusted. */
  secureContext?: tls.SecureContext;
  /** Proxy credentials, redacted like the token. */
  secrets: string[];
}

function proxySecrets(uri: URL, authorization: string | undefined): string[] {
  const fromUrl = [uri.password, safeDecode(uri.password), uri.username && uri.password ? `${uri.username}:${uri.password}` : ''];
  const fromHeader = authorization ? [authorization, authorization.replace(/^\S+\s+/, '')] : [];
  return [...fromUrl, ...fromHeader].filter((s) => s.length >= 4);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function parseProxyUri(route: { uri: string; source: string }): URL {
  try {
    return new URL(route.uri.includes('://') ? route.uri : `http://${route.uri}`);
  } catch {
    throw new ApiError({
      kind: 'invalid_input',
      message: `The proxy setting (${route.source}) is not a valid URL, e.g. http://proxy.example.com:3128.`,
      mayHaveReachedServer: false,
    });
  }
}

/** The dispatcher for requests to `base`, on the route and trust the settings give. */
export function createTransport(base: URL, settings: ProxySettings | undefined, timeouts: Timeouts, env: Env): Transport {
  const common = {
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
    maxResponseSize: MAX_RESPONSE_BYTES,
  };
  const ca = trustedCertificates(settings, env);
  // One context for every connection: built from ~300 certificates it costs ~45 ms of CPU,
  // which passing `ca` alone would pay again on each new TLS connection.
  const secureContext = ca ? tls.createSecureContext({ ca }) : undefined;
  const tlsOptions = { timeout: timeouts.connectMs, rejectUnauthorized: settings?.strictSSL !== false, ...(secureContext ? { secureContext } : {}) };
  const route = chooseRoute(base, settings, env);
  if (route.kind === 'direct') {
    return { dispatcher: new Agent({ ...common, connect: { ...common.connect, ...tlsOptions } }), route, secureContext, secrets: [] };
  }
  const uri = parseProxyUri(route);
  const authorization = settings?.authorization?.trim() || undefined;
  if (authorization !== undefined && /[\r\n]/.test(authorization)) {
    throw new ApiError({ kind: 'invalid_input', message: 'The proxy authorization setting (http.proxyAuthorization) contains a line break.', mayHaveReachedServer: false });
  }
  const secrets = proxySecrets(uri, authorization);
  if (authorization !== undefined) {
    // http.proxyAuthorization wins over credentials in the proxy URL, as in the editor.
    uri.username = '';
    uri.password = '';
  }
  const dispatcher = new ProxyAgent({
    ...common,
    uri: uri.href,
    ...(authorization !== undefined ? { token: authorization } : {}),
    proxyTunnel: true,
    requestTls: tlsOptions,
    proxyTls: tlsOptions,
  });
  return { dispatcher, route, secureContext, secrets };
}

export function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Whether one request left the machine. A failure before undici wrote it (a TLS handshake
 * refused, a cancel or a closed client while it waited for its connection) cannot have reached
 * the service; only one after it may have, and a POST then must not be sent again on its own.
 */
export interface WriteWatch {
  /** undici handed the request line, headers and body to the socket. Stays true once set. */
  written: boolean;
  /** The request's handler could be watched; while false, `written` says nothing. */
  watched: boolean;
}

export function newWriteWatch(): WriteWatch {
  return { written: false, watched: false };
}

/** True: written; false: certainly not written; undefined: not known (to be taken as written). */
export function wasWritten(watch: WriteWatch): boolean | undefined {
  if (watch.written) return true;
  return watch.watched ? false : undefined;
}

/**
 * `handler`, also telling `watch` once undici wrote the request (whether it may have arrived).
 * Only old-shape handlers get `onRequestSent`/`onBodySent`; an interceptor's `onRequestStart` comes
 * before the write, even for a request cancelled then, so the handler is wrapped here instead.
 */
function watchWrites(handler: Dispatcher.DispatchHandler, watch: WriteWatch): Dispatcher.DispatchHandler {
  // A handler of the new shape never hears of the write: left unwatched, it counts as written.
  if (typeof handler.onRequestStart === 'function') return handler;
  watch.watched = true;
  return new Proxy(handler, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (key === 'onRequestSent' || key === 'onBodySent') {
        return (...args: unknown[]): unknown => {
          watch.written = true;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).apply(target, args) : undefined;
        };
      }
      // undici's handlers keep private state: their methods must run on the handler itself.
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** `dispatcher` for one request: the same pools and connections, with the request's handler watched. */
function watchedDispatcher(dispatcher: Dispatcher, watch: WriteWatch): Dispatcher {
  const dispatch = (opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean =>
    dispatcher.dispatch(opts, watchWrites(handler, watch));
  // Only `request` is called on it, and it calls `this.dispatch`; the rest is the dispatcher's own.
  return Object.create(dispatcher, { dispatch: { value: dispatch } }) as Dispatcher;
}

/**
 * One request on the transport; rejects with undici's own errors (the client classifies them).
 * `watch` learns whether the request was written before it failed.
 */
export function send(
  transport: Transport, url: URL,
  init: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; headers: Record<string, string>; body?: string; signal?: AbortSignal },
  timeouts: Timeouts,
  watch: WriteWatch = newWriteWatch(),
): Promise<Dispatcher.ResponseData> {
  return watchedDispatcher(transport.dispatcher, watch).request({
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: init.method,
    headers: init.headers,
    body: init.body,
    signal: init.signal,
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
  });
}

/** Reads the whole body under a size cap and a whole-body deadline. */
export async function readBody(body: Dispatcher.ResponseData['body'], contentLength: string | undefined, deadlineMs: number): Promise<Buffer> {
  const declared = contentLength !== undefined && /^\d+$/.test(contentLength) ? Number(contentLength) : undefined;
  if (declared !== undefined && declared > MAX_RESPONSE_BYTES) {
    body.destroy();
    throw new BodyTooLargeError(MAX_RESPONSE_BYTES);
  }
  // undici's bodyTimeout is an idle timeout; this bounds a body that trickles forever.
  const timer = setTimeout(() => body.destroy(new BodyDeadlineError()), deadlineMs);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      size += buf.length;
      if (size > MAX_RESPONSE_BYTES) {
        body.destroy();
        throw new BodyTooLargeError(MAX_RESPONSE_BYTES);
      }
      chunks.push(buf);
    }
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks, size);
}
