// The run panel, extension side: one webview panel per run, showing what the run model holds.
// Follow-ups take the run's one send lock in the host, so hidden tabs and reloads cannot send twice.
// The page never gets the token or the network (`connect-src 'none'`); every message from it is
// validated (protocol.ts), and anything invalid is logged and dropped.
import * as vscode from 'vscode';
import type { FollowUpInput } from '../../run/followUpSends';
import type { FollowUpNotSent } from '../../run/followUp';
import { RunObserver, type Shown } from '../common/panelModel';
import { parsePanelState, type SendState } from '../common/protocol';
import { type Transcript, type TranscriptSnapshot } from '../../run/common/transcript/transcript';
import { TranscriptStore } from '../../run/common/transcript/store';
import { RUN_PANEL_VIEW_TYPE } from '../common/viewType';
import { panelTitle } from '../common/tabTitle';
import type { CodeReviewDetail } from '../../api/reviewTypes';
import { RunPanel } from './runPanel';

export { buildHeader, type Shown } from '../common/panelModel';
export { RUN_PANEL_VIEW_TYPE };

/** One follow-up's input, for every surface (declared once, with the send locks). */
export type { FollowUpInput };

export type FollowUpSubmitResult =
  | { kind: 'sent' }
  /** The run already has a follow-up on its way or one that may have arrived: nothing was sent. */
  | { kind: 'busy' }
  | FollowUpNotSent;

export interface RunPanelHost {
  getRun(agentId: string): Shown | undefined;
  /** Fire whenever the run or its transcript changed (also after loading a saved transcript). */
  onDidChangeRun(listener: (agentId: string) => void): vscode.Disposable;
  /** Sends once through the run's send lock; `resend` only for an `uncertain` one. Never rejects for a service failure. */
  submitFollowUp(agentId: string, input: FollowUpInput, resend?: boolean): Promise<FollowUpSubmitResult>;
  getSendState(agentId: string): SendState | undefined;
  onDidChangeSendState(listener: (agentId: string) => void): vscode.Disposable;
  /** What an `uncertain` follow-up sent (for Resend). */
  sentInput(agentId: string): FollowUpInput | undefined;
  /** Gives up an `uncertain` follow-up; returns the text now in the draft. */
  discardFollowUp(agentId: string): string | undefined;
  getDraft(agentId: string): string;
  /** The prompts of the follow-ups the service took for this run (open or settled), trimmed. */
  sentPrompts(agentId: string): readonly string[];
  setDraft(agentId: string, text: string): void;
  cloneRun(agentId: string): Promise<void>;
  /** Only ever called with http/https/mailto URLs. */
  openExternalLink(url: string): Promise<void>;
  refresh(agentId: string): Promise<void>;
  setPanelOpen(agentId: string, open: boolean): void;
  markSeen(agentId: string): void;
  /** `GET /code-reviews/{id}` for the panel of a review's conversation (absent: no review is shown). */
  readCodeReview?(reviewId: string): Promise<CodeReviewDetail>;
  /** A failed read in words a person can act on (token and secrets never in it). */
  describeError?(error: unknown): string;
  log: { debug(msg: string): void; warn(msg: string): void };
}

export interface RunPanelManagerOptions {
  /**
   * The transcript store shared with the rest of the extension (e.g. the persisting cache the
   * poller merges into), or a function returning the current one (it may be replaced, e.g.
   * when the base URL changes). One is created otherwise.
   */
  store?: TranscriptStore | (() => TranscriptStore);
  /** A running run with no activity for this long shows a stall warning. Default 10. */
  stallAfterMinutes?: number;
  /**
   * Default true. False when the caller registered the serializer itself and forwards
   * restored panels to `restore()` (the manager is then created lazily, after activation).
   */
  registerSerializer?: boolean;
}

const DEFAULT_STALL_MINUTES = 10;
const MAX_TRACKED_RUNS = 50;

export class RunPanelManager implements vscode.Disposable {
  private readonly panels = new Map<string, RunPanel>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly store: () => TranscriptStore;
  readonly observer: RunObserver;
  readonly stallAfterMs: number;

