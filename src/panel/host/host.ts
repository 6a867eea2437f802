/**
 * The extension side the run panel depends on (`RunPanelHost`), backed by the ledger, the poller
 * and the transcript store; it never hands the token or the client to the panel.
 */
import * as vscode from 'vscode';
import { runOwnCommand } from '../../connection/ownCommands';
import type { Deps } from '../../run/deps';
import type { SendState } from '../common/protocol';
import { submitFollowUp } from '../../run/followUp';
import { Disposable } from '../../base/common/disposable';
import { runState } from '../../run/common/ledger/runState';
import type * as PanelBundle from './bundle';
import { describeError } from '../../connection/showApiError';
import type { CodeReviewDetail } from '../../api/reviewTypes';
import type { FollowUpInput, FollowUpSubmitResult, RunPanelHost, Shown } from './manager';

export class PanelHost extends Disposable implements RunPanelHost {
  private readonly changeEmitter = this._register(new vscode.EventEmitter<string>());
  private readonly visible = new Set<string>();
  private offline = false;
  private deps: Deps | undefined;
  readonly log: { debug(msg: string): void; warn(msg: string): void };

  /** `bundle`: dist/panel.js, loaded already whenever a panel asks something. */
  constructor(log: vscode.LogOutputChannel, private readonly bundle: () => typeof PanelBundle) {
    super();
    this.log = { debug: (m) => log.debug(`[panel] ${m}`), warn: (m) => log.warn(`[panel] ${m}`) };
  }

  /** The host is created before the deps it serves (the panel manager must exist in activate). */
  attach(deps: Deps): void {
    this.deps = deps;
    this._register(deps.onDidChangeRuns((c) => {
      for (const id of c.agentIds) {
        this.changeEmitter.fire(id);
      }
    }));
    this._register(deps.sync.onDidChangeConnectivity((online) => {
      this.offline = !online;
      for (const id of this.visible) {
        this.changeEmitter.fire(id);
      }
    }));
  }

  private get d(): Deps {
    if (!this.deps) {
      throw new Error('PanelHost used before attach()');
    }
    return this.deps;
  }

  /** A read that changed nothing in the ledger may still carry new transcript content. */
  polled(agentId: string): void {
    this.changeEmitter.fire(agentId);
  }

  isViewing(agentId: string): boolean {
    return this.visible.has(agentId);
  }

  // ------------------------------------------------------------ RunPanelHost

  getRun(agentId: string): Shown | undefined {
    const record = this.d.ledger().get(agentId);
    if (!record) {
      return undefined;
    }
    const run = runState(record);
    // The transcript saved before a reload joins the shared store in the background; one
    // more change event once it is there (and only then: observe() calls getRun again).
    if (!this.d.transcripts.isLoaded(agentId)) {
      void this.d.transcripts.load(agentId).then(() => this.changeEmitter.fire(agentId));
    }
    const view: Shown = { run };
    if (this.offline) {
      view.freshness = { state: 'offline', asOf: record.lastCheckedAt, detail: vscode.l10n.t('The service cannot be reached.') };
    } else if (record.pollError !== undefined) {
      view.freshness = { state: 'stale', asOf: record.lastCheckedAt, detail: record.pollError };
    } else if (this.d.tokenRejected()) {
      view.freshness = { state: 'stale', asOf: record.lastCheckedAt, detail: vscode.l10n.t('The API token was rejected; set a new one to see updates.') };
    }
    if (record.seenAt !== undefined) {
      view.lastSeenAt = record.seenAt;
    }
    return view;
  }

  onDidChangeRun(listener: (agentId: string) => void): vscode.Disposable {
    return this.changeEmitter.event(listener);
  }

  async submitFollowUp(agentId: string, input: FollowUpInput, resend = false): Promise<FollowUpSubmitResult> {
    const d = this.d;
    const outcome = await submitFollowUp(d, agentId, input, { resend, from: 'panel' });
    switch (outcome.kind) {
      case 'sent':
        return { kind: 'sent' };
      case 'busy':
        return { kind: 'busy' };
      case 'notConnected':
      case 'noFollowUps':
      case 'failed':
        // Worded in the panel's bundle, loaded already: a panel asked.
        return this.bundle().followUpNotSent(d, agentId, outcome);
    }
  }

  /** The run's pending send in the page's wire shape (the run machinery knows no page). */
  getSendState(agentId: string): SendState | undefined {
    const send = this.d.sends.get(agentId);
    return send ? { state: send.state, prompt: send.prompt, since: send.since } : undefined;
  }

  /** The text an `uncertain` follow-up sent, for the person's deliberate resend. */
  sentInput(agentId: string): FollowUpInput | undefined {
    return this.d.sends.get(agentId)?.state === 'uncertain' ? this.d.sends.input(agentId) : undefined;
  }

  onDidChangeSendState(listener: (agentId: string) => void): vscode.Disposable {
    return this.d.sends.onDidChange(listener);
  }

  discardFollowUp(agentId: string): string | undefined {
    return this.d.sender.discardFollowUp(agentId);
  }

  getDraft(agentId: string): string {
    return this.d.drafts.get(agentId) ?? '';
  }

  sentPrompts(agentId: string): readonly string[] {
    return (this.d.ledger().get(agentId)?.acts ?? []).map((a) => a.prompt.trim());
  }

  setDraft(agentId: string, text: string): void {
    this.d.drafts.set(agentId, text);
  }

  async cloneRun(agentId: string): Promise<void> {
    await runOwnCommand('agentRuns.cloneRun', agentId);
  }

  openExternalLink(url: string): Promise<void> {
    return this.bundle().openExternalLink(url);
  }

  readCodeReview(reviewId: string): Promise<CodeReviewDetail> {
    return this.bundle().readCodeReview(this.d, reviewId);
  }

  describeError(error: unknown): string {
    return describeError(this.d, error);
  }

  async refresh(agentId: string): Promise<void> {
    const d = this.d;
    if (d.tokenRejected()) {
      d.reportUnauthorized(undefined, { interactive: true });
      return;
    }
    await d.sync.poller.pollNow(agentId);
  }

  setPanelOpen(agentId: string, open: boolean): void {
    if (open) {
      this.visible.add(agentId);
    } else {
      this.visible.delete(agentId);
    }
    this.d.sync.poller.setPanelOpen(agentId, open);
    // Only shown panels keep their run's transcript in memory (a hidden one re-inits from it when shown).
    this.d.transcripts.setInUse(agentId, open);
    if (open) {
      this.d.ledger().markSeen(agentId);
    }
  }

  markSeen(agentId: string): void {
    this.d.ledger().markSeen(agentId);
  }
}
