/**
 * The launch form as a multi-step quick input (the options and review: formSteps.ts). Rendering
 * only; values live in one `LaunchForm`, so Back, Edit and Clone lose nothing.
 */
import * as vscode from 'vscode';
import { appIdOffers, type AppOffer } from './common/appOffers';
import { acknowledgeRefusal, applyPreset, checkPrompt, cloneForm, fullPrompt, isMultiLine, promptPreview, type LaunchForm } from './common/form';
import { checkAppId, checkModel } from '../run/common/startFields';
import { isAuthoritative, type ModelCatalog } from '../run/common/models';
import type { Navigator } from '../base/common/navigator';
import { launchNavigator, mainSteps, type MainStep, type StepId } from './common/navigation';
import { checkPreset, type PresetCheck } from '../run/common/presets';
import { showInput, showPick, type PickUpdate, type StepButton, type StepResult } from '../base/quickInput';
import { branchesStep, effortStep, permissionStep, reviewStep, type FlowContext, type FlowResult, type StepHost } from './formSteps';
import { emailStep, webhookStep, type StepOutcome, type ValueItem } from '../run/formSteps';

export type { FlowContext, FlowResult };

const l10n = vscode.l10n;

interface ModelItem extends vscode.QuickPickItem { model: string }
interface PresetItem extends vscode.QuickPickItem { check?: PresetCheck }

const COMPOSE_BUTTON_ID = 'compose';
const RELOAD_BUTTON_ID = 'reload';
const DISCARD_BUTTON_ID = 'discard';

function discardButton(): StepButton {
  return { id: DISCARD_BUTTON_ID, iconPath: new vscode.ThemeIcon('discard'), tooltip: l10n.t('Discard the restored prompt and start over') };
}

function composeButton(): StepButton {
  return { id: COMPOSE_BUTTON_ID, iconPath: new vscode.ThemeIcon('go-to-file'), tooltip: l10n.t('Compose in Editor (multi-line prompt)') };
}

function reloadButton(): StepButton {
  return { id: RELOAD_BUTTON_ID, iconPath: new vscode.ThemeIcon('refresh'), tooltip: l10n.t('Reload the model list from the service') };
}

/** "Todo App · from settings · 3 runs in the list": the project's name, then why the ID is offered. */
function offerDescription(o: AppOffer): string {
  const parts = o.projectName !== undefined ? [o.projectName] : [];
  for (const source of o.sources) {
    switch (source) {
      case 'current': parts.push(l10n.t('current')); break;
      case 'settings': parts.push(l10n.t('from settings (agentRuns.appId)')); break;
      case 'recent': parts.push(l10n.t('recent')); break;
      case 'runs': parts.push(o.runs === 1 ? l10n.t('1 run in the list') : l10n.t('{0} runs in the list', o.runs)); break;
    }
  }
  return parts.join(' · ');
}

class LaunchFlow implements StepHost {
  form: LaunchForm;
  private readonly skip = new Set<MainStep>();
  private nav: Navigator<StepId>;
  private titleNote: string | undefined;
  private catalog: ModelCatalog | undefined;
  private modelNotice: string | undefined;
  email: string | undefined;
  private catalogPromise: Promise<ModelCatalog>;

  constructor(initial: LaunchForm, readonly ctx: FlowContext, start?: StepId) {
    this.form = cloneForm(initial);
    this.catalog = ctx.initialCatalog;
    this.catalogPromise = ctx.catalog;
    this.titleNote = ctx.titleNote;
    this.nav = this.navigator(start);
    void ctx.catalog.then((c) => {
      this.catalog = c;
    }, () => undefined);
    void ctx.defaultEmail.then((e) => {
      this.email = e;
    }, () => undefined);
  }

  private navigator(start?: StepId): Navigator<StepId> {
    return launchNavigator(() => mainSteps({ hasPresets: this.ctx.presets.length > 0, skip: this.skip }), start);
  }

