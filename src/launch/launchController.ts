/**
 * Ties the launch form to the editor. The typed prompt is never lost: a cancelled form, a failed
 * start and a prompt composed in an editor stay a draft (workspace state) for the next "Start Agent
 * Run", a refused value marked until looked at.
 */
import * as vscode from 'vscode';
import { runOwnCommand } from '../connection/ownCommands';
import type { AgentRunsApi } from '../api/contract';
import type { AgentStarted, StartAgentRequest } from '../api/types';
import type { Deps } from '../run/deps';
import {
  addRefusal, emptyForm, firstProblem, formFromRecord, hasTypedContent, promptPreview, reviveForm,
  type LaunchForm, type PromptAttachment,
} from './common/form';
import type { LaunchPrefill } from '../run/common/ledger/ledger';
import { recentAppsKey } from './common/appOffers';
import { runTime } from '../run/common/ledger/record';
import { emailModelsKey, pushRecent, reviveIdList, type ModelCatalog } from '../run/common/models';
import type { StepId } from './common/navigation';
import { parsePresets, type LaunchPreset } from '../run/common/presets';
import { submitLaunch } from './common/submit';
import { runLaunchFlow, type FlowContext } from './launchFlow';
import { launchSubmitEnv, launchSubmitUi } from './launchSending';
import { loadModelCatalog } from '../run/modelList';
import { PromptComposer } from './promptComposer';
import { defaultUserEmail } from '../run/userEmail';

const l10n = vscode.l10n;

const LAST_MODEL_KEY = 'agentRuns.launch.lastModel';
const DRAFT_KEY = 'agentRuns.launch.draft.v1';
const MAX_RECENT_APPS = 8;

export interface OpenOptions {
  /** Pre-filled values (Clone, Edit, compose); without it a saved draft or the defaults are used. */
  form?: LaunchForm;
  /** Attached below the prompt (Start Agent Run with Selection). */
  attachment?: PromptAttachment;
  /** Where the form opens; earlier steps are reachable with Back. */
  startStep?: StepId;
}

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('agentRuns');
}

export class LaunchController implements vscode.Disposable {
  private readonly composer: PromptComposer;
  private readonly presetWarnings = new Set<string>();
  private lastCatalog: ModelCatalog | undefined;

  constructor(private readonly deps: Deps) {
    this.composer = new PromptComposer({
      saveDraft: (form) => this.saveDraft(form),
      clearDraft: () => Promise.resolve(this.workspaceState.update(DRAFT_KEY, undefined)),
      resume: () => this.resumeCompose(),
    });
  }

  private get globalState(): vscode.Memento {
    return this.deps.globalState;
  }

  private get workspaceState(): vscode.Memento {
    return this.deps.context.workspaceState;
  }

  dispose(): void {
    this.composer.dispose();
  }

  // ------------------------------------------------------------ entry points

  /** "Start Agent Run": resumes a prompt being composed, else restores a draft, else a fresh form. */
  async start(): Promise<void> {
    if (this.composer.active) return this.resumeCompose();
    return this.open();
  }

  /**
   * "Clone Run" (and any other caller with values to start from): the form pre-filled, opened
   * at the review, or at the first field that still needs a value.
   */
  clone(prefill: LaunchPrefill): Promise<void> {
    const form = formFromRecord(prefill, this.defaults());
    const problem = firstProblem(form, l10n);
    return this.open({ form, startStep: problem?.step ?? 'review' });
  }

  async open(options: OpenOptions = {}): Promise<void> {
    let form: LaunchForm;
    let titleNote: string | undefined;
    if (options.form) {
      form = options.form;
    } else {
      const draft = options.attachment ? undefined : this.readDraft();
      form = draft ?? emptyForm(this.defaults());
      if (draft) titleNote = l10n.t('restored unsent prompt');
    }
    if (options.attachment) form = { ...form, attachment: options.attachment };
    let start = options.startStep;
    for (;;) {
      const client = await this.deps.getClient();
      if (!client) {
        // getClient() has told the person what is missing; keep what they brought.
        await this.saveDraft(form);
        return;
      }
      const emailModels = new Set(reviveIdList(this.globalState.get(emailModelsKey(client.baseUrl))));
      const defaultEmail = defaultUserEmail(this.deps.log);
      const result = await runLaunchFlow(form, this.flowContext(client, emailModels, defaultEmail, titleNote), start);
      form = result.form;
      if (result.kind === 'cancel') {
        await this.saveDraft(form);
        return;
      }
      if (result.kind === 'compose') {
        await this.composer.start(form);
        return;
      }
      const sending = launchSubmitEnv(this.deps, { first: client, emailModels, defaultEmail, catalog: () => this.lastCatalog });
      const outcome = await submitLaunch(form, sending.env, launchSubmitUi(this.deps));
      form = outcome.form;
      if (outcome.kind === 'started') {
        await this.onStarted(outcome.run, outcome.request, client.baseUrl);
        return;
      }
      // What the service refused is marked (now and in the draft) until the person looked at it.
      form = addRefusal(form, outcome.refused);
      await this.saveDraft(form);
      if (outcome.kind === 'stopped') return;
      // Edit / Choose Another Model: the same values, opened where the person asked.
      start = outcome.step;
      titleNote = undefined;
    }
  }

