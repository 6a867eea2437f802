/**
 * The admin API under `/__admin` on the API listener: JSON, no auth, never logged in
 * `requests`, never faulted, and unreachable under `/api/public/v1`. It lets tests in
 * another process (the VS Code extension host, a browser test) drive and inspect the
 * emulator the way `Emulator`'s methods do in-process.
 */
import { randomInt } from 'node:crypto';
import type { Scheduler } from './clock';
import type { AgentRecord, ApiToken, JsonObject, TokenScope } from './domain';
import { parseFaultRule, type FaultStore } from './faults';
import { jsonReply, parseJsonBody, type ReadBody, type Reply } from './http';
import { findModel } from './models';
import type { MessageInput } from './records';
import { TOKEN_PREFIX } from './seed';
import { newId, type AgentService } from './service';
import { REVIEW_STATUSES, type CodeReviewService } from './codeReviews';
import type { AdminHandler, RequestLog } from './server';
import { testAdminRoute, type TestAdminContext } from './adminTests';
import { applySettingsPatch, parseSettingsPatch, SettingsError } from './settings';
import type { EmulatorState } from './state';
import type { WebhookDispatcher } from './webhooks';

export interface AdminContext extends TestAdminContext {
  state: EmulatorState;
  service: AgentService;
  reviews: CodeReviewService;
  faults: FaultStore;
  log: RequestLog;
  webhooks: WebhookDispatcher;
  scheduler: Scheduler;
  reset(): void;
}

/** Thrown inside admin routes; becomes `{error}` with the status. */
class AdminError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectBody(body: ReadBody, optional = false): Json {
  if (optional && body.text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = parseJsonBody(body.text);
  } catch (error) {
    throw new AdminError(400, error instanceof Error ? error.message : 'Invalid JSON.');
  }
  if (!isRecord(parsed)) throw new AdminError(400, 'The body must be a JSON object.');
  return parsed;
}

function optionalString(body: Json, key: string): string | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new AdminError(400, `"${key}" must be a string.`);
  return value;
}

function optionalNumber(body: Json, key: string): number | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new AdminError(400, `"${key}" must be a number.`);
  return value;
}

function optionalStrings(body: Json, key: string): string[] | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new AdminError(400, `"${key}" must be an array of strings.`);
  return value as string[];
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function newTokenValue(): string {
  let secret = '';
  for (let i = 0; i < 40; i++) secret += BASE62[randomInt(BASE62.length)];
  return `${TOKEN_PREFIX}_${secret}`;
}

function tokenSummary(token: ApiToken): Json {
  return {
    id: token.id,
    name: token.name,
    preview: `${token.value.slice(0, TOKEN_PREFIX.length + 5)}…`,
    workspaceId: token.workspaceId,
    projects: token.projects,
    createdAt: token.createdAt,
    revokedAt: token.revokedAt ?? null,
    lastUsedAt: token.lastUsedAt ?? null,
  };
}

const LIFECYCLE_STRING_KEYS = ['conversationState', 'sandboxState'] as const;
const LIFECYCLE_NUMBER_KEYS = ['queuedTurnCount', 'lastLifecycleEventAt'] as const;

/**
 * Forces fields of a run. Setting `status` (any string: `cancelled`, `timed_out`, …) halts its
 * progression until a follow-up; `null` removes an optional field; `"now"` for `completedAt`
 * or `updatedAt` is the emulator clock's time (a real status change moves `updatedAt`, a PATCH
 * only when told); unknown keys are sent as given.
 */
