/**
 * Which step comes next and where Back returns ([preset] → app ID → prompt → model → review; a
 * field opened from the review returns there). Values live in the form, not here, so Back loses
 * nothing. It walks with base/common/navigator.ts.
 */
import { Navigator } from '../../base/common/navigator';

export type MainStep = 'preset' | 'appId' | 'prompt' | 'model' | 'review';
export type OptionStep = 'reasoningEffort' | 'permission' | 'permittedBranches' | 'completionWebhookUrl' | 'userEmail';
export type StepId = MainStep | OptionStep;

export const OPTION_STEPS: readonly OptionStep[] = ['reasoningEffort', 'permission', 'permittedBranches', 'completionWebhookUrl', 'userEmail'];

export function isOptionStep(step: StepId): step is OptionStep {
  return (OPTION_STEPS as readonly string[]).includes(step);
}

export interface PlanInput {
  hasPresets: boolean;
  /** Main steps a chosen preset already answered. */
  skip: ReadonlySet<MainStep>;
}

export function mainSteps(input: PlanInput): MainStep[] {
  const all: MainStep[] = input.hasPresets ? ['preset', 'appId', 'prompt', 'model', 'review'] : ['appId', 'prompt', 'model', 'review'];
  return all.filter((s) => s === 'preset' || s === 'review' || !input.skip.has(s));
}

/** The walk through the launch form, opened at `start` (earlier steps become Back history). */
export function launchNavigator(plan: () => StepId[], start?: StepId): Navigator<StepId> {
  return new Navigator<StepId>(plan, start, isOptionStep);
}
