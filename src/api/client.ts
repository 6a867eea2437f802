/**
 * The HTTP client. Policy, in one place:
 * - the token goes only to the configured base URL's origin; a redirect elsewhere is refused;
 * - same-origin redirects are followed for GET only (at most {@link MAX_REDIRECTS});
 * - nothing is retried, ever: a POST is sent at most once per call, and GET retries are the
 *   poller's decision, not the client's;
 * - connect, headers and body each have a timeout, and the body a size cap;
 * - every failure is an `ApiError`; the token is in no message, cause or log entry.
 */
import { Agent, EnvHttpProxyAgent, ProxyAgent, request, type Dispatcher } from 'undici';
import { normalizeBaseUrl } from './baseUrl';
import type { AgentRunsApi, ClientOptions, GetAgentOptions, ProxySettings, RequestLogEntry, RequestOptions, Timeouts } from './contract';
import {
  BodyDeadlineError, BodyTooLargeError, httpError, transportError, type FailureContext,
} from './describe';
import { ApiError } from './errors';
import {
  parseAgent, parseAgentRun, parseFollowUpAck, parseTestGroupCreated,
} from './parse';
import { oneLine, sanitizeServerText } from './sanitize';
import { extractSchemaInfo } from './schemaInfo';
import type { Agent as AgentData, AgentRun, FollowUpAck, ServiceSchemaInfo, TestGroupCreated } from './types';
import {
  validateAgentId, validateCreateTestGroupRequest, validateFollowUpRequest, validateStartAgentRequest,
} from './validate';

export const DEFAULT_TIMEOUTS: Readonly<Timeouts> = Object.freeze({ connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000 });

/** Responses larger than this are refused (`invalid_response`). The schema document is the largest expected. */
export const MAX_RESPONSE_BYTES = 20 * 1024 * 1024;

/** Same-origin redirects followed for one GET. */
export const MAX_REDIRECTS = 3;

export const DEFAULT_USER_AGENT = 'agent-runs-vscode/0.1';

/** How long `dispose()` lets in-flight requests finish before cutting them off. */
const DISPOSE_GRACE_MS = 2_000;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

type Method = 'GET' | 'POST';

interface CallSpec {
  method: Method;
  /** Relative to the base URL, starting with `/`, already encoded. */
  path: string;
  body?: unknown;
  signal?: AbortSignal;
  userEmail?: string;
  model?: string;
}

function positive(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}

function resolveTimeouts(t: Partial<Timeouts> | undefined): Timeouts {
  return {
    connectMs: positive(t?.connectMs, DEFAULT_TIMEOUTS.connectMs),
    headersMs: positive(t?.headersMs, DEFAULT_TIMEOUTS.headersMs),
    bodyMs: positive(t?.bodyMs, DEFAULT_TIMEOUTS.bodyMs),
  };
}

function checkToken(token: unknown): string {
  const value = typeof token === 'string' ? token.trim() : '';
  if (value === '') {
    throw new ApiError({ kind: 'unauthorized', message: 'No API token is set. Set an API token.', mayHaveReachedServer: false });
  }
  // Anything outside visible ASCII would be refused by the HTTP layer or split the header.
  if (!/^[\x21-\x7e]+$/.test(value)) {
    throw new ApiError({
      kind: 'invalid_input',
      message: 'The API token contains spaces, line breaks or other characters a token cannot have. Set the token again.',
      mayHaveReachedServer: false,
    });
  }
  return value;
}

function proxyEnv(name: string): string | undefined {
  const v = process.env[name.toLowerCase()] ?? process.env[name.toUpperCase()];
  return v !== undefined && v.trim() !== '' ? v.trim() : undefined;
}

interface DispatcherChoice {
  dispatcher: Dispatcher;
  viaProxy: boolean;
  /** Proxy credentials, redacted like the token. */
  secrets: string[];
}

function proxySecrets(uri: string | undefined): string[] {
  if (!uri) return [];
  try {
    const u = new URL(uri);
    return [u.password, decodeURIComponent(u.password), u.username && u.password ? `${u.username}:${u.password}` : '']
      .filter((s) => s.length >= 4);
  } catch {
    return [];
  }
}

