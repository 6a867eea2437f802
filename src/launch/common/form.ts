/** The launch form, one value so that Back, "Edit" after a failure, "Clone Run" and a restored draft work on the same thing. */
import {
  isPermission, REASONING_EFFORTS,
  type Permission, type ReasoningEffort, type StartAgentRequest,
} from '../../api/types';
import type { LaunchPrefill } from '../../run/common/ledger/ledger';
import type { RefusedValue } from '../../run/common/startFailure';
import { checkAppId, checkBranches, checkModel, checkWebhookUrl, checkEmail, formatBranches } from '../../run/common/startFields';
import type { PresetCheck } from '../../run/common/presets';
import type { MainStep } from './navigation';
import type { L10n } from '../../base/common/l10n';

export const DEFAULT_REASONING_EFFORT: ReasoningEffort = 'medium';
export const DEFAULT_PERMISSION: Permission = 'read_only';

/** Context attached below the typed prompt (an editor selection), shown to the person by its label. */
export interface PromptAttachment {
  /** Short description for the UI, e.g. `src/app.ts, lines 3–9`. */
  label: string;
  /** The Markdown appended to the prompt (file path and fenced code). */
  text: string;
}

export interface LaunchForm {
  appId: string;
  /** The text the person typed or composed. */
  prompt: string;
  /** Appended below `prompt` when the run is started. */
  attachment?: PromptAttachment;
  model: string;
  reasoningEffort: ReasoningEffort;
  permission: Permission;
  permittedBranches: string[];
  /** Empty when none. */
  completionWebhookUrl: string;
  /**
   * Typed by the person (or carried by a clone/draft): always sent. Empty means "send one only
   * when the model is known to need it", resolved from settings or git at send time.
   */
  userEmail: string;
  /** The preset the values came from, for titles only. */
  presetName?: string;
  /**
   * Values the service refused when this form was last sent (kept with a saved draft): each is
   * marked in the restored form and must be looked at before the next start.
   */
  refused?: RefusedValue[];
}

const REFUSABLE_STEPS: readonly RefusedValue['step'][] = ['appId', 'model', 'userEmail'];

export interface FormDefaults {
  appId?: string;
  model?: string;
}

export function emptyForm(defaults: FormDefaults = {}): LaunchForm {
  return {
    appId: (defaults.appId ?? '').trim(),
    prompt: '',
    model: (defaults.model ?? '').trim(),
    reasoningEffort: DEFAULT_REASONING_EFFORT,
    permission: DEFAULT_PERMISSION,
    permittedBranches: [],
    completionWebhookUrl: '',
    userEmail: '',
  };
}

export function cloneForm(form: LaunchForm): LaunchForm {
  const copy: LaunchForm = { ...form, permittedBranches: [...form.permittedBranches] };
  if (form.attachment) copy.attachment = { ...form.attachment };
  if (form.refused) copy.refused = form.refused.map((r) => ({ ...r }));
  return copy;
}

function isReasoningEffort(v: unknown): v is ReasoningEffort {
  return typeof v === 'string' && (REASONING_EFFORTS as readonly string[]).includes(v);
}

/** A form pre-filled from a run in the ledger ("Clone Run"). Unknown enum values fall back to defaults. */
export function formFromRecord(record: LaunchPrefill, defaults: FormDefaults = {}): LaunchForm {
  const form = emptyForm(defaults);
  if (record.appId) form.appId = record.appId;
  if (record.prompt) form.prompt = record.prompt;
  if (record.model) form.model = record.model;
  if (isReasoningEffort(record.reasoningEffort)) form.reasoningEffort = record.reasoningEffort;
  if (isPermission(record.permission)) form.permission = record.permission;
  if (record.permittedBranches) form.permittedBranches = [...record.permittedBranches];
  if (record.completionWebhookUrl) form.completionWebhookUrl = record.completionWebhookUrl;
  if (record.userEmail) form.userEmail = record.userEmail;
  return form;
}

/**
 * Rebuilds a form from stored JSON (a saved draft). Returns undefined when nothing usable is
 * there; never throws.
 */
