/**
 * The service's behaviour: authentication, the documented checks in a real service's order,
 * agent runs progressing on the emulator clock, follow-ups, test groups and completion
 * webhooks. HTTP concerns (routing, content types, faults) live in server.ts.
 */
import { randomBytes } from 'node:crypto';
import type { Scheduler, TaskHandle } from './clock';
import type { AgentRecord, ApiToken, Message, Project, TestGroupRecord, Turn, Workspace } from './domain';
import { PLAN_REASONS, ServiceError } from './errors';
import { findModel, type ModelInfo } from './models';
import {
  reasoningMessage, unknownAckFields, unknownAgentFields, unknownLifecycleFields, unknownMessageFields, unknownSandboxState, UNKNOWN_VALUES,
} from './habits';
import { planTurn, type MessageDraft, type Step, type TurnScript } from './runs';
import { TOKEN_PREFIX } from './seed';
import { historyLimitFor, parseHistoryLimit } from './settings';
import { rowOf, StaleReads, type RunRow } from './staleReads';
import {
  AGENT_KIND, CREATE_TEST_GROUP_BODY, DEFAULT_PERMISSION, DEFAULT_REASONING_EFFORT, FOLLOW_UP_BODY,
  START_AGENT_BODY, TERMINAL_STATUSES, validateBody,
} from './spec';
import { tokenCovers, type EmulatorState } from './state';
import type { WebhookDispatcher } from './webhooks';

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/** Who is calling, once the token is accepted. */
export interface Caller {
  token: ApiToken;
  workspace: Workspace;
}

/** The public JSON view of a run, as `GET /agents/{id}` and webhooks send it. */
export type AgentView = Record<string, unknown>;

interface ActiveTurn {
  turn: Turn;
  script: TurnScript;
  nextStep: number;
}

const str = (record: Record<string, unknown>, key: string): string | undefined => {
  const value = record[key];
  return typeof value === 'string' ? value : undefined;
};
const strings = (record: Record<string, unknown>, key: string): string[] | undefined => {
  const value = record[key];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
};

export class AgentService {
  private readonly active = new Map<string, ActiveTurn>();
  private readonly ticks = new Map<string, TaskHandle>();
  private readonly stale: StaleReads;

  constructor(
    private readonly state: EmulatorState,
    private readonly scheduler: Scheduler,
    private readonly webhooks: WebhookDispatcher,
    private readonly stepMs: number,
  ) {
    this.stale = new StaleReads(state.settings, () => scheduler.now());
  }

  /** Forgets every run in progress (the state itself is reloaded by the caller). */
  reset(): void {
    for (const handle of this.ticks.values()) this.scheduler.cancel(handle);
    this.ticks.clear();
    this.active.clear();
    this.stale.reset();
  }

  /** Every change to a run ends here, so a lagging replica can serve the run as it was (staleReads.ts). */
  written(record: AgentRecord): void {
    this.stale.written(record);
  }

  private now(): number {
    return this.scheduler.now();
  }

  /** The answer of start and follow-up, with the unknown fields when they are on. */
  private ack(record: AgentRecord, fields: Record<string, unknown>): Record<string, unknown> {
    return this.state.settings.unknownFields ? { ...fields, ...unknownAckFields(record) } : fields;
  }

  // ---------------------------------------------------------------- auth and plan

  /** 401 for a missing, malformed, unknown or revoked token; then 402 when the plan lacks API access. */
  authenticate(authorization: string | undefined): Caller {
    if (authorization === undefined || authorization.trim() === '') {
      throw ServiceError.unauthorized('Missing API token: send the header `Authorization: Bearer <API_TOKEN>`.');
    }
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    if (match === null) throw ServiceError.unauthorized('The Authorization header must use the Bearer scheme: `Authorization: Bearer <API_TOKEN>`.');
    const value = match[1];
    const token = value.startsWith(`${TOKEN_PREFIX}_`) ? this.state.tokens.get(value) : undefined;
    if (token === undefined) throw ServiceError.unauthorized('Invalid API token.');
    if (token.revokedAt !== undefined) throw ServiceError.unauthorized('This API token has been revoked.');
    const workspace = this.state.workspaces.get(token.workspaceId);
    if (workspace === undefined) throw ServiceError.unauthorized('Invalid API token.');
    token.lastUsedAt = this.now();
    if (!workspace.plan.apiAccess) {
      throw ServiceError.of('api_access_required', `The ${workspace.plan.name} plan of workspace "${workspace.name}" does not include REST API access. Upgrade the plan to use the API.`, {
        reason: PLAN_REASONS.noApiAccess,
      });
    }
    return { token, workspace };
  }

