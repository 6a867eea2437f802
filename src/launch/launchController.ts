/**
 * Ties the launch form to the editor: reads settings and remembered values, loads the model
 * list (live, cached per base URL, or the fallback setting), runs the multi-step input,
 * sends the run through `submitLaunch`, records it in the ledger and starts polling.
 *
 * The typed prompt is never lost: a cancelled form, a failed start the person walked away
 * from, and a prompt being composed in an editor are all kept as a draft (workspace state)
 * and offered again by the next "Start Agent Run".
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import { ApiError, isApiError } from '../api/errors';
import type { AgentRunsApi } from '../api/contract';
import type { AgentRun, StartAgentRequest } from '../api/types';
import { validateStartAgentRequest } from '../api/validate';
import type { Deps } from '../runs/deps';
import { unauthorizedReport, type FailureActionId, type StartFailure } from '../core/launch/failure';
import {
  checkEmail, emptyForm, firstProblem, formatBranches, formFromRecord, fullPrompt, hasTypedContent, promptPreview, reviveForm,
  type LaunchForm, type LaunchPrefill, type PromptAttachment,
} from '../core/launch/form';
import { cleanEmail, readGitUserEmail } from '../core/launch/gitConfig';
import { runLaunchFlow, type FlowContext } from './launchFlow';
import {
  emailModelsKey, knownModelsForValidation, normalizeFallback, pushRecent, resolveCatalog, reviveCachedSchema,
  reviveIdList, schemaCacheKey, type ModelCatalog, type SchemaChange,
} from '../core/launch/models';
import type { StepId } from '../core/launch/navigation';
import { parsePresets, type LaunchPreset } from '../core/launch/presets';
import { submitLaunch, type ExternalAction, type SubmitEnv, type SubmitUi } from '../core/launch/submit';

const l10n = vscode.l10n;

const RECENT_APPS_KEY = 'agentRuns.launch.recentAppIds';
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

interface ComposeSession {
  uri: vscode.Uri;
  form: LaunchForm;
  /** The document's text as last seen (kept when the document is closed). */
  text: string;
  subscriptions: vscode.Disposable[];
}

// The built-in git extension's API, as much of it as is used here.
interface GitRepository {
  getConfig(key: string): Promise<string>;
  getGlobalConfig(key: string): Promise<string>;
}
interface GitApi {
  readonly repositories: readonly GitRepository[];
  getRepository(uri: vscode.Uri): GitRepository | null;
}
interface GitExtension {
  readonly enabled: boolean;
  getAPI(version: 1): GitApi;
}

function withTimeout<T>(p: Thenable<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('agentRuns');
}

export class LaunchController implements vscode.Disposable {
  private compose: ComposeSession | undefined;
  private composeStatus: vscode.StatusBarItem | undefined;
  private readonly presetWarnings = new Set<string>();
  private lastCatalog: ModelCatalog | undefined;

  constructor(private readonly deps: Deps) {}

  private get globalState(): vscode.Memento {
    return this.deps.context.globalState;
  }

  private get workspaceState(): vscode.Memento {
    return this.deps.context.workspaceState;
  }

  dispose(): void {
    this.endCompose();
    this.composeStatus?.dispose();
  }

  // ------------------------------------------------------------ entry points

  /** "Start Agent Run": resumes a prompt being composed, else restores a draft, else a fresh form. */
  async start(): Promise<void> {
    if (this.compose) return this.resumeCompose();
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
      const catalog = this.loadCatalog(client);
      const defaultEmail = this.defaultEmail();
      const emailModels = new Set(reviveIdList(this.globalState.get(emailModelsKey(client.baseUrl))));
      const ctx: FlowContext = {
        initialCatalog: catalog.initial,
        catalog: catalog.promise,
        reloadCatalog: () => this.loadCatalog(client).promise,
        presets: this.presets(),
        defaultAppId: config().get<string>('appId', '').trim(),
        recentAppIds: reviveIdList(this.globalState.get(RECENT_APPS_KEY)),
        defaultModel: config().get<string>('defaultModel', '').trim(),
        lastModel: this.globalState.get<string>(LAST_MODEL_KEY),
        emailModels,
        defaultEmail,
        titleNote,
        freshForm: () => emptyForm(this.defaults()),
      };
      const result = await runLaunchFlow(form, ctx, start);
      form = result.form;
      if (result.kind === 'cancel') {
        await this.saveDraft(form);
        return;
      }
      if (result.kind === 'compose') {
        await this.startCompose(form);
        return;
      }
      const sending = this.submitEnv(client, emailModels, defaultEmail);
      const outcome = await submitLaunch(form, sending.env, this.submitUi());
      form = outcome.form;
      if (outcome.kind === 'started') {
        await this.onStarted(outcome.run, outcome.request, sending.sentTo());
        return;
      }
      if (outcome.kind === 'stopped') {
        await this.saveDraft(form);
        return;
      }
      // Edit / Choose Another Model: the same values, opened where the person asked.
      await this.saveDraft(form);
      start = outcome.step;
      titleNote = undefined;
    }
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

