/**
 * The two HTTP listeners.
 *
 * API listener: the public API under `/api/public/v1` (logged, faultable) and the admin API
 * under `/__admin` (not logged, never faulted). Checks run in a real service's order:
 * route (404/405) → token (401) → plan (402) → body size (413) → content type (415) →
 * JSON (400) → body fields (400) → app or agent (403/404) → model and user rules (400/403)
 * → credits (402).
 *
 * Foreign listener: stands for another origin; logs whatever reaches it and answers
 * `200 {"ok":true}`, so tests can prove a redirected token never arrived there.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Scheduler } from './clock';
import type { FaultRule, LoggedRequest, Settings } from './domain';
import { ServiceError } from './errors';
import { alterJson, applyRetryAfter, htmlErrorPage, injectedErrorBody, replacesResponse, type FaultStore } from './faults';
import {
  errorReply, flattenHeaders, isJsonContentType, jsonReply, JSON_TYPE, parseJsonBody, readBody, type ReadBody, type Reply,
} from './http';
import type { AppTestService } from './appTests';
import type { CodeReviewService } from './codeReviews';
import { testRoutes } from './testRoutes';
import type { TestRunService } from './testRuns';
import type { AgentService, Caller } from './service';
import { ADMIN_PATH, BASE_PATH, LIMITS } from './spec';

// ---------------------------------------------------------------- request log

export class RequestLog {
  readonly all: LoggedRequest[] = [];
  readonly foreign: LoggedRequest[] = [];

  add(entry: LoggedRequest, foreign: boolean): void {
    this.all.push(entry);
    if (foreign) this.foreign.push(entry);
  }

  clear(): void {
    this.all.length = 0;
    this.foreign.length = 0;
  }
}

// ---------------------------------------------------------------- cancellable delays

/**
 * Real-time sleeps that `cancelAll` ends at once (on close), so no timer outlives the emulator,
 * and that `finishAll` ends early as if the time had passed (a test releasing what it held).
 * `sleep` resolves true when the time passed (or was finished), false when cancelled.
 */
export class Delays {
  private readonly pending = new Map<NodeJS.Timeout, (completed: boolean) => void>();

  sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        resolve(true);
      }, ms);
      this.pending.set(timer, resolve);
    });
  }

  /** Ends every sleep now as if its time had passed (a held response goes out). */
  finishAll(): void {
    for (const [timer, resolve] of this.pending) {
      clearTimeout(timer);
      resolve(true);
    }
    this.pending.clear();
  }

  cancelAll(): void {
    for (const [timer, resolve] of this.pending) {
      clearTimeout(timer);
      resolve(false);
    }
    this.pending.clear();
  }
}

// ---------------------------------------------------------------- routes

export interface AuthedInput {
  caller: Caller;
  params: readonly string[];
  body: unknown;
  query: URLSearchParams;
}

/**
 * `when` false: the method is not served (405, or 404 when the route serves none); `body: 'none'`:
 * a POST without a body. A handler may answer later (a sync that waits for its work).
 */
export type Handler =
  | { auth: 'bearer'; run: (input: AuthedInput) => Reply | Promise<Reply>; when?: () => boolean; body?: 'none' }
  | { auth: 'none'; run: () => Reply; when?: () => boolean };

export interface Route {
  pattern: RegExp;
  methods: Readonly<Record<string, Handler>>;
  /** When false, the route does not exist (404 like any unknown route): the deployed shapes' endpoints. */
  when?: () => boolean;
}

export type AdminHandler = (method: string, path: string, query: URLSearchParams, body: ReadBody) => Promise<Reply>;

export interface ApiServerOptions {
  service: AgentService;
  reviews: CodeReviewService;
  /** The app's tests, groups, automations and test runs (service-api-wider.md §3–§6; testRoutes.ts). */
  tests: AppTestService;
  testRuns: TestRunService;
  faults: FaultStore;
  scheduler: Scheduler;
  log: RequestLog;
  delays: Delays;
  openapi: () => unknown;
  admin: AdminHandler;
  foreignOrigin: () => string;
  quiet: boolean;
  /** The live settings (changed in place by the admin API). */
  settings: Settings;
}

