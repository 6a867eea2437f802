/**
 * Turning failures into `ApiError`s with a message a person can act on. HTTP statuses and
 * transport failures are classified here; the client only supplies what happened.
 */
import { ApiError, type ApiErrorKind } from './errors';
import { oneLine, redactSecrets, sanitizeServerText } from './sanitize';

/** What the client knows about the request that failed. */
export interface FailureContext {
  method: string;
  /** Path relative to the base URL, e.g. `/agents/abc`. */
  path: string;
  /** `host[:port]` of the service, for messages. */
  host: string;
  /** Strings that must never appear in a message or cause (the token, proxy credentials). */
  secrets: readonly string[];
  /** From the request, to name them in messages. Already validated. */
  userEmail?: string;
  model?: string;
  /** Whether a proxy is in use, to name it when the connection fails. */
  viaProxy?: boolean;
  /** The setting or variable the proxy came from (`http.proxy`, `HTTPS_PROXY` ...), to name it. */
  proxySource?: string;
}

// ---------------------------------------------------------------- helpers

/** "12 s", "3 min". */
export function formatDelay(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  if (s < 120) return `${s} s`;
  return `${Math.ceil(s / 60)} min`;
}

/**
 * `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date (a date in the past
 * gives 0). Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | readonly string[] | undefined, now: number = Date.now()): number | undefined {
  const raw: unknown = typeof value === 'string' ? value : value?.[0];
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : undefined;
  }
  if (!/[a-z]/i.test(text)) return undefined; // "1.5", "-3": not a delta-seconds nor a date
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

const MAY_HAVE_ARRIVED = ' The request may have been received; check before sending it again.';

function isPost(ctx: FailureContext): boolean {
  return ctx.method.toUpperCase() !== 'GET';
}

/** The id in `path` when it matches `pattern` (`/agents/{id}`, `/code-reviews/{id}`), decoded. */
function idOf(path: string, pattern: RegExp): string | undefined {
  const m = pattern.exec(path);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}

function who(ctx: FailureContext): string {
  return ctx.userEmail ? oneLine(ctx.userEmail, 100) : 'The user email';
}

function modelName(ctx: FailureContext): string {
  return ctx.model ? `model ${oneLine(ctx.model, 80)}` : 'this model';
}

// ---------------------------------------------------------------- HTTP statuses

/** The parts of an error body the client reads; each is sanitised and redacted. */
export interface ServerErrorBody {
  error?: string;
  code?: string;
  reason?: string;
  provider?: string;
}

/** Reads `{ error, code, reason }` out of an error response body, tolerating anything. */
export function readServerErrorBody(text: string | undefined, secrets: readonly string[]): ServerErrorBody {
  if (!text) return {};
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\ufeff/, ''));
  } catch {
    return {};
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return {};
  const record = json as Record<string, unknown>;
  const out: ServerErrorBody = {};
  // Some services nest the error object: { error: { message, code } }.
  const nested = typeof record.error === 'object' && record.error !== null && !Array.isArray(record.error)
    ? record.error as Record<string, unknown>
    : undefined;
  const pick = (key: string, max: number, from: Record<string, unknown> | undefined = record): string | undefined => {
    const v = from?.[key];
    if (typeof v !== 'string') return undefined;
    const clean = sanitizeServerText(v, secrets, max);
    return clean === '' ? undefined : clean;
  };
  out.error = pick('error', 200) ?? pick('message', 200, nested) ?? pick('message', 200);
  // Codes are matched against known values; keep them short and plain.
  out.code = pick('code', 80) ?? pick('code', 80, nested);
  out.reason = pick('reason', 80);
  out.provider = pick('provider', 60);
  for (const key of Object.keys(out) as (keyof ServerErrorBody)[]) if (out[key] === undefined) delete out[key];
  return out;
}

function withServerText(sentence: string, server: ServerErrorBody): string {
  return server.error ? `${sentence} The service said: "${server.error}"` : sentence;
}

