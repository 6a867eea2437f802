/**
 * Code reviews and versions (service-api-wider.md §2 and §7), served under the deployed shapes
 * only: `POST /code-reviews`, `GET /code-reviews`, `GET /code-reviews/{reviewId}`, `GET
 * /versions`, `GET /versions/status`, `POST /versions/sync`, in the published version in force
 * (`state.wider`; C: branch-or-version names, list items without `id`, C's nulls). A review's
 * agent works in a `code_review` conversation (service.ts `openCodeReview`, reviews.ts); what it
 * records comes from that conversation's progress (reviewFindings.ts). Checks in the order of a
 * start: token, plan, body, app, versions, model and user, concurrency (reviews count), credits.
 */
import { ServiceChecks } from './checks';
import type { Scheduler, TaskHandle } from './clock';
import type { AgentRecord, CodeReviewRecord, Member, Project, Settings, VersionRecord, Workspace } from './domain';
import { ServiceError, VERSION_REASONS } from './errors';
import { jsonReply, type Reply } from './http';
import { findModel, MODEL_IDS, type ModelInfo } from './models';
import { newId, type AgentService, type Caller, type ReviewRequester } from './service';
import { avatarOf, latestFindingTime, nameOf, reviewFindings } from './reviewFindings';
import { mentionedIssues } from './shapes';
import { validateBody, webhookField, type BodySpec } from './spec';
import type { EmulatorState } from './state';
import type { WiderVersion } from './testDomain';
import { branchOf, currentVersion, listVersions, newestCompleted, startSync, syncEndsAt, syncStatus, unknownBranchSync, versionLabel } from './versions';

export const REVIEW_STATUSES = ['open', 'merged', 'closed'] as const;
/** `provider` of a review: version A's four; B adds `cursor` (`wideApiVersion: 'B'`); C has A's four again. */
export const REVIEW_PROVIDERS = { A: ['claude', 'openai', 'gemini', 'opencode'], B: ['claude', 'openai', 'gemini', 'opencode', 'cursor'] } as const;
/** The model of a review started without one. */
export const DEFAULT_REVIEW_MODEL = 'hosted/auto';

export const START_CODE_REVIEW_BODY: BodySpec = {
  schemaName: 'StartCodeReviewRequest',
  fields: {
    appId: { type: 'string', required: true, notBlank: true, maxLength: 200, description: 'App ID of a verified project in the token\'s workspace and scope.' },
    fromVersion: { type: 'string', required: true, notBlank: true, maxLength: 200, description: 'The source compared: a `versionId` of `GET /versions` (C: or a branch ID or display label, meaning its newest completed version).' },
    toVersion: { type: 'string', required: true, notBlank: true, maxLength: 200, description: 'The target compared, named like `fromVersion`; not the same version.' },
    model: { type: 'enum', values: MODEL_IDS, description: `Model of the review agent; absent: \`${DEFAULT_REVIEW_MODEL}\`.` },
    title: { type: 'string', maxLength: 200, description: 'Title of the review; absent: the two versions\' labels.' },
    description: { type: 'string', maxLength: 5_000, description: 'What changed and why.' },
    focusAreas: { type: 'string', maxLength: 2_000, description: 'What the agent should look at first.' },
    completionWebhookUrl: { ...webhookField, description: 'http(s) URL that receives `{event: "agent.completed", agent}` when the review\'s conversation ends.' },
    userEmail: { type: 'string', format: 'email', maxLength: 320, description: 'Required for connected provider models: the member whose credentials run the review; also who is shown as asking.' },
  },
};

const str = (input: Record<string, unknown>, key: string): string | undefined => (typeof input[key] === 'string' ? input[key] : undefined);

/** The provider a model runs on, as a review names it; service-hosted models run on the service's harness (C has no `cursor`). */
export function reviewProvider(model: string, wide: Settings['wideApiVersion'], wider: WiderVersion): string {
  const info = findModel(model);
  if (info?.kind === 'connected_provider') {
    if (info.provider === 'anthropic') return 'claude';
    if (info.provider === 'google') return 'gemini';
    return 'openai';
  }
  return wide === 'B' && wider !== 'C' ? 'cursor' : 'opencode';
}

/** Who is shown as asking: the `userEmail` member, else the workspace's first admin (the token's owner). */
function requester(workspace: Workspace, userEmail: string | undefined, state: EmulatorState): Member | undefined {
  if (userEmail !== undefined) return state.findMember(workspace, userEmail);
  return workspace.members.find((m) => m.role === 'admin') ?? workspace.members[0];
}

/** A `POST /versions/sync` waiting for its sync: answered when the sync ends or the wait is over. */
interface SyncWait {
  handle: TaskHandle;
  answer: () => void;
}

export class CodeReviewService {
  private readonly checks: ServiceChecks;
  private readonly waits = new Set<SyncWait>();

