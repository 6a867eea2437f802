/**
 * One open run panel (extension side): its page, the messages from it (validated with
 * protocol.ts, anything invalid logged and dropped), the composer and the review above a code
 * review's conversation. Made and kept by `RunPanelManager` (./manager.ts).
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { runOwnCommand } from '../../connection/ownCommands';
import { messageToMarkdown } from '../../run/common/export/export';
import { webviewHtml } from '../common/html';
import { PanelSession } from '../common/panelModel';
import { cutText, forPosting, isSafeLinkUrl, parseWebviewMessage, type ExtensionToWebviewMessage, type SendState, type WebviewToExtensionMessage } from '../common/protocol';
import { exportLabels, webviewStrings } from './strings';
import { panelTitle } from '../common/tabTitle';
import { keepsDraft } from '../common/draftRule';
import { ReviewFeed } from '../common/reviewFeed';
import { isTerminalStatus } from '../../api/types';
import type { FollowUpInput, FollowUpSubmitResult, RunPanelHost, RunPanelManager } from './manager';

/** One open panel. */
export class RunPanel {
  private ready = false;
  private readonly composer: PanelComposer;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly session: PanelSession;
  private review: ReviewFeed | undefined;
  /** The review's status as last read: the tab says it, as the page's badge does. */
  private reviewStatus: string | undefined;