export function reviveForm(raw: unknown): LaunchForm | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const str = (k: string): string => (typeof r[k] === 'string' ? r[k] : '');
  const form = emptyForm();
  form.appId = str('appId');
  form.prompt = str('prompt');
  form.model = str('model');
  if (isReasoningEffort(r.reasoningEffort)) form.reasoningEffort = r.reasoningEffort;
  if (isPermission(r.permission)) form.permission = r.permission;
  if (Array.isArray(r.permittedBranches)) {
    form.permittedBranches = r.permittedBranches.filter((b): b is string => typeof b === 'string' && b.trim() !== '');
  }
  form.completionWebhookUrl = str('completionWebhookUrl');
  form.userEmail = str('userEmail');
  const a = r.attachment;
  if (typeof a === 'object' && a !== null && !Array.isArray(a)) {
    const { label, text } = a as Record<string, unknown>;
    if (typeof label === 'string' && typeof text === 'string' && text !== '') form.attachment = { label, text };
  }
  if (typeof r.presetName === 'string' && r.presetName !== '') form.presetName = r.presetName;
  const refused = reviveRefused(r.refused);
  if (refused.length > 0) form.refused = refused;
  if (form.prompt.trim() === '' && !form.attachment) return undefined;
  return form;
}

function reviveRefused(raw: unknown): RefusedValue[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter((v): v is RefusedValue => typeof v === 'object' && v !== null
    && REFUSABLE_STEPS.includes((v as RefusedValue).step)
    && typeof (v as RefusedValue).value === 'string' && typeof (v as RefusedValue).reason === 'string')
    .map((v) => ({ step: v.step, value: v.value, reason: v.reason.slice(0, 300) }));
}

/** The form's value for a refusable step, as sent. */
function refusableValue(form: LaunchForm, step: RefusedValue['step']): string {
  return form[step].trim();
}

/** The refusals that still apply: the field holds the value the service refused. */
export function activeRefusals(form: LaunchForm): RefusedValue[] {
  return (form.refused ?? []).filter((r) => refusableValue(form, r.step) === r.value.trim());
}

/** The form marked with a value the service just refused (replacing an older mark of that field). */
export function addRefusal(form: LaunchForm, refused: RefusedValue | undefined): LaunchForm {
  if (!refused) return form;
  const copy = cloneForm(form);
  copy.refused = [...(form.refused ?? []).filter((r) => r.step !== refused.step), { ...refused }];
  return copy;
}

/** The person looked at (and accepted) a step: its refusal mark goes. */
export function acknowledgeRefusal(form: LaunchForm, step: string): LaunchForm {
  if (!form.refused?.some((r) => r.step === step)) return form;
  const rest = form.refused.filter((r) => r.step !== step);
  const copy = cloneForm(form);
  if (rest.length > 0) copy.refused = rest;
  else delete copy.refused;
  return copy;
}

/** True when the form holds text the person would be sorry to lose. */
export function hasTypedContent(form: LaunchForm): boolean {
  return form.prompt.trim() !== '' || form.attachment !== undefined;
}

/** The prompt as it is sent: the typed text, then the attachment. Line endings are `\n`. */
export function fullPrompt(form: Pick<LaunchForm, 'prompt' | 'attachment'>): string {
  const typed = normalizeNewlines(form.prompt).replace(/\s+$/, '');
  if (!form.attachment) return typed;
  return typed === '' ? form.attachment.text : `${typed}\n\n${form.attachment.text}`;
}

export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

export function isMultiLine(text: string): boolean {
  return /[\r\n]/.test(text.replace(/\s+$/, ''));
}

/** First non-empty line, cut to `max` characters, plus how many lines there are. */
export function promptPreview(text: string, max = 60): { firstLine: string; lines: number } {
  const lines = normalizeNewlines(text).replace(/\s+$/, '').split('\n');
  const first = lines.find((l) => l.trim() !== '') ?? '';
  const trimmed = first.trim();
  const firstLine = trimmed.length > max ? `${trimmed.slice(0, max - 1)}…` : trimmed;
  return { firstLine, lines: lines.length };
}

// ---------------------------------------------------------------- field checks

export function checkPrompt(text: string, l10n: L10n): string | undefined {
  if (text.trim() === '') return l10n.t('Write what the agent should do.');
  return undefined;
}