function buildRoutes(options: ApiServerOptions): Route[] {
  const { service, reviews } = options;
  const deployed = (): boolean => reviews.served;
  return [
    {
      pattern: /^\/agents$/,
      // 201 in the reference's shapes, 202 in the deployed service's.
      methods: { POST: { auth: 'bearer', run: ({ caller, body }) => jsonReply(service.startStatus(), service.startAgent(caller, body)) } },
    },
    {
      pattern: /^\/agents\/([^/]+)$/,
      methods: { GET: { auth: 'bearer', run: ({ caller, params, query }) => jsonReply(200, service.getAgent(caller, params[0], query)) } },
    },
    {
      pattern: /^\/agents\/([^/]+)\/messages$/,
      methods: { POST: { auth: 'bearer', run: ({ caller, params, body }) => jsonReply(202, service.followUp(caller, params[0], body)) } },
    },
    // POST /test-groups, and the app's tests, runs, groups and automations of the deployed shapes (testRoutes.ts).
    ...testRoutes(options, deployed),
    // Code reviews and versions (service-api-wider.md §2, §7): deployed shapes only (codeReviews.ts).
    {
      pattern: /^\/code-reviews$/,
      when: deployed,
      methods: {
        POST: { auth: 'bearer', run: ({ caller, body }) => jsonReply(202, reviews.start(caller, body)) },
        GET: { auth: 'bearer', run: ({ caller, query }) => jsonReply(200, reviews.list(caller, query)) },
      },
    },
    { pattern: /^\/code-reviews\/([^/]+)$/, when: deployed, methods: { GET: { auth: 'bearer', run: ({ caller, params, query }) => jsonReply(200, reviews.get(caller, params[0], query)) } } },
    { pattern: /^\/versions$/, when: deployed, methods: { GET: { auth: 'bearer', run: ({ caller, query }) => jsonReply(200, reviews.listVersions(caller, query)) } } },
    { pattern: /^\/versions\/status$/, when: deployed, methods: { GET: { auth: 'bearer', run: ({ caller, query }) => jsonReply(200, reviews.versionStatus(caller, query)) } } },
    // 200 when the sync ended within the service's wait, 202 while it runs (the status is the sync's).
    { pattern: /^\/versions\/sync$/, when: deployed, methods: { POST: { auth: 'bearer', run: ({ caller, body }) => reviews.sync(caller, body) } } },
    {
      // Served without a token: the schema holds nothing secret and clients read it before sign-in.
      pattern: /^\/openapi\.json$/,
      methods: { GET: { auth: 'none', run: () => jsonReply(200, options.openapi()) } },
    },
  ];
}

/** Path relative to the base URL, or undefined when outside it. */
function relativePath(pathname: string): string | undefined {
  if (pathname === BASE_PATH) return '';
  return pathname.startsWith(`${BASE_PATH}/`) ? pathname.slice(BASE_PATH.length) : undefined;
}

