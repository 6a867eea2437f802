/**
 * Sending the launch form: `POST /agents` once; every repeat is the person's click (Retry, or an
 * email after a 400 `user_email_required`, which the service refuses before creating anything).
 */
import { isApiError } from '../../api/errors';
import type { AgentStarted, StartAgentRequest } from '../../api/types';
import { describeStartFailure, refusedValue, resumeOffer, type FailureActionId, type StartFailure } from './failure';
import { buildStartRequest, cloneForm, emailToSend, type LaunchForm, type RefusedValue } from './form';
import type { L10n } from '../../base/common/l10n';
import type { StepId } from './navigation';

export interface SubmitEnv {
  l10n: L10n;
  /** Checks and normalises the body (throws `ApiError` `invalid_input`); nothing is sent. */
  validate(request: StartAgentRequest): StartAgentRequest;
  /** Sends `POST /agents` exactly once. */
  start(request: StartAgentRequest): Promise<AgentStarted>;
  /** The service said before that this model needs `userEmail`. */
  modelNeedsEmail(model: string): boolean;
  rememberModelNeedsEmail(model: string): Promise<void>;
  /** `agentRuns.userEmail`, else git's `user.email`, else undefined. */
  defaultEmail(): Promise<string | undefined>;
  /** Values that must never appear in a message (the token). */
  secrets(): Promise<readonly string[]>;
}

export type ExternalAction = 'setToken' | 'trackRun' | 'openSettings' | 'showLogs' | 'showRuns';

export interface SubmitUi {
  /** The modal guardrail for `allow_edits`; false keeps the person in the form. */
  confirmAllowEdits(form: LaunchForm): Promise<boolean>;
  /** Asks for the user email (prefilled); undefined when dismissed. */
  askEmail(prefill: string, why: StartFailure): Promise<string | undefined>;
  /** Shows the failure with its buttons; resolves to the one clicked, undefined when dismissed. */
  showFailure(failure: StartFailure): Promise<FailureActionId | undefined>;
  runCommand(action: ExternalAction): Promise<void>;
}

export type SubmitOutcome =
  | { kind: 'started'; run: AgentStarted; request: StartAgentRequest; form: LaunchForm }
  /** Re-open the form, pre-filled, at `step`. `refused`: the value the last failure refused. */
  | { kind: 'edit'; form: LaunchForm; step: StepId; refused?: RefusedValue }
  /** The person walked away (dismissed the message, or went to track the run): keep the form as a draft. */
  | { kind: 'stopped'; form: LaunchForm; reason: 'dismissed' | 'tracked'; refused?: RefusedValue };

export async function submitLaunch(initial: LaunchForm, env: SubmitEnv, ui: SubmitUi): Promise<SubmitOutcome> {
  const form = cloneForm(initial);
  if (form.permission === 'allow_edits' && !(await ui.confirmAllowEdits(form))) {
    return { kind: 'edit', form, step: 'review' };
  }
  let askedForEmail = false;
  let refused: RefusedValue | undefined;
  for (;;) {
    const needsEmail = env.modelNeedsEmail(form.model);
    const fallback = needsEmail && form.userEmail.trim() === '' ? await env.defaultEmail() : undefined;
    const email = emailToSend(form, needsEmail, fallback);
    let failure: StartFailure;
    try {
      const request = env.validate(buildStartRequest(form, email));
      const run = await env.start(request);
      return { kind: 'started', run, request, form };
    } catch (err) {
      const ctx = { model: form.model, appId: form.appId, userEmail: email, secrets: await env.secrets() };
      failure = describeStartFailure(err, ctx, env.l10n);
      refused = refusedValue(err, { appId: form.appId.trim(), model: form.model.trim(), userEmail: email }, env.l10n);
      if (isApiError(err) && err.kind === 'user_email_required') {
        await env.rememberModelNeedsEmail(form.model);
        if (!askedForEmail) {
          // Asked once: the service refused before doing anything, and the person confirms the resend.
          askedForEmail = true;
          const typed = await ui.askEmail(email ?? (await env.defaultEmail()) ?? '', failure);
          if (typed !== undefined && typed.trim() !== '') {
            form.userEmail = typed.trim();
            continue;
          }
        }
      }
    }
    const next = await handleStartFailure(form, failure, email, ui, env.l10n);
    if (next === 'resend') continue;
    return refused ? { ...next, refused } : next;
  }
}

/** What a failure the person answered leaves: the form re-opened at a step, or kept aside. */
export type FailureOutcome<F> =
  | { kind: 'edit'; form: F; step: 'review' | 'model' }
  | { kind: 'stopped'; form: F; reason: 'dismissed' | 'tracked' };

/**
 * Shows a failed start and does what the person clicks, until it is something for the form:
 * `resend` (Retry, or an email they entered), or a `FailureOutcome`. Nothing is sent here. The
 * launch form's, and the code review form's (reviews/common/submit.ts).
 */
export async function handleStartFailure<F extends { userEmail: string }>(
  form: F, failure: StartFailure, email: string | undefined, ui: Pick<SubmitUi, 'askEmail' | 'showFailure' | 'runCommand'>, l10n: L10n, resume = resumeOffer(l10n),
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
