/**
 * `getAPI(1)` (agent-runs.d.ts), its own bundle loaded when an extension first asks. Reads and
 * events come from the run list and `runState`; every send goes through the one sender after the
 * person confirmed the text the assistant's tools show. Nothing here holds or returns the token.
 */
import * as vscode from 'vscode';
import type { AgentMessage } from '../api/types';
import type { Deps } from '../run/deps';
import { runState } from '../run/common/ledger/runState';
import { stripUndefined, type LedgerEntry } from '../run/common/ledger/record';
import type { L10n } from '../base/common/l10n';
import { describeNoClient } from '../connection/common/describeNoClient';
import { RunEvents, type RunEvent } from './common/runEvents';
import type * as V1 from './agent-runs';

/** A confirmation as the assistant's tools put it before the person (title, Markdown shown as plain text). */
export interface Confirmation {
  readonly title: string;
  readonly message: string;
}

/** The tools' confirmation texts (src/assistant/common/prompts.ts), passed in by activate(). */
export interface ConfirmationTexts {
  startConfirmation(s: { appId: string; model: string; reasoningEffort: string; permission: string; permittedBranches?: readonly string[]; prompt: string }, l10n: L10n): Confirmation;
  followUpConfirmation(s: { agentId: string; runLabel?: string; prompt: string; permission?: string; permittedBranches?: readonly string[] }, l10n: L10n): Confirmation;
}

export interface PublicApiDeps {
  readonly deps: Deps;
  texts(): ConfirmationTexts;
  /** Who answers the confirmations in the person's place: the integration tests only (see register.ts). */
  answer(): ((c: Confirmation) => boolean) | undefined;
}

const FROM = 'another extension';
const MAX_MESSAGES = 200;

