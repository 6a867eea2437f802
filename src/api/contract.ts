// The client's contract: every call the extension makes to the service, and the options each takes.
import type {
  CodeReviewDetail, CodeReviewLists, CodeReviewStarted, GetCodeReviewQuery, ListCodeReviewsQuery, ListVersionsQuery,
  StartCodeReviewRequest, SyncVersionRequest, VersionPage, VersionSync,
} from './reviewTypes';
import type { ServiceTestCalls } from './testTypes';
import type {
  Agent, AgentStarted, CreateTestGroupRequest, FollowUpAck, FollowUpRequest,
  ServiceSchemaInfo, StartAgentRequest, TestGroupCreated,
} from './types';

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface GetAgentOptions extends RequestOptions {
  /** Ask for the most recent `limit` history messages, in the query parameter the served schema names. */
  history?: { readonly param: string; readonly limit: number };
}

/** One line per request, for the output channel. Never carries the token or bodies. */
export interface RequestLogEntry {
  method: string;
  /** Path relative to the base URL. */
  path: string;
  status?: number;
  durationMs: number;
  /** Set when the request failed before or without an HTTP status. */
  errorKind?: string;
}

/**
 * The editor's network settings, applied the way the editor applies them to its own requests
 * (see src/api/transport.ts for the rules and README "What the extension declares and why").
 */
export interface ProxySettings {
  /** `http.proxy`; empty means HTTPS_PROXY/HTTP_PROXY from the environment. */
  url?: string;
  /** `http.proxyStrictSSL` (default true): verify the service's certificate. */
  strictSSL?: boolean;
  /** `http.noProxy`: hosts reached directly, added to NO_PROXY from the environment. */
  noProxy?: readonly string[];
  /** `http.proxyAuthorization`: the Proxy-Authorization header sent to the proxy on CONNECT. */
  authorization?: string;
  /** `http.systemCertificates` (default true): trust the operating system's certificate store too. */
  systemCertificates?: boolean;
}

export interface Timeouts {
  connectMs: number;
  headersMs: number;
  bodyMs: number;
}

export interface ClientOptions {
  /** Must end in /api/public/v1 (after normalising whitespace and a trailing slash). */
  baseUrl: string;
  /** The bearer token, sent only to the base URL's origin. */
  token: string;
  /**
   * The other tokens the editor holds (for other base URLs), asked for whenever a message is
   * worded: kept out of every message, cause and log entry like the token.
   */
  otherSecrets?: () => readonly string[];
  proxy?: ProxySettings;
  /** Where HTTPS_PROXY, NO_PROXY, SSL_CERT_FILE and NODE_EXTRA_CA_CERTS are read (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  timeouts?: Partial<Timeouts>;
  userAgent?: string;
  log?: (entry: RequestLogEntry) => void;
  /** Each `/openapi.json` read, whoever asked (what the service serves is learnt on the way). */
  onSchemaInfo?: (info: ServiceSchemaInfo) => void;
}

/** The service's endpoints (beyond the reference's only where the served schema lists them); every method rejects only with `ApiError`. */
export interface AgentRunsApi extends ServiceTestCalls {
  readonly baseUrl: string;
  startAgent(request: StartAgentRequest, options?: RequestOptions): Promise<AgentStarted>;
  getAgent(agentId: string, options?: GetAgentOptions): Promise<Agent>;
  sendFollowUp(agentId: string, request: FollowUpRequest, options?: RequestOptions): Promise<FollowUpAck>;
  createTestGroup(request: CreateTestGroupRequest, options?: RequestOptions): Promise<TestGroupCreated>;
  /**
   * `POST /code-reviews` (deployed service only; see `ServiceSchemaInfo.paths`). Sent at most
   * once: a failure after the request may have arrived says so (`mayHaveReachedServer`).
   */
  startCodeReview(request: StartCodeReviewRequest, options?: RequestOptions): Promise<CodeReviewStarted>;
  /** `GET /code-reviews?appId=…`: open, merged and closed reviews, newest first in each. */
  listCodeReviews(appId: string, query?: ListCodeReviewsQuery, options?: RequestOptions): Promise<CodeReviewLists>;
  /** `GET /code-reviews/{reviewId}`: the review, its items, thread and review agent. */
  getCodeReview(reviewId: string, query?: GetCodeReviewQuery, options?: RequestOptions): Promise<CodeReviewDetail>;
  /** `GET /versions?appId=…&version=…`: one page of a branch's versions; pass `nextCursor` back as `cursor`. */
  listVersions(appId: string, query: ListVersionsQuery, options?: RequestOptions): Promise<VersionPage>;
  /**
   * `POST /versions/sync`: store the branch's current state as a new version (200 when done or
   * failed within the service's wait, 202 while it runs). Sent at most once.
   */
  syncVersion(request: SyncVersionRequest, options?: RequestOptions): Promise<VersionSync>;
  /** `GET /versions/status?appId=…&versionId=…`: where a sync stands. */
  getVersionStatus(appId: string, versionId: string, options?: RequestOptions): Promise<VersionSync>;
  /** `GET /openapi.json`, reduced to what the extension uses (model ids, version, fingerprint). */
  getSchemaInfo(options?: RequestOptions): Promise<ServiceSchemaInfo>;
  /** Close pooled connections. */
  dispose(): Promise<void>;
}
