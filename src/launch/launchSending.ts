/**
 * The editor's side of `submitLaunch`: progress and the allow-edits modal (both forms' part:
 * run/startSending.ts). Each POST goes through the sender, so a start cut off by a reload shows
 * as "may have started" in the Runs view instead of being lost.
 */
import * as vscode from 'vscode';
import { ApiError } from '../api/errors';
import type { AgentRunsApi } from '../api/contract';
import type { AgentStarted, StartAgentRequest } from '../api/types';
import { validateStartAgentRequest } from '../api/validate';
import type { Deps } from '../run/deps';
import { currentClient, failureUi, reportFailure } from '../run/startSending';
import { fullPrompt, promptPreview } from './common/form';
import { formatBranches } from '../run/common/startFields';
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
          reportFailure(deps, err, sentTo, 'agentRun');
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

/** One `POST /agents` through the sender; a failure is thrown for the form to word. */
async function startOnce(deps: Deps, client: AgentRunsApi, request: StartAgentRequest): Promise<AgentStarted> {
  const result = await deps.sender.start(request, { from: 'launch form', client });
  if (result.kind === 'started') return result.run;
  const err = result.kind === 'failed'
    ? result.error
    : new ApiError({ kind: 'aborted', message: 'No connection to the service could be set up; nothing was sent.', mayHaveReachedServer: false });
  reportFailure(deps, err, client.baseUrl, 'agentRun');
  throw err;
}

export function launchSubmitUi(deps: Deps): SubmitUi {
  return {
    ...failureUi(deps, 'agentRun'),
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
  };
}
