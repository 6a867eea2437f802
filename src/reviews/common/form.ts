/**
 * The code review form: everything a person enters before `POST /code-reviews`, kept as one
 * value so Back, Edit after a failure and a restored draft work on the same thing (as the launch
 * form; both check their shared fields with run/common/startFields.ts). Pure: no `vscode`.
 */
import type { StartCodeReviewRequest } from '../../api/reviewTypes';
import type { L10n } from '../../base/common/l10n';
import { checkAppId, checkEmail, checkModel, checkWebhookUrl } from '../../run/common/startFields';
import type { PresetCheck } from '../../run/common/presets';
import { versionShown } from '../../run/common/reviews';
import type { ReviewMainStep, ReviewStep } from './steps';

export interface ReviewForm {
  appId: string;
  /** The source's branch (id or label): asked first, its versions listed (`GET /versions?version=`). */
  fromBranch: string;
  /**
   * What is sent as `fromVersion`: the source branch itself (its newest completed version when the
   * review starts; version C) or a version id of it.
   */
  fromVersion: string;
  /** The target's branch, e.g. the main one. */
  toBranch: string;
  /** What is sent as `toVersion`, as `fromVersion`. */
  toVersion: string;
  /** How the picked source and target are shown (a branch's label, a version's `versionDisplay`); absent for a typed id. */
  fromVersionLabel?: string;
  toVersionLabel?: string;
  title: string;
  description: string;
  focusAreas: string;
  /** Empty: the service's default model. */
  model: string;
  completionWebhookUrl: string;
  /** Typed by the person: always sent. Empty: sent only for a model known to need one. */
  userEmail: string;
  /** The preset the app and model came from, for titles only. */
  presetName?: string;
}

export function emptyReviewForm(defaults: { appId?: string; model?: string } = {}): ReviewForm {
  return {
    appId: (defaults.appId ?? '').trim(),
    fromBranch: '',
    fromVersion: '',
    toBranch: '',
    toVersion: '',
    title: '',
    description: '',
    focusAreas: '',
    model: (defaults.model ?? '').trim(),
    completionWebhookUrl: '',
    userEmail: '',
  };
}

const TEXT_FIELDS = ['appId', 'fromBranch', 'fromVersion', 'toBranch', 'toVersion', 'title', 'description', 'focusAreas', 'model', 'completionWebhookUrl', 'userEmail'] as const;

/** A form from stored JSON (a saved draft); undefined when nothing worth restoring is there. Never throws. */
export function reviveReviewForm(raw: unknown): ReviewForm | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const form = emptyReviewForm();
  for (const key of TEXT_FIELDS) {
    const v = r[key];
    if (typeof v === 'string') form[key] = v;
  }
  for (const key of ['fromVersionLabel', 'toVersionLabel', 'presetName'] as const) {
    const v = r[key];
    if (typeof v === 'string' && v !== '') form[key] = v;
  }
  return hasTypedReview(form) ? form : undefined;
}

/** True when the form holds something the person chose or typed beyond the app and model defaults. */
export function hasTypedReview(form: ReviewForm): boolean {
  return [form.fromBranch, form.fromVersion, form.toBranch, form.toVersion, form.title, form.description, form.focusAreas].some((v) => v.trim() !== '');
}

/** A source or target: the branch itself or a version id of it (a branch label may have spaces). */
export function checkVersion(text: string, which: 'from' | 'to', l10n: L10n): string | undefined {
  const v = text.trim();
  if (v === '') return which === 'from' ? l10n.t('Choose the source: the branch (or a version of it) with the changes.') : l10n.t('Choose the target: the branch (or a version of it) the source is compared with.');
  if (/[\r\n]/.test(v) || v.length > 200) return l10n.t('A branch or version is one line of at most 200 characters.');
  return undefined;
}

/** A version ID as typed: no spaces. */
export function checkVersionId(text: string, which: 'from' | 'to', l10n: L10n): string | undefined {
  return checkVersion(text, which, l10n) ?? (/\s/.test(text.trim()) ? l10n.t('A version ID has no spaces.') : undefined);
}

/** A branch ID or label as typed or picked. */
export function checkBranch(text: string, which: 'from' | 'to', l10n: L10n): string | undefined {
  const v = text.trim();
  if (v === '') return which === 'from' ? l10n.t('Choose the source branch: the one with the changes.') : l10n.t('Choose the target branch, e.g. the main one.');
  if (/[\r\n]/.test(v) || v.length > 200) return l10n.t('A branch ID or label is one line of at most 200 characters.');
  return undefined;
}

