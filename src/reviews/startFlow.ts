/**
 * The code review form as a multi-step quick input, on the parts it borrows from dist/launch.js
 * (`ReviewParts`). Values live in one `ReviewForm`, so Back, Escape and Edit lose nothing.
 */
import * as vscode from 'vscode';
import type * as ReviewPartsModule from '../run/reviewParts';
import type { FieldHost, StepOutcome, ValueItem } from '../run/formSteps';
import type { LoadedCatalog } from '../run/modelList';
import type { StepButton, StepResult, PickUpdate } from '../base/quickInput';
import type { ModelCatalog } from '../run/common/models';
import type { LaunchPreset, PresetCheck } from '../run/common/presets';
import {
  applyReviewPreset, appChoices, checkReviewModel, reviewProblem, type ReviewForm,
} from './common/form';
import { reviewPrompt, versionShown } from '../run/common/reviews';
import { reviewNavigator, reviewSteps, type ReviewMainStep, type ReviewStep } from './common/steps';
import type { KnownBranch } from '../run/common/branches/known';
import type { BranchSyncResult } from '../run/branches';
import { branchStep, versionStep, type VersionLists, type VersionStepState } from './versionSteps';

export type ReviewParts = typeof ReviewPartsModule;

const l10n = vscode.l10n;
const DISCARD = 'discard';

export interface ReviewFlowContext {
  parts: ReviewParts;
  versions: VersionLists;
  /** The app's branches known here, in the order offered. */
  branches(appId: string): KnownBranch[];
  /** "Sync branch", with its progress; every end but a completed one is said to the person. */
  syncBranch(appId: string, branch: string): Promise<BranchSyncResult>;
  catalog: LoadedCatalog;
  presets: readonly LaunchPreset[];
  /** `agentRuns.appId`. */
  configuredAppId: string;
  /** The apps of the runs in the list, most recent first. */
  listedAppIds: readonly string[];
  /** Models the service said need `userEmail`. */
  emailModels: ReadonlySet<string>;
  defaultEmail: Promise<string | undefined>;
  describeError(err: unknown): string;
  /** Shown in every step's title ("restored unsent review"); with it, every step offers Discard. */
  titleNote?: string;
  freshForm(): ReviewForm;
}

export type ReviewFlowResult = { kind: 'submit' | 'cancel'; form: ReviewForm };

/** The flow as its steps see it (versionSteps.ts, and the launch form's webhook and email steps). */
export interface ReviewHost extends FieldHost<'completionWebhookUrl' | 'userEmail'> {
  readonly form: ReviewForm;
  readonly parts: ReviewParts;
  readonly versions: VersionLists;
  branches(appId: string): KnownBranch[];
  syncBranch(appId: string, branch: string): Promise<BranchSyncResult>;
  describeError(err: unknown): string;
}

interface ReviewRow extends vscode.QuickPickItem { target?: ReviewStep | 'start' }

class ReviewFlow implements ReviewHost {
  form: ReviewForm;
  email: string | undefined;
  private readonly skip = new Set<ReviewMainStep>();
  private nav: ReturnType<typeof reviewNavigator>;
  private titleNote: string | undefined;
  private catalog: ModelCatalog | undefined;
  private readonly versionState: VersionStepState = {};

  constructor(initial: ReviewForm, private readonly ctx: ReviewFlowContext, start?: ReviewStep) {
    this.form = { ...initial };
    this.titleNote = ctx.titleNote;
    this.catalog = ctx.catalog.initial;
    this.nav = this.navigator(start);
    ctx.catalog.promise.then((c) => {
      this.catalog = c;
    }, () => undefined);
    ctx.defaultEmail.then((e) => {
      this.email = e;
    }, () => undefined);
  }

  get parts(): ReviewParts {
    return this.ctx.parts;
  }

  get versions(): VersionLists {
    return this.ctx.versions;
  }

  describeError(err: unknown): string {
    return this.ctx.describeError(err);
  }

  branches(appId: string): KnownBranch[] {
    return this.ctx.branches(appId);
  }

