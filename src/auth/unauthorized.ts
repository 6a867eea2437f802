/**
 * A 401 means the token is wrong for every run on that service, not for one run: the first
 * one anywhere pauses polling (through `onDidChange`) and offers "Set API Token" once.
 * Storing a new token for that base URL lifts it.
 */
import * as vscode from 'vscode';
import { Disposable } from '../util/disposable';
import type { Connection } from './connection';
import type { TokenStore } from './tokenStore';

export const CONTEXT_TOKEN_REJECTED = 'agentRuns.tokenRejected';

export class UnauthorizedGate extends Disposable {
  private rejectedBaseUrl: string | undefined;
  /** How many times the user was prompted (exposed to tests). */
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
      if (e.baseUrl === this.rejectedBaseUrl) {
        this.log.info('A new token was stored; polling resumes.');
        this.set(undefined);
      }
    }));
    this._register(connection.onDidChange((state) => {
      if (this.rejectedBaseUrl !== undefined && state.baseUrl !== this.rejectedBaseUrl) {
        this.set(undefined);
      }
    }));
  }

  /** True while the current base URL's token is known to be rejected. */
  get rejected(): boolean {
    return this.rejectedBaseUrl !== undefined && this.rejectedBaseUrl === this.connection.current.baseUrl;
  }

  /**
   * Background reports (polling) prompt once per rejected token; `interactive` ones (the user
   * just ran a command that failed) always say why.
   */
  report(error?: unknown, options: { interactive?: boolean } = {}): void {
    const baseUrl = this.connection.current.baseUrl;
    if (!baseUrl) {
      return;
    }
    if (this.rejectedBaseUrl === baseUrl) {
      if (options.interactive) {
        this.promptCount++;
        void this.prompt(baseUrl);
      }
      return;
    }
    const detail = error instanceof Error ? ` (${error.message})` : '';
    this.log.warn(`The service rejected the API token for ${baseUrl} (401)${detail}; polling is paused until a new token is set.`);
    this.set(baseUrl);
    this.promptCount++;
    void this.prompt(baseUrl);
  }

  private set(baseUrl: string | undefined): void {
    if (this.rejectedBaseUrl === baseUrl) {
      return;
    }
    this.rejectedBaseUrl = baseUrl;
    void vscode.commands.executeCommand('setContext', CONTEXT_TOKEN_REJECTED, baseUrl !== undefined);
    this.changeEmitter.fire();
  }

  private async prompt(baseUrl: string): Promise<void> {
    const setToken = vscode.l10n.t('Set API Token');
    const pick = await vscode.window.showWarningMessage(
      vscode.l10n.t('The service at {0} rejected the API token: it may have been revoked or mistyped. Updates are paused until you set a new token.', new URL(baseUrl).host),
      setToken,
    );
    if (pick === setToken) {
      await vscode.commands.executeCommand('agentRuns.setToken');
    }
  }
}
