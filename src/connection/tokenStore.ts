/**
 * The API token lives only in SecretStorage, keyed by the normalised base URL, so a token
 * for one service is never sent to another. `onDidChange` follows SecretStorage's own
 * event, which also fires for changes made by other windows.
 */
import * as vscode from 'vscode';

const KEY_PREFIX = 'agentRuns.token:';

export function secretKeyFor(baseUrl: string): string {
  return KEY_PREFIX + baseUrl;
}

export interface TokenChange {
  /** The normalised base URL whose token was set or cleared. */
  baseUrl: string;
}

export class TokenStore implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<TokenChange>();
  readonly onDidChange: vscode.Event<TokenChange> = this.emitter.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.subscription = secrets.onDidChange((e) => {
      if (e.key.startsWith(KEY_PREFIX)) {
        this.emitter.fire({ baseUrl: e.key.slice(KEY_PREFIX.length) });
      }
    });
  }

  async get(baseUrl: string): Promise<string | undefined> {
    const value = await this.secrets.get(secretKeyFor(baseUrl));
    return value === '' ? undefined : value;
  }

  async has(baseUrl: string): Promise<boolean> {
    return (await this.get(baseUrl)) !== undefined;
  }

  set(baseUrl: string, token: string): Thenable<void> {
    return this.secrets.store(secretKeyFor(baseUrl), token);
  }

  delete(baseUrl: string): Thenable<void> {
    return this.secrets.delete(secretKeyFor(baseUrl));
  }

  dispose(): void {
    this.subscription.dispose();
    this.emitter.dispose();
  }
}
