/**
 * Sending the code review form: one `POST /code-reviews` through the sender, then only what the
 * person clicks (`handleStartFailure`); a 409 at the concurrent-agent limit is a refusal, a send that
 * may have arrived is never sent again on its own, and every failure keeps the form. Pure.
 */
import { isApiError } from '../../api/errors';
import type { CodeReviewStarted, StartCodeReviewRequest } from '../../api/reviewTypes';
import { emailToSend } from '../../run/common/startFields';
import { handleStartFailure, type FailureContext, type FailureOutcome, type FailureUi, type StartFailure } from '../../run/common/startFailure';
import type { L10n } from '../../base/common/l10n';
import { buildReviewRequest, type ReviewForm } from './form';

export interface ReviewSubmitEnv {
  l10n: L10n;
  /** Checks and normalises the body (throws `ApiError` `invalid_input`); nothing is sent. */
  validate(request: StartCodeReviewRequest): StartCodeReviewRequest;
  /** Sends `POST /code-reviews` once, through the sender; throws what failed. */
  start(request: StartCodeReviewRequest): Promise<CodeReviewStarted>;
  /** The launch form's words for a failed start (run/common/startFailure.ts `describeStartFailure`). */
  describe(error: unknown, ctx: FailureContext): StartFailure;
  /** Offered after the person fixed something outside the form (a token, a setting). */
  resume: StartFailure;
  /** The service said before that this model needs `userEmail`. */
  modelNeedsEmail(model: string): boolean;
  rememberModelNeedsEmail(model: string): Promise<void>;
  /** `agentRuns.userEmail`, else git's `user.email`, else undefined. */
  defaultEmail(): Promise<string | undefined>;
  /** Values that must never appear in a message (the token). */
  secrets(): Promise<readonly string[]>;
}

export type ReviewSubmitUi = FailureUi;

export type ReviewSubmitOutcome =
  | { kind: 'started'; review: CodeReviewStarted; request: StartCodeReviewRequest; form: ReviewForm }
  | FailureOutcome<ReviewForm>;

export async function submitReview(initial: ReviewForm, env: ReviewSubmitEnv, ui: ReviewSubmitUi): Promise<ReviewSubmitOutcome> {
  const form = { ...initial };
  let askedForEmail = false;
  for (;;) {
    const needsEmail = env.modelNeedsEmail(form.model.trim());
    const fallback = needsEmail && form.userEmail.trim() === '' ? await env.defaultEmail() : undefined;
    const email = emailToSend(form, needsEmail, fallback);
    let failure: StartFailure;
    try {
      const request = env.validate(buildReviewRequest(form, email));
      const review = await env.start(request);
      return { kind: 'started', review, request, form };
    } catch (err) {
      failure = env.describe(err, { model: form.model.trim(), appId: form.appId.trim(), userEmail: email, secrets: await env.secrets() });
      if (isApiError(err) && err.kind === 'user_email_required') {
        await env.rememberModelNeedsEmail(form.model.trim());
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
    const next = await handleStartFailure(form, failure, email, ui, env.l10n, env.resume);
    if (next !== 'resend') return next;
  }
}