  // ------------------------------------------------------------ model list

  private loadCatalog(client: Pick<AgentRunsApi, 'baseUrl' | 'getSchemaInfo'>): { initial: ModelCatalog | undefined; promise: Promise<ModelCatalog> } {
    const key = schemaCacheKey(client.baseUrl);
    const fallback = normalizeFallback(config().get<unknown>('models.fallback'));
    const cached = reviveCachedSchema(this.globalState.get(key));
    const initial = cached || fallback.length > 0 ? resolveCatalog({ cached, fallback, now: Date.now(), l10n }).catalog : undefined;
    const promise = client.getSchemaInfo().then(
      (live) => ({ live, error: undefined }),
      (err: unknown) => ({ live: undefined, error: isApiError(err) ? err.message : String(err) }),
    ).then(async ({ live, error }) => {
      // Read the cache again: another flow may have updated it meanwhile (one warning, not two).
      const current = reviveCachedSchema(this.globalState.get(key));
      const { catalog, cacheUpdate } = resolveCatalog({ live, error, cached: current, fallback, now: Date.now(), l10n });
      if (cacheUpdate) await this.globalState.update(key, cacheUpdate);
      if (error !== undefined) this.deps.log.warn(`Model list: the service's schema could not be read (${error}); using ${catalog.source}.`);
      if (catalog.schemaChange) this.warnSchemaChange(catalog.schemaChange);
      this.lastCatalog = catalog;
      return catalog;
    });
    return { initial, promise };
  }

  private warnSchemaChange(change: SchemaChange): void {
    const parts: string[] = [];
    parts.push(change.previousVersion !== undefined && change.version !== undefined && change.previousVersion !== change.version
      ? l10n.t('The service\'s API schema changed (version {0} → {1}).', change.previousVersion, change.version)
      : l10n.t('The service\'s API schema changed since it was last read.'));
    if (change.added.length > 0) parts.push(l10n.t('New models: {0}.', change.added.join(', ')));
    if (change.removed.length > 0) parts.push(l10n.t('Models no longer offered: {0}. Presets that use them will ask for another model.', change.removed.join(', ')));
    if (change.added.length === 0 && change.removed.length === 0) parts.push(l10n.t('The model list is unchanged. The API is in beta; if something stops working, check the extension\'s logs.'));
    const message = parts.join(' ');
    this.deps.log.warn(message);
    void vscode.window.showWarningMessage(message);
  }

  // ------------------------------------------------------------ user email

  /** `agentRuns.userEmail`, else git's `user.email` (git extension, else `git config`). */
  private async defaultEmail(): Promise<string | undefined> {
    const configured = cleanEmail(config().get<string>('userEmail', ''));
    if (configured) return configured;
    const active = vscode.window.activeTextEditor?.document.uri;
    const folder = (active && vscode.workspace.getWorkspaceFolder(active)) ?? vscode.workspace.workspaceFolders?.[0];
    try {
      const ext = vscode.extensions.getExtension<GitExtension>('vscode.git');
      const exports = ext ? (ext.isActive ? ext.exports : await withTimeout(ext.activate(), 3_000)) : undefined;
      if (exports?.enabled) {
        const api = exports.getAPI(1);
        const repo = (folder ? api.getRepository(folder.uri) : null) ?? api.repositories[0];
        if (repo) {
          const email = cleanEmail(await withTimeout(repo.getConfig('user.email'), 2_000))
            ?? cleanEmail(await withTimeout(repo.getGlobalConfig('user.email'), 2_000));
          if (email) return email;
        }
      }
    } catch (err) {
      this.deps.log.debug(`git extension: could not read user.email (${err instanceof Error ? err.message : String(err)})`);
    }
    const cwd = folder?.uri.scheme === 'file' ? folder.uri.fsPath : os.homedir();
    return readGitUserEmail(cwd);
  }

  // ------------------------------------------------------------ sending

  /**
   * The client to send with, as the settings and the token are now: a token set (or a base URL
   * fixed) from a failure message replaces the client the form was opened with, and Retry must
   * use the new one. Quiet: when there is none, the failure message says why (one message).
   */
  private async currentClient(): Promise<AgentRunsApi> {
    const client = await this.deps.getClient({ quiet: true });
    if (client) return client;
    const { baseUrl, baseUrlProblem, signedIn } = this.deps.connection();
    if (!baseUrl) {
      throw new ApiError({ kind: 'invalid_base_url', message: baseUrlProblem ?? 'agentRuns.baseUrl is not set', mayHaveReachedServer: false });
    }
    if (!signedIn) {
      throw new ApiError({ kind: 'unauthorized', message: 'No API token is set.', mayHaveReachedServer: false });
    }
    // The token may not go over plain http, or the connection could not be set up (logged).
    throw new ApiError({ kind: 'aborted', message: 'No connection to the service could be set up; nothing was sent.', mayHaveReachedServer: false });
  }

