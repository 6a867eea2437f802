/**
 * "Start Code Review…": only against a service whose schema lists `/code-reviews`, then the form and
 * one POST through the sender. A form left with Escape or a failure walked away from is kept as a
 * draft and offered again, so nothing typed is lost.
 */
import * as vscode from 'vscode';
import type { AgentRunsApi } from '../api/contract';
import { ApiError } from '../api/errors';
import type { CodeReviewStarted, StartCodeReviewRequest } from '../api/reviewTypes';
import { servesPath, type ServiceSchemaInfo } from '../api/types';
import { appIdOfArg, emptyReviewForm, hasTypedReview, reviveReviewForm, type ReviewForm } from './common/form';
import { reviewPrompt } from '../run/common/reviews';
import type { ReviewStep } from './common/steps';
import { submitReview, type ReviewSubmitEnv } from './common/submit';
import type { Deps } from '../run/deps';
import { runReviewFlow, type ReviewParts } from './startFlow';
import { branchesFromVersions } from '../run/common/branches/known';
import { knownBranches, noteBranches, syncBranch } from '../run/branches';
import { VersionLists } from './versionSteps';

const l10n = vscode.l10n;
const DRAFT_KEY = 'agentRuns.codeReview.draft.v1';

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('agentRuns');
}

/** The command. `arg`: none, `{ appId }`, or a Runs view app row (the form opens on that app). */
export async function startCodeReviewCommand(deps: Deps, arg: unknown, parts: ReviewParts): Promise<void> {
  const client = await deps.getClient();
  if (!client) return;
  const schema = await offersReviews(deps, client);
  if (!schema) return;
  const appId = appIdOfArg(arg);
  const defaults = { appId: config().get<string>('appId', ''), model: config().get<string>('defaultModel', '') };
  const draft = appId === undefined ? reviveReviewForm(deps.context.workspaceState.get(DRAFT_KEY)) : undefined;
  let form = draft ?? emptyReviewForm(appId !== undefined ? { ...defaults, appId } : defaults);
  let titleNote = draft ? l10n.t('restored unsent review') : undefined;
  let start: ReviewStep | undefined = appId !== undefined ? 'fromBranch' : undefined;
  // The schema just read is the model list's too: /openapi.json is not read twice.
  const catalog = parts.loadModelCatalog(deps.globalState, deps.log, { baseUrl: client.baseUrl, getSchemaInfo: () => Promise.resolve(schema) });
  // The branches each page of versions names are remembered for the next branch step.
  const versions = new VersionLists(client, (app, page) => void noteBranches(deps.globalState, client.baseUrl, app, branchesFromVersions(page.versions)));
  const emailModels = new Set(parts.reviveIdList(deps.globalState.get(parts.emailModelsKey(client.baseUrl))));
  const defaultEmail = parts.defaultUserEmail(deps.log);
  for (;;) {
    const result = await runReviewFlow(form, {
      parts, versions, catalog, emailModels, defaultEmail, titleNote,
      branches: (app) => knownBranches(deps.globalState, client.baseUrl, app),
      syncBranch: (app, branch) => syncBranch(deps, client, app, branch, 'code review form'),
      presets: parts.parsePresets(config().get<unknown>('presets'), l10n).presets,
      configuredAppId: defaults.appId,
      listedAppIds: deps.ledger().all().map((r) => r.appId ?? ''),
      describeError: (err) => describeError(deps, err),
      freshForm: () => emptyReviewForm(defaults),
    }, start);
    form = result.form;
    if (result.kind === 'cancel') {
      await saveDraft(deps, form);
      return;
    }
    // The model is checked against the service's list before sending, as the launch form does.
    const known = await catalog.promise.then((c) => parts.knownModelsForValidation(c), () => undefined);
    const env = submitEnv(deps, parts, form, { emailModels, defaultEmail, knownModels: known });
    const outcome = await submitReview(form, env, parts.failureUi(deps, 'codeReview'));
    form = outcome.form;
    if (outcome.kind === 'started') {
      await onStarted(deps, outcome.review, outcome.request, form, client.baseUrl);
      return;
    }
    await saveDraft(deps, form);
    if (outcome.kind === 'stopped') return;
    start = outcome.step;
    titleNote = undefined;
  }
}

