/**
 * The editor's side of `submitLaunch`: the client, progress, the 401 report, the messages. Each
 * POST goes through the send door, so a start cut off or outlived by a reload shows as "may have
 * started" in the Runs view instead of being lost.
 */
import * as vscode from 'vscode';
import { runOwnCommand } from '../connection/ownCommands';
import { ApiError, isApiError } from '../api/errors';
import type { AgentRunsApi } from '../api/contract';
import type { AgentStarted, StartAgentRequest } from '../api/types';
import { validateStartAgentRequest } from '../api/validate';
import type { Deps } from '../run/deps';
import { unauthorizedReport, type ExternalAction, type FailureActionId, type StartFailure } from '../run/common/startFailure';
import { formatBranches, fullPrompt, promptPreview } from './common/form';
import { checkEmail } from '../run/common/startFields';
import { emailModelsKey, knownModelsForValidation, reviveIdList, type ModelCatalog } from '../run/common/models';
import type { SubmitEnv, SubmitUi } from './common/submit';

const l10n = vscode.l10n;

export interface SendingContext {
  /** The client the form was opened with (its base URL until a send says otherwise). */
  first: Pick<AgentRunsApi, 'baseUrl'>;
  /** Models the service said need `userEmail` (updated when it says so again). */
  emailModels: Set<string>;
  defaultEmail: Promise<string | undefined>;
  /** The latest model list, to validate the model before sending. */
  catalog(): ModelCatalog | undefined;
}

export function launchSubmitEnv(deps: Deps, c: SendingContext): { env: SubmitEnv; sentTo: () => string } {
  let sentTo = c.first.baseUrl;
  const env: SubmitEnv = {
    l10n,
    validate: (request) => {
      const catalog = c.catalog();
      return validateStartAgentRequest(request, { knownModels: catalog ? knownModelsForValidation(catalog) : undefined });
    },
    // Status bar progress, not a notification: a progress notification closing at the
    // moment the failure notification opens can keep the failure from showing as a toast.
    // The POST is bounded by the client's timeouts; cancelling it would leave the same
    // "may have been created" doubt as a timeout, so it is not offered.
    start: (request) => Promise.resolve(vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: l10n.t('Starting agent run on {0}…', request.appId) },
      async (): Promise<AgentStarted> => {
        let client: AgentRunsApi;
        try {
          client = await currentClient(deps);
        } catch (err) {
          reportFailure(deps, err, sentTo);
          throw err;
        }
        sentTo = client.baseUrl;
        return startOnce(deps, client, request);
      },
    )),
    modelNeedsEmail: (model) => c.emailModels.has(model),
    rememberModelNeedsEmail: async (model) => {
      c.emailModels.add(model);
      const state = deps.globalState;
      const key = emailModelsKey(sentTo);
      const list = reviveIdList(state.get(key));
      if (!list.includes(model)) await state.update(key, [...list, model]);
    },
    defaultEmail: () => c.defaultEmail,
    // Every token held, not only the one sent: the service may echo another one it was given.
    secrets: () => deps.api().storedTokens(deps.globalState, deps.auth, sentTo),
  };
  return { env, sentTo: () => sentTo };
}

/** One `POST /agents` through the send door; a failure is thrown for the form to word. */
async function startOnce(deps: Deps, client: AgentRunsApi, request: StartAgentRequest): Promise<AgentStarted> {
  const result = await deps.sender.start(request, { from: 'launch form', client });
  if (result.kind === 'started') return result.run;
  const err = result.kind === 'failed'
    ? result.error
    : new ApiError({ kind: 'aborted', message: 'No connection to the service could be set up; nothing was sent.', mayHaveReachedServer: false });
  reportFailure(deps, err, client.baseUrl);
  throw err;
}