  async run(): Promise<FlowResult> {
    for (;;) {
      const outcome = await this.render(this.nav.current);
      switch (outcome.kind) {
        case 'discard':
          if (this.ctx.freshForm) this.form = this.ctx.freshForm();
          this.titleNote = undefined;
          this.skip.clear();
          this.modelNotice = undefined;
          this.nav = this.navigator();
          break;
        case 'cancel':
          return { kind: 'cancel', form: this.form };
        case 'compose':
          return { kind: 'compose', form: this.form };
        case 'submit':
          return { kind: 'submit', form: this.form };
        case 'back':
          if (this.nav.back() === undefined) return { kind: 'cancel', form: this.form };
          break;
        case 'next':
          // Accepting a step is looking at it: a value the service refused last time is settled.
          this.form = acknowledgeRefusal(this.form, this.nav.current);
          if (this.nav.next() === undefined) return { kind: 'submit', form: this.form };
          break;
        case 'open':
          this.nav.open(outcome.step);
          break;
        case 'stay':
          break;
      }
    }
  }

  private title(label: string): string {
    const base = this.form.presetName ? l10n.t('Start Agent Run ({0})', this.form.presetName) : l10n.t('Start Agent Run');
    const note = this.titleNote ? ` — ${this.titleNote}` : '';
    return `${base}: ${label}${note}`;
  }

  /** Title, step counter, Back, and the flow-wide buttons after the step's own ones. */
  common(label: string, own: StepButton[] = []): { title: string; step: number; totalSteps: number; canGoBack: boolean; buttons: StepButton[] } {
    const { step, total } = this.nav.position();
    const buttons = this.titleNote !== undefined && this.ctx.freshForm ? [...own, discardButton()] : own;
    return { title: this.title(label), step, totalSteps: total, canGoBack: this.nav.canGoBack, buttons };
  }

  private render(step: StepId): Promise<StepOutcome<StepId>> {
    switch (step) {
      case 'preset': return this.presetStep();
      case 'appId': return this.appIdStep();
      case 'prompt': return this.promptStep();
      case 'model': return this.modelStep();
      case 'review': return reviewStep(this);
      case 'reasoningEffort': return effortStep(this);
      case 'permission': return permissionStep(this);
      case 'permittedBranches': return branchesStep(this);
      case 'completionWebhookUrl': return webhookStep(this);
      case 'userEmail': return emailStep(this);
    }
  }

  plain<T>(r: StepResult<T>): StepOutcome | undefined {
    if (r.kind === 'back') return { kind: 'back' };
    if (r.kind === 'cancel') return { kind: 'cancel' };
    if (r.kind === 'button' && r.id === DISCARD_BUTTON_ID) return { kind: 'discard' };
    return undefined;
  }

  // ------------------------------------------------------------ preset

  private presetItems(catalog: ModelCatalog | undefined): PresetItem[] {
    const items: PresetItem[] = this.ctx.presets.map((preset) => {
      const check = catalog ? checkPreset(preset, catalog, l10n) : { preset, status: 'unverified' as const };
      const parts = [preset.appId, preset.model, preset.reasoningEffort, preset.permission].filter((p): p is string => p !== undefined);
      const icon = check.status === 'modelUnavailable' ? '$(warning)' : '$(bookmark)';
      const item: PresetItem = { label: `${icon} ${l10n.t('Preset: {0}', preset.name)}`, description: parts.join(' · '), check };
      if (check.note && catalog) item.detail = check.note;
      return item;
    });
    items.push({ label: `$(edit) ${l10n.t('Custom…')}`, description: l10n.t('Enter every value yourself') });
    return items;
  }

  private async presetStep(): Promise<StepOutcome> {
    const items = this.presetItems(this.catalog);
    const active = items.find((i) => i.check?.preset.name === this.form.presetName) ?? (this.form.presetName === undefined && this.nav.canGoBack ? items[items.length - 1] : undefined);
    const update = this.catalog && this.catalog.source === 'live'
      ? undefined
      : this.catalogPromise.then((c): PickUpdate<PresetItem> => {
        const fresh = this.presetItems(c);
        return { items: fresh, active: fresh.find((i) => i.label === active?.label) };
      });
    const r = await showPick<PresetItem>({
      ...this.common(l10n.t('Preset')),
      placeholder: l10n.t('Choose a launch preset from the workspace settings, or Custom…'),
      items, active, matchOnDescription: true, update,
    });
    const plain = this.plain(r);
    if (plain) return plain;
    if (r.kind !== 'accept') return { kind: 'stay' };
    this.skip.clear();
    this.modelNotice = undefined;
    const check = r.value.check;
    if (!check) {
      delete this.form.presetName;
      return { kind: 'next' };
    }
    // Check against the freshest list before applying: a preset is never used with a model the service dropped.
    const catalog = await this.catalogPromise.catch(() => this.catalog);
    const fresh = catalog ? checkPreset(check.preset, catalog, l10n) : check;
    const applied = applyPreset(this.form, fresh);
    this.form = applied.form;
    for (const s of applied.skip) this.skip.add(s);
    if (fresh.status === 'modelUnavailable') this.modelNotice = l10n.t('{0} is no longer offered; choose another model.', fresh.preset.model ?? '');
    else if (fresh.status === 'unverified') this.modelNotice = fresh.note;
    return { kind: 'next' };
  }