/** Classifies a non-2xx, non-redirect HTTP response. */
export function httpError(
  status: number,
  headers: { retryAfter?: string | readonly string[] },
  bodyText: string | undefined,
  ctx: FailureContext,
  now: number = Date.now(),
): ApiError {
  const server = readServerErrorBody(bodyText, ctx.secrets);
  const code = server.code;
  // Any answer may say when to come back (a 502 from a gateway, a 409 ...), not only 429 and 503.
  const retryAfterMs = parseRetryAfter(headers.retryAfter, now);
  const base = {
    retryAfterMs,
    status,
    code,
    reason: server.reason,
    serverMessage: server.error,
    method: ctx.method,
    path: ctx.path,
    mayHaveReachedServer: true,
  };
  const make = (kind: ApiErrorKind, message: string, extra: { retryAfterMs?: number } = {}): ApiError =>
    new ApiError({ ...base, kind, message, ...extra });

  if (status === 401) {
    return make('unauthorized', `The token was refused (401). Set a new API token.`);
  }
  if (status === 402 && code === 'api_access_required') {
    return make('plan_required', 'This workspace\'s plan has no API access (402). Ask a workspace admin to upgrade the plan.');
  }
  if (status === 402 && code === 'insufficient_paid_credits') {
    return make('insufficient_credits', `Not enough paid credits for ${modelName(ctx)} (402). Choose a connected-provider model or add credits.`);
  }
  if (status === 400 && code === 'user_email_required') {
    const subject = ctx.model ? `Model ${oneLine(ctx.model, 80)}` : 'This model';
    return make('user_email_required', `${subject} runs on a connected provider and needs the email of a workspace member (400). Set userEmail to a member with credentials for that provider.`);
  }
  if (status === 403 && code === 'user_not_workspace_member') {
    return make('user_not_workspace_member', `${who(ctx)} is not a member of this workspace (403). Use the email of a workspace member.`);
  }
  if (status === 403 && code === 'missing_provider_credentials') {
    const provider = server.provider ? `provider ${server.provider}` : `the provider of ${modelName(ctx)}`;
    return make('missing_provider_credentials', `${who(ctx)} has no active credentials for ${provider} (403). Connect them in the workspace settings.`);
  }
  if (status === 404) {
    const agentId = idOf(ctx.path, /^\/agents\/([^/]+)(?:\/messages)?$/);
    const reviewId = idOf(ctx.path, /^\/code-reviews\/([^/]+)$/);
    const missing = agentId !== undefined ? `Agent ${oneLine(agentId, 80)}` : reviewId !== undefined ? `Code review ${oneLine(reviewId, 80)}` : undefined;
    if (missing !== undefined) {
      return make('not_found', `${missing} was not found (404); it may have been deleted or belong to another workspace.`);
    }
    if (server.error) {
      // The service named what is missing (an app ID, say): that is more useful than a URL hint.
      return make('not_found', `Not found (404${code ? ` ${code}` : ''}): ${server.error}`);
    }
    return make('not_found', `The service has nothing at ${ctx.method} ${ctx.path} (404). Check the base URL.`);
  }
  if (status === 429) {
    const when = retryAfterMs === undefined ? undefined : formatDelay(retryAfterMs);
    const message = isPost(ctx)
      ? `The service is rate limiting requests (429); try again ${when ? `in ${when}` : 'shortly'}.`
      : `The service is rate limiting requests; retrying in ${when ?? 'a moment'}.`;
    return make('rate_limited', message, { retryAfterMs });
  }
  if (status >= 500 && status <= 599) {
    const sentence = `The service failed (${status}); try again later.${isPost(ctx) ? MAY_HAVE_ARRIVED : ''}`;
    return make('server', withServerText(sentence, server), { retryAfterMs });
  }
  if (status >= 400 && status <= 499) {
    const label = code ? `${status} ${code}` : String(status);
    return make('client', server.error
      ? `The service refused the request (${label}): ${server.error}`
      : `The service refused the request (${label}).`);
  }
  return make('invalid_response', `The service answered with an unexpected status (${status}).${isPost(ctx) ? MAY_HAVE_ARRIVED : ''}`);
}

// ---------------------------------------------------------------- transport failures

/** Thrown into the body stream by the client when the whole-body deadline passes. */
export class BodyDeadlineError extends Error {
  readonly code = 'AR_BODY_DEADLINE';
  constructor() {
    super('Response body deadline exceeded');
    this.name = 'BodyDeadlineError';
  }
}