  // ---------------------------------------------------------------- shared checks

  /** 404 when the app is not a project of the workspace, 403 when unverified or outside the token's scope. */
  private resolveProject(caller: Caller, appId: string): Project {
    const project = this.state.findProject(caller.workspace, appId);
    if (project === undefined) throw ServiceError.of('app_not_found', `No project with app ID "${appId}" in this workspace.`, { field: 'appId' });
    if (!project.verified) {
      throw ServiceError.of('project_not_verified', `The project "${project.projectName}" (app ID "${appId}") is not verified; only verified projects can be used with the API.`, { field: 'appId' });
    }
    if (!tokenCovers(caller.token, project)) {
      throw ServiceError.of('app_outside_token_scope', `This API token is not scoped to the project "${project.projectName}" (app ID "${appId}").`, { field: 'appId' });
    }
    return project;
  }

  /** The checks that tie a connected provider model to a member's credentials. */
  private checkModelUser(workspace: Workspace, model: ModelInfo, userEmail: string | undefined): void {
    if (userEmail === undefined) {
      if (model.kind === 'connected_provider') {
        throw ServiceError.of('user_email_required', `The model "${model.id}" runs on a workspace member's ${model.provider} credentials: send \`userEmail\`.`, { field: 'userEmail' });
      }
      return;
    }
    const member = this.state.findMember(workspace, userEmail);
    if (member === undefined) {
      throw ServiceError.of('user_not_workspace_member', `${userEmail} is not a member of workspace "${workspace.name}".`, { field: 'userEmail' });
    }
    if (model.kind === 'connected_provider' && !member.credentials.some((c) => c.provider === model.provider && c.active)) {
      throw ServiceError.of('missing_provider_credentials', `${userEmail} has no active ${model.provider} credentials connected in this workspace.`, { field: 'userEmail' });
    }
  }

  /** 402 when a service-hosted model costs more than the balance; otherwise charges the turn. */
  private charge(workspace: Workspace, model: ModelInfo): number {
    if (model.kind !== 'service_hosted') return 0;
    if (workspace.paidCredits < model.creditsPerTurn) {
      throw ServiceError.of(
        'insufficient_paid_credits',
        `Workspace "${workspace.name}" has ${workspace.paidCredits} paid credits; a turn of "${model.id}" needs ${model.creditsPerTurn}.`,
        { reason: PLAN_REASONS.lowCredits },
      );
    }
    workspace.paidCredits -= model.creditsPerTurn;
    return model.creditsPerTurn;
  }

  /** A run the caller may see: same workspace, and an app inside the token's scope. */
  private visibleAgent(caller: Caller, agentId: string): AgentRecord {
    const record = this.state.agents.get(agentId);
    const project = record === undefined ? undefined : this.state.findProject(caller.workspace, record.appId);
    if (record === undefined || record.workspaceId !== caller.workspace.id || project === undefined || !tokenCovers(caller.token, project)) {
      throw ServiceError.of('agent_not_found', `No agent run "${agentId}" in this workspace.`);
    }
    return record;
  }

  // ---------------------------------------------------------------- endpoints