/** Empty is fine: the service chooses the model. */
export function checkReviewModel(text: string, l10n: L10n): string | undefined {
  return text.trim() === '' ? undefined : checkModel(text, l10n);
}

/** The first problem that would stop the form from being sent, with the step that fixes it. */
export function reviewProblem(form: ReviewForm, l10n: L10n): { step: ReviewStep; message: string } | undefined {
  const same = form.fromVersion.trim() !== '' && form.fromVersion.trim() === form.toVersion.trim()
    ? l10n.t('The source and the target are the same ({0}); choose two different branches or versions to compare.', versionShown(form.toVersion, form.toVersionLabel))
    : undefined;
  const checks: Array<[ReviewStep, string | undefined]> = [
    ['appId', checkAppId(form.appId, l10n)],
    ['fromBranch', form.fromVersion.trim() === '' ? checkBranch(form.fromBranch, 'from', l10n) : undefined],
    ['fromVersion', checkVersion(form.fromVersion, 'from', l10n)],
    ['toBranch', form.toVersion.trim() === '' ? checkBranch(form.toBranch, 'to', l10n) : undefined],
    ['toVersion', checkVersion(form.toVersion, 'to', l10n) ?? same],
    ['model', checkReviewModel(form.model, l10n)],
    ['completionWebhookUrl', checkWebhookUrl(form.completionWebhookUrl, l10n)],
    ['userEmail', checkEmail(form.userEmail, l10n)],
  ];
  for (const [step, message] of checks) {
    if (message !== undefined) return { step, message };
  }
  return undefined;
}

/** The `POST /code-reviews` body: only the fields with a value. */
export function buildReviewRequest(form: ReviewForm, userEmail: string | undefined): StartCodeReviewRequest {
  const request: StartCodeReviewRequest = { appId: form.appId.trim(), fromVersion: form.fromVersion.trim(), toVersion: form.toVersion.trim() };
  const model = form.model.trim();
  if (model !== '') request.model = model;
  const title = form.title.trim();
  if (title !== '') request.title = title;
  if (form.description.trim() !== '') request.description = form.description;
  if (form.focusAreas.trim() !== '') request.focusAreas = form.focusAreas;
  const webhook = form.completionWebhookUrl.trim();
  if (webhook !== '') request.completionWebhookUrl = webhook;
  if (userEmail !== undefined && userEmail.trim() !== '') request.userEmail = userEmail.trim();
  return request;
}

/** The app of an argument: `{ appId }`, or a Runs view app row (its `key`, or its group's). */
export function appIdOfArg(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg.trim() === '' ? undefined : arg.trim();
  if (typeof arg !== 'object' || arg === null) return undefined;
  const a = arg as { appId?: unknown; key?: unknown; kind?: unknown; group?: { key?: unknown } };
  const candidates = [a.appId, a.kind === 'app' ? a.key : undefined, a.group?.key];
  const found = candidates.find((c): c is string => typeof c === 'string' && c.trim() !== '');
  return found?.trim();
}

/** The app choices, in order: the one in the form, the configured default, then the apps of listed runs (most recent first). */
export function appChoices(current: string, configured: string, listed: readonly string[]): Array<{ appId: string; from: 'current' | 'settings' | 'runs' }> {
  const out: Array<{ appId: string; from: 'current' | 'settings' | 'runs' }> = [];
  const add = (value: string, from: 'current' | 'settings' | 'runs'): void => {
    const v = value.trim();
    if (v !== '' && !out.some((c) => c.appId === v)) out.push({ appId: v, from });
  };
  add(current, 'current');
  add(configured, 'settings');
  for (const a of listed) add(a, 'runs');
  return out;
}

/**
 * The form with a launch preset's app and model (its effort, permission and branches are a
 * run's, not a review's). As for a run, a model the service no longer offers is not taken: the
 * model step is shown instead.
 */
export function applyReviewPreset(form: ReviewForm, check: PresetCheck): { form: ReviewForm; skip: Set<ReviewMainStep> } {
  const { preset } = check;
  const next: ReviewForm = { ...form, presetName: preset.name };
  const skip = new Set<ReviewMainStep>();
  if (preset.appId !== undefined) {
    next.appId = preset.appId;
    skip.add('appId');
  }
  if (preset.model !== undefined) {
    next.model = check.status === 'modelUnavailable' ? '' : preset.model;
    if (check.status === 'ok') skip.add('model');
  }
  return { form: next, skip };
}