/** Thrown by the client when the body exceeds its size cap. */
export class BodyTooLargeError extends Error {
  readonly code = 'AR_BODY_TOO_LARGE';
  constructor(readonly limit: number) {
    super(`Response body larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

function codeOf(e: unknown, depth = 0): string | undefined {
  if (typeof e !== 'object' || e === null || depth > 4) return undefined;
  const rec = e as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof rec.code === 'string' && rec.code !== '') return rec.code;
  // Happy-eyeballs connects fail with an AggregateError of per-address errors.
  if (Array.isArray(rec.errors)) {
    for (const inner of rec.errors) {
      const c = codeOf(inner, depth + 1);
      if (c) return c;
    }
  }
  return codeOf(rec.cause, depth + 1);
}

function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message;
  return typeof e === 'string' ? e : '';
}

/** A copy of a low-level error that is safe to keep as `cause`: name, code and a redacted message only. */
export function safeCause(e: unknown, secrets: readonly string[]): Error {
  const name = e instanceof Error ? e.name : 'Error';
  const copy = new Error(oneLine(redactSecrets(messageOf(e), secrets), 300));
  copy.name = name;
  const code = codeOf(e);
  if (code) (copy as Error & { code?: string }).code = code;
  // The stack of the copy points here, not into the socket internals; that is enough.
  return copy;
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA']);
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET']);
const PARSE_CODES = new Set(['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'UND_ERR_RES_EXCEEDED_MAX_SIZE', 'AR_BODY_TOO_LARGE']);

function isTlsCode(code: string): boolean {
  return code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || isCertificateCode(code) || code === 'EPROTO';
}

/**
 * A certificate the client refused (OpenSSL's verify results, Node's host name check). The
 * certificate is checked in the TLS handshake, before undici writes a byte of the request.
 */
function isCertificateCode(code: string): boolean {
  return code.includes('CERT') || code.startsWith('UNABLE_TO_') || code === 'HOSTNAME_MISMATCH'
    || code === 'INVALID_CA' || code === 'PATH_LENGTH_EXCEEDED' || code === 'INVALID_PURPOSE';
}

export interface TransportFailure {
  error: unknown;
  /** `request`: before the response headers; `body`: while reading the body. */
  phase: 'request' | 'body';
  /** The caller's signal had fired. */
  callerAborted: boolean;
  /**
   * Whether undici had written the request (headers and body) to the socket when it failed:
   * false, nothing left the machine; undefined, not known, taken as written.
   */
  requestWritten?: boolean;
  timeouts: { connectMs: number; headersMs: number; bodyMs: number };
}

const NOT_SENT = ' Nothing was sent.';

/** Classifies a failure below HTTP (DNS, TCP, TLS, timeouts, aborts, malformed HTTP). */
export function transportError(f: TransportFailure, ctx: FailureContext): ApiError {
  const cause = safeCause(f.error, ctx.secrets);
  const code = codeOf(f.error) ?? '';
  const post = isPost(ctx);
  const host = ctx.host;
  const make = (kind: ApiErrorKind, message: string, mayHaveReachedServer: boolean): ApiError =>
    new ApiError({ kind, message, mayHaveReachedServer, method: ctx.method, path: ctx.path, cause });
  const arrived = (sentence: string): string => (post ? sentence + MAY_HAVE_ARRIVED : sentence);
  // Only a request that was written can have reached the service (an answer's headers prove it was).
  const written = f.phase === 'body' ? true : f.requestWritten;
  const mayHaveLeft = written !== false;
  /** A failure whose effect depends only on whether the request had left. */
  const afterSending = (kind: ApiErrorKind, sentence: string): ApiError =>
    mayHaveLeft ? make(kind, arrived(sentence), true) : make(kind, sentence + NOT_SENT, false);

  if (f.callerAborted) {
    if (!mayHaveLeft) return make('aborted', 'The request was cancelled before anything was sent.', false);
    const when = written === true ? ' after it was sent' : '';
    return make('aborted', post ? `The request was cancelled${when}; it may have reached the service.` : `The request was cancelled${when}.`, true);
  }
  if (code === 'UND_ERR_DESTROYED' || code === 'UND_ERR_CLOSED') {
    // The client was disposed while the request was under way (or still waiting for its connection).
    return afterSending('aborted', 'The request was cancelled because the API client was closed.');
  }
  if (code === 'AR_BODY_DEADLINE' || code === 'UND_ERR_BODY_TIMEOUT') {
    return afterSending('timeout', `The service's response did not finish within ${formatDelay(f.timeouts.bodyMs)}.`);
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT') {
    return afterSending('timeout', `The service did not answer within ${formatDelay(f.timeouts.headersMs)}.`);
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    const target = ctx.viaProxy ? 'the proxy or ' + host : host;
    return make('timeout', `Connecting to ${target} timed out after ${formatDelay(f.timeouts.connectMs)}. Check the base URL and your network.`, false);
  }
  if (DNS_CODES.has(code)) {
    return make('network', `Could not find the host of ${ctx.viaProxy ? 'the proxy or ' : ''}${host} (DNS ${code}). Check the base URL and your network.`, false);
  }
  if (UNREACHABLE_CODES.has(code)) {
    const target = ctx.viaProxy ? `the proxy for ${host}` : host;
    const check = ctx.viaProxy ? `Check the proxy (${ctx.proxySource ?? 'http.proxy'}), or list ${host} in http.noProxy to reach it directly.` : 'Check the base URL and that the service is running.';
    return make('network', `Could not connect to ${target}: ${code === 'ECONNREFUSED' ? 'the connection was refused' : 'the host is unreachable'}. ${check}`, false);
  }
  if (PARSE_CODES.has(code) || code.startsWith('HPE_') || (f.error instanceof Error && f.error.name === 'HTTPParserError')) {
    const what = code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE' || code === 'AR_BODY_TOO_LARGE'
      ? 'The service\'s response was too large.'
      : code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH'
        ? 'The service\'s response was cut off.'
        : 'The service sent a malformed HTTP response.';
    return afterSending('invalid_response', what);
  }
  if (f.phase === 'body' && RESET_CODES.has(code)) {
    // The headers arrived, then the connection dropped: the response is truncated.
    return make('invalid_response', arrived('The service\'s response was cut off.'), true);
  }
  if (code !== '' && isCertificateCode(code)) {
    // Refused in the handshake, so before any byte of the request; "not known" counts as not
    // written here: a certificate is never checked after the write.
    const sentence = `The secure connection to ${host} failed (${code}): its certificate is not trusted. If a private certificate authority signed it, trust that authority in the operating system and keep http.systemCertificates on; http.proxyStrictSSL off skips the check (not recommended).`;
    return written === true ? make('network', arrived(sentence), true) : make('network', sentence + NOT_SENT, false);
  }
  if (code !== '' && isTlsCode(code)) {
    return afterSending('network', `The secure connection to ${host} failed (${code}). Check the base URL and that the service accepts secure (https) connections there.`);
  }
  if (RESET_CODES.has(code) || code === 'ETIMEDOUT') {
    return afterSending(code === 'ETIMEDOUT' ? 'timeout' : 'network', `The connection to ${host} was interrupted.`);
  }
  const proxyStatus = /proxy response \((\d{3})\)/i.exec(messageOf(f.error))?.[1];
  if (proxyStatus === '407') {
    // The tunnel was never opened: nothing reached the service.
    return make('network', `The proxy (${ctx.proxySource ?? 'http.proxy'}) asked for credentials (407). Set http.proxyAuthorization, or user:password in the proxy URL.`, false);
  }
  if (proxyStatus !== undefined || /proxy/i.test(messageOf(f.error))) {
    const answer = proxyStatus !== undefined ? ` (${proxyStatus})` : '';
    const text = `The proxy refused the connection to ${host}${answer}. Check the proxy settings (${ctx.proxySource ?? 'http.proxy'}), or list ${host} in http.noProxy.`;
    // A status answer to CONNECT means the tunnel never opened; otherwise it is unclear.
    return proxyStatus !== undefined ? make('network', text, false) : afterSending('network', text);
  }
  return afterSending('network', `The request to ${host} failed${code ? ` (${code})` : ''}.`);
}

// ---------------------------------------------------------------- describe

const FALLBACK: Record<ApiErrorKind, string> = {
  invalid_input: 'The request is incomplete or invalid.',
  invalid_base_url: 'The service base URL is not valid. Expected a URL like https://host.example.com/api/public/v1.',
  unauthorized: 'The token was refused (401). Set a new API token.',
  plan_required: 'This workspace\'s plan has no API access (402). Ask a workspace admin to upgrade the plan.',
  insufficient_credits: 'Not enough paid credits for this model. Choose a connected-provider model or add credits.',
  user_email_required: 'This model runs on a connected provider and needs the email of a workspace member. Set userEmail.',
  user_not_workspace_member: 'The user email is not a member of this workspace.',
  missing_provider_credentials: 'The user has no active credentials for this model\'s provider. Connect them in the workspace settings.',
  not_found: 'Not found (404).',
  client: 'The service refused the request.',
  rate_limited: 'The service is rate limiting requests; try again shortly.',
  server: 'The service failed; try again later.',
  network: 'Could not reach the service. Check the base URL and your network.',
  timeout: 'The service did not answer in time.',
  invalid_response: 'The service\'s response could not be understood.',
  cross_origin_redirect: 'The service redirected to another site; the redirect was not followed so the token stays with the configured service. Check the base URL.',
  aborted: 'The request was cancelled.',
};

/**
 * One line a person can act on. The client builds each `ApiError`'s message this way already;
 * this keeps any `ApiError` (also one rebuilt from storage or another window) to one bounded line.
 */
export function describeApiError(e: ApiError): string {
  const text = oneLine(typeof e.message === 'string' ? e.message : '', 400);
  return text !== '' ? text : FALLBACK[e.kind] ?? 'The request failed.';
}
