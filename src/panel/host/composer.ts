/**
 * The run panel's composer, extension side: Send, Resend, Discard and draft changes. A second
 * Send while a follow-up is on its way (double click, Enter twice, a page rebuilt after its tab
 * was hidden) is refused by the run's one lock (run/followUpSends.ts); the page is told it again.
 */
import * as vscode from 'vscode';
import { cutText, type ExtensionToWebviewMessage, type SendState, type WebviewToExtensionMessage } from '../common/protocol';
import type { FollowUpInput, FollowUpSubmitResult, RunPanelHost } from './manager';
import { keepsDraft } from '../common/draftRule';

type ComposerMessage = Extract<WebviewToExtensionMessage, { type: 'sendFollowUp' | 'resendFollowUp' | 'discardFollowUp' | 'draftChanged' }>;

export class PanelComposer {
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
