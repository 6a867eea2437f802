/**
 * The launch form's host and the steps that need nothing but the form: the review and the
 * options reached from it (what both start forms share: run/formSteps.ts). The steps that follow
 * the model list and presets live in launchFlow.ts.
 */
import * as vscode from 'vscode';
import { REASONING_EFFORTS, type Permission, type ReasoningEffort } from '../api/types';
import {
  DEFAULT_PERMISSION, DEFAULT_REASONING_EFFORT,
  activeRefusals, firstProblem, promptPreview,
  type LaunchForm,
} from './common/form';
import { checkBranches, formatBranches, parseBranches } from '../run/common/startFields';
import type { AppOfRun } from './common/appOffers';
import type { ModelCatalog } from '../run/common/models';
import type { StepId } from './common/navigation';
import type { LaunchPreset } from '../run/common/presets';
import { showPick } from '../base/quickInput';
import { inputValue, separator, type FieldHost, type StepOutcome, type ValueItem } from '../run/formSteps';

const l10n = vscode.l10n;

export interface FlowContext {
  /** The list known right now (cache or fallback), if any. */
  initialCatalog: ModelCatalog | undefined;
  /** Resolves with the list to use (live when reachable). */
  catalog: Promise<ModelCatalog>;
  /** Reads the list from the service again ("Reload" button). */
  reloadCatalog(): Promise<ModelCatalog>;
  presets: readonly LaunchPreset[];
  defaultAppId: string;
  /** Most recent first, for the current base URL. */
  recentAppIds: readonly string[];
  /** The apps of the runs in the list (the ledger of the current base URL). */
  appsOfRuns: readonly AppOfRun[];
  defaultModel: string;
  lastModel: string | undefined;
  /** Models the service said need `userEmail`. */
  emailModels: ReadonlySet<string>;
  /** `agentRuns.userEmail` or git's `user.email`, for display in the review. */
  defaultEmail: Promise<string | undefined>;
  /** Shown in every step's title, e.g. "restored unsent prompt". */
  titleNote?: string;
  /**
   * When set (a restored draft), every step offers "Discard" which starts over with this
   * form: otherwise a draft could only be got rid of by sending it.
   */
  freshForm?: () => LaunchForm;
}

export type FlowResult =
  | { kind: 'submit'; form: LaunchForm }
  /** The person wants to write the prompt in an editor; the form waits. */
  | { kind: 'compose'; form: LaunchForm }
  | { kind: 'cancel'; form: LaunchForm };

/** The flow as its steps see it: the live form, the context, and the shared step chrome. */
export interface StepHost extends FieldHost<'completionWebhookUrl' | 'userEmail'> {
  readonly form: LaunchForm;
  readonly ctx: FlowContext;
}

interface ReviewItem extends vscode.QuickPickItem { target?: StepId | 'start' }

// ------------------------------------------------------------ review

function emailDescription(host: StepHost): string {
  if (host.form.userEmail.trim() !== '') return host.form.userEmail.trim();
  if (host.ctx.emailModels.has(host.form.model)) {
    return host.email
      ? l10n.t('{0} (the model needs one; from settings or git)', host.email)
      : l10n.t('none yet: the model needs one, you will be asked');
  }
  return l10n.t('not sent (asked for if the model needs one)');
}

