// The editor's side of a start that both forms share: the client to send with, the 401 report, the failure messages.
import * as vscode from 'vscode';
import { runOwnCommand } from '../connection/ownCommands';
import { ApiError, isApiError } from '../api/errors';
import type { AgentRunsApi } from '../api/contract';
import type { Deps } from './deps';
import { unauthorizedReport, type ExternalAction, type FailureActionId, type FailureUi, type StartFailure } from './common/startFailure';
import { checkEmail } from './common/startFields';

const l10n = vscode.l10n;

/** Which form is starting: the email prompt and the log say it. */
export type StartKind = 'agentRun' | 'codeReview';

const LOGGED: Record<StartKind, string> = { agentRun: 'Start agent run', codeReview: 'Start code review' };

/** A failed start to the log and, for a 401, to the shared gate (the failure message is the one prompt). */
export function reportFailure(deps: Deps, err: unknown, baseUrl: string, kind: StartKind): void {
  // The full client text (the message shown is shorter); never the token or the prompt.
  deps.log.warn(`${LOGGED[kind]} failed: ${isApiError(err) ? `${err.kind}${err.status !== undefined ? ` ${err.status}` : ''}: ${err.message}` : String(err)}`);
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

/** What a failed start asks of the person: an email, the failure's buttons, the commands they run. */
export function failureUi(deps: Deps, kind: StartKind): FailureUi {
  return {
    askEmail: (prefill, why) => Promise.resolve(vscode.window.showInputBox({
      title: kind === 'codeReview' ? l10n.t('Start Code Review: User email') : l10n.t('Start Agent Run: User email'),
      prompt: why.message,
      value: prefill,
      placeHolder: 'you@example.com',
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() === '' ? l10n.t('Enter the email of a workspace member.') : checkEmail(v, l10n)),
    })),
    showFailure: (failure) => showFailure(deps, failure, kind),
    runCommand: (action) => runExternal(deps, action),
  };
}

async function showFailure(deps: Deps, failure: StartFailure, kind: StartKind): Promise<FailureActionId | undefined> {
  const labels = failure.actions.map((a) => a.label);
  const show = failure.severity === 'error' ? vscode.window.showErrorMessage : vscode.window.showInformationMessage;
  deps.log.info(`${LOGGED[kind]}: ${failure.message}`);
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
