/**
 * The language model tools. Input is checked twice (schema, then the launch form's own request
 * checks) and input that fails is never put before the person; every POST is confirmed showing
 * every field, and goes through the sender so a send that may have arrived is never repeated.
 */
import * as vscode from 'vscode';
import type { CreateTestGroupRequest, FollowUpRequest } from '../api/types';
import type { NormalizedStartAgentRequest } from '../api/validate';
import type { Deps, TestGroupsAccess } from '../run/deps';
import { conversationOf, runState, type Run } from '../run/common/ledger/runState';
import { DEFAULT_RUN_TEXT_BOUNDS, runAsText } from './common/format';
import { followUpConfirmation, startConfirmation, testGroupConfirmation } from './common/prompts';
import {
  TOOL_FOLLOW_UP, TOOL_LIST_REVIEWS, TOOL_LIST_TESTS, TOOL_READ, TOOL_READ_REVIEW, TOOL_READ_TEST_RUN, TOOL_RUN_AUTOMATION, TOOL_RUN_TEST,
  TOOL_START, TOOL_START_REVIEW, TOOL_TEST_GROUP, type ToolName,
} from './common/schemas';
import { followUpConflict, noFollowUpsReason, startConflict } from '../run/common/refusals';
import { Refusal, clientOrRefuse, failureText, notConnectedText, setting } from './common';
import { AgentRunsTool, prepared, type Input } from './toolBase';
import { StartCodeReviewTool } from './startReviewTool';
import { ListCodeReviewsTool, ReadCodeReviewTool } from './reviewTools';
import { ListAppTestsTool, ReadTestRunTool, RunAppTestTool, RunAutomationTool } from './testTools';

class StartRunTool extends AgentRunsTool<NormalizedStartAgentRequest> {
  protected async check(input: Input, signal: AbortSignal): Promise<NormalizedStartAgentRequest> {
    const appId = typeof input.appId === 'string' ? input.appId : setting('appId');
    const model = typeof input.model === 'string' ? input.model : setting('defaultModel');
    if (appId === '') throw new Refusal(vscode.l10n.t('appId is required: give the App ID, or set a default in agentRuns.appId.'));
    if (model === '') throw new Refusal(vscode.l10n.t('model is required: give one of the service\'s model IDs, or set a default in agentRuns.defaultModel.'));
    const api = this.deps.api();
    // Local checks first: input refused for itself costs no request.
    this.validated(() => api.validateStartAgentRequest({ ...input, appId, model }));
    const client = await clientOrRefuse(this.deps);
    // The model list of the service's own schema, as the launch form checks it; unreadable → the service decides.
    const knownModels = await client.getSchemaInfo({ signal }).then((s) => s.models, () => []);
    if (signal.aborted) throw new vscode.CancellationError();
    return this.validated(() => api.validateStartAgentRequest({ ...input, appId, model }, { knownModels }));
  }

  protected confirm(r: NormalizedStartAgentRequest): vscode.PreparedToolInvocation {
    return prepared(startConfirmation(r, vscode.l10n), vscode.l10n.t('Starting an agent run on {0}', r.appId));
  }

  protected async run(request: NormalizedStartAgentRequest, signal: AbortSignal): Promise<string> {
    // Checked completely (the model against the served list) before the person was asked.
    const result = await this.deps.sender.start(request, { from: 'language model tool', signal, client: await clientOrRefuse(this.deps), quiet: true });
    if (result.kind === 'notConnected') throw new Refusal(notConnectedText(this.deps));
    if (result.kind === 'failed') {
      // Refused at the workspace's limit (409): said as the launch form says it.
      if (!result.mayHaveArrived) {
        const conflict = startConflict(result.error, vscode.l10n);
        throw conflict !== undefined ? new Refusal(conflict) : result.error;
      }
      // Listed as "may have started" in the Runs view: the model must not start it again.
      return vscode.l10n.t('Not confirmed: {0} The run may have been created anyway. Do not start it again: the Agent Runs view shows it as “may have started”, and the person can track it by ID once it is known.', failureText(this.deps, result.error));
    }
    const run = result.run;
    return vscode.l10n.t('Started agent run {0} on {1} with model {2}, permission {3}; status {4}. It is listed in the Agent Runs view. Read its progress with the {5} tool.',
      run.agentId, run.appId ?? request.appId, request.model, request.permission, run.status, TOOL_READ);
  }
}

class ReadRunTool extends AgentRunsTool<{ agentId: string; maxMessages: number }> {
  protected check(input: Input): { agentId: string; maxMessages: number } {
    const agentId = this.validated(() => this.deps.api().validateAgentId(input.agentId));
    return { agentId, maxMessages: typeof input.maxMessages === 'number' ? input.maxMessages : DEFAULT_RUN_TEXT_BOUNDS.maxMessages };
  }