  private flowContext(client: AgentRunsApi, emailModels: Set<string>, defaultEmail: Promise<string | undefined>, titleNote: string | undefined): FlowContext {
    const catalog = this.loadCatalog(client);
    return {
      initialCatalog: catalog.initial,
      catalog: catalog.promise,
      reloadCatalog: () => this.loadCatalog(client).promise,
      presets: this.presets(),
      defaultAppId: config().get<string>('appId', '').trim(),
      recentAppIds: reviveIdList(this.globalState.get(recentAppsKey(client.baseUrl))),
      appsOfRuns: this.deps.ledger().all().map((r) => ({ appId: r.appId, projectName: r.projectName, time: runTime(r) })),
      defaultModel: config().get<string>('defaultModel', '').trim(),
      lastModel: this.globalState.get<string>(LAST_MODEL_KEY),
      emailModels,
      defaultEmail,
      titleNote,
      freshForm: () => emptyForm(this.defaults()),
    };
  }

  private loadCatalog(client: AgentRunsApi): ReturnType<typeof loadModelCatalog> {
    const loaded = loadModelCatalog(this.globalState, this.deps.log, client);
    loaded.promise.then((c) => {
      this.lastCatalog = c;
    }, () => undefined);
    return loaded;
  }

  // ------------------------------------------------------------ settings and memory

  private defaults(): { appId: string; model: string } {
    return { appId: config().get<string>('appId', ''), model: config().get<string>('defaultModel', '') };
  }

  private presets(): LaunchPreset[] {
    const { presets, problems } = parsePresets(config().get<unknown>('presets'), l10n);
    const fresh = problems.filter((p) => !this.presetWarnings.has(p));
    if (fresh.length > 0) {
      for (const p of fresh) {
        this.presetWarnings.add(p);
        this.deps.log.warn(`agentRuns.presets: ${p}`);
      }
      void vscode.window.showWarningMessage(
        l10n.t('Some launch presets in agentRuns.presets were ignored: {0}', fresh.join(' ')),
        l10n.t('Open Settings'),
      ).then((choice) => {
        if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', 'agentRuns.presets');
      });
    }
    return presets;
  }

  private readDraft(): LaunchForm | undefined {
    const raw = this.workspaceState.get<{ form?: unknown }>(DRAFT_KEY);
    return raw && typeof raw === 'object' ? reviveForm(raw.form) : undefined;
  }

  private async saveDraft(form: LaunchForm): Promise<void> {
    await this.workspaceState.update(DRAFT_KEY, hasTypedContent(form) ? { form, savedAt: Date.now() } : undefined);
  }

  /** The sender has listed and is following the run; what is left is the form's own bookkeeping. */
  private async onStarted(run: AgentStarted, request: StartAgentRequest, baseUrl: string): Promise<void> {
    const recentKey = recentAppsKey(baseUrl);
    await this.globalState.update(recentKey, pushRecent(reviveIdList(this.globalState.get(recentKey)), request.appId, MAX_RECENT_APPS));
    await this.globalState.update(LAST_MODEL_KEY, request.model);
    await this.workspaceState.update(DRAFT_KEY, undefined);
    await this.composer.close();
    const open = l10n.t('Open');
    void vscode.window.showInformationMessage(
      l10n.t('Agent run started on {0}: “{1}” ({2}).', run.appId ?? request.appId, promptPreview(request.prompt, 60).firstLine, run.status),
      open,
    ).then((choice) => {
      if (choice === open) void runOwnCommand('agentRuns.openRun', run.agentId);
    });
  }

  private async resumeCompose(): Promise<void> {
    const taken = await this.composer.take();
    if (!taken) return this.open();
    return this.open({ form: taken.form, startStep: taken.step });
  }
}
