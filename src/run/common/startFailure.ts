/**
 * What a failed start says and offers: the form is kept (Retry, Edit); when the run may exist, it
 * says so and offers "Track Run by ID", because a POST is never repeated unless the person asks.
 * The launch form's and the code review form's.
 */
import { isApiError, mayHaveArrived, type ApiError } from '../../api/errors';
import { redactSecrets, sanitizeServerText } from '../../api/sanitize';
export { unauthorizedReport } from '../../connection/common/unauthorizedReport';
import type { L10n } from '../../base/common/l10n';
import { providerHint } from './models';
import { startConflict } from './refusals';

export type FailureActionId =
  /** Send the same request again (only when the person clicks it). */
  | 'retry'
  /** Re-open the form, everything kept, at the review step. */
  | 'edit'
  /** Re-open the form at the model step. */
  | 'chooseModel'
  /** Ask for a (different) user email and send again. */
  | 'changeEmail'
  | 'setToken'
  | 'trackRun'
  | 'openSettings'
  | 'showLogs'
  /** Show the Runs view (the active runs), then the failure again. */
  | 'showRuns';

export interface FailureAction {
  id: FailureActionId;
  label: string;
}

export interface StartFailure {
  /**
   * Every failed start is an error (sticky, so its Retry/Edit buttons stay until used); `info`
   * only for a start cancelled before sending and for the offer to resume.
   */
  severity: 'error' | 'info';
  message: string;
  actions: FailureAction[];
  /** The request may have reached the service and created the run. */
  mayExist: boolean;
  /** The service asked for a user email (400 `user_email_required`). */
  needsEmail: boolean;
}

export interface FailureContext {
  model: string;
  appId: string;
  /** The email that was sent, if any. */
  userEmail?: string;
  /** Secrets that must never appear in a message (the API token). */
  secrets: readonly string[];
}

export function actionLabel(id: FailureActionId, l10n: L10n, mayExist = false): string {
  switch (id) {
    case 'retry': return mayExist ? l10n.t('Retry Anyway') : l10n.t('Retry');
    case 'edit': return l10n.t('Edit');
    case 'chooseModel': return l10n.t('Choose Another Model');
    case 'changeEmail': return l10n.t('Enter Email…');
    case 'setToken': return l10n.t('Set API Token');
    case 'trackRun': return l10n.t('Track Run by ID');
    case 'openSettings': return l10n.t('Open Settings');
    case 'showLogs': return l10n.t('Show Logs');
    case 'showRuns': return l10n.t('Show Runs');
  }
}

/** True when the run might exist: the request may have reached the service and no 4xx (refused before creating anything) says otherwise. */
export function mayRunExist(error: unknown): boolean {
  return mayHaveArrived(error);
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** The server's own words (or the client's message): bounded, on one line, secrets removed. */
function detail(e: ApiError, secrets: readonly string[]): string {
  const text = e.serverMessage && e.serverMessage.trim() !== '' ? e.serverMessage : e.message;
  return sanitizeServerText(text, secrets).replace(/[.\s]+$/, '');
}

function providerText(model: string, l10n: L10n): string {
  const provider = providerHint(model);
  return provider ? l10n.t('{0} (model {1})', provider, model) : l10n.t('the provider of model {0}', model);
}