  syncBranch(appId: string, branch: string): Promise<BranchSyncResult> {
    return this.ctx.syncBranch(appId, branch);
  }

  private navigator(start?: ReviewStep): ReturnType<typeof reviewNavigator> {
    return reviewNavigator(() => reviewSteps({ hasPresets: this.presetChoices().length > 0, skip: this.skip }), start);
  }

  async run(): Promise<ReviewFlowResult> {
    for (;;) {
      const outcome = await this.render(this.nav.current);
      switch (outcome.kind) {
        case 'discard':
          this.form = this.ctx.freshForm();
          this.titleNote = undefined;
          this.skip.clear();
          this.nav = this.navigator();
          break;
        case 'cancel':
          return { kind: 'cancel', form: this.form };
        case 'submit':
          return { kind: 'submit', form: this.form };
        case 'back':
          if (this.nav.back() === undefined) return { kind: 'cancel', form: this.form };
          break;
        case 'next':
          if (this.nav.next() === undefined) return { kind: 'submit', form: this.form };
          break;
        case 'open':
          this.nav.open(outcome.step);
          break;
        case 'compose':
        case 'stay':
          break;
      }
    }
  }

  common(label: string, own: StepButton[] = []): { title: string; step: number; totalSteps: number; canGoBack: boolean; buttons: StepButton[] } {
    const { step, total } = this.nav.position();
    const base = this.form.presetName ? l10n.t('Start Code Review ({0})', this.form.presetName) : l10n.t('Start Code Review');
    const discard: StepButton = { id: DISCARD, iconPath: new vscode.ThemeIcon('discard'), tooltip: l10n.t('Discard the restored review and start over') };
    return {
      title: `${base}: ${label}${this.titleNote ? ` — ${this.titleNote}` : ''}`,
      step, totalSteps: total, canGoBack: this.nav.canGoBack,
      buttons: this.titleNote !== undefined ? [...own, discard] : own,
    };
  }

  plain<T>(r: StepResult<T>): StepOutcome | undefined {
    if (r.kind === 'back') return { kind: 'back' };
    if (r.kind === 'cancel') return { kind: 'cancel' };
    if (r.kind === 'button' && r.id === DISCARD) return { kind: 'discard' };
    return undefined;
  }

  private render(step: ReviewStep): Promise<StepOutcome<ReviewStep>> {
    switch (step) {
      case 'preset': return this.presetStep();
      case 'appId': return this.appStep();
      case 'fromBranch': return branchStep(this, 'from');
      case 'fromVersion': return versionStep(this, 'from', this.versionState);
      case 'toBranch': return branchStep(this, 'to');
      case 'toVersion': return versionStep(this, 'to', this.versionState);
      case 'title': return this.textStep('title', l10n.t('Title'), l10n.t('A title for the review (optional). Empty: “{0}”.', reviewPrompt({ ...this.form, title: '' }, l10n)));
      case 'description': return this.textStep('description', l10n.t('Description'), l10n.t('What changed and why (optional).'));
      case 'focusAreas': return this.textStep('focusAreas', l10n.t('Focus areas'), l10n.t('What the review agent should look at first (optional), e.g. error handling, the new API calls.'));
      case 'model': return this.modelStep();
      case 'review': return this.reviewStep();
      case 'completionWebhookUrl': return this.parts.webhookStep(this);
      case 'userEmail': return this.parts.emailStep(this);
    }
  }

  // ------------------------------------------------------------ preset, app

  /** The launch presets that name an app or a model (the rest of a preset is a run's). */
  private presetChoices(): LaunchPreset[] {
    return this.ctx.presets.filter((p) => p.appId !== undefined || p.model !== undefined);
  }