  constructor(private readonly state: EmulatorState, private readonly agents: AgentService, private readonly scheduler: Scheduler, private readonly stepMs: number) {
    this.checks = new ServiceChecks(state, () => scheduler.now());
  }

  private now(): number {
    return this.scheduler.now();
  }

  private get wider(): WiderVersion {
    return this.state.wider;
  }

  /** Answers every sync still waiting, as things stand (on reset and close). */
  releaseSyncWaits(): void {
    for (const wait of [...this.waits]) {
      this.scheduler.cancel(wait.handle);
      wait.answer();
    }
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
    return listVersions(this.currentVersions(project.appId), query, this.wider);
  }

  versionStatus(caller: Caller, query: URLSearchParams): Record<string, unknown> {
    const project = this.app(caller, query.get('appId'));
    const versionId = query.get('versionId');
    if (versionId === null || versionId === '') throw ServiceError.invalid('versionId', '`versionId` is required.');
    const version = this.currentVersions(project.appId).find((v) => v.versionId === versionId);
    if (version === undefined) throw ServiceError.invalid('versionId', `No version "${versionId}" of ${project.appId}.`);
    return syncStatus(version, this.wider);
  }

  /**
   * `POST /versions/sync`: waits up to `state.syncWaitSteps` steps of the clock for the sync, then
   * answers 200 when it ended (completed or failed) and 202 while it runs. A branch the app does
   * not have fails at once (200).
   */
  async sync(caller: Caller, body: unknown): Promise<Reply> {
    const input = validateBody(SYNC_BODY, body);
    const project = this.app(caller, str(input, 'appId'));
    const name = str(input, 'version') ?? '';
    const branch = branchOf(name);
    if (branch === undefined) return jsonReply(200, unknownBranchSync(name, this.wider));
    const failWith = this.state.syncFailures.get(syncFailureKey(project.appId, branch.version));
    const record = startSync(this.versionsOf(project.appId), project.appId, branch, this.now(), this.stepMs, failWith);
    const waitUntil = Math.min(this.now() + this.state.syncWaitSteps * this.stepMs, syncEndsAt(record, this.stepMs));
    if (waitUntil > this.now()) await this.waitUntil(waitUntil);
    const current = currentVersion(record, this.now(), this.stepMs);
    const ended = current.stage === 'completed' || current.stage === 'failed';
    return jsonReply(ended ? 200 : 202, syncStatus(current, this.wider));
  }

  private waitUntil(at: number): Promise<void> {
    return new Promise((resolve) => {
      const wait: SyncWait = {
        handle: this.scheduler.schedule(at - this.now(), () => wait.answer()),
        answer: () => {
          this.waits.delete(wait);
          resolve();
        },
      };
      this.waits.add(wait);
    });
  }

  // ---------------------------------------------------------------- reviews

  start(caller: Caller, body: unknown): Record<string, unknown> {
    const input = validateBody(START_CODE_REVIEW_BODY, body);
    const project = this.app(caller, str(input, 'appId'));
    const versions = this.currentVersions(project.appId);
    const fromName = str(input, 'fromVersion') ?? '';
    const toName = str(input, 'toVersion') ?? '';
    const from = this.reviewable(versions, 'fromVersion', fromName);
    const to = this.reviewable(versions, 'toVersion', toName);
    if (from.versionId === to.versionId) throw ServiceError.invalid('toVersion', `\`toVersion\` must differ from \`fromVersion\`: both are ${versionLabel(from)}.`);
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
    const title = str(input, 'title');
    const review = this.open(caller.workspace, project, model, {
      fromVersion: fromName, toVersion: toName, fromVersionId: from.versionId, toVersionId: to.versionId,
      title: title ?? `${this.label(versions, fromName, 'A')} → ${this.label(versions, toName, 'A')}`,
      titleGiven: title !== undefined,
      description: str(input, 'description') ?? null,
      focusAreas: str(input, 'focusAreas') ?? null,
      requestedByEmail: asking?.email ?? caller.workspace.id,
      requesterNamed: userEmail !== undefined,
      origin: 'rest',
    }, requested);
    return { reviewId: review.reviewId, agentId: review.agentId, kind: 'code_review', status: 'queued', createdAt: review.createdAt };
  }

