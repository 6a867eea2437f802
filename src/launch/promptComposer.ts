/** "Compose in Editor": the prompt in an untitled Markdown editor, kept as the draft all along (also once closed). */
import * as vscode from 'vscode';
import { fullPrompt, type LaunchForm } from './common/form';
import type { StepId } from './common/navigation';

const l10n = vscode.l10n;

interface ComposeSession {
  uri: vscode.Uri;
  form: LaunchForm;
  /** The document's text as last seen (kept when the document is closed). */
  text: string;
  subscriptions: vscode.Disposable[];
}

export interface ComposerHooks {
  saveDraft(form: LaunchForm): Promise<void>;
  clearDraft(): Promise<void>;
  /** Continue: open the form with the composed prompt. */
  resume(): Promise<void>;
}

export class PromptComposer implements vscode.Disposable {
  private session: ComposeSession | undefined;
  private status: vscode.StatusBarItem | undefined;

  constructor(private readonly hooks: ComposerHooks) {}

  get active(): boolean {
    return this.session !== undefined;
  }

  async start(form: LaunchForm): Promise<void> {
    const existing = this.document();
    const text = fullPrompt(form);
    const base: LaunchForm = { ...form, prompt: text };
    delete base.attachment;
    if (this.session && existing) {
      // Keep what was written there; take the other fields from the form.
      this.session.form = { ...base, prompt: existing.getText() };
      await vscode.window.showTextDocument(existing, { preview: false });
    } else {
      this.end();
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: text });
      await vscode.window.showTextDocument(doc, { preview: false });
      this.session = this.watch(doc.uri, base, text);
    }
    await this.hooks.saveDraft(this.session?.form ?? base);
    this.showStatus();
    const next = l10n.t('Continue');
    const discard = l10n.t('Discard');
    void vscode.window.showInformationMessage(
      l10n.t('Write the prompt in this editor (Markdown, any length). Then choose Continue, click “Continue Agent Run” in the status bar, or run “Start Agent Run” again.'),
      next,
      discard,
    ).then((choice) => {
      if (choice === next) {
        void this.hooks.resume();
      } else if (choice === discard) {
        // The text stays in its editor; only the waiting form and its draft go.
        this.end();
        void this.hooks.clearDraft();
      }
    });
  }

  /** The form with the editor's text, and the step to open it at; undefined when nothing is being composed. */
  async take(): Promise<{ form: LaunchForm; step: StepId } | undefined> {
    const session = this.session;
    if (!session) return undefined;
    const text = this.document()?.getText() ?? session.text;
    const form: LaunchForm = { ...session.form, prompt: text };
    await this.hooks.saveDraft(form);
    const step: StepId = text.trim() === '' ? 'prompt' : form.model.trim() === '' ? 'model' : form.appId.trim() === '' ? 'appId' : 'review';
    return { form, step };
  }

  /** The run has the prompt now: stop waiting, and close its editor when it is in front. */
  async close(): Promise<void> {
    const session = this.session;
    if (!session) return;
    this.end();
    if (vscode.window.activeTextEditor?.document.uri.toString() === session.uri.toString()) {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  }

  dispose(): void {
    this.end();
    this.status?.dispose();
  }

  private end(): void {
    if (this.session) {
      for (const s of this.session.subscriptions) s.dispose();
      this.session = undefined;
    }
    this.status?.hide();
  }

  private document(): vscode.TextDocument | undefined {
    const uri = this.session?.uri.toString();
    return uri === undefined ? undefined : vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
  }

  private watch(uri: vscode.Uri, form: LaunchForm, text: string): ComposeSession {
    const session: ComposeSession = { uri, form, text, subscriptions: [] };
    session.subscriptions.push(
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.toString() === session.uri.toString()) session.text = e.document.getText();
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (d.uri.toString() === session.uri.toString()) {
          // The editor is gone, the text is not: keep it as the draft.
          void this.hooks.saveDraft({ ...session.form, prompt: session.text });
        }
      }),
    );
    return session;
  }

  private showStatus(): void {
    if (!this.status) {
      this.status = vscode.window.createStatusBarItem('agentRuns.launch.compose', vscode.StatusBarAlignment.Left, 100);
      this.status.name = l10n.t('Agent Runs: Continue Agent Run');
      this.status.text = `$(rocket) ${l10n.t('Continue Agent Run')}`;
      this.status.tooltip = l10n.t('Use the text of the prompt editor and continue starting the agent run');
      this.status.command = 'agentRuns.startRun';
    }
    this.status.show();
  }
}
