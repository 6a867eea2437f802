/**
 * The service's behaviour: authentication, the documented checks in a real service's order,
 * agent runs progressing on the emulator clock, follow-ups, test groups and completion
 * webhooks. HTTP concerns (routing, content types, faults) live in server.ts.
 */
import { ServiceChecks } from './checks';
import type { Scheduler, TaskHandle } from './clock';
import type { AgentRecord, CodeReviewInfo, Message, Project, TestGroupRecord, Turn, Workspace } from './domain';
import { seedDeployedRuns } from './deployedSeed';
import { CONFLICT_REASONS, ServiceError } from './errors';
import { findModel, type ModelInfo } from './models';
import { reasoningMessage, unknownAckFields, unknownSandboxState, UNKNOWN_VALUES } from './habits';
import { messageOf, newId, type Caller, type MessageInput, type NewConversation, type ReviewRequester } from './records';
import { planReviewTurn, reviewPrompt } from './reviews';
import { planTurn, type MessageDraft, type Step, type TurnScript } from './runs';
import { historyLimitFor, parseHistoryLimit } from './settings';
import { CODE_REVIEW_KIND, lifecycleWords, mentionedIssues, writeAttachments, type LifecycleChange, type LifecycleWords } from './shapes';
import { rowOf, StaleReads, type RunRow } from './staleReads';
import {
  AGENT_KIND, CREATE_TEST_GROUP_BODY, DEFAULT_PERMISSION, DEFAULT_REASONING_EFFORT, FOLLOW_UP_BODY,
  START_AGENT_BODY, TERMINAL_STATUSES, validateBody,
} from './spec';
import type { EmulatorState } from './state';
import { agentView, type AgentView } from './views';
import type { WebhookDispatcher } from './webhooks';

