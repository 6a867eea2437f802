/**
 * Code reviews and versions (service-api-wider.md §2 and §7), served under the deployed shapes
 * only: `POST /code-reviews`, `GET /code-reviews`, `GET /code-reviews/{reviewId}`, `GET
 * /versions`, `GET /versions/status`, `POST /versions/sync`. A review's agent works in a
 * `code_review` conversation (service.ts `openCodeReview`, reviews.ts); what it records comes
 * from that conversation's progress (reviewFindings.ts). Checks in the order of a start:
 * token, plan, body, app, versions, model and user, concurrency (code reviews count), credits.
 */
import { ServiceChecks } from './checks';
import type { AgentRecord, CodeReviewRecord, Member, Project, Settings, VersionRecord, Workspace } from './domain';
import { ServiceError } from './errors';
import { findModel, MODEL_IDS, type ModelInfo } from './models';
import { newId, type AgentService, type Caller, type ReviewRequester } from './service';
import { avatarOf, latestFindingTime, nameOf, reviewFindings } from './reviewFindings';
import { mentionedIssues } from './shapes';
import { validateBody, webhookField, type BodySpec } from './spec';
import type { EmulatorState } from './state';
import { currentVersion, listVersions, startSync, syncStatus, versionLabel } from './versions';

export const REVIEW_STATUSES = ['open', 'merged', 'closed'] as const;
/** `provider` of a review: version A's four; B adds `cursor`. */
export const REVIEW_PROVIDERS = { A: ['claude', 'openai', 'gemini', 'opencode'], B: ['claude', 'openai', 'gemini', 'opencode', 'cursor'] } as const;
/** The model of a review started without one. */
export const DEFAULT_REVIEW_MODEL = 'hosted/auto';

export const START_CODE_REVIEW_BODY: BodySpec = {
  schemaName: 'StartCodeReviewRequest',
  fields: {
    appId: { type: 'string', required: true, notBlank: true, maxLength: 200, description: 'App ID of a verified project in the token\'s workspace and scope.' },
    fromVersion: { type: 'string', required: true, notBlank: true, maxLength: 200, description: 'The version compared from (a `versionId` of `GET /versions`).' },
    toVersion: { type: 'string', required: true, notBlank: true, maxLength: 200, description: 'The version compared to; not `fromVersion`.' },
    model: { type: 'enum', values: MODEL_IDS, description: `Model of the review agent; absent: \`${DEFAULT_REVIEW_MODEL}\`.` },
    title: { type: 'string', maxLength: 200, description: 'Title of the review; absent: the two versions\' labels.' },
    description: { type: 'string', maxLength: 5_000, description: 'What changed and why.' },
    focusAreas: { type: 'string', maxLength: 2_000, description: 'What the agent should look at first.' },
    completionWebhookUrl: { ...webhookField, description: 'http(s) URL that receives `{event: "agent.completed", agent}` when the review\'s conversation ends.' },
    userEmail: { type: 'string', format: 'email', maxLength: 320, description: 'Required for connected provider models: the member whose credentials run the review; also who is shown as asking.' },
  },
};

const str = (input: Record<string, unknown>, key: string): string | undefined => (typeof input[key] === 'string' ? input[key] : undefined);

/** The provider a model runs on, as a review names it; service-hosted models run on the service's harness. */
export function reviewProvider(model: string, wide: Settings['wideApiVersion']): string {
  const info = findModel(model);
  if (info?.kind === 'connected_provider') {
    if (info.provider === 'anthropic') return 'claude';
    if (info.provider === 'google') return 'gemini';
    return 'openai';
  }
  return wide === 'B' ? 'cursor' : 'opencode';
}

/** Who is shown as asking: the `userEmail` member, else the workspace's first admin (the token's owner). */
function requester(workspace: Workspace, userEmail: string | undefined, state: EmulatorState): Member | undefined {
  if (userEmail !== undefined) return state.findMember(workspace, userEmail);
  return workspace.members.find((m) => m.role === 'admin') ?? workspace.members[0];
}

export class CodeReviewService {
  private readonly checks: ServiceChecks;

  constructor(private readonly state: EmulatorState, private readonly agents: AgentService, private readonly now: () => number, private readonly stepMs: number) {
    this.checks = new ServiceChecks(state, now);
  }

  /** Under the reference shapes none of these routes exists (404 like any unknown route). */
  get served(): boolean {
    return this.state.settings.shapes === 'deployed';
  }

  // ---------------------------------------------------------------- versions

  /** The app of a list or a review: a missing or unknown app is a 400 here (§2 lists no 404). */
  private app(caller: Caller, appId: string | null | undefined): Project {
    if (appId === null || appId === undefined || appId.trim() === '') throw ServiceError.invalid('appId', '`appId` is required.');
    if (this.state.findProject(caller.workspace, appId) === undefined) throw ServiceError.invalid('appId', `No project with app ID "${appId}" in this workspace.`);
    return this.checks.resolveProject(caller, appId);
  }