  // ------------------------------------------------------------ app ID

  private async appIdStep(): Promise<StepOutcome> {
    const offers = appIdOffers({ current: this.form.appId, configured: this.ctx.defaultAppId, recent: this.ctx.recentAppIds, runs: this.ctx.appsOfRuns });
    const items: Array<ValueItem<string>> = offers.map((o) => ({ label: o.appId, description: offerDescription(o), value: o.appId }));
    const r = await showPick<ValueItem<string>>({
      ...this.common(l10n.t('App ID')),
      placeholder: items.length > 0
        ? l10n.t('Pick an App ID, or type another one')
        : l10n.t('Type the App ID of a verified project, then press Enter'),
      items,
      active: items[0],
      // The project name finds its app; the reasons it is offered do not.
      matchOnDescription: offers.some((o) => o.projectName !== undefined),
      typedItem: (value) => (checkAppId(value, l10n) === undefined ? { label: value, description: l10n.t('Use this App ID'), value, alwaysShow: true } : undefined),
      problem: {
        check: (value) => checkAppId(value, l10n),
        item: (message) => ({ label: `$(error) ${message}`, value: '', alwaysShow: true }),
      },
    });
    const plain = this.plain(r);
    if (plain) return plain;
    if (r.kind !== 'accept') return { kind: 'stay' };
    this.form.appId = r.value.value;
    return { kind: 'next' };
  }

  // ------------------------------------------------------------ prompt

  private async promptStep(): Promise<StepOutcome> {
    if (isMultiLine(this.form.prompt)) return this.multiLinePromptStep();
    return this.oneLinePromptStep(this.form.prompt);
  }

  /** @param replacing the box replaces a multi-line prompt: leaving it empty keeps that prompt. */
  private async oneLinePromptStep(value: string, replacing = false): Promise<StepOutcome> {
    const attachment = this.form.attachment;
    const r = await showInput({
      ...this.common(l10n.t('Prompt'), [composeButton()]),
      value,
      prompt: attachment
        ? l10n.t('What should the agent do? The code from {0} is added below your text. For a multi-line prompt, use the editor button.', attachment.label)
        : l10n.t('What should the agent do? For a multi-line prompt, use the editor button (top right).'),
      placeholder: l10n.t('e.g. Fix the failing login test and explain the cause'),
      validate: (v) => checkPrompt(v, l10n),
    });
    // Whatever was typed is kept, also when leaving with Back, Escape or the editor button:
    // it goes back into the form, the draft, or the editor.
    if (r.kind !== 'accept' && r.typed !== undefined && (r.typed.trim() !== '' || !replacing)) this.form.prompt = r.typed;
    const plain = this.plain(r);
    if (plain) return plain;
    if (r.kind === 'button') {
      if (r.id === COMPOSE_BUTTON_ID) return { kind: 'compose' };
      return { kind: 'stay' };
    }
    if (r.kind !== 'accept') return { kind: 'stay' };
    this.form.prompt = r.value;
    return { kind: 'next' };
  }

  private async multiLinePromptStep(): Promise<StepOutcome> {
    const text = fullPrompt(this.form);
    const { firstLine, lines } = promptPreview(this.form.prompt);
    type Choice = 'use' | 'compose' | 'replace';
    const items: Array<ValueItem<Choice>> = [
      {
        label: `$(check) ${l10n.t('Use this prompt')}`,
        description: l10n.t('{0} lines, {1} characters', lines, text.length),
        detail: firstLine,
        value: 'use',
      },
      { label: `$(go-to-file) ${l10n.t('Edit in Editor…')}`, value: 'compose' },
      { label: `$(edit) ${l10n.t('Replace with a one-line prompt…')}`, value: 'replace' },
    ];
    const r = await showPick<ValueItem<Choice>>({
      ...this.common(l10n.t('Prompt')),
      placeholder: l10n.t('The prompt has several lines; use it, or edit it in an editor'),
      items,
      active: items[0],
    });
    const plain = this.plain(r);
    if (plain) return plain;
    if (r.kind !== 'accept') return { kind: 'stay' };
    switch (r.value.value) {
      case 'use':
        return { kind: 'next' };
      case 'compose':
        return { kind: 'compose' };
      case 'replace': {
        const typed = await this.oneLinePromptStep('', true);
        // Back from the one-line box returns to this choice, the multi-line prompt intact.
        return typed.kind === 'back' ? { kind: 'stay' } : typed;
      }
    }
  }

