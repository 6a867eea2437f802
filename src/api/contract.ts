import type {
  Agent, AgentRun, CreateTestGroupRequest, FollowUpAck, FollowUpRequest,
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

export interface ProxySettings {
  /** The editor's `http.proxy`; empty means use HTTPS_PROXY/HTTP_PROXY/NO_PROXY from the environment. */
  url?: string;
  /** The editor's `http.proxyStrictSSL` (default true). */
  strictSSL?: boolean;
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
  proxy?: ProxySettings;
  timeouts?: Partial<Timeouts>;
  userAgent?: string;
  log?: (entry: RequestLogEntry) => void;
}

/** The service's documented endpoints. Every method rejects only with `ApiError`. */
export interface AgentRunsApi {
  readonly baseUrl: string;
  startAgent(request: StartAgentRequest, options?: RequestOptions): Promise<AgentRun>;
  getAgent(agentId: string, options?: GetAgentOptions): Promise<Agent>;
  sendFollowUp(agentId: string, request: FollowUpRequest, options?: RequestOptions): Promise<FollowUpAck>;
  createTestGroup(request: CreateTestGroupRequest, options?: RequestOptions): Promise<TestGroupCreated>;
  /** `GET /openapi.json`, reduced to what the extension uses (model ids, version, fingerprint). */
  getSchemaInfo(options?: RequestOptions): Promise<ServiceSchemaInfo>;
  /** Close pooled connections. */
  dispose(): Promise<void>;
}