export function describeStartFailure(error: unknown, ctx: FailureContext, l10n: L10n): StartFailure {
  const mayExist = mayRunExist(error);
  const make = (severity: StartFailure['severity'], message: string, ids: FailureActionId[], needsEmail = false): StartFailure => {
    let actionIds = ids;
    if (mayExist && !actionIds.includes('trackRun')) actionIds = ['trackRun', ...actionIds];
    return {
      severity,
      message: redactSecrets(message, ctx.secrets),
      actions: actionIds.map((id) => ({ id, label: actionLabel(id, l10n, mayExist) })),
      mayExist,
      needsEmail,
    };
  };
  const mayExistNote = l10n.t('The run may have been created anyway: look for it in the service\'s web interface and add it with Track Run by ID, or retry (which may start a second run).');

  if (!isApiError(error)) {
    const text = error instanceof Error ? error.message : String(error);
    return make('error', `${l10n.t('The run could not be started: {0}.', sanitizeServerText(text, ctx.secrets).replace(/[.\s]+$/, ''))} ${mayExistNote}`, ['retry', 'edit', 'showLogs']);
  }
  const e = error;
  const email = ctx.userEmail ?? '';
  switch (e.kind) {
    case 'invalid_input':
      return make('error', l10n.t('The run was not started: {0}. Edit the form and try again.', detail(e, ctx.secrets)), ['edit']);
    case 'invalid_base_url':
      return make('error', l10n.t('The run was not started: {0}. Fix agentRuns.baseUrl, then retry.', detail(e, ctx.secrets)), ['openSettings', 'retry', 'edit']);
    case 'unauthorized':
      return make('error', e.status === undefined
        // Found before sending (the token went missing after the form opened): nothing was refused.
        ? l10n.t('No API token is set for this service, so the run was not started. Set a token, then retry; everything you entered is kept.')
        : l10n.t('The service refused the API token (401): it is missing, invalid or revoked. Set a valid token, then retry; everything you entered is kept.'), ['setToken', 'retry', 'edit']);
    case 'plan_required':
      return make('error', l10n.t('The workspace\'s plan does not include API access (402 api_access_required), so runs cannot be started with this token. A workspace admin can change the plan in the service\'s web interface; then retry.'), ['retry', 'edit']);
    case 'insufficient_credits':
      return make('error', l10n.t('The workspace has too few paid credits for the service-hosted model {0} (402 insufficient_paid_credits). Add credits in the service\'s web interface, or choose a connected-provider model, which runs on a workspace member\'s own provider credentials (it needs that member\'s email).', ctx.model), ['chooseModel', 'retry', 'edit']);
    case 'user_email_required':
      return make('error', l10n.t('Model {0} runs on a connected provider and needs the email of the workspace member whose provider credentials it uses (400 user_email_required).', ctx.model), ['changeEmail', 'chooseModel', 'edit'], true);
    case 'user_not_workspace_member':
      return make('error', email !== ''
        ? l10n.t('{0} is not a member of the token\'s workspace (403 user_not_workspace_member). Enter the email of a workspace member who has credentials for {1}, or choose another model.', email, providerText(ctx.model, l10n))
        : l10n.t('The user email is not a member of the token\'s workspace (403 user_not_workspace_member). Enter the email of a workspace member who has credentials for {0}, or choose another model.', providerText(ctx.model, l10n)),
      ['changeEmail', 'chooseModel', 'edit']);
    case 'missing_provider_credentials':
      return make('error', l10n.t('{0} has no active credentials for {1} in this workspace (403 missing_provider_credentials). Connect them in the service\'s web interface and retry, enter another member\'s email, or choose another model.', email !== '' ? email : l10n.t('The user'), providerText(ctx.model, l10n)),
        ['retry', 'changeEmail', 'chooseModel', 'edit']);
    case 'rate_limited':
      return make('error', e.retryAfterMs !== undefined
        ? l10n.t('The service is limiting requests (429). Try again in {0} seconds; everything you entered is kept.', seconds(e.retryAfterMs))
        : l10n.t('The service is limiting requests (429). Try again in a moment; everything you entered is kept.'),
      ['retry', 'edit']);
    case 'not_found':
      return make('error', l10n.t('The service answered 404: {0}. Check the App ID ({1}) and agentRuns.baseUrl.', detail(e, ctx.secrets), ctx.appId), ['edit', 'openSettings']);
    case 'client': {
      // 409: the workspace's concurrent-agent limit. Refused, so nothing was started.
      const conflict = startConflict(e, l10n);
      if (conflict !== undefined) return make('error', conflict, ['showRuns', 'retry', 'edit']);
      return make('error', l10n.t('The service refused the request{0}: {1}. Edit the form and try again.', e.status !== undefined ? ` (${e.status})` : '', detail(e, ctx.secrets)), ['edit', 'retry']);
    }
    case 'server':
      return make('error', `${l10n.t('The service had an error{0} while starting the run.', e.status !== undefined ? ` (${e.status})` : '')} ${mayExistNote}`, ['retry', 'edit', 'showLogs']);
    case 'timeout':
      return make('error', `${l10n.t('The service did not answer in time.')} ${mayExistNote}`, ['retry', 'edit', 'showLogs']);
    case 'network':
      return mayExist
        // The client's own text repeats the "may have been received" warning; it goes to the logs.
        ? make('error', `${l10n.t('The connection broke while starting the run.')} ${mayExistNote}`, ['retry', 'edit', 'showLogs'])
        : make('error', l10n.t('Could not reach the service: {0}. Check your network or proxy settings and agentRuns.baseUrl, then retry.', detail(e, ctx.secrets)), ['retry', 'edit', 'openSettings']);
    case 'invalid_response':
      return make('error', `${l10n.t('The service\'s answer could not be read: {0}.', detail(e, ctx.secrets))} ${mayExistNote}`, ['retry', 'edit', 'showLogs']);
    case 'cross_origin_redirect':
      return make('error', l10n.t('The run was not started: {0}. Check agentRuns.baseUrl.', detail(e, ctx.secrets)), ['openSettings', 'edit']);
    case 'aborted':
      return mayExist
        ? make('error', `${l10n.t('Starting the run was cancelled.')} ${mayExistNote}`, ['retry', 'edit'])
        : make('info', l10n.t('Starting the run was cancelled before anything was sent.'), ['retry', 'edit']);
  }
}