export type { AgentView } from './views';
export { newId, type Caller, type ReviewRequester } from './records';

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
  private readonly checks: ServiceChecks;

  constructor(
    private readonly state: EmulatorState,
    private readonly scheduler: Scheduler,
    private readonly webhooks: WebhookDispatcher,
    private readonly stepMs: number,
  ) {
    this.stale = new StaleReads(state.settings, () => scheduler.now());
    this.checks = new ServiceChecks(state, () => scheduler.now());
  }

  /** 401 for a missing, malformed, unknown or revoked token; then 402 when the plan lacks API access. */
  authenticate(authorization: string | undefined): Caller {
    return this.checks.authenticate(authorization);
  }

  /** Forgets every run in progress (the state itself is reloaded by the caller). */
  reset(): void {
    for (const handle of this.ticks.values()) this.scheduler.cancel(handle);
    this.ticks.clear();
    this.active.clear();
    this.stale.reset();
  }

  /** Under deployed shapes, adds the deployed profile's seeded runs that are missing (deployedSeed.ts). */
  seedDeployedRuns(): void {
    if (!this.deployed) return;
    for (const record of seedDeployedRuns(this.state, this.now())) this.written(record);
  }

  /** Every change to a run ends here, so a lagging replica can serve the run as it was (staleReads.ts). */
  written(record: AgentRecord): void {
    this.stale.written(record);
  }

  private now(): number {
    return this.scheduler.now();
  }

  private get words(): LifecycleWords {
    return lifecycleWords(this.state.settings.shapes);
  }

  private get deployed(): boolean {
    return this.state.settings.shapes === 'deployed';
  }

  /** `POST /agents` answers 201 (the emulator's choice for the reference) or 202 (the deployed service). */
  startStatus(): number {
    return this.deployed ? 202 : 201;
  }

  /** The answer of start and follow-up, with the unknown fields when they are on. */
  private ack(record: AgentRecord, fields: Record<string, unknown>): Record<string, unknown> {
    return this.state.settings.unknownFields ? { ...fields, ...unknownAckFields(record) } : fields;
  }

  // ---------------------------------------------------------------- endpoints

  startAgent(caller: Caller, body: unknown): Record<string, unknown> {
    const input = validateBody(START_AGENT_BODY, body);
    const project = this.checks.resolveProject(caller, str(input, 'appId') ?? '');
    const model = findModel(str(input, 'model') ?? '');
    if (model === undefined) throw ServiceError.invalid('model', '`model` is not a known model.');
    const userEmail = str(input, 'userEmail');
    this.checks.checkModelUser(caller.workspace, model, userEmail);
    this.checks.checkConcurrency(caller.workspace);
    const credits = this.checks.charge(caller.workspace, model);
    const record = this.createConversation({
      workspace: caller.workspace,
      project,
      model,
      prompt: str(input, 'prompt') ?? '',
      credits,
      createdByTokenId: caller.token.id,
      // The deployed service stores no effort when none is asked for; the reference's default is medium.
      reasoningEffort: str(input, 'reasoningEffort') ?? (this.deployed ? null : DEFAULT_REASONING_EFFORT),
      permission: str(input, 'permission') ?? DEFAULT_PERMISSION,
      permittedBranches: strings(input, 'permittedBranches') ?? [],
      ...(userEmail !== undefined ? { userEmail } : {}),
      ...(str(input, 'completionWebhookUrl') !== undefined ? { completionWebhookUrl: str(input, 'completionWebhookUrl') } : {}),
    });
    return this.ack(record, { agentId: record.agentId, kind: record.kind, status: record.status, appId: record.appId, projectId: record.projectId, createdAt: record.createdAt });
  }

  /** Stores a new conversation with its first turn queued, and starts its clock. */
  createConversation(input: NewConversation): AgentRecord {
    const now = this.now();
    const created = this.words.created();
    const record: AgentRecord = {
      agentId: newId('agt'),
      kind: input.review === undefined ? AGENT_KIND : CODE_REVIEW_KIND,
      workspaceId: input.workspace.id,
      appId: input.project.appId,
      projectId: input.project.projectId,
      projectName: input.project.projectName,
      model: input.model.id,
      reasoningEffort: input.reasoningEffort,
      permission: input.permission,
      permittedBranches: input.permittedBranches,
      createdByTokenId: input.createdByTokenId,
      status: 'queued',
      createdAt: now,
      updatedAt: now,
      history: [],
      // The deployed service has had no lifecycle event yet for a run only created.
      lifecycle: { ...created, queuedTurnCount: 1, lastLifecycleEventAt: this.deployed ? null : now },
      pendingTurns: [{ number: 1, prompt: input.prompt, acceptedAt: now, creditsCharged: input.credits }],
      turnCount: 1,
      creditsCharged: input.credits,
      extraFields: {},
      halted: false,
    };
    if (input.review !== undefined) record.review = input.review;
    if (input.userEmail !== undefined) record.userEmail = input.userEmail;
    if (input.completionWebhookUrl !== undefined) record.completionWebhookUrl = input.completionWebhookUrl;
    this.state.agents.set(record.agentId, record);
    this.written(record);
    this.scheduleTick(record);
    return record;
  }

  /** A code review's conversation (deployed shapes): `POST /code-reviews`, or the admin's route (no charge, no token). */
  openCodeReview(workspace: Workspace, project: Project, model: ModelInfo, review: CodeReviewInfo, requested: ReviewRequester = {}): AgentRecord {
    return this.createConversation({
      workspace, project, model, prompt: reviewPrompt(review), credits: 0, createdByTokenId: 'admin',
      reasoningEffort: null, permission: DEFAULT_PERMISSION, permittedBranches: [], review, ...requested,
    });
  }

  /**
   * `historyLimit` (query) asks for the most recent N messages; checked before the run is looked
   * up, like body fields. The run may be served as a lagging copy holds it (staleReads.ts).
   */
  getAgent(caller: Caller, agentId: string, query: URLSearchParams): AgentView {
    const requested = parseHistoryLimit(query);
    const record = this.checks.visibleAgent(caller, agentId);
    const unseenFor = this.state.settings.notFoundAfterStartMs;
    if (unseenFor !== null && this.now() - record.createdAt < unseenFor) {
      // A replica that has not seen the new run yet: the same answer as for a run that does not exist.
      throw ServiceError.of('agent_not_found', `No agent run "${agentId}" in this workspace.`);
    }
    return agentView(record, this.state.settings, historyLimitFor(this.state.settings, requested), this.stale.read(record));
  }

  followUp(caller: Caller, agentId: string, body: unknown): Record<string, unknown> {
    const input = validateBody(FOLLOW_UP_BODY, body);
    const record = this.checks.visibleAgent(caller, agentId);
    if (this.deployed && record.kind === CODE_REVIEW_KIND) {
      throw ServiceError.of('follow_ups_not_supported', `The conversation "${agentId}" belongs to a code review, which takes no follow-ups. Start a new agent run instead.`, {
        reason: CONFLICT_REASONS.codeReviewConversation,
      });
    }
    // The run keeps its model: connected provider runs still need the member's credentials,
    // service-hosted runs pay for every turn.
    const model = findModel(record.model);
    if (model?.kind === 'connected_provider') this.checks.checkModelUser(caller.workspace, model, record.userEmail);
    const busy = this.active.has(record.agentId) || this.ticks.has(record.agentId);
    // A follow-up queued behind a busy turn adds no active run; one that re-opens a finished run does.
    if (!busy) this.checks.checkConcurrency(caller.workspace, record);
    const credits = model === undefined ? 0 : this.checks.charge(caller.workspace, model);
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

    if (!busy && this.stale.storesPromptOnAcceptance()) {
      // That implementation writes the prompt at once; the run row follows when the turn is picked up.
      this.appendMessage(record, this.userMessage(record, turn.prompt));
      turn.promptStored = true;
    }
    if (!busy) {
      // A finished (or admin-halted) run re-opens: queued, then running on the next tick.
      record.halted = false;
      record.status = 'queued';
      delete record.completedAt;
      delete record.lastError;
      record.lifecycle.conversationState = this.words.reopened();
      record.lifecycle.lastLifecycleEventAt = now;
      this.scheduleTick(record);
    }
    this.written(record);
    if (!busy) this.stale.followUpAccepted(record, previous);
    return this.ack(record, { agentId: record.agentId, kind: record.kind, status: record.status });
  }

  createTestGroup(caller: Caller, body: unknown): { groupId: string } {
    const input = validateBody(CREATE_TEST_GROUP_BODY, body);
    const project = this.checks.resolveProject(caller, str(input, 'appId') ?? '');
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

  /** The public Agent object (views.ts); `row`: the run as the answering copy holds it (default: now). */
  view(record: AgentRecord, historyLimit: number | null, row: RunRow = rowOf(record)): AgentView {
    return agentView(record, this.state.settings, historyLimit, row);
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

  appendMessage(record: AgentRecord, draft: MessageInput): Message {
    const now = this.now();
    const last = record.history.reduce((max, m) => Math.max(max, m.sequence), 0);
    const message = messageOf(draft, last + 1, now);
    record.history.push(message);
    record.updatedAt = now;
    this.written(record);
    return message;
  }

  /** A turn's prompt as its `user` message; the deployed service links the issues it mentions. */
  private userMessage(record: AgentRecord, prompt: string): MessageInput {
    const issues = this.deployed ? writeAttachments('deployed', record.appId, mentionedIssues(prompt)) : [];
    return issues.length === 0 ? { role: 'user', content: prompt } : { role: 'user', content: prompt, attachments: issues };
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

  private lifecycleEvent(record: AgentRecord, changes: LifecycleChange): void {
    const now = this.now();
    record.lifecycle.conversationState = changes.conversationState;
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
    const context = {
      prompt: turn.prompt,
      turnNumber: turn.number,
      appId: record.appId,
      projectName: record.projectName ?? record.appId,
      model: record.model,
      permission: record.permission,
      permittedBranches: record.permittedBranches,
      shapes: this.state.settings.shapes,
    };
    const script = record.review === undefined ? planTurn(context) : planReviewTurn(context, record.review);
    this.active.set(record.agentId, { turn, script, nextStep: 0 });
    record.status = 'running';
    delete record.lastError;
    if (turn.promptStored !== true) this.appendMessage(record, this.userMessage(record, turn.prompt));
    const unknownValues = this.state.settings.unknownValues;
    if (unknownValues) this.appendMessage(record, reasoningMessage(turn.prompt));
    const startWord = unknownValues ? UNKNOWN_VALUES.turnStartConversationState : 'thinking';
    this.lifecycleEvent(record, this.words.turnStart(record.lifecycle.sandboxState, startWord));
  }

  private applyStep(record: AgentRecord, step: Step): void {
    for (const draft of step.messages) this.appendDraft(record, draft);
    this.lifecycleEvent(record, this.words.step(step.conversationState, step.sandboxState, record.lifecycle.sandboxState));
  }

  private appendDraft(record: AgentRecord, draft: MessageDraft): void {
    this.appendMessage(record, structuredClone(draft));
  }

  private endTurn(record: AgentRecord, active: ActiveTurn): void {
    this.active.delete(record.agentId);
    const outcome = active.script.outcome;
    if (outcome.status === 'error') {
      if (this.deployed) {
        // The deployed service records a failure as an `error` message, and says when queued turns go on.
        this.appendMessage(record, { role: 'error', content: outcome.error });
        if (record.pendingTurns.length > 0) this.appendMessage(record, { role: 'system', content: `Turn ${active.turn.number} failed; running the next queued prompt.` });
      } else {
        this.appendMessage(record, { role: 'system', content: `Turn ${active.turn.number} failed: ${outcome.error}` });
      }
    }
    if (record.pendingTurns.length > 0) {
      // Queued follow-ups run next; the run stays `running` and no webhook is sent yet.
      this.beginNextTurn(record);
      return;
    }
    const now = this.now();
    record.status = outcome.status;
    record.completedAt = now;
    if (outcome.status === 'error') record.lastError = outcome.error;
    this.lifecycleEvent(record, this.words.turnEnd(outcome.status === 'error' ? 'error' : outcome.conversationState === 'awaiting_input' ? 'awaiting_input' : 'completed'));
    if (TERMINAL_STATUSES.includes(record.status) && record.completionWebhookUrl !== undefined) {
      this.webhooks.enqueue(record.agentId, 'agent.completed', record.completionWebhookUrl, { event: 'agent.completed', agent: this.view(record, null) });
    }
  }
}