  private submitEnv(
    first: Pick<AgentRunsApi, 'baseUrl'>,
    emailModels: Set<string>,
    defaultEmail: Promise<string | undefined>,
  ): { env: SubmitEnv; sentTo: () => string } {
    let sentTo = first.baseUrl;
    const env: SubmitEnv = {
      l10n,
      validate: (request) => validateStartAgentRequest(request, { knownModels: this.lastCatalog ? knownModelsForValidation(this.lastCatalog) : undefined }),
      // Status bar progress, not a notification: a progress notification closing at the
      // moment the failure notification opens can keep the failure from showing as a toast.
      // The POST is bounded by the client's timeouts; cancelling it would leave the same
      // "may have been created" doubt as a timeout, so it is not offered.
      start: (request) => Promise.resolve(vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: l10n.t('Starting agent run on {0}…', request.appId) },
        async (): Promise<AgentRun> => {
          try {
            const client = await this.currentClient();
            sentTo = client.baseUrl;
            return await client.startAgent(request);
          } catch (err) {
            // The full client text (the message shown is shorter); never the token or the prompt.
            this.deps.log.warn(`Start agent run failed: ${isApiError(err) ? `${err.kind}${err.status !== undefined ? ` ${err.status}` : ''}: ${err.message}` : String(err)}`);
            // Polling pauses; the failure message about to be shown is the one "Set API Token" prompt.
            const report = unauthorizedReport(err, sentTo);
            if (report) this.deps.reportUnauthorized(report);
            throw err;
          }
        },
      )),
      modelNeedsEmail: (model) => emailModels.has(model),
      rememberModelNeedsEmail: async (model) => {
        emailModels.add(model);
        const key = emailModelsKey(sentTo);
        const list = reviveIdList(this.globalState.get(key));
        if (!list.includes(model)) await this.globalState.update(key, [...list, model]);
      },
      defaultEmail: () => defaultEmail,
      secrets: async () => {
        const token = await this.deps.auth.get(sentTo);
        return token ? [token] : [];
      },
    };
    return { env, sentTo: () => sentTo };
  }

  private submitUi(): SubmitUi {
    return {
      confirmAllowEdits: async (form) => {
        const allow = l10n.t('Allow Edits and Start');
        const branches = form.permittedBranches.length > 0
          ? l10n.t('Permitted branches: {0}', formatBranches(form.permittedBranches))
          : l10n.t('No permitted branches are listed: the service decides which branches the run may change.');
        const detail = [
          branches,
          l10n.t('Model: {0}', form.model),
          l10n.t('Prompt: {0}', promptPreview(fullPrompt(form), 120).firstLine),
        ].join('\n');
        const choice = await vscode.window.showWarningMessage(
          l10n.t('Allow the agent to change app {0}?', form.appId),
          { modal: true, detail },
          allow,
        );
        return choice === allow;
      },
      askEmail: (prefill, why) => Promise.resolve(vscode.window.showInputBox({
        title: l10n.t('Start Agent Run: User email'),
        prompt: why.message,
        value: prefill,
        placeHolder: 'you@example.com',
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() === '' ? l10n.t('Enter the email of a workspace member.') : checkEmail(v, l10n)),
      })),
      showFailure: async (failure) => this.showFailure(failure),
      runCommand: (action) => this.runExternal(action),
    };
  }

  private async showFailure(failure: StartFailure): Promise<FailureActionId | undefined> {
    const labels = failure.actions.map((a) => a.label);
    const show = failure.severity === 'error' ? vscode.window.showErrorMessage : vscode.window.showInformationMessage;
    this.deps.log.info(`Start agent run: ${failure.message}`);
    const choice = await show(failure.message, ...labels);
    return failure.actions.find((a) => a.label === choice)?.id;
  }

  private async runExternal(action: ExternalAction): Promise<void> {
    try {
      switch (action) {
        case 'setToken':
          await vscode.commands.executeCommand('agentRuns.setToken');
          return;
        case 'trackRun':
          await vscode.commands.executeCommand('agentRuns.trackRun');
          return;
        case 'openSettings':
          await vscode.commands.executeCommand('workbench.action.openSettings', 'agentRuns.baseUrl');
          return;
        case 'showLogs':
          this.deps.log.show(true);
          return;
      }
    } catch (err) {
      this.deps.log.error(`Command for "${action}" failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private async onStarted(run: AgentRun, request: StartAgentRequest, baseUrl: string): Promise<void> {
    const ledger = this.deps.ledger();
    if (ledger.baseUrl !== baseUrl) {
      this.deps.log.warn(`Run ${run.agentId} was started on ${baseUrl}, but the run list now follows ${ledger.baseUrl}.`);
    }
    this.deps.afterPost({ kind: 'start', run, request });
    this.deps.log.info(`Started agent run ${run.agentId} on ${request.appId} with ${request.model} (${run.status}).`);
    await this.globalState.update(RECENT_APPS_KEY, pushRecent(reviveIdList(this.globalState.get(RECENT_APPS_KEY)), request.appId, MAX_RECENT_APPS));
    await this.globalState.update(LAST_MODEL_KEY, request.model);
    await this.workspaceState.update(DRAFT_KEY, undefined);
    await this.closeComposed();
    const open = l10n.t('Open');
    void vscode.window.showInformationMessage(
      l10n.t('Agent run started on {0}: “{1}” ({2}).', run.appId ?? request.appId, promptPreview(request.prompt, 60).firstLine, run.status),
      open,
    ).then((choice) => {
      if (choice === open) void vscode.commands.executeCommand('agentRuns.openRun', run.agentId);
    });
  }

  // ------------------------------------------------------------ compose in an editor

  private async startCompose(form: LaunchForm): Promise<void> {
    const existing = this.compose && vscode.workspace.textDocuments.find((d) => d.uri.toString() === this.compose?.uri.toString());
    const text = fullPrompt(form);
    const base: LaunchForm = { ...form, prompt: text };
    delete base.attachment;
    if (this.compose && existing) {
      // Keep what was written there; take the other fields from the form.
      this.compose.form = { ...base, prompt: existing.getText() };
      await vscode.window.showTextDocument(existing, { preview: false });
    } else {
      this.endCompose();
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: text });
      await vscode.window.showTextDocument(doc, { preview: false });
      const session: ComposeSession = { uri: doc.uri, form: base, text, subscriptions: [] };
      session.subscriptions.push(
        vscode.workspace.onDidChangeTextDocument((e) => {
          if (e.document.uri.toString() === session.uri.toString()) session.text = e.document.getText();
        }),
        vscode.workspace.onDidCloseTextDocument((d) => {
          if (d.uri.toString() === session.uri.toString()) {
            // The editor is gone, the text is not: keep it as the draft.
            void this.saveDraft({ ...session.form, prompt: session.text });
          }
        }),
      );
      this.compose = session;
    }
    await this.saveDraft(this.compose?.form ?? base);
    this.showComposeStatus();
    const next = l10n.t('Continue');
    const discard = l10n.t('Discard');
    void vscode.window.showInformationMessage(
      l10n.t('Write the prompt in this editor (Markdown, any length). Then choose Continue, click “Continue Agent Run” in the status bar, or run “Start Agent Run” again.'),
      next,
      discard,
    ).then((choice) => {
      if (choice === next) {
        void this.resumeCompose();
      } else if (choice === discard) {
        // The text stays in its editor; only the waiting form and its draft go.
        this.endCompose();
        void this.workspaceState.update(DRAFT_KEY, undefined);
      }
    });
  }

  private showComposeStatus(): void {
    if (!this.composeStatus) {
      this.composeStatus = vscode.window.createStatusBarItem('agentRuns.launch.compose', vscode.StatusBarAlignment.Left, 100);
      this.composeStatus.name = l10n.t('Agent Runs: Continue Agent Run');
      this.composeStatus.text = `$(rocket) ${l10n.t('Continue Agent Run')}`;
      this.composeStatus.tooltip = l10n.t('Use the text of the prompt editor and continue starting the agent run');
      this.composeStatus.command = 'agentRuns.startRun';
    }
    this.composeStatus.show();
  }

  private async resumeCompose(): Promise<void> {
    const session = this.compose;
    if (!session) return this.open();
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === session.uri.toString());
    const text = doc ? doc.getText() : session.text;
    const form: LaunchForm = { ...session.form, prompt: text };
    await this.saveDraft(form);
    const start: StepId = text.trim() === '' ? 'prompt' : form.model.trim() === '' ? 'model' : form.appId.trim() === '' ? 'appId' : 'review';
    return this.open({ form, startStep: start });
  }

  private async closeComposed(): Promise<void> {
    const session = this.compose;
    if (!session) return;
    this.endCompose();
    // Only the editor the prompt was written in, and only when it is in front: the run has it now.
    if (vscode.window.activeTextEditor?.document.uri.toString() === session.uri.toString()) {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  }

  private endCompose(): void {
    if (this.compose) {
      for (const s of this.compose.subscriptions) s.dispose();
      this.compose = undefined;
    }
    this.composeStatus?.hide();
  }
}