  /** The version a review compares: a `versionId`, or (C) a branch's newest completed version at the time of the request. */
  private reviewable(versions: readonly VersionRecord[], field: string, name: string): VersionRecord {
    const version = versions.find((v) => v.versionId === name);
    const branch = this.wider === 'C' && version === undefined ? branchOf(name) : undefined;
    if (branch !== undefined) {
      const newest = newestCompleted(versions, branch.version);
      if (newest === undefined) {
        throw ServiceError.of('invalid_request', `The branch "${branch.label}" (${branch.version}) has no synced version yet: sync it first (POST /versions/sync), then start the review once the sync completed.`, {
          field, reason: VERSION_REASONS.notSynced,
        });
      }
      return newest;
    }
    if (version === undefined) {
      const hint = this.wider === 'C' ? 'name a branch ID or label, or a `versionId` from GET /versions' : 'pick a `versionId` from GET /versions';
      throw ServiceError.invalid(field, `No ${this.wider === 'C' ? 'branch or version' : 'version'} "${name}" in this app: ${hint}.`);
    }
    if (version.stage !== 'completed') throw ServiceError.invalid(field, `The version "${name}" is ${version.stage}; only completed versions can be reviewed.`);
    return version;
  }

  /** How a compared name is shown: a branch by its label, a version as `<branch label> #<n>`; anything else its name (C: null). */
  private label(versions: readonly VersionRecord[], name: string, wider: WiderVersion): string | null {
    const version = versions.find((v) => v.versionId === name);
    if (version !== undefined) return versionLabel(version);
    const branch = branchOf(name);
    if (branch !== undefined) return branch.label;
    return wider === 'C' ? null : name;
  }

  /** Stores a review and opens its conversation (also used by the admin route and the seed). */
  open(workspace: Workspace, project: Project, model: ModelInfo, fields: ReviewFields, requested: ReviewRequester = {}): CodeReviewRecord {
    const reviewId = newId('rev');
    const { fromVersion, toVersion, title, description, focusAreas } = fields;
    const agent = this.agents.openCodeReview(workspace, project, model, { reviewId, fromVersion, toVersion, title, description, focusAreas }, requested);
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
    if (this.wider === 'C' && review.origin !== 'rest') throw ServiceError.of('not_found', `No code review "${reviewId}" created over the REST API in this workspace.`);
    const agent = this.agents.getAgent(caller, review.agentId, query);
    const findings = reviewFindings(review, this.conversation(review));
    return { reviewId: review.reviewId, review: this.item(review), ...findings, agent };
  }

  private conversation(review: CodeReviewRecord): AgentRecord {
    const agent = this.state.agents.get(review.agentId);
    if (agent === undefined) throw new Error(`review ${review.reviewId} lost its conversation ${review.agentId}`);
    return agent;
  }

  /** A list item (`review` in the detail): every §2 field of the version in force (C: no `id`, its nulls, no conversation fields). */
  item(review: CodeReviewRecord): Record<string, unknown> {
    const agent = this.conversation(review);
    const versions = this.currentVersions(review.appId);
    const c = this.wider === 'C';
    const requester = c && !review.requesterNamed ? null : review.requestedByEmail;
    const issue = mentionedIssues(`${review.title} ${review.description ?? ''}`)[0];
    const identifier = issue?.kind === 'issue' ? issue.identifier : null;
    const ended = agent.status === 'completed' || agent.status === 'error';
    const updatedAt = Math.max(review.updatedAt, agent.updatedAt, latestFindingTime(reviewFindings(review, agent)));
    return {
      ...(c ? {} : { id: review.reviewId }),
      sequence: review.sequence,
      mergeId: review.mergeId,
      status: review.status,
      title: c && !review.titleGiven ? null : review.title,
      description: review.description,
      fromVersion: review.fromVersion,
      toVersion: review.toVersion,
      fromVersionLabel: this.label(versions, review.fromVersion, this.wider),
      toVersionLabel: this.label(versions, review.toVersion, this.wider),
      requestedByName: requester === null ? null : nameOf(requester),
      requestedByEmail: requester,
      requestedByImage: requester === null ? null : avatarOf(requester),
      linearIssueId: identifier === null ? null : `lin_${identifier.toLowerCase().replace('-', '_')}`,
      linearIssueIdentifier: identifier,
      provider: reviewProvider(review.model, this.state.settings.wideApiVersion, this.wider),
      model: review.model,
      ...(c ? {} : { conversationStatus: agent.lifecycle.conversationState, conversationErrorCode: agent.status === 'error' ? 'agent_error' : null }),
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

/** What a new review stores besides its ids, sequence, status and times. */
export type ReviewFields = Pick<CodeReviewRecord, 'fromVersion' | 'toVersion' | 'fromVersionId' | 'toVersionId' | 'title' | 'titleGiven' | 'description' | 'focusAreas' | 'requestedByEmail' | 'requesterNamed' | 'origin'>;

/** The key of `state.syncFailures`. */
export const syncFailureKey = (appId: string, branch: string): string => `${appId} ${branch}`;

export const SYNC_BODY: BodySpec = {
  schemaName: 'SyncVersionRequest',
  fields: {
    appId: { type: 'string', required: true, notBlank: true, maxLength: 200, description: 'App ID of the project.' },
    version: { type: 'string', required: true, notBlank: true, maxLength: 200, description: 'Branch id or label to sync.' },
  },
};