  protected confirm(c: { agentId: string }): vscode.PreparedToolInvocation {
    return { invocationMessage: vscode.l10n.t('Reading agent run {0}', c.agentId) };
  }

  protected async run(c: { agentId: string; maxMessages: number }, signal: AbortSignal): Promise<string> {
    const bounds = { ...DEFAULT_RUN_TEXT_BOUNDS, maxMessages: c.maxMessages };
    if (this.deps.runs.get(c.agentId)) {
      // A listed run: one read through the poller, then its one state (a stale read says what the list says).
      await this.deps.runs.refresh(c.agentId);
      const shown = this.deps.runs.get(c.agentId);
      if (shown) {
        const history = await this.deps.runs.messages(c.agentId);
        return runAsText({ ...shown.run, agentId: c.agentId, history: [...history] }, bounds) + stateNotes(shown.run, shown.record.pollError);
      }
    }
    const client = await clientOrRefuse(this.deps);
    const agent = await client.getAgent(c.agentId, { signal });
    return runAsText({ ...agent, status: runState({ status: agent.status ?? 'queued', completedAt: agent.completedAt }).status }, bounds);
  }
}

class FollowUpTool extends AgentRunsTool<{ agentId: string; request: FollowUpRequest }> {
  protected check(input: Input): { agentId: string; request: FollowUpRequest } {
    const agentId = this.validated(() => this.deps.api().validateAgentId(input.agentId));
    // A listed run that takes no follow-ups: refused before the person is asked to confirm.
    if (this.deps.runs.get(agentId)?.run.takesFollowUps === false) throw new Refusal(noFollowUpsReason(vscode.l10n));
    const { agentId: _id, ...body } = input;
    return { agentId, request: this.validated(() => this.deps.api().validateFollowUpRequest(body)) };
  }

  protected confirm(c: { agentId: string; request: FollowUpRequest }): vscode.PreparedToolInvocation {
    const record = this.deps.ledger().get(c.agentId);
    const runLabel = record?.prompt?.split(/\r?\n/).find((l) => l.trim() !== '') ?? record?.appId;
    return prepared(followUpConfirmation({ agentId: c.agentId, runLabel, ...c.request }, vscode.l10n), vscode.l10n.t('Sending a follow-up to run {0}', c.agentId));
  }

  protected async run(c: { agentId: string; request: FollowUpRequest }, signal: AbortSignal): Promise<string> {
    const client = await clientOrRefuse(this.deps);
    // A run not in the list is found by reading it first, so nothing is posted to an unknown one;
    // the read also says whether it takes follow-ups (the sender decides).
    const read = this.deps.runs.get(c.agentId) ? undefined : await client.getAgent(c.agentId, { signal });
    const { prompt, permission, permittedBranches } = c.request;
    const result = await this.deps.sender.followUp(c.agentId, { prompt, permission, permittedBranches }, { from: 'language model tool', signal, client, quiet: true, read });
    switch (result.kind) {
      case 'notConnected':
        throw new Refusal(notConnectedText(this.deps));
      case 'noFollowUps':
        throw new Refusal(noFollowUpsReason(vscode.l10n));
      case 'busy':
        throw new Refusal(vscode.l10n.t('a follow-up to run {0} is already on its way or may have arrived; nothing was sent. Read the run with the {1} tool to see whether it arrived.', c.agentId, TOOL_READ));
      case 'failed':
        if (!result.mayHaveArrived) {
          // A 409 says which refusal it was (by the answer, else by the run's kind).
          const conflict = followUpConflict(result.error, this.deps.runs.get(c.agentId)?.run ?? (read ? conversationOf(read) : undefined), vscode.l10n);
          throw conflict ? new Refusal(conflict.message) : result.error;
        }
        return vscode.l10n.t('Not confirmed: {0} The follow-up may have reached run {1}. Do not send it again: the run is read to see whether it arrived (use the {2} tool).', failureText(this.deps, result.error), c.agentId, TOOL_READ);
      case 'sent':
        return vscode.l10n.t('Follow-up sent to run {0}; status {1}. Read its progress with the {2} tool.', c.agentId, result.ack.status, TOOL_READ);
    }
  }
}

interface GroupPlan {
  request: CreateTestGroupRequest & { testIds: string[] };
  files: string[];
}

class TestGroupTool extends AgentRunsTool<GroupPlan> {
  constructor(deps: Deps, name: ToolName, private readonly testGroups: TestGroupsAccess) {
    super(deps, name);
  }