  private versionsOf(appId: string): VersionRecord[] {
    let list = this.state.versions.get(appId);
    if (list === undefined) {
      list = [];
      this.state.versions.set(appId, list);
    }
    return list;
  }

  private currentVersions(appId: string): VersionRecord[] {
    return this.versionsOf(appId).map((v) => currentVersion(v, this.now(), this.stepMs));
  }

  listVersions(caller: Caller, query: URLSearchParams): Record<string, unknown> {
    const project = this.app(caller, query.get('appId'));
    return listVersions(this.currentVersions(project.appId), query);
  }

  versionStatus(caller: Caller, query: URLSearchParams): Record<string, unknown> {
    const project = this.app(caller, query.get('appId'));
    const versionId = query.get('versionId');
    if (versionId === null || versionId === '') throw ServiceError.invalid('versionId', '`versionId` is required.');
    const version = this.currentVersions(project.appId).find((v) => v.versionId === versionId);
    if (version === undefined) throw ServiceError.invalid('versionId', `No version "${versionId}" of ${project.appId}.`);
    return syncStatus(version);
  }

  /** Always 202 here: the emulator's short wait is no wait, and a sync takes three steps. */
  sync(caller: Caller, body: unknown): Record<string, unknown> {
    const input = validateBody(SYNC_BODY, body);
    const project = this.app(caller, str(input, 'appId'));
    const record = startSync(this.versionsOf(project.appId), project.appId, str(input, 'version') ?? '', this.now(), this.stepMs);
    return syncStatus(currentVersion(record, this.now(), this.stepMs));
  }

  // ---------------------------------------------------------------- reviews

  start(caller: Caller, body: unknown): Record<string, unknown> {
    const input = validateBody(START_CODE_REVIEW_BODY, body);
    const project = this.app(caller, str(input, 'appId'));
    const versions = this.currentVersions(project.appId);
    const from = this.reviewable(versions, 'fromVersion', str(input, 'fromVersion') ?? '');
    const to = this.reviewable(versions, 'toVersion', str(input, 'toVersion') ?? '');
    if (from.versionId === to.versionId) throw ServiceError.invalid('toVersion', '`toVersion` must differ from `fromVersion`.');
    const model = findModel(str(input, 'model') ?? DEFAULT_REVIEW_MODEL) as ModelInfo;
    const userEmail = str(input, 'userEmail');
    this.checks.checkModelUser(caller.workspace, model, userEmail);
    this.checks.checkConcurrency(caller.workspace);
    const credits = this.checks.charge(caller.workspace, model);
    const asking = requester(caller.workspace, userEmail, this.state);
    const requested: ReviewRequester = { createdByTokenId: caller.token.id, credits };
    if (userEmail !== undefined) requested.userEmail = userEmail;
    const webhook = str(input, 'completionWebhookUrl');
    if (webhook !== undefined) requested.completionWebhookUrl = webhook;
    const review = this.open(caller.workspace, project, model, {
      fromVersion: from.versionId, toVersion: to.versionId,
      title: str(input, 'title') ?? `${versionLabel(from)} → ${versionLabel(to)}`,
      description: str(input, 'description') ?? null,
      focusAreas: str(input, 'focusAreas') ?? null,
      requestedByEmail: asking?.email ?? caller.workspace.id,
    }, requested);
    return { reviewId: review.reviewId, agentId: review.agentId, kind: 'code_review', status: 'queued', createdAt: review.createdAt };
  }

  private reviewable(versions: readonly VersionRecord[], field: string, id: string): VersionRecord {
    const version = versions.find((v) => v.versionId === id);
    if (version === undefined) throw ServiceError.invalid(field, `No version "${id}" of this app: pick a \`versionId\` from GET /versions.`);
    if (version.stage !== 'completed') throw ServiceError.invalid(field, `The version "${id}" is ${version.stage}; only completed versions can be reviewed.`);
    return version;
  }

  /** Stores a review and opens its conversation (also used by the admin route and the seed). */
  open(workspace: Workspace, project: Project, model: ModelInfo, fields: Pick<CodeReviewRecord, 'fromVersion' | 'toVersion' | 'title' | 'description' | 'focusAreas' | 'requestedByEmail'>, requested: ReviewRequester = {}): CodeReviewRecord {
    const reviewId = newId('rev');
    const agent = this.agents.openCodeReview(workspace, project, model, { reviewId, ...fields }, requested);
    const sequence = [...this.state.codeReviews.values()].filter((r) => r.appId === project.appId).length + 1;
    const review: CodeReviewRecord = {
      reviewId, agentId: agent.agentId, workspaceId: workspace.id, appId: project.appId, sequence, status: 'open', ...fields,
      model: model.id, createdAt: agent.createdAt, updatedAt: agent.createdAt, mergedAt: null, closedAt: null, mergeId: null,
    };
    this.state.codeReviews.set(reviewId, review);
    return review;
  }