  startAgent(caller: Caller, body: unknown): Record<string, unknown> {
    const input = validateBody(START_AGENT_BODY, body);
    const project = this.resolveProject(caller, str(input, 'appId') ?? '');
    const model = findModel(str(input, 'model') ?? '');
    if (model === undefined) throw ServiceError.invalid('model', '`model` is not a known model.');
    const userEmail = str(input, 'userEmail');
    this.checkModelUser(caller.workspace, model, userEmail);
    const credits = this.charge(caller.workspace, model);

    const now = this.now();
    const record: AgentRecord = {
      agentId: newId('agt'),
      kind: AGENT_KIND,
      workspaceId: caller.workspace.id,
      appId: project.appId,
      projectId: project.projectId,
      projectName: project.projectName,
      model: model.id,
      reasoningEffort: str(input, 'reasoningEffort') ?? DEFAULT_REASONING_EFFORT,
      permission: str(input, 'permission') ?? DEFAULT_PERMISSION,
      permittedBranches: strings(input, 'permittedBranches') ?? [],
      createdByTokenId: caller.token.id,
      status: 'queued',
      createdAt: now,
      updatedAt: now,
      history: [],
      lifecycle: { conversationState: 'queued', sandboxState: 'cold', queuedTurnCount: 1, lastLifecycleEventAt: now },
      pendingTurns: [{ number: 1, prompt: str(input, 'prompt') ?? '', acceptedAt: now, creditsCharged: credits }],
      turnCount: 1,
      creditsCharged: credits,
      extraFields: {},
      halted: false,
    };
    if (userEmail !== undefined) record.userEmail = userEmail;
    const webhook = str(input, 'completionWebhookUrl');
    if (webhook !== undefined) record.completionWebhookUrl = webhook;
    this.state.agents.set(record.agentId, record);
    this.written(record);
    this.scheduleTick(record);
    return this.ack(record, { agentId: record.agentId, kind: record.kind, status: record.status, appId: record.appId, projectId: record.projectId, createdAt: record.createdAt });
  }

  /**
   * `historyLimit` (query) asks for the most recent N messages; checked before the run is looked
   * up, like body fields. The run may be served as a lagging copy holds it (staleReads.ts).
   */
  getAgent(caller: Caller, agentId: string, query: URLSearchParams): AgentView {
    const requested = parseHistoryLimit(query);
    const record = this.visibleAgent(caller, agentId);
    const unseenFor = this.state.settings.notFoundAfterStartMs;
    if (unseenFor !== null && this.now() - record.createdAt < unseenFor) {
      // A replica that has not seen the new run yet: the same answer as for a run that does not exist.
      throw ServiceError.of('agent_not_found', `No agent run "${agentId}" in this workspace.`);
    }
    return this.view(record, historyLimitFor(this.state.settings, requested), this.stale.read(record));
  }

  followUp(caller: Caller, agentId: string, body: unknown): Record<string, unknown> {
    const input = validateBody(FOLLOW_UP_BODY, body);
    const record = this.visibleAgent(caller, agentId);
    // The run keeps its model: connected provider runs still need the member's credentials,
    // service-hosted runs pay for every turn.
    const model = findModel(record.model);
    if (model?.kind === 'connected_provider') this.checkModelUser(caller.workspace, model, record.userEmail);
    const credits = model === undefined ? 0 : this.charge(caller.workspace, model);
    record.creditsCharged += credits;

    const now = this.now();
    const previous = rowOf(record);
    const permission = str(input, 'permission');
    if (permission !== undefined) record.permission = permission;
    const branches = strings(input, 'permittedBranches');
    if (branches !== undefined) record.permittedBranches = branches;
    const webhook = str(input, 'completionWebhookUrl');
    if (webhook !== undefined) record.completionWebhookUrl = webhook;

    record.turnCount += 1;
    const turn: Turn = { number: record.turnCount, prompt: str(input, 'prompt') ?? '', acceptedAt: now, creditsCharged: credits };
    record.pendingTurns.push(turn);
    record.lifecycle.queuedTurnCount = record.pendingTurns.length;
    record.updatedAt = now;

    const busy = this.active.has(record.agentId) || this.ticks.has(record.agentId);
    if (!busy && this.stale.storesPromptOnAcceptance()) {
      // That implementation writes the prompt at once; the run row follows when the turn is picked up.
      this.appendMessage(record, { role: 'user', content: turn.prompt });
      turn.promptStored = true;
    }
    if (!busy) {
      // A finished (or admin-halted) run re-opens: queued, then running on the next tick.
      record.halted = false;
      record.status = 'queued';
      delete record.completedAt;
      delete record.lastError;
      record.lifecycle.conversationState = 'queued';
      record.lifecycle.lastLifecycleEventAt = now;
      this.scheduleTick(record);
    }
    this.written(record);
    if (!busy) this.stale.followUpAccepted(record, previous);
    return this.ack(record, { agentId: record.agentId, kind: record.kind, status: record.status });
  }