/**
 * The value of the form a refusal was about, to be marked when the form comes back from a
 * draft (so an email refused for one workspace does not ride silently into the next start).
 */
export function refusedValue(error: unknown, sent: { appId: string; model: string; userEmail?: string }, l10n: L10n): RefusedValue | undefined {
  if (!isApiError(error)) return undefined;
  const email = sent.userEmail?.trim() ?? '';
  switch (error.kind) {
    case 'user_not_workspace_member':
      return email !== '' ? { step: 'userEmail', value: email, reason: l10n.t('not a member of the token\'s workspace, 403 user_not_workspace_member') } : undefined;
    case 'missing_provider_credentials':
      return email !== '' ? { step: 'userEmail', value: email, reason: l10n.t('no active credentials for the model\'s provider, 403 missing_provider_credentials') } : undefined;
    case 'insufficient_credits':
      return { step: 'model', value: sent.model, reason: l10n.t('too few paid credits for this service-hosted model, 402 insufficient_paid_credits') };
    case 'not_found':
      return { step: 'appId', value: sent.appId, reason: l10n.t('the service answered 404') };
    default:
      return undefined;
  }
}

/** Shown after the person fixed something outside the form (set a token, changed settings). */
export function resumeOffer(l10n: L10n): StartFailure {
  return {
    severity: 'info',
    message: l10n.t('Start the agent run now? Everything you entered is kept.'),
    actions: [{ id: 'retry', label: l10n.t('Start Run') }, { id: 'edit', label: actionLabel('edit', l10n) }],
    mayExist: false,
    needsEmail: false,
  };
}

/** A value of the form the service refused, and why (one short clause). */
export interface RefusedValue {
  step: 'appId' | 'model' | 'userEmail';
  value: string;
  reason: string;
}

export type ExternalAction = 'setToken' | 'trackRun' | 'openSettings' | 'showLogs' | 'showRuns';

/** What a failed start asks of the person. */
export interface FailureUi {
  /** Asks for the user email (prefilled); undefined when dismissed. */
  askEmail(prefill: string, why: StartFailure): Promise<string | undefined>;
  /** Shows the failure with its buttons; resolves to the one clicked, undefined when dismissed. */
  showFailure(failure: StartFailure): Promise<FailureActionId | undefined>;
  runCommand(action: ExternalAction): Promise<void>;
}

/** What a failure the person answered leaves: the form re-opened at a step, or kept aside. */
export type FailureOutcome<F> =
  | { kind: 'edit'; form: F; step: 'review' | 'model' }
  | { kind: 'stopped'; form: F; reason: 'dismissed' | 'tracked' };

/**
 * Shows a failed start and does what the person clicks, until it is something for the form:
 * `resend` (Retry, or an email they entered), or a `FailureOutcome`. Nothing is sent here.
 */
export async function handleStartFailure<F extends { userEmail: string }>(
  form: F, failure: StartFailure, email: string | undefined, ui: FailureUi, l10n: L10n, resume = resumeOffer(l10n),
): Promise<'resend' | FailureOutcome<F>> {
  let shown = failure;
  for (;;) {
    const action = await ui.showFailure(shown);
    switch (action) {
      case undefined:
        return { kind: 'stopped', form, reason: 'dismissed' };
      case 'retry':
        return 'resend';
      case 'edit':
        return { kind: 'edit', form, step: 'review' };
      case 'chooseModel':
        return { kind: 'edit', form, step: 'model' };
      case 'changeEmail': {
        const typed = await ui.askEmail(form.userEmail !== '' ? form.userEmail : email ?? '', failure);
        if (typed !== undefined && typed.trim() !== '') {
          form.userEmail = typed.trim();
          return 'resend';
        }
        shown = failure;
        break;
      }
      case 'trackRun':
        await ui.runCommand('trackRun');
        return { kind: 'stopped', form, reason: 'tracked' };
      case 'showLogs':
      case 'showRuns':
        // Beside the failure, not instead of it: Retry and Edit stay offered.
        await ui.runCommand(action);
        shown = failure;
        break;
      case 'setToken':
      case 'openSettings':
        await ui.runCommand(action);
        // The fix happened outside the form: ask before sending again, never resend on our own.
        shown = resume;
        break;
    }
  }
}
