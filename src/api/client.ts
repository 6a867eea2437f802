/**
 * The HTTP client, its policy in one place: the token goes to the base URL's origin only (GET
 * follows same-origin redirects); nothing is retried (a POST, PUT or DELETE is sent at most once,
 * GET retries are the poller's); timeouts and a body cap; every failure an `ApiError` without the token.
 */
import type { Dispatcher } from 'undici';
import { normalizeBaseUrl } from './baseUrl';
import type { AgentRunsApi, ClientOptions, GetAgentOptions, RequestLogEntry, RequestOptions, Timeouts } from './contract';
import { httpError, parseRetryAfter, transportError, type FailureContext } from './describe';
import { ApiError } from './errors';
import {
  parseAgent, parseAgentStarted, parseFollowUpAck, parseTestGroupCreated,
} from './parse';
import { reviewCalls } from './reviewCalls';
import { testCalls } from './testCalls';
import { oneLine, sanitizeServerText } from './sanitize';
import { extractSchemaInfo } from './schemaInfo';
import type { Agent as AgentData, AgentStarted, FollowUpAck, ServiceSchemaInfo, TestGroupCreated } from './types';
import {
  createTransport, header, MAX_RESPONSE_BYTES, newWriteWatch, readBody, send, wasWritten, type Transport,
} from './transport';
import {
  validateAgentId, validateCreateTestGroupRequest, validateFollowUpRequest, validateStartAgentRequest,
} from './validate';

export { MAX_RESPONSE_BYTES };

export const DEFAULT_TIMEOUTS: Readonly<Timeouts> = Object.freeze({ connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000 });

/** Same-origin redirects followed for one GET. */
export const MAX_REDIRECTS = 3;

export const DEFAULT_USER_AGENT = 'agent-runs-vscode/0.1';