  createTestGroup(caller: Caller, body: unknown): { groupId: string } {
    const input = validateBody(CREATE_TEST_GROUP_BODY, body);
    const project = this.resolveProject(caller, str(input, 'appId') ?? '');
    const description = input.description;
    const group: TestGroupRecord = {
      groupId: newId('tg'),
      workspaceId: caller.workspace.id,
      appId: project.appId,
      projectId: project.projectId,
      name: str(input, 'name') ?? '',
      description: typeof description === 'string' ? description : null,
      testIds: strings(input, 'testIds') ?? [],
      createdAt: this.now(),
      createdByTokenId: caller.token.id,
    };
    this.state.testGroups.set(group.groupId, group);
    return { groupId: group.groupId };
  }

  // ---------------------------------------------------------------- views

  /**
   * The public Agent object; `historyLimit` keeps only the most recent messages (`sequence` stays
   * that of the whole conversation). `row`: the run as the answering copy holds it (default: now).
   */
  view(record: AgentRecord, historyLimit: number | null, row: RunRow = rowOf(record)): AgentView {
    const served = record.history.slice(0, row.historyLength);
    const kept = historyLimit === null ? served : served.slice(Math.max(0, served.length - historyLimit));
    const unknown = this.state.settings.unknownFields;
    const history = unknown ? kept.map((m) => ({ ...m, ...unknownMessageFields(m) })) : kept;
    const view: AgentView = {
      agentId: record.agentId,
      kind: record.kind,
      status: row.status,
      appId: record.appId,
      projectId: record.projectId,
    };
    if (record.projectName !== undefined) view.projectName = record.projectName;
    Object.assign(view, {
      model: record.model,
      reasoningEffort: record.reasoningEffort,
      permission: row.permission,
      permittedBranches: row.permittedBranches,
      createdAt: record.createdAt,
      updatedAt: row.updatedAt,
    });
    if (row.completedAt !== undefined) view.completedAt = row.completedAt;
    if (row.lastError !== undefined) view.lastError = row.lastError;
    view.history = history;
    view.lifecycle = unknown ? { ...row.lifecycle, ...unknownLifecycleFields(row.lifecycle) } : row.lifecycle;
    if (unknown) Object.assign(view, unknownAgentFields(record));
    Object.assign(view, record.extraFields);
    return structuredClone(view);
  }

  /** The internal view for `/__admin/agents/:id`: everything, including queued prompts. */
  adminView(record: AgentRecord): Record<string, unknown> {
    const active = this.active.get(record.agentId);
    return structuredClone({
      ...record,
      activeTurn: active === undefined
        ? null
        : { number: active.turn.number, prompt: active.turn.prompt, stepsDone: active.nextStep, stepsTotal: active.script.steps.length },
      tickScheduled: this.ticks.has(record.agentId),
    });
  }

  // ---------------------------------------------------------------- admin operations

  appendMessage(record: AgentRecord, draft: Omit<Message, 'id' | 'sequence' | 'createdAt'> & Partial<Pick<Message, 'sequence' | 'createdAt'>>): Message {
    const now = this.now();
    const last = record.history.reduce((max, m) => Math.max(max, m.sequence), 0);
    const message: Message = {
      id: newId('msg'),
      sequence: draft.sequence ?? last + 1,
      role: draft.role,
      content: draft.content,
      ...(draft.toolName !== undefined ? { toolName: draft.toolName } : {}),
      ...(draft.toolParameters !== undefined ? { toolParameters: draft.toolParameters } : {}),
      ...(draft.attachments !== undefined ? { attachments: draft.attachments } : {}),
      createdAt: draft.createdAt ?? now,
    };
    record.history.push(message);
    record.updatedAt = now;
    this.written(record);
    return message;
  }

  /**
   * Stops a run from progressing on its own (used when an admin forces its status): the turn
   * in progress and the queued ones are dropped (their credits stay spent), as a cancel would.
   */
  halt(record: AgentRecord): void {
    this.scheduler.cancel(this.ticks.get(record.agentId));
    this.ticks.delete(record.agentId);
    this.active.delete(record.agentId);
    record.pendingTurns = [];
    record.lifecycle.queuedTurnCount = 0;
    record.halted = true;
  }