export async function reviewStep(host: StepHost): Promise<StepOutcome<StepId>> {
  const f = host.form;
  const problem = firstProblem(f, l10n);
  const { firstLine, lines } = promptPreview(f.prompt);
  const promptDetail = [
    lines > 1 ? l10n.t('{0} lines', lines) : undefined,
    f.attachment ? l10n.t('+ {0}', f.attachment.label) : undefined,
  ].filter((s): s is string => s !== undefined).join(' ');
  const none = l10n.t('none');
  const isDefault = (yes: boolean): string => (yes ? ` ${l10n.t('(default)')}` : '');
  const start: ReviewItem = problem
    ? { label: `$(error) ${l10n.t('Fix before starting')}`, description: problem.message, target: problem.step }
    : {
      label: `$(rocket) ${l10n.t('Start Agent Run')}`,
      description: f.permission === 'allow_edits' ? l10n.t('edits allowed: you will be asked to confirm') : '',
      target: 'start',
    };
  const items: ReviewItem[] = [
    start,
    separator<ReviewItem>(l10n.t('Run')),
    { label: l10n.t('App ID'), description: f.appId || none, target: 'appId' },
    { label: l10n.t('Prompt'), description: firstLine || none, detail: promptDetail || undefined, target: 'prompt' },
    { label: l10n.t('Model'), description: f.model || none, target: 'model' },
    separator<ReviewItem>(l10n.t('Options')),
    { label: l10n.t('Reasoning effort'), description: f.reasoningEffort + isDefault(f.reasoningEffort === DEFAULT_REASONING_EFFORT), target: 'reasoningEffort' },
    {
      label: l10n.t('Permission'),
      description: f.permission === 'allow_edits' ? `$(warning) ${f.permission}` : f.permission + isDefault(f.permission === DEFAULT_PERMISSION),
      target: 'permission',
    },
    { label: l10n.t('Permitted branches'), description: f.permittedBranches.length > 0 ? formatBranches(f.permittedBranches) : none, target: 'permittedBranches' },
    { label: l10n.t('Completion webhook URL'), description: f.completionWebhookUrl || none, target: 'completionWebhookUrl' },
    { label: l10n.t('User email'), description: emailDescription(host), target: 'userEmail' },
  ];
  markRefused(items, activeRefusals(f));
  const r = await showPick<ReviewItem>({
    ...host.common(l10n.t('Review')),
    placeholder: problem ? problem.message : l10n.t('Press Enter to start the run, or pick a field to change it'),
    items,
    active: items[0],
  });
  const plain = host.plain(r);
  if (plain) return plain;
  if (r.kind !== 'accept') return { kind: 'stay' };
  const target = r.value.target;
  if (target === undefined) return { kind: 'stay' };
  if (target === 'start') return { kind: 'submit' };
  return { kind: 'open', step: target };
}

/** A value the service refused last time (restored draft): flagged on its row until looked at. */
function markRefused(items: ReviewItem[], refused: ReturnType<typeof activeRefusals>): void {
  for (const r of refused) {
    const item = items.find((i) => i.target === r.step);
    if (item) {
      item.description = `$(warning) ${item.description ?? ''}`;
      item.detail = l10n.t('Refused last time: {0}', r.reason);
    }
  }
}

// ------------------------------------------------------------ options

export async function effortStep(host: StepHost): Promise<StepOutcome> {
  const items: Array<ValueItem<ReasoningEffort>> = REASONING_EFFORTS.map((e) => ({
    label: e,
    description: e === DEFAULT_REASONING_EFFORT ? l10n.t('default') : '',
    value: e,
  }));
  return pickValue(host, l10n.t('Reasoning effort'), l10n.t('How much reasoning the model should spend'), items, host.form.reasoningEffort, (v) => {
    host.form.reasoningEffort = v;
  });
}

export async function permissionStep(host: StepHost): Promise<StepOutcome> {
  const items: Array<ValueItem<Permission>> = [
    { label: 'read_only', description: l10n.t('default'), detail: l10n.t('The agent can read the app but not change it.'), value: 'read_only' },
    {
      label: 'allow_edits',
      detail: l10n.t('The agent may change the app on the permitted branches. You confirm before the run starts.'),
      value: 'allow_edits',
    },
  ];
  return pickValue(host, l10n.t('Permission'), l10n.t('What the agent may do'), items, host.form.permission, (v) => {
    host.form.permission = v;
  });
}

/** One choice among fixed values: the current one preselected, the pick stored with `set`. */
async function pickValue<T>(host: StepHost, title: string, placeholder: string, items: Array<ValueItem<T>>, current: T | undefined, set: (value: T) => void): Promise<StepOutcome> {
  const r = await showPick<ValueItem<T>>({ ...host.common(title), placeholder, items, active: items.find((i) => i.value === current) });
  const plain = host.plain(r);
  if (plain) return plain;
  if (r.kind !== 'accept') return { kind: 'stay' };
  set(r.value.value);
  return { kind: 'next' };
}

export async function branchesStep(host: StepHost): Promise<StepOutcome> {
  return inputValue(host, {
    ...host.common(l10n.t('Permitted branches')),
    value: formatBranches(host.form.permittedBranches),
    prompt: l10n.t('Branches the run may access when branch restrictions apply, separated by commas. Leave empty for none.'),
    placeholder: l10n.t('e.g. main, feature/login'),
    validate: (v) => checkBranches(v, l10n),
  }, (v) => {
    host.form.permittedBranches = parseBranches(v);
  });
}