function createDispatcher(proxy: ProxySettings | undefined, timeouts: Timeouts): DispatcherChoice {
  const common = {
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
    maxResponseSize: MAX_RESPONSE_BYTES,
  };
  const rejectUnauthorized = proxy?.strictSSL !== false;
  const tls = { timeout: timeouts.connectMs, rejectUnauthorized };
  const explicit = proxy?.url?.trim();
  if (explicit) {
    let uri: URL;
    try {
      uri = new URL(explicit.includes('://') ? explicit : `http://${explicit}`);
    } catch {
      throw new ApiError({
        kind: 'invalid_input',
        message: 'The proxy setting (http.proxy) is not a valid URL, e.g. http://proxy.example.com:3128.',
        mayHaveReachedServer: false,
      });
    }
    return {
      dispatcher: new ProxyAgent({ ...common, uri: uri.href, requestTls: tls, proxyTls: tls }),
      viaProxy: true,
      secrets: proxySecrets(uri.href),
    };
  }
  const httpProxy = proxyEnv('http_proxy');
  const httpsProxy = proxyEnv('https_proxy');
  if (httpProxy || httpsProxy) {
    return {
      dispatcher: new EnvHttpProxyAgent({
        ...common,
        httpProxy,
        httpsProxy,
        noProxy: proxyEnv('no_proxy') ?? '',
        requestTls: tls,
        proxyTls: tls,
      }),
      viaProxy: true,
      secrets: [...proxySecrets(httpProxy), ...proxySecrets(httpsProxy)],
    };
  }
  return { dispatcher: new Agent(common), viaProxy: false, secrets: [] };
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Reads the whole body under a size cap and a whole-body deadline. */
async function readBody(body: Dispatcher.ResponseData['body'], contentLength: string | undefined, deadlineMs: number): Promise<Buffer> {
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

export function createClient(options: ClientOptions): AgentRunsApi {
  const baseUrl = normalizeBaseUrl(options.baseUrl);
  const base = new URL(baseUrl);
  const token = checkToken(options.token);
  const timeouts = resolveTimeouts(options.timeouts);
  const userAgent = oneLine(typeof options.userAgent === 'string' && options.userAgent.trim() !== '' ? options.userAgent : DEFAULT_USER_AGENT, 200)
    .replace(/[^\x20-\x7e]/g, '');
  const { dispatcher, viaProxy, secrets: proxyCredentials } = createDispatcher(options.proxy, timeouts);
  const secrets = [token, ...proxyCredentials];
  const log = options.log;
  let disposed = false;
  const inFlight = new Set<Promise<unknown>>();

  function emit(entry: RequestLogEntry): void {
    if (!log) return;
    try {
      log(entry);
    } catch {
      // A failing logger must not turn a good response into a failure.
    }
  }

  /** Path of `url` relative to the base URL when inside it, else its absolute path. */
  function relativePath(url: URL): string {
    return url.pathname.startsWith(`${base.pathname}/`) ? url.pathname.slice(base.pathname.length) : url.pathname;
  }

  function call(spec: CallSpec): Promise<unknown> {
    const running = exchange(spec);
    inFlight.add(running);
    const forget = (): void => {
      inFlight.delete(running);
    };
    void running.then(forget, forget);
    return running;
  }

  async function exchange(spec: CallSpec): Promise<unknown> {
    const ctx: FailureContext = {
      method: spec.method,
      path: spec.path,
      host: base.host,
      secrets,
      userEmail: spec.userEmail,
      model: spec.model,
      viaProxy,
    };
    if (disposed) {
      throw new ApiError({ kind: 'aborted', message: 'The API client was closed; the request was not sent.', mayHaveReachedServer: false, method: spec.method, path: spec.path });
    }
    if (spec.signal?.aborted) {
      throw new ApiError({ kind: 'aborted', message: 'The request was cancelled.', mayHaveReachedServer: false, method: spec.method, path: spec.path });
    }
    const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    let url = new URL(baseUrl + spec.path);

    for (let hop = 0; ; hop++) {
      const started = performance.now();
      const hopPath = relativePath(url);
      const hopCtx: FailureContext = { ...ctx, path: hopPath };
      const finish = (status: number | undefined, error?: ApiError): void => {
        emit({ method: spec.method, path: hopPath, status, durationMs: Math.round(performance.now() - started), errorKind: error?.kind });
      };
      const fail = (status: number | undefined, error: ApiError): never => {
        finish(status, error);
        throw error;
      };

      // The invariant the whole redirect policy protects; unreachable unless that policy breaks.
      if (url.origin !== base.origin) {
        throw new ApiError({
          kind: 'cross_origin_redirect', method: spec.method, path: hopPath, mayHaveReachedServer: hop > 0,
          message: `Refused to send the token to ${sanitizeServerText(url.origin, secrets, 100)}; it goes only to ${base.host}.`,
        });
      }

      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        'user-agent': userAgent,
      };
      if (payload !== undefined) headers['content-type'] = 'application/json';

      let response: Dispatcher.ResponseData;
      try {
        response = await request(url, {
          method: spec.method,
          headers,
          body: payload,
          dispatcher,
          signal: spec.signal,
          headersTimeout: timeouts.headersMs,
          bodyTimeout: timeouts.bodyMs,
        });
      } catch (e) {
        return fail(undefined, transportError({ error: e, phase: 'request', callerAborted: spec.signal?.aborted === true, timeouts }, hopCtx));
      }

      const status = response.statusCode;
      const resHeaders = response.headers;

      if (REDIRECT_STATUSES.has(status)) {
        await response.body.dump().catch(() => undefined);
        const location = header(resHeaders, 'location');
        let target: URL | undefined;
        try {
          target = location ? new URL(location, url) : undefined;
        } catch {
          target = undefined;
        }
        if (!target) {
          return fail(status, new ApiError({
            kind: 'invalid_response', status, method: spec.method, path: hopPath, mayHaveReachedServer: true,
            message: `The service answered with a redirect (${status}) without a valid destination. Check the base URL.`,
          }));
        }
        if (target.origin !== base.origin) {
          return fail(status, new ApiError({
            kind: 'cross_origin_redirect', status, method: spec.method, path: hopPath, mayHaveReachedServer: true,
            message: `The service redirected to another site (${sanitizeServerText(target.origin, secrets, 100)}); it was not followed, so the token stays with ${base.host}. Check the base URL.`,
          }));
        }
        if (spec.method !== 'GET') {
          return fail(status, new ApiError({
            kind: 'invalid_response', status, method: spec.method, path: hopPath, mayHaveReachedServer: true,
            message: `The service answered ${spec.method} ${hopPath} with a redirect (${status}), which is not followed for requests that change data. Check the base URL. The request may have been received; check before sending it again.`,
          }));
        }
        if (hop >= MAX_REDIRECTS) {
          return fail(status, new ApiError({
            kind: 'invalid_response', status, method: spec.method, path: hopPath, mayHaveReachedServer: true,
            message: `The service redirected more than ${MAX_REDIRECTS} times. Check the base URL.`,
          }));
        }
        finish(status);
        url = target;
        continue;
      }

      let raw: Buffer | undefined;
      let bodyFailure: unknown;
      try {
        raw = await readBody(response.body, header(resHeaders, 'content-length'), timeouts.bodyMs);
      } catch (e) {
        bodyFailure = e;
      }

      if (status < 200 || status > 299) {
        // The status says what happened; a body that could not be read only loses the detail.
        return fail(status, httpError(status, { retryAfter: resHeaders['retry-after'] }, raw?.toString('utf8'), hopCtx));
      }
      if (bodyFailure !== undefined || raw === undefined) {
        return fail(status, transportError({ error: bodyFailure, phase: 'body', callerAborted: spec.signal?.aborted === true, timeouts }, hopCtx));
      }
      try {
        const json = decodeJson(raw, header(resHeaders, 'content-type'), spec.method, hopPath);
        finish(status);
        return json;
      } catch (e) {
        return fail(status, e as ApiError);
      }
    }
  }

  /** Runs a parser; its `invalid_response` gets the request's method, path and a POST hint. */
  function parsed<T>(method: Method, path: string, json: unknown, parse: (j: unknown) => T): T {
    try {
      return parse(json);
    } catch (e) {
      const inner = e instanceof ApiError ? e.message : 'The response could not be understood.';
      const hint = method === 'POST' ? ' The request was received; check before sending it again.' : '';
      throw new ApiError({ kind: 'invalid_response', message: `${inner}${hint}`, mayHaveReachedServer: true, method, path });
    }
  }

  const api: AgentRunsApi = {
    baseUrl,

    async startAgent(req, opts?: RequestOptions): Promise<AgentRun> {
      const body = validateStartAgentRequest(req);
      const json = await call({ method: 'POST', path: '/agents', body, signal: opts?.signal, userEmail: body.userEmail, model: body.model });
      return parsed('POST', '/agents', json, parseAgentRun);
    },

    async getAgent(agentId, opts?: GetAgentOptions): Promise<AgentData> {
      const path = `/agents/${encodeURIComponent(validateAgentId(agentId))}`;
      const h = opts?.history;
      const query = h && Number.isSafeInteger(h.limit) && h.limit >= 1 ? `?${encodeURIComponent(h.param)}=${h.limit}` : '';
      const json = await call({ method: 'GET', path: path + query, signal: opts?.signal });
      return parsed('GET', path, json, parseAgent);
    },

    async sendFollowUp(agentId, req, opts?: RequestOptions): Promise<FollowUpAck> {
      const path = `/agents/${encodeURIComponent(validateAgentId(agentId))}/messages`;
      const body = validateFollowUpRequest(req);
      const json = await call({ method: 'POST', path, body, signal: opts?.signal });
      return parsed('POST', path, json, parseFollowUpAck);
    },

    async createTestGroup(req, opts?: RequestOptions): Promise<TestGroupCreated> {
      const body = validateCreateTestGroupRequest(req);
      const json = await call({ method: 'POST', path: '/test-groups', body, signal: opts?.signal });
      return parsed('POST', '/test-groups', json, parseTestGroupCreated);
    },

    async getSchemaInfo(opts?: RequestOptions): Promise<ServiceSchemaInfo> {
      const json = await call({ method: 'GET', path: '/openapi.json', signal: opts?.signal });
      return parsed('GET', '/openapi.json', json, extractSchemaInfo);
    },

    async dispose(): Promise<void> {
      if (disposed) return;
      disposed = true;
      // Let calls under way finish for a moment, then cut them off. (undici's `close()` waits
      // for them without limit, and a `destroy()` after a pending `close()` leaves them hanging,
      // so `close()` is only used once nothing is in flight.)
      let timer: NodeJS.Timeout | undefined;
      try {
        if (inFlight.size > 0) {
          const grace = new Promise<void>((resolve) => {
            timer = setTimeout(resolve, DISPOSE_GRACE_MS);
          });
          await Promise.race([Promise.allSettled([...inFlight]), grace]);
        }
        if (inFlight.size > 0) await dispatcher.destroy();
        else await dispatcher.close();
      } catch {
        // Closing is best effort: nothing useful to report to the caller.
      } finally {
        clearTimeout(timer);
      }
    },
  };
  return api;
}

/** Decodes a 2xx body as JSON, telling HTML, empty and truncated bodies apart. */
function decodeJson(raw: Buffer, contentType: string | undefined, method: string, path: string): unknown {
  const post = method !== 'GET';
  const tail = post ? ' The request may have been received; check before sending it again.' : '';
  const make = (message: string): ApiError =>
    new ApiError({ kind: 'invalid_response', message: message + tail, mayHaveReachedServer: true, method, path });
  const text = raw.toString('utf8').replace(/^\ufeff/, '');
  if (text.trim() === '') throw make('The service sent an empty response.');
  const looksHtml = /html/i.test(contentType ?? '') || /^\s*</.test(text);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    if (looksHtml) throw make('The service sent a web page instead of JSON; the base URL may point at a website, a login page or a proxy.');
    throw make('The service sent a response that is not valid JSON (possibly cut off).');
  }
}