  constructor(
    private readonly manager: RunPanelManager,
    readonly agentId: string,
    readonly panel: vscode.WebviewPanel,
  ) {
    const isMac = process.platform === 'darwin';
    this.composer = new PanelComposer(manager.host, agentId, (m) => this.post(m));
    this.session = new PanelSession(agentId, {
      getRun: (id) => manager.host.getRun(id),
      transcript: (id) => manager.transcript(id),
      observer: manager.observer,
      stallAfterMs: manager.stallAfterMs,
      locale: vscode.env.language || 'en',
      isMac,
      strings: () => webviewStrings(isMac),
      draft: (id) => manager.host.getDraft(id),
    });
    panel.iconPath = {
      light: vscode.Uri.joinPath(manager.extensionUri, 'media', 'run-light.svg'),
      dark: vscode.Uri.joinPath(manager.extensionUri, 'media', 'run-dark.svg'),
    };
    panel.webview.html = this.html();
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: unknown) => this.onMessage(m)),
      manager.host.onDidChangeSendState((id) => {
        if (id === agentId) {
          this.composer.postSendState();
        }
      }),
      panel.onDidChangeViewState(() => {
        // Without retainContextWhenHidden the page is torn down when hidden; it sends
        // `ready` again when shown and gets a fresh `init`.
        if (!panel.visible) {
          this.ready = false;
        }
        manager.host.setPanelOpen(agentId, panel.visible);
      }),
    );
  }

  dispose(): void {
    this.review?.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
  }

  /** The review of a code review's conversation, once its ID is known. */
  private reviewFeed(): ReviewFeed | undefined {
    const host = this.host;
    const reviewId = host.getRun(this.agentId)?.run.reviewId;
    if (this.review === undefined && host.readCodeReview !== undefined && typeof reviewId === 'string' && reviewId !== '') {
      const read = host.readCodeReview.bind(host);
      this.review = new ReviewFeed(reviewId, {
        read,
        post: (m) => {
          if (m.review) {
            this.reviewStatus = m.review.status;
            this.panel.title = this.title();
          }
          this.post(m);
        },
        describe: (e) => host.describeError?.(e) ?? (e instanceof Error ? e.message : String(e)),
        now: () => Date.now(),
        setTimeout: (fn, ms) => setTimeout(fn, ms),
        clearTimeout: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
      });
    }
    return this.review;
  }

  private title(): string {
    return panelTitle(this.agentId, this.host.getRun(this.agentId)?.run, vscode.l10n, this.reviewStatus);
  }

  private get host(): RunPanelHost {
    return this.manager.host;
  }

  private html(): string {
    const webview = this.panel.webview;
    const root = this.manager.extensionUri;
    return webviewHtml({
      cspSource: webview.cspSource,
      nonce: randomBytes(18).toString('base64'),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'dist', 'webview', 'main.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'media', 'panel.css')).toString(),
      lang: vscode.env.language || 'en',
      title: this.title(),
      loadingText: vscode.l10n.t('Loading run…'),
    });
  }

  /** Posts to the page once it said `ready` (messages before that would be lost). */
  post(message: ExtensionToWebviewMessage): void {
    if (!this.ready) {
      return;
    }
    // A long run's history goes in several posts (see forPosting).
    for (const part of forPosting(message)) {
      this.panel.webview.postMessage(part).then(
        (delivered) => {
          if (!delivered) {
            this.host.log.debug(`Run panel ${this.agentId}: a ${part.type} message was not delivered.`);
          }
        },
        (e: unknown) => this.host.log.warn(`Run panel ${this.agentId}: postMessage failed: ${String(e)}`),
      );
    }
  }

  onRunChanged(): void {
    const run = this.host.getRun(this.agentId);
    if (run) {
      this.panel.title = this.title();
    }
    if (!this.ready) {
      return;
    }
    const message = this.session.update();
    if (message) {
      this.post(message);
    }
    const shown = run?.run;
    if (shown) {
      this.reviewFeed()?.runChanged(`${shown.status}|${shown.updatedAt ?? ''}|${this.manager.transcript(this.agentId).revision}`, isTerminalStatus(shown.status));
    }
  }

  private onMessage(raw: unknown): void {
    const parsed = parseWebviewMessage(raw);
    if (!parsed.ok) {
      this.host.log.warn(`Run panel ${this.agentId}: ignored a message from the webview (${parsed.reason}).`);
      return;
    }
    this.handle(parsed.message).catch((e: unknown) => {
      const msg = e instanceof Error ? e.message : String(e);
      this.host.log.warn(`Run panel ${this.agentId}: ${parsed.message.type} failed: ${msg}`);
      void vscode.window.showErrorMessage(msg);
    });
  }

  private async handle(m: WebviewToExtensionMessage): Promise<void> {
    switch (m.type) {
      case 'ready': {
        this.ready = true;
        const init = this.session.init();
        const send = this.host.getSendState(this.agentId);
        if (send) {
          init.send = send;
        }
        this.post(init);
        this.reviewFeed()?.ready();
        return;
      }
      case 'sendFollowUp':
      case 'resendFollowUp':
      case 'discardFollowUp':
      case 'draftChanged':
        await this.composer.handle(m);
        return;
      case 'copy':
        await vscode.env.clipboard.writeText(m.text);
        return;
      case 'openLink':
        // Checked again here: the webview is not trusted to have done it.
        if (!isSafeLinkUrl(m.url)) {
          this.host.log.warn(`Run panel ${this.agentId}: refused to open a link that is not http/https/mailto.`);
          return;
        }
        await this.host.openExternalLink(m.url);
        return;
      case 'export':
        // The Runs view's Export Run…: streamed from the saved transcript, the same for both.
        await runOwnCommand('agentRuns.exportRun', this.agentId, m.format);
        return;
      case 'clone':
        await this.host.cloneRun(this.agentId);
        return;
      case 'openInEditor':
        await this.openInEditor(m.messageKey);
        return;
      case 'refresh':
        await this.host.refresh(this.agentId);
        return;
      case 'markSeen':
        this.host.markSeen(this.agentId);
        return;
      case 'refreshReview':
        await this.reviewFeed()?.refresh();
        return;
    }
  }

  private async openInEditor(key: string): Promise<void> {
    const entry = this.manager.transcript(this.agentId).get(key);
    if (!entry) {
      this.host.log.warn(`Run panel ${this.agentId}: no message with key ${key.slice(0, 80)}.`);
      return;
    }
    const doc = await vscode.workspace.openTextDocument({
      language: 'markdown',
      content: messageToMarkdown(entry.message, { labels: exportLabels() }),
    });
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true });
  }
}

type ComposerMessage = Extract<WebviewToExtensionMessage, { type: 'sendFollowUp' | 'resendFollowUp' | 'discardFollowUp' | 'draftChanged' }>;

/**
 * The composer's extension side: Send, Resend, Discard and draft changes. A second Send while a
 * follow-up is on its way is refused by the run's one lock (run/followUpSends.ts); the page is told again.
 */
class PanelComposer {
  /** The allow-edits question of a Send is open: a second Send meanwhile is dropped. */
  private confirming = false;