function patchAgent(ctx: AdminContext, record: AgentRecord, patch: Json): void {
  // Halted first, so the fields given in the same patch (a `queuedTurnCount`, say) are the last word.
  if (patch.status !== undefined) {
    if (typeof patch.status !== 'string') throw new AdminError(400, '"status" must be a string.');
    ctx.service.halt(record);
  }
  for (const [key, value] of Object.entries(patch)) {
    switch (key) {
      case 'status':
      case 'kind':
      case 'model':
      case 'reasoningEffort':
      case 'permission':
        if (typeof value !== 'string') throw new AdminError(400, `"${key}" must be a string.`);
        record[key] = value;
        break;
      case 'lastError':
      case 'projectName':
        if (value === null) delete record[key];
        else if (typeof value === 'string') record[key] = value;
        else throw new AdminError(400, `"${key}" must be a string or null.`);
        break;
      case 'completedAt':
        if (value === null) delete record.completedAt;
        else if (typeof value === 'number') record.completedAt = value;
        else if (value === 'now') record.completedAt = ctx.scheduler.now();
        else throw new AdminError(400, '"completedAt" must be a number, "now" or null.');
        break;
      case 'updatedAt':
        if (value === 'now') record.updatedAt = ctx.scheduler.now();
        else if (typeof value === 'number') record.updatedAt = value;
        else throw new AdminError(400, '"updatedAt" must be a number or "now".');
        break;
      case 'createdAt':
        if (typeof value !== 'number') throw new AdminError(400, `"${key}" must be a number.`);
        record[key] = value;
        break;
      case 'permittedBranches':
        record.permittedBranches = optionalStrings(patch, key) ?? [];
        break;
      case 'lifecycle': {
        if (!isRecord(value)) throw new AdminError(400, '"lifecycle" must be an object.');
        for (const k of LIFECYCLE_STRING_KEYS) {
          const v = optionalString(value, k);
          if (v !== undefined) record.lifecycle[k] = v;
        }
        for (const k of LIFECYCLE_NUMBER_KEYS) {
          const v = optionalNumber(value, k);
          if (v !== undefined) record.lifecycle[k] = v;
        }
        break;
      }
      default:
        record.extraFields[key] = value;
    }
  }
}

/**
 * A message to append. Reference shapes: object `toolParameters` are stored as their JSON text,
 * attachments must be strings. Deployed shapes: stored as given (`toolParameters` an object or
 * null, attachments strings or objects, `content` null allowed).
 */
function messageFromBody(body: Json, deployed: boolean): MessageInput {
  const content = body.content === null && deployed ? null : optionalString(body, 'content') ?? '';
  const draft: MessageInput = { role: optionalString(body, 'role') ?? 'assistant', content };
  const toolName = optionalString(body, 'toolName');
  if (toolName !== undefined) draft.toolName = toolName;
  const toolParameters = body.toolParameters;
  if (toolParameters !== undefined) {
    if (deployed && (toolParameters === null || isRecord(toolParameters))) draft.toolParameters = toolParameters === null ? null : structuredClone(toolParameters);
    // Objects are accepted for convenience and stored as their JSON text, like the reference service does.
    else draft.toolParameters = typeof toolParameters === 'string' ? toolParameters : JSON.stringify(toolParameters);
  }
  const attachments = deployed ? optionalAttachments(body) : optionalStrings(body, 'attachments');
  if (attachments !== undefined) draft.attachments = attachments;
  const sequence = optionalNumber(body, 'sequence');
  if (sequence !== undefined) draft.sequence = sequence;
  const createdAt = optionalNumber(body, 'createdAt');
  if (createdAt !== undefined) draft.createdAt = createdAt;
  return draft;
}

function optionalAttachments(body: Json): (string | JsonObject)[] | undefined {
  const value = body.attachments;
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' && !isRecord(v))) throw new AdminError(400, '"attachments" must be an array of strings or objects.');
  return structuredClone(value as (string | JsonObject)[]);
}

/**
 * `POST /code-review-conversations`: a code review's conversation (kind `code_review`, a
 * `reviewId`), which progresses like a run and takes no follow-ups. Deployed shapes only.
 */
function openCodeReview(ctx: AdminContext, input: Json): Reply {
  if (ctx.state.settings.shapes !== 'deployed') {
    throw new AdminError(409, 'Code review conversations exist under the deployed shapes: PATCH /__admin/settings {"shapes": "deployed"} (or {"preset": "deployed"}) first.');
  }
  const workspaceId = optionalString(input, 'workspaceId') ?? 'ws_acme';
  const workspace = ctx.state.workspaces.get(workspaceId);
  if (workspace === undefined) throw new AdminError(400, `"workspaceId" must name a workspace; no "${workspaceId}".`);
  const appId = optionalString(input, 'appId') ?? workspace.projects[0]?.appId ?? '';
  const project = ctx.state.findProject(workspace, appId);
  if (project === undefined) throw new AdminError(400, `"appId" must name a project of ${workspaceId}; no "${appId}".`);
  const modelId = optionalString(input, 'model') ?? 'hosted/pro';
  const model = findModel(modelId);
  if (model === undefined) throw new AdminError(400, `"model" must be a current or retired model id; no "${modelId}".`);
  const asking = workspace.members.find((m) => m.role === 'admin') ?? workspace.members[0];
  const fromVersion = optionalString(input, 'fromVersion') ?? 'v41';
  const toVersion = optionalString(input, 'toVersion') ?? 'v42';
  // Made in the service's own UI: listed, but under C its detail is not readable over REST.
  const review = ctx.reviews.open(workspace, project, model, {
    fromVersion, toVersion, fromVersionId: null, toVersionId: null,
    title: optionalString(input, 'title') ?? 'Timeouts for the API client',
    titleGiven: true,
    description: null,
    focusAreas: null,
    requestedByEmail: asking?.email ?? workspace.id,
    requesterNamed: true,
    origin: 'ui',
  });
  const record = ctx.state.agents.get(review.agentId);
  return jsonReply(201, { agentId: review.agentId, reviewId: review.reviewId, kind: record?.kind, status: record?.status, appId: review.appId });
}

