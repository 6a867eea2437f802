/**
 * The language model tools. Each checks its input twice before anything is sent: against its
 * schema (src/core/assistant/schemas.ts: unknown fields, types, sizes) and with the request
 * checks of src/api/validate.ts (the same as the launch form's). `prepareInvocation` asks the
 * person to confirm every POST, showing app, model and permission; input that fails the
 * checks is not put before the person at all, and `invoke` answers it with the reason.
 * Results and failures are short text; a POST the service acknowledged goes through
 * `deps.afterPost`, so the run is listed and followed like any other.
 */
import * as vscode from 'vscode';
import type { AgentRunsApi } from '../api/contract';
import type { CreateTestGroupRequest, FollowUpRequest } from '../api/types';
import type { NormalizedStartAgentRequest } from '../api/validate';
import type { Deps } from '../runs/deps';
import { DEFAULT_RUN_TEXT_BOUNDS, runAsText } from '../core/assistant/format';
import { followUpConfirmation, startConfirmation, testGroupConfirmation, type Confirmation } from '../core/assistant/prompts';
import { TOOL_FOLLOW_UP, TOOL_READ, TOOL_START, TOOL_TEST_GROUP, checkToolInput, type ToolName } from '../core/assistant/schemas';
import { Refusal, clientOrRefuse, failureText, setting, signalOf } from './common';

type Input = Record<string, unknown>;

function text(value: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(value)]);
}

function prepared(c: Confirmation, invocation: string): vscode.PreparedToolInvocation {
  return { invocationMessage: invocation, confirmationMessages: { title: c.title, message: new vscode.MarkdownString(c.message) } };
}

/** The shared shape: check → (confirm) → run; every failure becomes text. */
abstract class AgentRunsTool<T> implements vscode.LanguageModelTool<Input> {
  constructor(protected readonly deps: Deps, readonly name: ToolName) {}

  /** Schema and request checks; throws a worded error. No network. */
  protected abstract check(input: Input): Promise<T> | T;
  protected abstract confirm(checked: T): vscode.PreparedToolInvocation;
  protected abstract run(checked: T, signal: AbortSignal): Promise<string>;

  async prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<Input>): Promise<vscode.PreparedToolInvocation> {
    let checked: T;
    try {
      checked = await this.check(checkToolInput(this.name, options.input));
    } catch {
      // Nothing will be sent: `invoke` answers with the reason; the person is not asked.
      return { invocationMessage: vscode.l10n.t('Checking the input') };
    }
    return this.confirm(checked);
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<Input>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const abort = signalOf(token);
    try {
      const checked = await this.check(checkToolInput(this.name, options.input));
      return text(await this.run(checked, abort.signal));
    } catch (e) {
      return text(vscode.l10n.t('Not done: {0}', failureText(this.deps, e)));
    } finally {
      abort.dispose();
    }
  }

  /** A `validate*` call whose ApiError (invalid_input) becomes a plain refusal. */
  protected validated<R>(fn: () => R): R {
    try {
      return fn();
    } catch (e) {
      const api = this.deps.api();
      if (api.isApiError(e)) throw new Refusal(api.describeApiError(e));
      throw e;
    }
  }
}

class StartRunTool extends AgentRunsTool<NormalizedStartAgentRequest> {
  protected check(input: Input): NormalizedStartAgentRequest {
    const appId = typeof input.appId === 'string' ? input.appId : setting('appId');
    const model = typeof input.model === 'string' ? input.model : setting('defaultModel');
    if (appId === '') throw new Refusal(vscode.l10n.t('appId is required: give the App ID, or set a default in agentRuns.appId.'));
    if (model === '') throw new Refusal(vscode.l10n.t('model is required: give one of the service\'s model IDs, or set a default in agentRuns.defaultModel.'));
    return this.validated(() => this.deps.api().validateStartAgentRequest({ ...input, appId, model }));
  }

  protected confirm(r: NormalizedStartAgentRequest): vscode.PreparedToolInvocation {
    return prepared(startConfirmation(r, vscode.l10n), vscode.l10n.t('Starting an agent run on {0}', r.appId));
  }