/** Whether the service serves code reviews, by its own schema; when not (or unreadable), says so. */
async function offersReviews(deps: Deps, client: AgentRunsApi): Promise<ServiceSchemaInfo | undefined> {
  let schema: ServiceSchemaInfo;
  try {
    schema = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: l10n.t('Reading what the service offers…') }, () => client.getSchemaInfo());
  } catch (err) {
    deps.log.warn(`Start Code Review: the service's schema could not be read: ${describeError(deps, err)}`);
    void deps.showApiError(err);
    return undefined;
  }
  if (servesPath(schema, '/code-reviews')) return schema;
  deps.log.info(`Start Code Review: ${client.baseUrl}/openapi.json lists no /code-reviews; nothing was sent.`);
  void vscode.window.showWarningMessage(l10n.t('This service does not offer code reviews: its API schema (/openapi.json) lists no /code-reviews endpoint. Nothing was sent.'));
  return undefined;
}

function describeError(deps: Deps, err: unknown): string {
  const api = deps.api();
  return api.isApiError(err) ? api.describeApiError(err) : err instanceof Error ? err.message : String(err);
}

interface SendContext {
  emailModels: Set<string>;
  defaultEmail: Promise<string | undefined>;
  /** The service's model ids (undefined: unknown, the service decides). */
  knownModels: string[] | undefined;
}

/** Sending's editor side: the client as settings and token are now, status bar progress, the sender. */
function submitEnv(deps: Deps, parts: ReviewParts, form: ReviewForm, c: SendContext): ReviewSubmitEnv {
  let sentTo = deps.connection().baseUrl ?? '';
  const labels = { fromVersionLabel: form.fromVersionLabel, toVersionLabel: form.toVersionLabel };
  return {
    l10n,
    validate: (request) => deps.api().validateStartCodeReviewRequest(request, { knownModels: c.knownModels }),
    start: (request) => Promise.resolve(vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: l10n.t('Starting a code review on {0}…', request.appId) },
      async (): Promise<CodeReviewStarted> => {
        const client = await parts.currentClient(deps).catch((err: unknown) => {
          parts.reportFailure(deps, err, sentTo, 'codeReview');
          throw err;
        });
        sentTo = client.baseUrl;
        return startOnce(deps, parts, client, request, labels);
      },
    )),
    describe: (err, ctx) => parts.describeStartFailure(err, ctx, l10n),
    resume: resumeOffer(),
    modelNeedsEmail: (model) => c.emailModels.has(model),
    rememberModelNeedsEmail: async (model) => {
      c.emailModels.add(model);
      const key = parts.emailModelsKey(sentTo);
      const list = parts.reviveIdList(deps.globalState.get(key));
      if (!list.includes(model)) await deps.globalState.update(key, [...list, model]);
    },
    defaultEmail: () => c.defaultEmail,
    secrets: async () => {
      const token = await deps.auth.get(sentTo);
      return token ? [token] : [];
    },
  };
}

/** One `POST /code-reviews` through the sender; a failure is thrown for the form to word. */
async function startOnce(deps: Deps, parts: ReviewParts, client: AgentRunsApi, request: StartCodeReviewRequest, labels: { fromVersionLabel?: string; toVersionLabel?: string }): Promise<CodeReviewStarted> {
  const result = await deps.sender.startCodeReview(request, { from: 'code review form', client, labels });
  if (result.kind === 'started') return result.review;
  const err = result.kind === 'failed'
    ? result.error
    : new ApiError({ kind: 'aborted', message: 'No connection to the service could be set up; nothing was sent.', mayHaveReachedServer: false });
  parts.reportFailure(deps, err, client.baseUrl, 'codeReview');
  throw err;
}

/** Offered after the person fixed something outside the form (a token, a setting). */
function resumeOffer(): ReviewSubmitEnv['resume'] {
  return {
    severity: 'info',
    message: l10n.t('Start the code review now? Everything you entered is kept.'),
    actions: [{ id: 'retry', label: l10n.t('Start Code Review') }, { id: 'edit', label: l10n.t('Edit') }],
    mayExist: false,
    needsEmail: false,
  };
}

async function saveDraft(deps: Deps, form: ReviewForm): Promise<void> {
  await deps.context.workspaceState.update(DRAFT_KEY, hasTypedReview(form) ? form : undefined);
}

/** Listed and followed by the sender; the form's own bookkeeping, then the review's conversation in the run panel. */
async function onStarted(deps: Deps, review: CodeReviewStarted, request: StartCodeReviewRequest, form: ReviewForm, baseUrl: string): Promise<void> {
  await deps.context.workspaceState.update(DRAFT_KEY, undefined);
  // Both branches are offered first next time (a typed one is then known too).
  const usedAt = Date.now();
  await noteBranches(deps.globalState, baseUrl, request.appId, [form.fromBranch, form.toBranch].filter((b) => b.trim() !== '').map((name) => ({ name, source: 'used' as const, usedAt })));
  await deps.openRun(review.agentId);
  void vscode.window.showInformationMessage(l10n.t('Code review started on {0}: “{1}” ({2}).', request.appId, reviewPrompt(form, l10n), review.status));
}