function decodeParams(match: RegExpExecArray): string[] | undefined {
  try {
    return match.slice(1).map((p) => decodeURIComponent(p));
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------- API listener

export class ApiServer {
  readonly server: http.Server;
  private readonly routes: Route[];
  private originValue = '';

  constructor(private readonly options: ApiServerOptions) {
    this.routes = buildRoutes(options);
    this.server = http.createServer((req, res) => {
      this.onRequest(req, res).catch((error: unknown) => {
        if (req.destroyed || res.destroyed) return; // the client went away; nothing to answer
        console.error('[emulator] request failed', error);
        if (!res.headersSent && !res.destroyed) res.writeHead(500, { 'content-type': JSON_TYPE }).end(JSON.stringify({ error: 'Internal server error.' }));
      });
    });
  }

  get origin(): string {
    return this.originValue;
  }

  async listen(port: number): Promise<void> {
    this.originValue = await listen(this.server, port);
  }

  private async onRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.origin);
    const method = (req.method ?? 'GET').toUpperCase();
    const body = await readBody(req, LIMITS.bodyMaxBytes);

    if (url.pathname === ADMIN_PATH || url.pathname.startsWith(`${ADMIN_PATH}/`)) {
      const reply = await this.options.admin(method, url.pathname.slice(ADMIN_PATH.length) || '/', url.searchParams, body);
      await this.write(res, reply);
      return;
    }

    const entry: LoggedRequest = {
      at: this.options.scheduler.now(),
      origin: this.origin,
      method,
      path: req.url ?? '/',
      headers: flattenHeaders(req.headers),
      body: body.text,
    };
    this.options.log.add(entry, false);
    const relative = relativePath(url.pathname);
    const fault = relative === undefined ? undefined : this.options.faults.take(method, relative);
    if (fault !== undefined) entry.fault = fault.id;

    const handle = (): Promise<Reply> => this.handleApi(method, relative, url.searchParams, req.headers, body);
    if (fault === undefined) {
      await this.write(res, await handle(), entry);
    } else {
      await this.respondWithFault(req, res, entry, fault.rule, handle);
    }
    if (!this.options.quiet) console.log(`[emulator] ${method} ${url.pathname} → ${entry.status ?? 'connection reset'}`);
  }

  private async handleApi(method: string, relative: string | undefined, query: URLSearchParams, headers: http.IncomingHttpHeaders, body: ReadBody): Promise<Reply> {
    try {
      if (relative === undefined) {
        throw ServiceError.of('not_found', `No route for ${method} outside ${BASE_PATH}.`);
      }
      for (const route of this.routes) {
        const match = route.pattern.exec(relative);
        if (match === null || (route.when !== undefined && !route.when())) continue;
        const params = decodeParams(match);
        if (params === undefined) throw ServiceError.of('not_found', 'The path is not correctly percent-encoded.');
        const served = Object.entries(route.methods).filter(([, h]) => h.when === undefined || h.when());
        if (served.length === 0) continue;
        const handler = served.find(([m]) => m === method)?.[1];
        if (handler === undefined) {
          const allow = served.map(([m]) => m).join(', ');
          throw ServiceError.of('method_not_allowed', `${method} is not allowed on ${relative}; use ${allow}.`, { headers: { allow } });
        }
        if (handler.auth === 'none') return handler.run();
        const caller = this.options.service.authenticate(headers.authorization);
        const withBody = (method === 'POST' || method === 'PUT') && handler.body !== 'none';
        return await handler.run({ caller, params, query, body: withBody ? this.jsonBody(headers, body) : undefined });
      }
      throw ServiceError.of('not_found', `No route for ${method} ${relative === '' ? '/' : relative}.`);
    } catch (error) {
      if (error instanceof ServiceError) return errorReply(error);
      console.error('[emulator] handler failed', error);
      return jsonReply(500, { error: 'Internal server error.', code: 'internal_error' });
    }
  }

  private jsonBody(headers: http.IncomingHttpHeaders, body: ReadBody): unknown {
    if (body.tooLarge) throw ServiceError.of('payload_too_large', `The request body is larger than ${LIMITS.bodyMaxBytes} bytes.`);
    if (!isJsonContentType(headers['content-type'])) {
      throw ServiceError.of('unsupported_media_type', `Content-Type must be application/json, got ${headers['content-type'] ?? 'none'}.`);
    }
    return parseJsonBody(body.text);
  }

  /** Applies a fault rule around the real handler; see faults.ts for the rules. */
  private async respondWithFault(req: http.IncomingMessage, res: http.ServerResponse, entry: LoggedRequest, rule: FaultRule, handle: () => Promise<Reply>): Promise<void> {
    const runsHandler = rule.passThrough === true || !replacesResponse(rule);
    const delayBeforeHandler = rule.delayMs !== undefined && rule.passThrough !== true;
    let reply: Reply | undefined;

    // A delay cut short by close() drops the connection; one whose client left ends quietly.
    const hold = async (ms: number): Promise<boolean> => {
      const completed = await this.options.delays.sleep(ms);
      if (!completed) req.socket.destroy();
      return completed && !req.socket.destroyed;
    };
    if (delayBeforeHandler && !(await hold(rule.delayMs ?? 0))) return; // never "reached" the server
    if (runsHandler) reply = await handle();
    if (!delayBeforeHandler && rule.delayMs !== undefined && !(await hold(rule.delayMs))) return;
    if (rule.reset === true) {
      req.socket.destroy();
      return;
    }

    if (rule.redirectTo !== undefined) {
      const location = rule.redirectTo === 'foreign' ? `${this.options.foreignOrigin()}${req.url ?? '/'}` : rule.redirectTo;
      reply = { status: rule.redirectStatus ?? 302, headers: { location }, body: '' };
    } else if (rule.html === true) {
      const status = rule.status ?? 502;
      reply = { status, headers: { 'content-type': 'text/html; charset=utf-8' }, body: htmlErrorPage(status) };
    } else if (rule.status !== undefined || rule.body !== undefined) {
      const status = rule.status ?? reply?.status ?? 200;
      if (rule.body !== undefined) reply = { status, headers: { 'content-type': JSON_TYPE }, body: rule.body };
      else if (reply !== undefined && status < 400) reply = { ...reply, status };
      else reply = jsonReply(status, injectedErrorBody(status));
    }
    reply ??= await handle();

    if ((rule.extraFields !== undefined || rule.dropFields !== undefined) && reply.json !== undefined) {
      reply = jsonReply(reply.status, alterJson(reply.json, rule), reply.headers);
    }
    // Before `headers`, so a rule's own `Retry-After` header wins over the setting.
    reply = applyRetryAfter(reply, rule, this.options.settings.retryAfterSeconds);
    if (rule.headers !== undefined) {
      const headers = { ...reply.headers };
      for (const [name, value] of Object.entries(rule.headers)) headers[name.toLowerCase()] = value;
      reply = { ...reply, headers };
    }
    if (rule.truncate === true) {
      reply = { status: reply.status, headers: reply.headers, body: reply.body.slice(0, Math.floor(reply.body.length / 2)) };
    }
    await this.write(res, reply, entry, rule.bodyDelayMs, rule.cutBody === true);
  }

  /** `cutBody`: the headers promise the whole body, half of it is sent, then the socket is destroyed. */
  private async write(res: http.ServerResponse, reply: Reply, entry?: LoggedRequest, bodyDelayMs?: number, cutBody = false): Promise<void> {
    if (res.destroyed) return;
    const headers: http.OutgoingHttpHeaders = { 'cache-control': 'no-store', ...reply.headers, 'content-length': Buffer.byteLength(reply.body) };
    if (entry !== undefined) entry.status = reply.status;
    res.writeHead(reply.status, headers);
    if (bodyDelayMs !== undefined && bodyDelayMs > 0) {
      res.flushHeaders();
      if (!(await this.options.delays.sleep(bodyDelayMs))) {
        res.destroy();
        return;
      }
      if (res.destroyed) return;
    }
    if (cutBody) {
      const bytes = Buffer.from(reply.body, 'utf8');
      // Destroyed only once the half is handed to the socket, so the client really receives it.
      await new Promise<void>((resolve) => {
        res.once('close', resolve);
        res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => resolve());
      });
      res.socket?.destroy();
      res.destroy();
      return;
    }
    res.end(reply.body);
  }
}

// ---------------------------------------------------------------- foreign listener

export class ForeignServer {
  readonly server: http.Server;
  private originValue = '';

  constructor(private readonly log: RequestLog, private readonly now: () => number) {
    this.server = http.createServer((req, res) => {
      void readBody(req, LIMITS.bodyMaxBytes).then((body) => {
        this.log.add({
          at: this.now(),
          origin: this.origin,
          method: (req.method ?? 'GET').toUpperCase(),
          path: req.url ?? '/',
          headers: flattenHeaders(req.headers),
          body: body.text,
          status: 200,
        }, true);
        const text = JSON.stringify({ ok: true });
        res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(text) }).end(text);
      }, () => res.destroy());
    });
  }

  get origin(): string {
    return this.originValue;
  }

  async listen(port: number): Promise<void> {
    this.originValue = await listen(this.server, port);
  }
}

// ---------------------------------------------------------------- helpers

function listen(server: http.Server, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      resolve(`http://127.0.0.1:${address.port}`);
    });
  });
}

export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