  protected async run(checked: NormalizedStartAgentRequest, signal: AbortSignal): Promise<string> {
    const client = await clientOrRefuse(this.deps);
    // The model list of the service's own schema, as the launch form checks it; unreadable → the service decides.
    const known = await client.getSchemaInfo({ signal }).then((s) => s.models, () => []);
    const request = this.validated(() => this.deps.api().validateStartAgentRequest(checked, { knownModels: known }));
    const run = await client.startAgent(request, { signal });
    this.deps.afterPost({ kind: 'start', run, request });
    this.deps.log.info(`Started agent run ${run.agentId} from a language model tool on ${request.appId} with ${request.model} (${run.status}).`);
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
    const client = await clientOrRefuse(this.deps);
    const agent = await client.getAgent(c.agentId, { signal });
    return runAsText(agent, { ...DEFAULT_RUN_TEXT_BOUNDS, maxMessages: c.maxMessages });
  }
}

class FollowUpTool extends AgentRunsTool<{ agentId: string; request: FollowUpRequest }> {
  protected check(input: Input): { agentId: string; request: FollowUpRequest } {
    const agentId = this.validated(() => this.deps.api().validateAgentId(input.agentId));
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
    // An unknown run is found by reading it first, so nothing is posted to it.
    await client.getAgent(c.agentId, { signal });
    const ack = await client.sendFollowUp(c.agentId, c.request, { signal });
    this.deps.afterPost({ kind: 'followUp', agentId: c.agentId, ack, prompt: c.request.prompt, permission: c.request.permission, permittedBranches: c.request.permittedBranches });
    return vscode.l10n.t('Follow-up sent to run {0}; status {1}. Read its progress with the {2} tool.', c.agentId, ack.status, TOOL_READ);
  }
}

interface GroupPlan {
  request: CreateTestGroupRequest & { testIds: string[] };
  files: string[];
}

interface FilesScanAnswer {
  ids: string[];
  files: string[];
  problem?: string;
}

class TestGroupTool extends AgentRunsTool<GroupPlan> {
  protected async check(input: Input): Promise<GroupPlan> {
    const appId = typeof input.appId === 'string' ? input.appId : setting('appId');
    if (appId === '') throw new Refusal(vscode.l10n.t('appId is required: give the App ID, or set a default in agentRuns.appId.'));
    let testIds = Array.isArray(input.testIds) ? input.testIds.filter((t): t is string => typeof t === 'string') : undefined;
    let files: string[] = [];
    if (!testIds && Array.isArray(input.files)) {
      // The test-groups feature's own scanner and settings (features talk through commands).
      const answer = await vscode.commands.executeCommand<FilesScanAnswer>('agentRuns.testGroups.scanFiles', input.files);
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
    const client: AgentRunsApi = await clientOrRefuse(this.deps);
    const created = await client.createTestGroup(plan.request, { signal });
    await vscode.commands.executeCommand('agentRuns.testGroups.remember', {
      groupId: created.groupId, name: plan.request.name, appId: plan.request.appId, description: plan.request.description ?? null,
      testCount: plan.request.testIds.length, testIds: plan.request.testIds, files: plan.files, createdAt: Date.now(),
    });
    return vscode.l10n.t('Created test group {0} (“{1}”, {2} tests) on {3}.', created.groupId, plan.request.name, plan.request.testIds.length, plan.request.appId);
  }
}

export type AgentRunsTools = ReadonlyMap<ToolName, vscode.LanguageModelTool<Input>>;

export function createTools(deps: Deps): AgentRunsTools {
  return new Map<ToolName, vscode.LanguageModelTool<Input>>([
    [TOOL_START, new StartRunTool(deps, TOOL_START)],
    [TOOL_READ, new ReadRunTool(deps, TOOL_READ)],
    [TOOL_FOLLOW_UP, new FollowUpTool(deps, TOOL_FOLLOW_UP)],
    [TOOL_TEST_GROUP, new TestGroupTool(deps, TOOL_TEST_GROUP)],
  ]);
}