  private async presetStep(): Promise<StepOutcome> {
    type PresetItem = ValueItem<LaunchPreset | undefined>;
    const items: PresetItem[] = this.presetChoices().map((p) => ({
      label: `$(bookmark) ${l10n.t('Preset: {0}', p.name)}`,
      description: [p.appId, p.model].filter((s): s is string => s !== undefined).join(' · '),
      value: p,
    }));
    items.push({ label: `$(edit) ${l10n.t('Custom…')}`, description: l10n.t('Enter every value yourself'), value: undefined });
    const r = await this.parts.showPick<PresetItem>({
      ...this.common(l10n.t('Preset')),
      placeholder: l10n.t('Take the app and model from a launch preset, or Custom…'),
      items, active: items.find((i) => i.value?.name === this.form.presetName),
    });
    const plain = this.plain(r);
    if (plain) return plain;
    if (r.kind !== 'accept') return { kind: 'stay' };
    this.skip.clear();
    const preset = r.value.value;
    if (!preset) {
      delete this.form.presetName;
      return { kind: 'next' };
    }
    // Checked against the freshest model list: a model the service dropped is not taken.
    const catalog = await this.ctx.catalog.promise.catch(() => this.catalog);
    const check: PresetCheck = catalog ? this.parts.checkPreset(preset, catalog, l10n) : { preset, status: 'unverified' };
    const applied = applyReviewPreset(this.form, check);
    this.form = applied.form;
    for (const s of applied.skip) this.skip.add(s);
    return { kind: 'next' };
  }

  private async appStep(): Promise<StepOutcome> {
    const words = { current: l10n.t('current'), settings: l10n.t('from settings (agentRuns.appId)'), runs: l10n.t('has runs in the list') };
    const items: Array<ValueItem<string>> = appChoices(this.form.appId, this.ctx.configuredAppId, this.ctx.listedAppIds)
      .map((c) => ({ label: c.appId, description: words[c.from], value: c.appId }));
    const r = await this.parts.showPick<ValueItem<string>>({
      ...this.common(l10n.t('App ID')),
      placeholder: items.length > 0 ? l10n.t('Pick the app to review, or type another App ID') : l10n.t('Type the App ID of a verified project, then press Enter'),
      items, active: items[0],
      typedItem: (value) => (/\s/.test(value) ? undefined : { label: value, description: l10n.t('Use this App ID'), value, alwaysShow: true }),
    });
    const plain = this.plain(r);
    if (plain) return plain;
    if (r.kind !== 'accept') return { kind: 'stay' };
    this.form.appId = r.value.value;
    return { kind: 'next' };
  }

  // ------------------------------------------------------------ texts, model

  /** An optional text: what was typed is kept also when leaving with Back or Escape. */
  private async textStep(key: 'title' | 'description' | 'focusAreas', label: string, prompt: string): Promise<StepOutcome> {
    const r = await this.parts.showInput({ ...this.common(label), value: this.form[key], prompt, validate: () => undefined });
    if (r.kind !== 'accept' && r.typed !== undefined) this.form[key] = r.typed;
    const plain = this.plain(r);
    if (plain) return plain;
    if (r.kind !== 'accept') return { kind: 'stay' };
    this.form[key] = r.value;
    return { kind: 'next' };
  }

  private modelItems(catalog: ModelCatalog | undefined): Array<ValueItem<string>> {
    const models = [...(catalog?.models ?? [])];
    const current = this.form.model.trim();
    if (current !== '' && !models.includes(current) && !(catalog && this.parts.isAuthoritative(catalog))) models.unshift(current);
    return [
      { label: l10n.t('The service\'s default'), description: l10n.t('the service chooses the review agent\'s model'), value: '' },
      ...models.map((m) => ({ label: m, description: this.ctx.emailModels.has(m) ? l10n.t('needs a user email') : '', value: m })),
    ];
  }