export class PublicApiV1 implements V1.AgentRunsApi, vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly added = this.emitter<V1.RunAdded>();
  private readonly stateChanged = this.emitter<V1.RunStateChanged>();
  private readonly finished = this.emitter<V1.RunFinished>();
  private readonly acknowledged = this.emitter<V1.FollowUpAcknowledged>();
  private readonly removed = this.emitter<V1.RunRemoved>();
  private readonly baseUrlChanged = this.emitter<string | undefined>();
  private readonly events: RunEvents;

  readonly onDidAddRun = this.added.event;
  readonly onDidChangeRunState = this.stateChanged.event;
  readonly onDidFinishRun = this.finished.event;
  readonly onDidAcknowledgeFollowUp = this.acknowledged.event;
  readonly onDidRemoveRun = this.removed.event;
  readonly onDidChangeBaseUrl = this.baseUrlChanged.event;

  constructor(private readonly p: PublicApiDeps) {
    const { deps } = p;
    this.events = new RunEvents(deps.ledger());
    this.disposables.push(
      // Fires before the switch's own change event: the new list is taken as it is.
      deps.onDidChangeLedger((ledger) => {
        this.events.reset(ledger);
        this.baseUrlChanged.fire(this.baseUrl);
      }),
      deps.onDidChangeRuns((change) => {
        for (const e of this.events.changed(deps.ledger(), change.agentIds)) this.fire(e);
      }),
    );
  }

  get baseUrl(): string | undefined {
    return this.p.deps.connection().baseUrl;
  }

  runs(): readonly V1.Run[] {
    return this.p.deps.ledger().all().map((r) => this.toRun(r));
  }

  run(agentId: string): V1.Run | undefined {
    const r = typeof agentId === 'string' ? this.p.deps.ledger().get(agentId) : undefined;
    return r ? this.toRun(r) : undefined;
  }

  async recentMessages(agentId: string, max = 20): Promise<readonly V1.RunMessage[]> {
    if (typeof agentId !== 'string' || !this.p.deps.ledger().has(agentId)) return [];
    const n = Math.max(0, Math.min(MAX_MESSAGES, Number.isFinite(max) ? Math.floor(max) : 20));
    const messages = await this.p.deps.runs.messages(agentId);
    return n === 0 ? [] : messages.slice(-n).map(toMessage);
  }

  async startRun(request: V1.StartRunRequest): Promise<V1.StartRunResult> {
    const { deps } = this.p;
    const input = fields(request);
    const appId = typeof input.appId === 'string' ? input.appId : setting('appId');
    const model = typeof input.model === 'string' ? input.model : setting('defaultModel');
    if (appId === '') return refused(vscode.l10n.t('appId is required: give the App ID, or set a default in agentRuns.appId.'));
    if (model === '') return refused(vscode.l10n.t('model is required: give one of the service\'s model IDs, or set a default in agentRuns.defaultModel.'));
    const body = { prompt: input.prompt, appId, model, reasoningEffort: input.reasoningEffort, permission: input.permission, permittedBranches: input.permittedBranches };
    try {
      const api = deps.api();
      // The tools' checks, in their order: locally first, then the model against the service's list.
      api.validateStartAgentRequest(body);
      const client = await deps.getClient({ quiet: true });
      if (!client) return refused(describeNoClient(deps.connection(), vscode.l10n));
      const knownModels = await client.getSchemaInfo().then((s) => s.models, () => []);
      const checked = api.validateStartAgentRequest(body, { knownModels });
      if (!(await this.confirm(this.p.texts().startConfirmation(checked, vscode.l10n), vscode.l10n.t('Start')))) return declined();
      const result = await deps.sender.start(checked, { from: FROM, client, quiet: true });
      switch (result.kind) {
        case 'started': return { kind: 'started', agentId: result.run.agentId, status: result.run.status };
        case 'notConnected': return refused(describeNoClient(deps.connection(), vscode.l10n));
        case 'failed': return result.mayHaveArrived
          ? { kind: 'mayHaveArrived', message: vscode.l10n.t('Not confirmed: {0} The run may have been created anyway. Do not start it again: the Agent Runs view shows it as “may have started”.', this.describe(result.error)) }
          : refused(this.describe(result.error));
      }
    } catch (e) {
      return refused(this.describe(e));
    }
  }

  async sendFollowUp(agentId: string, request: V1.FollowUpRequest): Promise<V1.FollowUpResult> {
    const { deps } = this.p;
    const input = fields(request);
    try {
      const api = deps.api();
      const id = api.validateAgentId(agentId);
      if (deps.runs.get(id)?.run.takesFollowUps === false) return refused(noFollowUps());
      const checked = api.validateFollowUpRequest({ prompt: input.prompt, permission: input.permission, permittedBranches: input.permittedBranches });
      const client = await deps.getClient({ quiet: true });
      if (!client) return refused(describeNoClient(deps.connection(), vscode.l10n));
      // A run not in the list is read first, so nothing is posted to an unknown one.
      const read = deps.ledger().has(id) ? undefined : await client.getAgent(id);
      const record = deps.ledger().get(id);
      const runLabel = record?.prompt?.split(/\r?\n/).find((l) => l.trim() !== '') ?? record?.appId;
      const confirmation = this.p.texts().followUpConfirmation({ agentId: id, ...(runLabel !== undefined ? { runLabel } : {}), ...checked }, vscode.l10n);
      if (!(await this.confirm(confirmation, vscode.l10n.t('Send')))) return declined();
      const { prompt, permission, permittedBranches } = checked;
      const result = await deps.sender.followUp(id, { prompt, permission, permittedBranches }, { from: FROM, client, quiet: true, read });
      switch (result.kind) {
        case 'sent': return { kind: 'sent', status: result.ack.status };
        case 'busy': return { kind: 'busy', message: vscode.l10n.t('A follow-up to run {0} is already on its way or may have arrived; nothing was sent.', id) };
        case 'noFollowUps': return refused(noFollowUps());
        case 'notConnected': return refused(describeNoClient(deps.connection(), vscode.l10n));
        case 'failed': return result.mayHaveArrived
          ? { kind: 'mayHaveArrived', message: vscode.l10n.t('Not confirmed: {0} The follow-up may have reached run {1}. Do not send it again: the run is read to see whether it arrived.', this.describe(result.error), id) }
          : refused(this.describe(result.error));
      }
    } catch (e) {
      return refused(this.describe(e));
    }
  }

  async trackRun(agentId: string): Promise<V1.TrackRunResult> {
    const { deps } = this.p;
    try {
      const id = deps.api().validateAgentId(agentId);
      const ledger = deps.ledger();
      const listed = ledger.get(id);
      if (listed) return { kind: 'tracked', run: this.toRun(listed) };
      const asked = { title: vscode.l10n.t('Add run {0} to the Agent Runs view?', id), message: vscode.l10n.t('It is read once from {0} and then followed like the other runs. Nothing is sent to it.', ledger.baseUrl) };
      if (!(await this.confirm(asked, vscode.l10n.t('Track')))) return declined();
      const client = await deps.getClient({ quiet: true });
      if (!client) return refused(describeNoClient(deps.connection(), vscode.l10n));
      const agent = await deps.sync.readRun(client, id);
      if (deps.ledger() !== ledger) return refused(vscode.l10n.t('The service changed (agentRuns.baseUrl) while the run was read; it was not added.'));
      deps.transcripts.merge(id, agent.history);
      ledger.applyAgent({ ...agent, agentId: id });
      deps.log.info(`Tracking run ${id} (asked by ${FROM}).`);
      const record = ledger.get(id);
      return record ? { kind: 'tracked', run: this.toRun(record) } : refused(vscode.l10n.t('Run {0} could not be added.', id));
    } catch (e) {
      return refused(this.describe(e));
    }
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }

  private toRun(r: LedgerEntry): V1.Run {
    const s = runState(r);
    const state: V1.RunState = {
      status: s.status, finished: s.finished, codeReview: s.codeReview, takesFollowUps: s.takesFollowUps,
      ...(s.outcome !== undefined ? { outcome: s.outcome } : {}),
      ...(s.completedAt !== undefined ? { completedAt: s.completedAt } : {}),
      ...(s.followUp ? { followUp: { ...s.followUp } } : {}),
    };
    const run: V1.Run = {
      agentId: r.agentId, baseUrl: this.p.deps.ledger().baseUrl, source: r.source, state,
      appId: r.appId, projectName: r.projectName, prompt: r.prompt, model: r.model, permission: r.permission,
      createdAt: r.createdAt ?? r.addedAt, updatedAt: r.updatedAt,
      // A failure of the turn before an unsettled follow-up is not this turn's (as in runState's Run).
      lastError: s.followUp ? undefined : r.lastError,
      readProblem: r.pollError,
      ...(r.reviewId ? { codeReview: { reviewId: r.reviewId } } : {}),
    };
    return stripUndefined(run);
  }

  private fire(e: RunEvent): void {
    const baseUrl = this.p.deps.ledger().baseUrl;
    switch (e.kind) {
      case 'added': {
        const r = this.p.deps.ledger().get(e.agentId);
        if (r) this.added.fire({ baseUrl, run: this.toRun(r) });
        break;
      }
      case 'stateChanged': {
        const r = this.p.deps.ledger().get(e.agentId);
        if (r) this.stateChanged.fire({ baseUrl, agentId: e.agentId, oldStatus: e.oldStatus, newStatus: e.newStatus, state: this.toRun(r).state });
        break;
      }
      case 'finished':
        this.finished.fire({ baseUrl, agentId: e.agentId, outcome: e.outcome, ...(e.completedAt !== undefined ? { completedAt: e.completedAt } : {}) });
        break;
      case 'followUpAcknowledged':
        this.acknowledged.fire({ baseUrl, agentId: e.agentId, prompt: e.prompt });
        break;
      case 'removed':
        this.removed.fire({ baseUrl, agentId: e.agentId });
        break;
    }
  }

  /** Asks the person in a modal dialog (the tools' words, said to come from another extension); true only on their yes. */
  private async confirm(c: Confirmation, accept: string): Promise<boolean> {
    const answer = this.p.answer();
    if (answer) return answer(c);
    const detail = `${vscode.l10n.t('Another extension asks for this.')}\n\n${c.message}`;
    return (await vscode.window.showWarningMessage(c.title, { modal: true, detail }, accept)) === accept;
  }

  private describe(e: unknown): string {
    const api = this.p.deps.api();
    if (api.isApiError(e)) {
      if (e.kind === 'unauthorized' && e.status !== undefined) this.p.deps.reportUnauthorized(e);
      return api.describeApiError(e);
    }
    this.p.deps.log.error(`Agent Runs API: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return vscode.l10n.t('Something unexpected went wrong; the details are in the Agent Runs log (Agent Runs: Show Logs).');
  }

  private emitter<T>(): vscode.EventEmitter<T> {
    const e = new vscode.EventEmitter<T>();
    this.disposables.push(e);
    return e;
  }
}

function toMessage(m: AgentMessage): V1.RunMessage {
  return stripUndefined({ sequence: m.sequence, role: m.role, content: m.content, toolName: m.toolName, createdAt: m.createdAt });
}

function refused(message: string): { kind: 'refused'; message: string } {
  return { kind: 'refused', message };
}

function declined(): { kind: 'declined'; message: string } {
  return { kind: 'declined', message: vscode.l10n.t('The person declined; nothing was sent.') };
}

function noFollowUps(): string {
  return vscode.l10n.t('This conversation is a code review: it takes no follow-ups. Nothing was sent.');
}

function setting(key: 'appId' | 'defaultModel'): string {
  const value = vscode.workspace.getConfiguration('agentRuns').get<unknown>(key);
  return typeof value === 'string' ? value.trim() : '';
}

/** Another extension's argument, as untrusted as any input: the checks decide what it holds. */
function fields(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null ? { ...(v as Record<string, unknown>) } : {};
}