  // ---------------------------------------------------------------- progression

  private scheduleTick(record: AgentRecord): void {
    if (this.ticks.has(record.agentId)) return;
    const handle = this.scheduler.schedule(this.stepMs, () => {
      this.ticks.delete(record.agentId);
      this.tick(record);
    });
    this.ticks.set(record.agentId, handle);
  }

  private tick(record: AgentRecord): void {
    if (record.halted || this.state.agents.get(record.agentId) !== record) return;
    const active = this.active.get(record.agentId);
    if (active === undefined) {
      this.beginNextTurn(record);
    } else if (active.nextStep < active.script.steps.length) {
      this.applyStep(record, active.script.steps[active.nextStep]);
      active.nextStep += 1;
    } else {
      this.endTurn(record, active);
    }
    this.written(record);
    if (this.active.has(record.agentId) || record.pendingTurns.length > 0) this.scheduleTick(record);
  }

  private lifecycleEvent(record: AgentRecord, changes: { conversationState?: string; sandboxState?: string }): void {
    const now = this.now();
    if (changes.conversationState !== undefined) record.lifecycle.conversationState = changes.conversationState;
    if (changes.sandboxState !== undefined) {
      record.lifecycle.sandboxState = this.state.settings.unknownValues ? unknownSandboxState(changes.sandboxState) : changes.sandboxState;
    }
    record.lifecycle.queuedTurnCount = record.pendingTurns.length;
    record.lifecycle.lastLifecycleEventAt = now;
    record.updatedAt = now;
  }

  private beginNextTurn(record: AgentRecord): void {
    const turn = record.pendingTurns.shift();
    if (turn === undefined) return;
    const script = planTurn({
      prompt: turn.prompt,
      turnNumber: turn.number,
      projectName: record.projectName ?? record.appId,
      model: record.model,
      permission: record.permission,
      permittedBranches: record.permittedBranches,
    });
    this.active.set(record.agentId, { turn, script, nextStep: 0 });
    record.status = 'running';
    delete record.lastError;
    if (turn.promptStored !== true) this.appendMessage(record, { role: 'user', content: turn.prompt });
    const unknownValues = this.state.settings.unknownValues;
    if (unknownValues) this.appendMessage(record, reasoningMessage(turn.prompt));
    const sandboxState = record.lifecycle.sandboxState === 'ready' ? 'ready' : 'provisioning';
    this.lifecycleEvent(record, { conversationState: unknownValues ? UNKNOWN_VALUES.turnStartConversationState : 'thinking', sandboxState });
  }

  private applyStep(record: AgentRecord, step: Step): void {
    for (const draft of step.messages) this.appendDraft(record, draft);
    this.lifecycleEvent(record, { conversationState: step.conversationState, sandboxState: step.sandboxState });
  }

  private appendDraft(record: AgentRecord, draft: MessageDraft): void {
    this.appendMessage(record, { ...draft, attachments: draft.attachments === undefined ? undefined : [...draft.attachments] });
  }

  private endTurn(record: AgentRecord, active: ActiveTurn): void {
    this.active.delete(record.agentId);
    const outcome = active.script.outcome;
    if (outcome.status === 'error') {
      this.appendMessage(record, { role: 'system', content: `Turn ${active.turn.number} failed: ${outcome.error}` });
    }
    if (record.pendingTurns.length > 0) {
      // Queued follow-ups run next; the run stays `running` and no webhook is sent yet.
      this.beginNextTurn(record);
      return;
    }
    const now = this.now();
    record.status = outcome.status;
    record.completedAt = now;
    if (outcome.status === 'error') {
      record.lastError = outcome.error;
      this.lifecycleEvent(record, { conversationState: 'finished', sandboxState: 'stopped' });
    } else {
      const waiting = outcome.conversationState === 'awaiting_input';
      this.lifecycleEvent(record, { conversationState: outcome.conversationState, sandboxState: waiting ? 'ready' : 'stopped' });
    }
    if (TERMINAL_STATUSES.includes(record.status) && record.completionWebhookUrl !== undefined) {
      this.webhooks.enqueue(record.agentId, 'agent.completed', record.completionWebhookUrl, { event: 'agent.completed', agent: this.view(record, null) });
    }
  }
}
