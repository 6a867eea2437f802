/**
 * The steps of the code review form, walked with base/common/navigator.ts; the completion webhook
 * and the email are options reached from the review, as in the launch form. Pure.
 */
import { Navigator } from '../../base/common/navigator';

export type ReviewMainStep = 'preset' | 'appId' | 'fromBranch' | 'fromVersion' | 'toBranch' | 'toVersion' | 'title' | 'description' | 'focusAreas' | 'model' | 'review';
export type ReviewOptionStep = 'completionWebhookUrl' | 'userEmail';
export type ReviewStep = ReviewMainStep | ReviewOptionStep;

const MAIN: readonly ReviewMainStep[] = ['preset', 'appId', 'fromBranch', 'fromVersion', 'toBranch', 'toVersion', 'title', 'description', 'focusAreas', 'model', 'review'];

export function isReviewOption(step: ReviewStep): step is ReviewOptionStep {
  return step === 'completionWebhookUrl' || step === 'userEmail';
}

export function reviewSteps(input: { hasPresets: boolean; skip: ReadonlySet<ReviewMainStep> }): ReviewStep[] {
  return MAIN.filter((s) => (s === 'preset' ? input.hasPresets : s === 'review' || !input.skip.has(s)));
}

/** The walk through the review form, opened at `start` (earlier steps become Back history). */
export function reviewNavigator(plan: () => ReviewStep[], start?: ReviewStep): Navigator<ReviewStep> {
  return new Navigator<ReviewStep>(plan, start, isReviewOption);
}