/** How long `dispose()` lets in-flight requests finish before cutting them off. */
const DISPOSE_GRACE_MS = 2_000;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface CallSpec {
  method: Method;
  /** Relative to the base URL, starting with `/`, already encoded. */
  path: string;
  body?: unknown;
  signal?: AbortSignal;
  userEmail?: string;
  model?: string;
  /** Told the HTTP status and `Retry-After` of a 2xx answer (a sync's 202 and when to ask again). */
  onAnswer?: (answer: { status: number; retryAfterMs?: number }) => void;
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

/** What every exchange of one client shares. */
interface Session {
  base: URL;
  baseUrl: string;
  token: string;
  userAgent: string;
  timeouts: Timeouts;
  transport: Transport;
  /** The token, the other tokens held and the proxy credentials: in no message, cause or log entry. */
  readonly secrets: readonly string[];
  emit(entry: RequestLogEntry): void;
}

/** Path of `url` relative to the base URL when inside it, else its absolute path. */
function relativePath(base: URL, url: URL): string {
  return url.pathname.startsWith(`${base.pathname}/`) ? url.pathname.slice(base.pathname.length) : url.pathname;
}

function failureContext(session: Session, spec: CallSpec): FailureContext {
  const route = session.transport.route;
  return {
    method: spec.method, path: spec.path, host: session.base.host, secrets: session.secrets,
    userEmail: spec.userEmail, model: spec.model,
    viaProxy: route.kind === 'proxy', proxySource: route.kind === 'proxy' ? route.source : undefined,
  };
}

/** Where a redirect answer leads, or the `ApiError` that refuses to follow it. */
function redirectTarget(session: Session, spec: CallSpec, ctx: FailureContext, at: URL, status: number, location: string | undefined, hop: number): URL | ApiError {
  const refuse = (kind: 'invalid_response' | 'cross_origin_redirect', message: string): ApiError =>
    new ApiError({ kind, status, method: spec.method, path: ctx.path, mayHaveReachedServer: true, message });
  let target: URL | undefined;
  try {
    target = location ? new URL(location, at) : undefined;
  } catch {
    target = undefined;
  }
  const host = session.base.host;
  if (!target) {
    return refuse('invalid_response', `The service answered with a redirect (${status}) without a valid destination. Check the base URL.`);
  }
  if (target.origin !== session.base.origin) {
    return refuse('cross_origin_redirect', `The service redirected to another site (${sanitizeServerText(target.origin, session.secrets, 100)}); it was not followed, so the token stays with ${host}. Check the base URL.`);
  }
  if (spec.method !== 'GET') {
    return refuse('invalid_response', `The service answered ${spec.method} ${ctx.path} with a redirect (${status}), which is not followed for requests that change data. Check the base URL. The request may have been received; check before sending it again.`);
  }
  if (hop >= MAX_REDIRECTS) {
    return refuse('invalid_response', `The service redirected more than ${MAX_REDIRECTS} times. Check the base URL.`);
  }
  return target;
}

/** One hop: the JSON of a 2xx answer, or the same-origin URL a GET is redirected to. */
async function hopOnce(session: Session, spec: CallSpec, url: URL, hop: number, payload: string | undefined): Promise<{ json: unknown } | { next: URL }> {
  const started = performance.now();
  const ctx: FailureContext = { ...failureContext(session, spec), path: relativePath(session.base, url) };
  const finish = (status: number | undefined, error?: ApiError): void => {
    session.emit({ method: spec.method, path: ctx.path, status, durationMs: Math.round(performance.now() - started), errorKind: error?.kind });
  };
  const fail = (status: number | undefined, error: ApiError): never => {
    finish(status, error);
    throw error;
  };
  // The invariant the whole redirect policy protects; unreachable unless that policy breaks.
  if (url.origin !== session.base.origin) {
    throw new ApiError({
      kind: 'cross_origin_redirect', method: spec.method, path: ctx.path, mayHaveReachedServer: hop > 0,
      message: `Refused to send the token to ${sanitizeServerText(url.origin, session.secrets, 100)}; it goes only to ${session.base.host}.`,
    });
  }
  const headers: Record<string, string> = { authorization: `Bearer ${session.token}`, accept: 'application/json', 'user-agent': session.userAgent };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const aborted = (): boolean => spec.signal?.aborted === true;
  // Per request (not per signal: a caller may share one signal between calls), whether undici
  // wrote it: a failure before that cannot have reached the service.
  const watch = newWriteWatch();
  let response: Dispatcher.ResponseData;
  try {
    response = await send(session.transport, url, { method: spec.method, headers, body: payload, signal: spec.signal }, session.timeouts, watch);
  } catch (e) {
    // After a redirect the request did reach the service, on the hop before.
    const requestWritten = hop > 0 ? true : wasWritten(watch);
    return fail(undefined, transportError({ error: e, phase: 'request', callerAborted: aborted(), requestWritten, timeouts: session.timeouts }, ctx));
  }
  const status = response.statusCode;
  const resHeaders = response.headers;
  if (REDIRECT_STATUSES.has(status)) {
    await response.body.dump().catch(() => undefined);
    const target = redirectTarget(session, spec, ctx, url, status, header(resHeaders, 'location'), hop);
    if (target instanceof ApiError) return fail(status, target);
    finish(status);
    return { next: target };
  }
  let raw: Buffer | undefined;
  let bodyFailure: unknown;
  try {
    raw = await readBody(response.body, header(resHeaders, 'content-length'), session.timeouts.bodyMs);
  } catch (e) {
    bodyFailure = e;
  }
  if (status < 200 || status > 299) {
    // The status says what happened; a body that could not be read only loses the detail.
    return fail(status, httpError(status, { retryAfter: resHeaders['retry-after'] }, raw?.toString('utf8'), ctx));
  }
  if (status === 204) {
    // No content: done, nothing to read (the parser decides whether that is enough).
    finish(status);
    return { json: undefined };
  }
  if (bodyFailure !== undefined || raw === undefined) {
    return fail(status, transportError({ error: bodyFailure, phase: 'body', callerAborted: aborted(), requestWritten: true, timeouts: session.timeouts }, ctx));
  }
  try {
    const json = decodeJson(raw, header(resHeaders, 'content-type'), spec.method, ctx.path);
    finish(status);
    spec.onAnswer?.({ status, retryAfterMs: parseRetryAfter(resHeaders['retry-after']) });
    return { json };
  } catch (e) {
    return fail(status, e as ApiError);
  }
}

async function exchange(session: Session, spec: CallSpec, disposed: boolean): Promise<unknown> {
  if (disposed) {
    throw new ApiError({ kind: 'aborted', message: 'The API client was closed; the request was not sent.', mayHaveReachedServer: false, method: spec.method, path: spec.path });
  }
  if (spec.signal?.aborted) {
    throw new ApiError({ kind: 'aborted', message: 'The request was cancelled.', mayHaveReachedServer: false, method: spec.method, path: spec.path });
  }
  const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
  let url = new URL(session.baseUrl + spec.path);
  for (let hop = 0; ; hop++) {
    const result = await hopOnce(session, spec, url, hop, payload);
    if ('json' in result) return result.json;
    url = result.next;
  }
}

/** Runs a parser; its `invalid_response` gets the request's method, path and a POST hint. */
function parsed<T>(method: Method, path: string, json: unknown, parse: (j: unknown) => T): T {
  try {
    return parse(json);
  } catch (e) {
    const inner = e instanceof ApiError ? e.message : 'The response could not be understood.';
    const hint = method !== 'GET' ? ' The request was received; check before sending it again.' : '';
    throw new ApiError({ kind: 'invalid_response', message: `${inner}${hint}`, mayHaveReachedServer: true, method, path });
  }
}

/**
 * Lets calls under way finish for a moment, then cuts them off. (undici's `close()` waits for
 * them without limit, and a `destroy()` after a pending `close()` leaves them hanging, so
 * `close()` is only used once nothing is in flight.)
 */
async function closeDispatcher(dispatcher: Dispatcher, inFlight: ReadonlySet<Promise<unknown>>): Promise<void> {
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
}

export function createClient(options: ClientOptions): AgentRunsApi {
  const baseUrl = normalizeBaseUrl(options.baseUrl);
  const base = new URL(baseUrl);
  const token = checkToken(options.token);
  const timeouts = resolveTimeouts(options.timeouts);
  const userAgent = oneLine(typeof options.userAgent === 'string' && options.userAgent.trim() !== '' ? options.userAgent : DEFAULT_USER_AGENT, 200)
    .replace(/[^\x20-\x7e]/g, '');
  const transport = createTransport(base, options.proxy, timeouts, options.env ?? process.env);
  const dispatcher = transport.dispatcher;
  const log = options.log;
  const otherSecrets = options.otherSecrets;
  const session: Session = {
    base, baseUrl, token, userAgent, timeouts, transport,
    // Read when a failure is worded: a token stored for another base URL since counts too.
    get secrets() {
      return [token, ...(otherSecrets?.() ?? []), ...transport.secrets];
    },
    emit: (entry) => {
      if (!log) return;
      try {
        log(entry);
      } catch {
        // A failing logger must not turn a good response into a failure.
      }
    },
  };
  let disposed = false;
  const inFlight = new Set<Promise<unknown>>();

  function call(spec: CallSpec): Promise<unknown> {
    const running = exchange(session, spec, disposed);
    inFlight.add(running);
    const forget = (): void => {
      inFlight.delete(running);
    };
    void running.then(forget, forget);
    return running;
  }

  const api: AgentRunsApi = {
    baseUrl,

    async startAgent(req, opts?: RequestOptions): Promise<AgentStarted> {
      const body = validateStartAgentRequest(req);
      const json = await call({ method: 'POST', path: '/agents', body, signal: opts?.signal, userEmail: body.userEmail, model: body.model });
      return parsed('POST', '/agents', json, parseAgentStarted);
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

    ...reviewCalls(call, parsed),
    ...testCalls(call, parsed),

    async getSchemaInfo(opts?: RequestOptions): Promise<ServiceSchemaInfo> {
      const json = await call({ method: 'GET', path: '/openapi.json', signal: opts?.signal });
      const info = parsed('GET', '/openapi.json', json, extractSchemaInfo);
      options.onSchemaInfo?.(info);
      return info;
    },

    async dispose(): Promise<void> {
      if (disposed) return;
      disposed = true;
      await closeDispatcher(dispatcher, inFlight);
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