  constructor(
    readonly extensionUri: vscode.Uri,
    readonly host: RunPanelHost,
    options: RunPanelManagerOptions = {},
  ) {
    const t = options.store ?? new TranscriptStore(MAX_TRACKED_RUNS);
    this.store = typeof t === 'function' ? t : () => t;
    this.stallAfterMs = Math.max(1, options.stallAfterMinutes ?? DEFAULT_STALL_MINUTES) * 60_000;
    this.observer = new RunObserver({
      getRun: (id) => host.getRun(id),
      transcript: (id) => this.transcript(id),
      now: () => Date.now(),
      maxRuns: MAX_TRACKED_RUNS,
      isPinned: (id) => this.panels.has(id),
    });
    if (options.registerSerializer ?? true) {
      this.disposables.push(vscode.window.registerWebviewPanelSerializer(RUN_PANEL_VIEW_TYPE, {
        deserializeWebviewPanel: (panel, state) => this.restore(panel, state),
      }));
    }
    this.disposables.push(host.onDidChangeRun((agentId) => this.onRunChanged(agentId)));
  }

  /** Opens the panel of a run, or reveals it when it is already open. */
  open(agentId: string, options: { preserveFocus?: boolean; viewColumn?: vscode.ViewColumn } = {}): void {
    const existing = this.panels.get(agentId);
    if (existing) {
      existing.panel.reveal(options.viewColumn, options.preserveFocus);
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      RUN_PANEL_VIEW_TYPE,
      panelTitle(agentId, this.host.getRun(agentId)?.run, vscode.l10n),
      { viewColumn: options.viewColumn ?? vscode.ViewColumn.Active, preserveFocus: options.preserveFocus ?? false },
      this.webviewOptions(),
    );
    this.adopt(agentId, panel);
  }

  /** Takes over a panel VS Code restored after a reload (the serializer's `deserializeWebviewPanel`). */
  restore(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const parsed = parsePanelState(state);
    if (!parsed || this.panels.has(parsed.agentId)) {
      this.host.log.warn(parsed ? 'A restored run panel duplicated an open one; closed it.' : 'A restored run panel had no valid state; closed it.');
      panel.dispose();
      return Promise.resolve();
    }
    panel.webview.options = this.webviewOptions();
    this.adopt(parsed.agentId, panel);
    return Promise.resolve();
  }

  isOpen(agentId: string): boolean {
    return this.panels.has(agentId);
  }

  /** The run whose panel is the active editor, if one is. */
  activeRun(): string | undefined {
    return [...this.panels.values()].find((p) => p.panel.active)?.agentId;
  }

  /** Whether the run's panel is open and visible (the user is looking at it). */
  isVisible(agentId: string): boolean {
    return this.panels.get(agentId)?.panel.visible ?? false;
  }

  /** The run's transcript in the (current) shared store. */
  transcript(agentId: string): Transcript {
    return this.store().get(agentId);
  }

  /** The merged transcript of a run. */
  transcriptOf(agentId: string): TranscriptSnapshot {
    return this.transcript(agentId).snapshot();
  }

  /** Puts text into the composer of an open panel (and stores it as the draft). */
  restoreDraft(agentId: string, text: string): void {
    this.host.setDraft(agentId, text);
    this.panels.get(agentId)?.post({ type: 'draft', text });
  }

  dispose(): void {
    for (const p of [...this.panels.values()]) {
      p.panel.dispose();
    }
    this.panels.clear();
    for (const d of this.disposables) {
      d.dispose();
    }
  }

  // ---------------------------------------------------------------- internals

  webviewOptions(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return {
      enableScripts: true,
      enableCommandUris: false,
      // The composer is a <form>; its submit is handled in script (CSP form-action 'none').
      enableForms: true,
      // The page restores itself from `init`; nothing heavy stays alive in hidden tabs.
      retainContextWhenHidden: false,
      enableFindWidget: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(this.extensionUri, 'media')],
    };
  }

  private adopt(agentId: string, panel: vscode.WebviewPanel): void {
    const p = new RunPanel(this, agentId, panel);
    this.panels.set(agentId, p);
    panel.onDidDispose(() => {
      if (this.panels.get(agentId) === p) {
        this.panels.delete(agentId);
      }
      p.dispose();
      this.host.setPanelOpen(agentId, false);
    });
    this.observer.observe(agentId);
    this.host.setPanelOpen(agentId, panel.visible);
  }

  private onRunChanged(agentId: string): void {
    const panel = this.panels.get(agentId);
    // Runs never shown in this session are not followed here: the ledger has them.
    if (!panel && !this.observer.has(agentId)) {
      return;
    }
    this.observer.observe(agentId);
    panel?.onRunChanged();
  }
}
