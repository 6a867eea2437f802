/**
 * Sending the launch form: `POST /agents` once; every repeat is the person's click (Retry, or an
 * email after a 400 `user_email_required`, which the service refuses before creating anything).
 */
import { isApiError } from '../../api/errors';
import type { AgentStarted, StartAgentRequest } from '../../api/types';
import {
  describeStartFailure, handleStartFailure, refusedValue, type FailureUi, type RefusedValue, type StartFailure,
} from '../../run/common/startFailure';
import { buildStartRequest, cloneForm, type LaunchForm } from './form';
import { emailToSend } from '../../run/common/startFields';
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

export interface SubmitUi extends FailureUi {
  /** The modal guardrail for `allow_edits`; false keeps the person in the form. */
  confirmAllowEdits(form: LaunchForm): Promise<boolean>;
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