/** A failed start to the log and, for a 401, to the shared gate (the failure message is the one prompt). */
export function reportFailure(deps: Deps, err: unknown, baseUrl: string): void {
  // The full client text (the message shown is shorter); never the token or the prompt.
  deps.log.warn(`Start agent run failed: ${isApiError(err) ? `${err.kind}${err.status !== undefined ? ` ${err.status}` : ''}: ${err.message}` : String(err)}`);
  // Polling pauses; the failure message about to be shown is the one "Set API Token" prompt.
  const report = unauthorizedReport(err, baseUrl);
  if (report) deps.reportUnauthorized(report);
}

/**
 * The client to send with, as the settings and the token are now: a token set (or a base URL
 * fixed) from a failure message replaces the client the form was opened with, and Retry must
 * use the new one. Quiet: when there is none, the failure message says why (one message).
 */
export async function currentClient(deps: Deps): Promise<AgentRunsApi> {
  const client = await deps.getClient({ quiet: true });
  if (client) return client;
  const { baseUrl, baseUrlProblem, signedIn } = deps.connection();
  if (!baseUrl) {
    throw new ApiError({ kind: 'invalid_base_url', message: baseUrlProblem ?? 'agentRuns.baseUrl is not set', mayHaveReachedServer: false });
  }
  if (!signedIn) {
    throw new ApiError({ kind: 'unauthorized', message: 'No API token is set.', mayHaveReachedServer: false });
  }
  // The token may not go over plain http, or the connection could not be set up (logged).
  throw new ApiError({ kind: 'aborted', message: 'No connection to the service could be set up; nothing was sent.', mayHaveReachedServer: false });
}

export function launchSubmitUi(deps: Deps): SubmitUi {
  return {
    confirmAllowEdits: async (form) => {
      const allow = l10n.t('Allow Edits and Start');
      const branches = form.permittedBranches.length > 0
        ? l10n.t('Permitted branches: {0}', formatBranches(form.permittedBranches))
        : l10n.t('No permitted branches are listed: the service decides which branches the run may change.');
      const detail = [
        branches,
        l10n.t('Model: {0}', form.model),
        l10n.t('Prompt: {0}', promptPreview(fullPrompt(form), 120).firstLine),
      ].join('\n');
      const choice = await vscode.window.showWarningMessage(l10n.t('Allow the agent to change app {0}?', form.appId), { modal: true, detail }, allow);
      return choice === allow;
    },
    askEmail: (prefill, why) => Promise.resolve(vscode.window.showInputBox({
      title: l10n.t('Start Agent Run: User email'),
      prompt: why.message,
      value: prefill,
      placeHolder: 'you@example.com',
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() === '' ? l10n.t('Enter the email of a workspace member.') : checkEmail(v, l10n)),
    })),
    showFailure: (failure) => showFailure(deps, failure),
    runCommand: (action) => runExternal(deps, action),
  };
}

async function showFailure(deps: Deps, failure: StartFailure): Promise<FailureActionId | undefined> {
  const labels = failure.actions.map((a) => a.label);
  const show = failure.severity === 'error' ? vscode.window.showErrorMessage : vscode.window.showInformationMessage;
  deps.log.info(`Start agent run: ${failure.message}`);
  const choice = await show(failure.message, ...labels);
  return failure.actions.find((a) => a.label === choice)?.id;
}

async function runExternal(deps: Deps, action: ExternalAction): Promise<void> {
  const commands: Record<ExternalAction, () => Thenable<unknown>> = {
    setToken: () => runOwnCommand('agentRuns.setToken'),
    trackRun: () => runOwnCommand('agentRuns.trackRun'),
    openSettings: () => vscode.commands.executeCommand('workbench.action.openSettings', 'agentRuns.baseUrl'),
    showLogs: () => Promise.resolve(deps.log.show(true)),
    showRuns: () => runOwnCommand('agentRuns.runs.focus'),
  };
  try {
    await commands[action]();
  } catch (err) {
    deps.log.error(`Command for "${action}" failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