  constructor(
    private readonly host: RunPanelHost,
    private readonly agentId: string,
    private readonly post: (message: ExtensionToWebviewMessage) => void,
  ) {}

  async handle(m: ComposerMessage): Promise<void> {
    switch (m.type) {
      case 'sendFollowUp':
        await this.send(m.requestId, { prompt: m.prompt, permission: m.permission, permittedBranches: m.permittedBranches });
        return;
      case 'resendFollowUp':
        await this.resend();
        return;
      case 'discardFollowUp':
        if (this.host.discardFollowUp(this.agentId) !== undefined) {
          this.post({ type: 'draft', text: this.host.getDraft(this.agentId) });
        }
        return;
      case 'draftChanged': {
        // Not the text of a send, nor a restored copy of one the run took since (panel/common/draftRule.ts).
        if (keepsDraft(m.text, m.restored === true, this.host.getSendState(this.agentId), this.host.sentPrompts(this.agentId))) {
          this.host.setDraft(this.agentId, m.text);
        }
        return;
      }
    }
  }

  postSendState(): void {
    this.post(sendStateMessage(this.host.getSendState(this.agentId)));
  }

  /**
   * The composer's Send. A second Send while one is being confirmed sends nothing; one while the
   * run has a send under way is refused by the run's lock (FollowUpSends.send) and the page is
   * told the lock again.
   */
  private async send(requestId: number, req: FollowUpInput): Promise<void> {
    if (this.confirming) {
      this.host.log.debug(`Run panel ${this.agentId}: a second Send while one is being confirmed was ignored.`);
      this.postSendState();
      return;
    }
    const input: FollowUpInput = { prompt: req.prompt };
    if (req.permission) {
      input.permission = req.permission;
    }
    if (req.permittedBranches && req.permittedBranches.length > 0) {
      input.permittedBranches = req.permittedBranches;
    }
    this.confirming = true;
    let allowed: boolean;
    try {
      allowed = await this.confirmAllowEdits(input);
    } finally {
      this.confirming = false;
    }
    if (!allowed) {
      this.post({ type: 'followUpResult', requestId, ok: false, error: vscode.l10n.t('Cancelled; the prompt was not sent.') });
      return;
    }
    this.reportResult(requestId, await this.host.submitFollowUp(this.agentId, input));
  }

  /** The person chose to send an `uncertain` follow-up again, knowing it may have arrived. */
  private async resend(): Promise<void> {
    const input = this.host.sentInput(this.agentId);
    if (!input) {
      this.postSendState();
      return;
    }
    this.reportResult(0, await this.host.submitFollowUp(this.agentId, input, true));
  }

  private reportResult(requestId: number, result: FollowUpSubmitResult): void {
    switch (result.kind) {
      case 'sent':
        this.post({ type: 'followUpResult', requestId, ok: true });
        return;
      case 'busy':
        this.postSendState();
        return;
      case 'failed':
        this.post({ type: 'followUpResult', requestId, ok: false, error: cutText(result.message, 2_000) });
        if (result.offerClone) {
          // The page cannot change the model: the way forward is another run.
          const clone = vscode.l10n.t('Clone Run');
          void vscode.window.showErrorMessage(result.message, clone).then((pick) => (pick === clone ? this.host.cloneRun(this.agentId) : undefined));
        }
        return;
    }
  }

  /** The modal guardrail when the follow-up switches the run to `allow_edits`. */
  private async confirmAllowEdits(input: FollowUpInput): Promise<boolean> {
    const current = this.host.getRun(this.agentId)?.run;
    if (input.permission !== 'allow_edits' || current?.permission === 'allow_edits') {
      return true;
    }
    const branches = input.permittedBranches ?? current?.permittedBranches ?? [];
    const allow = vscode.l10n.t('Allow edits');
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('Let this run edit the project?'),
      {
        modal: true,
        detail:
          branches.length > 0
            ? vscode.l10n.t('The agent may change code on these branches: {0}', branches.join(', '))
            : vscode.l10n.t('No branch restriction is set: the agent may change code on any branch it can reach.'),
      },
      allow,
    );
    return choice === allow;
  }
}

function sendStateMessage(send: SendState | undefined): ExtensionToWebviewMessage {
  return send ? { type: 'sendState', send } : { type: 'sendState' };
}