  // ------------------------------------------------------------ model

  private modelItems(catalog: ModelCatalog | undefined): ModelItem[] {
    const models = catalog?.models ?? [];
    const current = this.form.model.trim();
    const ordered = current !== '' && !models.includes(current) && !(catalog && isAuthoritative(catalog)) ? [current, ...models] : models;
    return ordered.map((model) => {
      const notes: string[] = [];
      if (model === this.ctx.lastModel) notes.push(l10n.t('last used'));
      if (model === this.ctx.defaultModel) notes.push(l10n.t('default (agentRuns.defaultModel)'));
      if (this.ctx.emailModels.has(model)) notes.push(l10n.t('needs a user email'));
      return { label: model, description: notes.join(' · '), model };
    });
  }

  private modelPlaceholder(catalog: ModelCatalog | undefined): string {
    const notice = this.modelNotice ? `${this.modelNotice} ` : '';
    if (!catalog) return notice + l10n.t('Reading the model list from the service…');
    const problem = catalog.problem ?? l10n.t('unknown error');
    switch (catalog.source) {
      case 'live':
        return notice + l10n.t('Choose a model ({0} offered by the service)', catalog.models.length);
      case 'cache':
        return notice + l10n.t('Choose a model. The service\'s list could not be read ({0}); showing the list from {1}.', problem, new Date(catalog.fetchedAt ?? 0).toLocaleString());
      case 'fallback':
        return notice + l10n.t('Choose a model or type one. The service\'s list could not be read ({0}); showing agentRuns.models.fallback.', problem);
      case 'none':
        return notice + l10n.t('Type a model ID. The service\'s list could not be read ({0}); agentRuns.models.fallback is empty.', problem);
    }
  }

  private activeModel(items: readonly ModelItem[]): ModelItem | undefined {
    const wanted = [this.form.model, this.ctx.lastModel, this.ctx.defaultModel];
    for (const w of wanted) {
      const found = w ? items.find((i) => i.model === w) : undefined;
      if (found) return found;
    }
    return items[0];
  }

  private async modelStep(): Promise<StepOutcome> {
    const items = this.modelItems(this.catalog);
    const loading = this.catalog === undefined || this.catalog.source !== 'live';
    const update = loading
      ? this.catalogPromise.then((c): PickUpdate<ModelItem> => {
        const fresh = this.modelItems(c);
        return { items: fresh, active: this.activeModel(fresh), placeholder: this.modelPlaceholder(c) };
      })
      : undefined;
    const r = await showPick<ModelItem>({
      ...this.common(l10n.t('Model'), [reloadButton()]),
      placeholder: this.modelPlaceholder(loading ? undefined : this.catalog),
      items,
      active: this.activeModel(items),
      matchOnDescription: true,
      update,
      typedItem: (value) => {
        const c = this.catalog;
        if (c && isAuthoritative(c)) return undefined;
        return checkModel(value, l10n) === undefined ? { label: value, description: l10n.t('Use this model ID'), model: value, alwaysShow: true } : undefined;
      },
    });
    const plain = this.plain(r);
    if (plain) return plain;
    if (r.kind === 'button') {
      if (r.id === RELOAD_BUTTON_ID) {
        this.catalog = undefined;
        const reload = this.ctx.reloadCatalog().then((c) => {
          this.catalog = c;
          return c;
        });
        this.catalogPromise = reload;
      }
      return { kind: 'stay' };
    }
    if (r.kind !== 'accept') return { kind: 'stay' };
    this.form.model = r.value.model;
    this.modelNotice = undefined;
    return { kind: 'next' };
  }
}

/** Runs the launch form from `start` (default: the first step) with `initial` pre-filled. */
export function runLaunchFlow(initial: LaunchForm, ctx: FlowContext, start?: StepId): Promise<FlowResult> {
  return new LaunchFlow(initial, ctx, start).run();
}