  list(caller: Caller, query: URLSearchParams): Record<string, unknown> {
    const project = this.app(caller, query.get('appId'));
    const limitText = query.get('limit');
    if (limitText !== null && (!/^[0-9]+$/.test(limitText) || Number(limitText) < 1)) throw ServiceError.invalid('limit', '`limit` must be an integer of at least 1.');
    const limit = limitText === null ? Number.POSITIVE_INFINITY : Number(limitText);
    const reviews = [...this.state.codeReviews.values()]
      .filter((r) => r.workspaceId === caller.workspace.id && r.appId === project.appId)
      .sort((a, b) => b.createdAt - a.createdAt || b.sequence - a.sequence);
    const bucket = (status: string): Record<string, unknown>[] => reviews.filter((r) => r.status === status).slice(0, limit).map((r) => this.item(r));
    return { open: bucket('open'), merged: bucket('merged'), closed: bucket('closed') };
  }

  get(caller: Caller, reviewId: string, query: URLSearchParams): Record<string, unknown> {
    const review = this.state.codeReviews.get(reviewId);
    const project = review === undefined || review.workspaceId !== caller.workspace.id ? undefined : this.state.findProject(caller.workspace, review.appId);
    const visible = project !== undefined && (caller.token.projects === 'all' || caller.token.projects.includes(project.appId) || caller.token.projects.includes(project.projectId));
    if (review === undefined || !visible) throw ServiceError.of('not_found', `No code review "${reviewId}" in this workspace.`);
    const agent = this.agents.getAgent(caller, review.agentId, query);
    const findings = reviewFindings(review, this.conversation(review));
    return { reviewId: review.reviewId, review: this.item(review), ...findings, agent };
  }

  private conversation(review: CodeReviewRecord): AgentRecord {
    const agent = this.state.agents.get(review.agentId);
    if (agent === undefined) throw new Error(`review ${review.reviewId} lost its conversation ${review.agentId}`);
    return agent;
  }

  /** A list item (`review` in the detail): every §2 field. */
  item(review: CodeReviewRecord): Record<string, unknown> {
    const agent = this.conversation(review);
    const versions = this.currentVersions(review.appId);
    const label = (id: string): string => {
      const found = versions.find((v) => v.versionId === id);
      return found === undefined ? id : versionLabel(found);
    };
    const issue = mentionedIssues(`${review.title} ${review.description ?? ''}`)[0];
    const identifier = issue?.kind === 'issue' ? issue.identifier : null;
    const ended = agent.status === 'completed' || agent.status === 'error';
    const updatedAt = Math.max(review.updatedAt, agent.updatedAt, latestFindingTime(reviewFindings(review, agent)));
    return {
      id: review.reviewId,
      sequence: review.sequence,
      mergeId: review.mergeId,
      status: review.status,
      title: review.title,
      description: review.description,
      fromVersion: review.fromVersion,
      toVersion: review.toVersion,
      fromVersionLabel: label(review.fromVersion),
      toVersionLabel: label(review.toVersion),
      requestedByName: nameOf(review.requestedByEmail),
      requestedByEmail: review.requestedByEmail,
      requestedByImage: avatarOf(review.requestedByEmail),
      linearIssueId: identifier === null ? null : `lin_${identifier.toLowerCase().replace('-', '_')}`,
      linearIssueIdentifier: identifier,
      provider: reviewProvider(review.model, this.state.settings.wideApiVersion),
      model: review.model,
      conversationStatus: agent.lifecycle.conversationState,
      conversationErrorCode: agent.status === 'error' ? 'agent_error' : null,
      createdAt: review.createdAt,
      updatedAt,
      completedAt: ended ? agent.completedAt ?? null : null,
      mergedAt: review.mergedAt,
      closedAt: review.closedAt,
    };
  }

  /** `PATCH /__admin/code-reviews/:id {status}`: merge, close or re-open (the public API has no way). */
  setStatus(reviewId: string, status: string): CodeReviewRecord | undefined {
    const review = this.state.codeReviews.get(reviewId);
    if (review === undefined) return undefined;
    const now = this.now();
    review.status = status;
    review.updatedAt = now;
    review.mergedAt = status === 'merged' ? now : null;
    review.closedAt = status === 'closed' ? now : null;
    review.mergeId = status === 'merged' ? newId('mrg') : null;
    return review;
  }
}

export const SYNC_BODY: BodySpec = {
  schemaName: 'SyncVersionRequest',
  fields: {
    appId: { type: 'string', required: true, notBlank: true, maxLength: 200, description: 'App ID of the project.' },
    version: { type: 'string', required: true, notBlank: true, maxLength: 200, description: 'Branch id or label to sync.' },
  },
};