  protected async check(input: Input): Promise<GroupPlan> {
    const appId = typeof input.appId === 'string' ? input.appId : setting('appId');
    if (appId === '') throw new Refusal(vscode.l10n.t('appId is required: give the App ID, or set a default in agentRuns.appId.'));
    let testIds = Array.isArray(input.testIds) ? input.testIds.filter((t): t is string => typeof t === 'string') : undefined;
    let files: string[] = [];
    if (!testIds && Array.isArray(input.files)) {
      // The test-groups feature's own scanner and settings.
      const answer = await this.testGroups.scanFiles(input.files.filter((f): f is string => typeof f === 'string'));
      if (answer.problem) throw new Refusal(answer.problem);
      testIds = answer.ids;
      files = answer.files;
    }
    if (!testIds || testIds.length === 0) throw new Refusal(vscode.l10n.t('Give testIds, or files that contain test IDs.'));
    const request = this.validated(() => this.deps.api().validateCreateTestGroupRequest({ appId, name: input.name, description: input.description, testIds }));
    return { request: { ...request, testIds: request.testIds ?? [] }, files };
  }

  protected confirm(plan: GroupPlan): vscode.PreparedToolInvocation {
    return prepared(testGroupConfirmation(plan.request, vscode.l10n), vscode.l10n.t('Creating test group “{0}”', plan.request.name));
  }

  protected async run(plan: GroupPlan, signal: AbortSignal): Promise<string> {
    const result = await this.deps.sender.createTestGroup(plan.request, { from: 'language model tool', signal, client: await clientOrRefuse(this.deps), quiet: true });
    if (result.kind === 'notConnected') throw new Refusal(notConnectedText(this.deps));
    if (result.kind === 'failed') {
      if (!result.mayHaveArrived) throw result.error;
      return vscode.l10n.t('Not confirmed: {0} The test group may have been created anyway; do not create it again before checking the service.', failureText(this.deps, result.error));
    }
    const created = result.group;
    await this.testGroups.remember({
      groupId: created.groupId, name: plan.request.name, appId: plan.request.appId, description: plan.request.description ?? null,
      testCount: plan.request.testIds.length, testIds: plan.request.testIds, files: plan.files, createdAt: Date.now(),
    });
    return vscode.l10n.t('Created test group {0} (“{1}”, {2} tests) on {3}.', created.groupId, plan.request.name, plan.request.testIds.length, plan.request.appId);
  }
}

/** What the run's one state adds to its text: an unsettled follow-up, a stale read. */
function stateNotes(state: Run, pollError: string | undefined): string {
  const notes: string[] = [];
  if (!state.takesFollowUps) notes.push('This conversation is a code review: it takes no follow-ups.');
  if (state.followUp) {
    notes.push(state.followUp.arrived
      ? 'A follow-up was sent and has arrived; its turn has not been seen to end yet.'
      : 'A follow-up was sent and acknowledged; the service does not show it yet.');
  }
  if (pollError) notes.push(`The last read failed (${pollError}); this is the last known state.`);
  return notes.length > 0 ? `\n\n${notes.join(' ')}` : '';
}

export type AgentRunsTools = ReadonlyMap<ToolName, vscode.LanguageModelTool<Input>>;

export function createTools(deps: Deps, testGroups: TestGroupsAccess): AgentRunsTools {
  return new Map<ToolName, vscode.LanguageModelTool<Input>>([
    [TOOL_START, new StartRunTool(deps, TOOL_START)],
    [TOOL_READ, new ReadRunTool(deps, TOOL_READ)],
    [TOOL_FOLLOW_UP, new FollowUpTool(deps, TOOL_FOLLOW_UP)],
    [TOOL_TEST_GROUP, new TestGroupTool(deps, TOOL_TEST_GROUP, testGroups)],
    [TOOL_START_REVIEW, new StartCodeReviewTool(deps, TOOL_START_REVIEW)],
    [TOOL_READ_REVIEW, new ReadCodeReviewTool(deps, TOOL_READ_REVIEW)],
    [TOOL_LIST_REVIEWS, new ListCodeReviewsTool(deps, TOOL_LIST_REVIEWS)],
    [TOOL_LIST_TESTS, new ListAppTestsTool(deps, TOOL_LIST_TESTS)],
    [TOOL_RUN_TEST, new RunAppTestTool(deps, TOOL_RUN_TEST)],
    [TOOL_READ_TEST_RUN, new ReadTestRunTool(deps, TOOL_READ_TEST_RUN)],
    [TOOL_RUN_AUTOMATION, new RunAutomationTool(deps, TOOL_RUN_AUTOMATION)],
  ]);
}