/** The first problem that would stop the form from being sent, with the step that fixes it. */
export function firstProblem(form: LaunchForm, l10n: L10n): { step: 'appId' | 'prompt' | 'model' | 'permittedBranches' | 'completionWebhookUrl' | 'userEmail'; message: string } | undefined {
  const checks = [
    ['appId', checkAppId(form.appId, l10n)],
    ['prompt', checkPrompt(form.prompt === '' && form.attachment ? ' ' : form.prompt, l10n)],
    ['model', checkModel(form.model, l10n)],
    ['permittedBranches', checkBranches(formatBranches(form.permittedBranches), l10n)],
    ['completionWebhookUrl', checkWebhookUrl(form.completionWebhookUrl, l10n)],
    ['userEmail', checkEmail(form.userEmail, l10n)],
  ] as const;
  for (const [step, message] of checks) {
    if (message !== undefined) return { step, message };
  }
  const refused = activeRefusals(form)[0];
  if (refused) {
    return { step: refused.step, message: l10n.t('The service refused {0} last time ({1}). Check it before starting again.', refused.value, refused.reason) };
  }
  return undefined;
}

// ---------------------------------------------------------------- request

/** The `POST /agents` body for the form. Defaults are sent explicitly so the record shows them. */
export function buildStartRequest(form: LaunchForm, userEmail: string | undefined): StartAgentRequest {
  const request: StartAgentRequest = {
    appId: form.appId.trim(),
    prompt: fullPrompt(form),
    model: form.model.trim(),
    reasoningEffort: form.reasoningEffort,
    permission: form.permission,
  };
  if (form.permittedBranches.length > 0) request.permittedBranches = [...form.permittedBranches];
  const webhook = form.completionWebhookUrl.trim();
  if (webhook !== '') request.completionWebhookUrl = webhook;
  if (userEmail !== undefined && userEmail.trim() !== '') request.userEmail = userEmail.trim();
  return request;
}

/**
 * A prefill passed as a command argument (e.g. `agentRuns.startRun` with `{ prompt, appId }`
 * from "Start Agent Run for These Tests"). Only well-typed known fields are taken; anything
 * else (a tree node, a URI) gives undefined.
 */
export function prefillFromArg(arg: unknown): LaunchPrefill | undefined {
  if (typeof arg !== 'object' || arg === null || Array.isArray(arg)) return undefined;
  const a = arg as Record<string, unknown>;
  const out: LaunchPrefill = {};
  for (const key of ['appId', 'prompt', 'model', 'reasoningEffort', 'permission', 'completionWebhookUrl', 'userEmail'] as const) {
    const v = a[key];
    if (typeof v === 'string' && v.trim() !== '') out[key] = v;
  }
  if (Array.isArray(a.permittedBranches) && a.permittedBranches.every((b) => typeof b === 'string')) {
    out.permittedBranches = a.permittedBranches;
  }
  // A run record or tree node carries an agentId: that is "clone", not a plain prefill.
  if (typeof a.agentId === 'string' || Object.keys(out).length === 0) return undefined;
  return out;
}

export interface AppliedPreset {
  form: LaunchForm;
  /** Main steps the preset answered. */
  skip: Set<MainStep>;
}

/**
 * The form with the preset's values. The prompt (and anything typed) is kept. A model the
 * service no longer offers is not taken: the model step is shown instead, so an outdated
 * preset is never used silently.
 */
export function applyPreset(form: LaunchForm, check: PresetCheck): AppliedPreset {
  const { preset } = check;
  const next = cloneForm(form);
  const skip = new Set<MainStep>();
  next.presetName = preset.name;
  if (preset.appId !== undefined) {
    next.appId = preset.appId;
    skip.add('appId');
  }
  if (preset.model !== undefined) {
    if (check.status === 'modelUnavailable') {
      next.model = '';
    } else {
      next.model = preset.model;
      if (check.status === 'ok') skip.add('model');
    }
  }
  if (preset.reasoningEffort !== undefined) next.reasoningEffort = preset.reasoningEffort;
  if (preset.permission !== undefined) next.permission = preset.permission;
  if (preset.permittedBranches !== undefined) next.permittedBranches = [...preset.permittedBranches];
  return { form: next, skip };
}
