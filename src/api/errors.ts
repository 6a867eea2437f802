/**
 * One error type for every failure the API client can meet. Callers switch on `kind`;
 * `message` is always a one-line sentence a person can act on, and never contains the token.
 */
export type ApiErrorKind =
  /** The request was refused locally before sending (missing field, bad enum, bad email/URL). */
  | 'invalid_input'
  /** The configured base URL is unusable (not a URL, not ending in /api/public/v1). */
  | 'invalid_base_url'
  /** 401: token missing, invalid or revoked. */
  | 'unauthorized'
  /** 402 `api_access_required`: the workspace plan has no API access. */
  | 'plan_required'
  /** 402 `insufficient_paid_credits`: too few paid credits for a service-hosted model. */
  | 'insufficient_credits'
  /** 400 `user_email_required`: a connected provider model needs `userEmail`. */
  | 'user_email_required'
  /** 403 `user_not_workspace_member`. */
  | 'user_not_workspace_member'
  /** 403 `missing_provider_credentials`. */
  | 'missing_provider_credentials'
  /** 404: unknown agent or resource. */
  | 'not_found'
  /** Any other 4xx, carrying the server's `error`/`code`/`reason`. */
  | 'client'
  /** 429; `retryAfterMs` set when the server said. */
  | 'rate_limited'
  /** 5xx. */
  | 'server'
  /** DNS failure, refused or reset connection, TLS failure. */
  | 'network'
  /** Connect, headers or body timeout. */
  | 'timeout'
  /** Non-JSON, HTML, truncated or schema-mismatched body. */
  | 'invalid_response'
  /** The server redirected to another origin; the request was not followed (the token stays home). */
  | 'cross_origin_redirect'
  /** The caller aborted the request. */
  | 'aborted';

export interface ApiErrorInit {
  kind: ApiErrorKind;
  message: string;
  status?: number;
  code?: string;
  reason?: string;
  /** The server's own `error` text, when it sent one. */
  serverMessage?: string;
  retryAfterMs?: number;
  /**
   * False only when the request certainly did not reach the server (refused before undici wrote
   * it to the socket: DNS, connect, TLS refusal, a cancel). When true, a POST is never retried on its own.
   */
  mayHaveReachedServer: boolean;
  method?: string;
  /** Path relative to the base URL, e.g. `/agents/abc`. */
  path?: string;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly kind: ApiErrorKind;
  readonly status?: number;
  readonly code?: string;
  readonly reason?: string;
  readonly serverMessage?: string;
  readonly retryAfterMs?: number;
  readonly mayHaveReachedServer: boolean;
  readonly method?: string;
  readonly path?: string;

  constructor(init: ApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ApiError';
    this.kind = init.kind;
    this.status = init.status;
    this.code = init.code;
    this.reason = init.reason;
    this.serverMessage = init.serverMessage;
    this.retryAfterMs = init.retryAfterMs;
    this.mayHaveReachedServer = init.mayHaveReachedServer;
    this.method = init.method;
    this.path = init.path;
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError || (typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'ApiError' && typeof (e as { kind?: unknown }).kind === 'string');
}

/**
 * Whether a failed POST may have taken effect: it may have reached the service and no 4xx refused
 * it. Such a request is never sent again unless the person chooses to; a non-`ApiError` may have arrived.
 */
export function mayHaveArrived(error: unknown): boolean {
  if (!isApiError(error)) {
    return true;
  }
  if (error.status !== undefined && error.status >= 400 && error.status < 500) {
    return false;
  }
  return error.mayHaveReachedServer;
}

/** Why the service answered 409 (service-api-wider.md §1): its concurrency limit, or a conversation that takes no follow-ups. */
export type ConflictCause = 'concurrency' | 'noFollowUps';

const NO_FOLLOW_UPS = /follow[\s_-]?ups?|(^|[^a-z])kind([^a-z]|$)|review|unsupported|does\s*not\s*(take|accept|support)|not[\s_-]*(accept|support|allow)|cannot[\s_-]*(receive|take|accept)/i;
const CONCURRENCY = /concurren|limit|too[\s_-]*many|capacity|parallel|simultaneous|quota|maximum|max[\s_-]*(agents|runs)/i;

/**
 * What a 409 refused, read tolerantly from its undocumented `code`, `reason`, then `error` (the
 * first that points one way decides); undefined when nothing says (the caller knows the run's kind).
 */
export function conflictCause(error: unknown): ConflictCause | undefined {
  if (!isApiError(error) || error.status !== 409) {
    return undefined;
  }
  for (const text of [error.code, error.reason, error.serverMessage]) {
    if (typeof text !== 'string' || text.trim() === '') continue;
    const noFollowUps = NO_FOLLOW_UPS.test(text);
    const concurrency = CONCURRENCY.test(text);
    if (noFollowUps !== concurrency) {
      return noFollowUps ? 'noFollowUps' : 'concurrency';
    }
  }
  return undefined;
}
