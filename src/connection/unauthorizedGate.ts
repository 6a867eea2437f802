/**
 * A 401 means the token is wrong for every run on that service: the first pauses polling
 * (`onDidChange`) and offers "Set API Token" once. The rules are `RejectionState`'s (common/unauthorizedState.ts).
 */
import * as vscode from 'vscode';
import { runOwnCommand } from './ownCommands';
import { Disposable } from '../base/common/disposable';
import type { Connection } from './connection';
import type { TokenStore } from './tokenStore';
import { RejectionState, type ReportOptions } from './common/unauthorizedState';

export const CONTEXT_TOKEN_REJECTED = 'agentRuns.tokenRejected';

export class UnauthorizedGate extends Disposable {
  private readonly state = new RejectionState(() => performance.now());
  /** How many times the gate prompted (exposed to tests); a caller's own message is not counted. */
  promptCount = 0;
  private readonly changeEmitter = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange: vscode.Event<void> = this.changeEmitter.event;

  constructor(
    private readonly connection: Connection,
    auth: TokenStore,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this._register(auth.onDidChange((e) => {
      if (this.state.tokenChanged(e.baseUrl)) {
        this.log.info('A new token was stored; polling resumes.');
        this.changed();
      }
    }));
    this._register(connection.onDidChange((state) => {
      if (this.state.baseUrlChanged(state.baseUrl)) {
        this.changed();
      }
    }));
    this._register(connection.onDidAcceptToken((e) => {
      if (this.state.accepted(e.baseUrl, e.startedAt)) {
        this.log.info(`The service accepted the API token for ${e.baseUrl} again; polling resumes.`);
        this.changed();
      }
    }));
  }

  /** True while the current base URL's token is known to be rejected. */
  get rejected(): boolean {
    return this.state.isRejected(this.connection.current.baseUrl);
  }

  /**
   * Background reports (polling) prompt once per rejected token; `interactive` ones (the user
   * just ran a command that failed) always say why. `error` is the 401, or an
   * `UnauthorizedReport` (src/connection/common/unauthorizedReport.ts) wrapping it.
   */
  report(error?: unknown, options: ReportOptions = {}): void {
    const baseUrl = this.connection.current.baseUrl;
    const decision = this.state.report(baseUrl, error, options);
    if (decision.ignored) {
      this.log.info(`A 401 was not recorded: ${decision.ignored}.`);
      return;
    }
    if (decision.changed) {
      const detail = decision.error instanceof Error ? ` (${decision.error.message})` : '';
      this.log.warn(`The service rejected the API token for ${baseUrl} (401)${detail}; polling is paused until a new token is set.`);
      this.changed();
    }
    if (decision.prompt && baseUrl) {
      this.promptCount++;
      void this.prompt(baseUrl);
    }
  }

  private changed(): void {
    void vscode.commands.executeCommand('setContext', CONTEXT_TOKEN_REJECTED, this.rejected);
    this.changeEmitter.fire();
  }

  private async prompt(baseUrl: string): Promise<void> {
    const setToken = vscode.l10n.t('Set API Token');
    const pick = await vscode.window.showWarningMessage(
      vscode.l10n.t('The service at {0} rejected the API token: it may have been revoked or mistyped. Updates are paused until you set a new token.', new URL(baseUrl).host),
      setToken,
    );
    if (pick === setToken) {
      await runOwnCommand('agentRuns.setToken');
    }
  }
}