  private async modelStep(): Promise<StepOutcome> {
    const items = this.modelItems(this.catalog);
    const pick = (list: ReadonlyArray<ValueItem<string>>): ValueItem<string> | undefined => list.find((i) => i.value === this.form.model.trim()) ?? list[0];
    const placeholder = l10n.t('Choose the review agent\'s model');
    const update = this.catalog?.source === 'live' ? undefined : this.ctx.catalog.promise.then((c): PickUpdate<ValueItem<string>> => {
      const fresh = this.modelItems(c);
      return { items: fresh, active: pick(fresh) };
    });
    const r = await this.parts.showPick<ValueItem<string>>({
      ...this.common(l10n.t('Model')),
      placeholder, items, active: pick(items), update, matchOnDescription: true,
      typedItem: (value) => (this.catalog && this.parts.isAuthoritative(this.catalog)) || checkReviewModel(value, l10n) !== undefined
        ? undefined
        : { label: value, description: l10n.t('Use this model ID'), value, alwaysShow: true },
    });
    const plain = this.plain(r);
    if (plain) return plain;
    if (r.kind !== 'accept') return { kind: 'stay' };
    this.form.model = r.value.value;
    return { kind: 'next' };
  }

  // ------------------------------------------------------------ review

  private emailDescription(): string {
    if (this.form.userEmail.trim() !== '') return this.form.userEmail.trim();
    if (this.ctx.emailModels.has(this.form.model.trim())) {
      return this.email ? l10n.t('{0} (the model needs one; from settings or git)', this.email) : l10n.t('none yet: the model needs one, you will be asked');
    }
    return l10n.t('not sent (asked for if the model needs one)');
  }

  private async reviewStep(): Promise<StepOutcome<ReviewStep>> {
    const f = this.form;
    const problem = reviewProblem(f, l10n);
    const none = l10n.t('none');
    const sep = (label: string): ReviewRow => this.parts.separator<ReviewRow>(label);
    const start: ReviewRow = problem
      ? { label: `$(error) ${l10n.t('Fix before starting')}`, description: problem.message, target: problem.step }
      : { label: `$(rocket) ${l10n.t('Start Code Review')}`, description: reviewPrompt(f, l10n), target: 'start' };
    const rows: ReviewRow[] = [
      start,
      sep(l10n.t('Review')),
      { label: l10n.t('App ID'), description: f.appId || none, target: 'appId' },
      { label: l10n.t('Source branch'), description: f.fromBranch.trim() || none, target: 'fromBranch' },
      { label: l10n.t('Source'), description: f.fromVersion.trim() ? versionShown(f.fromVersion, f.fromVersionLabel) : none, detail: f.fromVersionLabel ? f.fromVersion : undefined, target: 'fromVersion' },
      { label: l10n.t('Target branch'), description: f.toBranch.trim() || none, target: 'toBranch' },
      { label: l10n.t('Target'), description: f.toVersion.trim() ? versionShown(f.toVersion, f.toVersionLabel) : none, detail: f.toVersionLabel ? f.toVersion : undefined, target: 'toVersion' },
      { label: l10n.t('Title'), description: f.title.trim() || none, target: 'title' },
      { label: l10n.t('Description'), description: f.description.trim() || none, target: 'description' },
      { label: l10n.t('Focus areas'), description: f.focusAreas.trim() || none, target: 'focusAreas' },
      { label: l10n.t('Model'), description: f.model.trim() || l10n.t('the service\'s default'), target: 'model' },
      sep(l10n.t('Options')),
      { label: l10n.t('Completion webhook URL'), description: f.completionWebhookUrl || none, target: 'completionWebhookUrl' },
      { label: l10n.t('User email'), description: this.emailDescription(), target: 'userEmail' },
    ];
    const r = await this.parts.showPick<ReviewRow>({
      ...this.common(l10n.t('Review')),
      placeholder: problem ? problem.message : l10n.t('Press Enter to start the code review, or pick a field to change it'),
      items: rows,
      active: rows[0],
    });
    const plain = this.plain(r);
    if (plain) return plain;
    if (r.kind !== 'accept' || r.value.target === undefined) return { kind: 'stay' };
    return r.value.target === 'start' ? { kind: 'submit' } : { kind: 'open', step: r.value.target };
  }
}

/** Runs the code review form from `start` (default: the first step) with `initial` pre-filled. */
export function runReviewFlow(initial: ReviewForm, ctx: ReviewFlowContext, start?: ReviewStep): Promise<ReviewFlowResult> {
  return new ReviewFlow(initial, ctx, start).run();
}