/** `PATCH /code-reviews/:id {status}`: moves a review between the buckets of `GET /code-reviews`. */
function patchCodeReview(ctx: AdminContext, reviewId: string, input: Json): Reply {
  const status = input.status;
  if (typeof status !== 'string' || !(REVIEW_STATUSES as readonly string[]).includes(status)) {
    throw new AdminError(400, `"status" must be one of: ${REVIEW_STATUSES.join(', ')}.`);
  }
  const review = ctx.reviews.setStatus(reviewId, status);
  if (review === undefined) throw new AdminError(404, `No code review "${reviewId}".`);
  return jsonReply(200, ctx.reviews.item(review));
}

export function createAdminHandler(ctx: AdminContext): AdminHandler {
  const findAgent = (id: string): AgentRecord => {
    const record = ctx.state.agents.get(id);
    if (record === undefined) throw new AdminError(404, `No agent "${id}".`);
    return record;
  };

  const route = async (method: string, path: string, query: URLSearchParams, body: ReadBody): Promise<Reply> => {
    const parts = path.split('/').filter((p) => p !== '').map((p) => decodeURIComponent(p));
    // `/agents/agt_1/messages` → `/agents/:id/messages`
    const hasId = ['agents', 'tokens', 'workspaces', 'code-reviews'].includes(parts[0]) && parts.length > 1;
    const key = `${method} /${(hasId ? [parts[0], ':id', ...parts.slice(2)] : parts).join('/')}`;

    switch (key) {
      case 'GET /health':
        return jsonReply(200, { ok: true, clock: ctx.scheduler.mode, now: ctx.scheduler.now() });

      case 'GET /requests': {
        const since = Number(query.get('since') ?? '0');
        const from = Number.isInteger(since) && since >= 0 ? since : 0;
        return jsonReply(200, { requests: ctx.log.all.slice(from), next: ctx.log.all.length });
      }
      case 'DELETE /requests':
        ctx.log.clear();
        return jsonReply(200, { ok: true });

      case 'GET /faults':
        return jsonReply(200, { faults: ctx.faults.list() });
      case 'POST /faults': {
        let rule;
        try {
          rule = parseFaultRule(objectBody(body));
        } catch (error) {
          throw new AdminError(400, error instanceof Error ? error.message : 'Invalid fault rule.');
        }
        return jsonReply(201, ctx.faults.add(rule));
      }
      case 'DELETE /faults':
        ctx.faults.clear();
        return jsonReply(200, { ok: true });

      case 'POST /reset':
        ctx.reset();
        return jsonReply(200, { ok: true });

      case 'GET /clock':
        return jsonReply(200, { mode: ctx.scheduler.mode, now: ctx.scheduler.now() });
      case 'POST /clock/advance': {
        const ms = optionalNumber(objectBody(body), 'ms');
        if (ms === undefined || ms < 0) throw new AdminError(400, '"ms" must be a non-negative number.');
        await ctx.scheduler.advance(ms);
        return jsonReply(200, { mode: ctx.scheduler.mode, now: ctx.scheduler.now() });
      }

      case 'GET /agents':
        return jsonReply(200, { agents: [...ctx.state.agents.values()].map((a) => ctx.service.adminView(a)) });
      case 'GET /agents/:id':
        return jsonReply(200, ctx.service.adminView(findAgent(parts[1])));
      case 'PATCH /agents/:id': {
        const record = findAgent(parts[1]);
        patchAgent(ctx, record, objectBody(body));
        // A forced change is a write like any other: a lagging replica shows it late too.
        ctx.service.written(record);
        return jsonReply(200, ctx.service.adminView(record));
      }
      case 'POST /agents/:id/messages': {
        const record = findAgent(parts[1]);
        const input = objectBody(body);
        const deployed = ctx.state.settings.shapes === 'deployed';
        if (input.messages === undefined) return jsonReply(201, ctx.service.appendMessage(record, messageFromBody(input, deployed)));
        // `{ messages: [...] }`: many in one request, in order (a test that writes hundreds between two reads).
        if (!Array.isArray(input.messages) || !input.messages.every(isRecord)) throw new AdminError(400, '"messages" must be an array of message objects.');
        const drafts = input.messages.map((m) => messageFromBody(m, deployed));
        return jsonReply(201, { messages: drafts.map((d) => ctx.service.appendMessage(record, d)) });
      }
      case 'POST /code-review-conversations':
        return openCodeReview(ctx, objectBody(body, true));
      case 'PATCH /code-reviews/:id':
        return patchCodeReview(ctx, parts[1], objectBody(body));

      case 'GET /test-groups':
        return jsonReply(200, { testGroups: ctx.state.testGroupList() });
      case 'GET /webhooks':
        return jsonReply(200, { deliveries: ctx.webhooks.deliveries });

      case 'GET /tokens':
        return jsonReply(200, { tokens: [...ctx.state.tokens.values()].map(tokenSummary) });
      case 'POST /tokens': {
        const input = objectBody(body);
        const workspaceId = optionalString(input, 'workspaceId');
        if (workspaceId === undefined || !ctx.state.workspaces.has(workspaceId)) throw new AdminError(400, '"workspaceId" must name a workspace.');
        const projects: TokenScope = input.projects === undefined || input.projects === 'all' ? 'all' : optionalStrings(input, 'projects') ?? 'all';
        const token: ApiToken = {
          id: newId('tok'),
          name: optionalString(input, 'name') ?? 'Created by admin API',
          value: newTokenValue(),
          workspaceId,
          projects,
          createdAt: ctx.scheduler.now(),
        };
        ctx.state.tokens.set(token.value, token);
        return jsonReply(201, { token: token.value, id: token.id });
      }
      case 'POST /tokens/:id/revoke': {
        const token = ctx.state.findToken(parts[1]);
        if (token === undefined) throw new AdminError(404, 'No such token.');
        token.revokedAt ??= ctx.scheduler.now();
        return jsonReply(200, { ok: true, id: token.id });
      }

      case 'GET /workspaces':
        return jsonReply(200, { workspaces: [...ctx.state.workspaces.values()] });
      case 'PATCH /workspaces/:id': {
        const workspace = ctx.state.workspaces.get(parts[1]);
        if (workspace === undefined) throw new AdminError(404, `No workspace "${parts[1]}".`);
        const input = objectBody(body);
        const credits = optionalNumber(input, 'paidCredits');
        if (credits !== undefined) workspace.paidCredits = credits;
        const limit = input.concurrentAgentLimit;
        if (limit !== undefined) {
          if (limit !== null && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)) {
            throw new AdminError(400, '"concurrentAgentLimit" must be an integer of at least 1, or null (the plan table\'s number).');
          }
          if (limit === null) delete workspace.plan.concurrentAgents;
          else workspace.plan.concurrentAgents = limit;
        }
        const apiAccess = input.apiAccess;
        if (apiAccess !== undefined) {
          if (typeof apiAccess !== 'boolean') throw new AdminError(400, '"apiAccess" must be a boolean.');
          workspace.plan.apiAccess = apiAccess;
        }
        return jsonReply(200, workspace);
      }

      case 'GET /settings':
        return jsonReply(200, ctx.state.settings);
      case 'PATCH /settings': {
        // All or nothing: a patch that fails a check changes no setting.
        try {
          Object.assign(ctx.state.settings, applySettingsPatch(ctx.state.settings, parseSettingsPatch(objectBody(body))));
          // Switching to the deployed shapes puts the deployed profile's seeded runs in place (deployedSeed.ts).
          ctx.service.seedDeployedRuns();
        } catch (error) {
          if (error instanceof SettingsError) throw new AdminError(400, error.message);
          throw error;
        }
        return jsonReply(200, ctx.state.settings);
      }

      default:
        // The app's tests: the version served, holding and cancelling runs, the limit (adminTests.ts).
        return testAdminRoute(ctx, method, parts, body) ?? jsonReply(404, { error: `No admin route ${method} ${path}.` });
    }
  };

  return async (method, path, query, body) => {
    try {
      return await route(method, path, query, body);
    } catch (error) {
      if (error instanceof AdminError) return jsonReply(error.status, { error: error.message });
      if (error instanceof URIError) return jsonReply(400, { error: 'The path is not correctly percent-encoded.' });
      throw error;
    }
  };
}
