/**
 * One run ledger per base URL: switching `agentRuns.baseUrl` swaps the ledger, and every
 * listener keeps working through `onDidChangeRuns`, which follows whichever ledger is current.
 */
import * as vscode from 'vscode';
import { RunLedger, type KeyValueStore, type LedgerChange } from '../core/ledger';
import { Disposable } from '../util/disposable';

/** With no usable base URL there is nothing to persist: runs only live in memory. */
class MemoryStore implements KeyValueStore {
  private readonly values = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }
  update(key: string, value: unknown): PromiseLike<void> {
    this.values.set(key, value);
    return Promise.resolve();
  }
}

export class Ledgers extends Disposable {
  private currentLedger: RunLedger;
  private ledgerSubscription: vscode.Disposable | undefined;
  private readonly ledgerEmitter = this._register(new vscode.EventEmitter<RunLedger>());
  readonly onDidChangeLedger: vscode.Event<RunLedger> = this.ledgerEmitter.event;
  private readonly runsEmitter = this._register(new vscode.EventEmitter<LedgerChange>());
  readonly onDidChangeRuns: vscode.Event<LedgerChange> = this.runsEmitter.event;

  constructor(
    private readonly store: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
    baseUrl: string | undefined,
  ) {
    super();
    this.currentLedger = this.open(baseUrl);
  }

  get current(): RunLedger {
    return this.currentLedger;
  }

  /** Switches to the ledger of `baseUrl` (a no-op when it is already current). */
  switchTo(baseUrl: string | undefined): void {
    if ((baseUrl ?? '') === this.currentLedger.baseUrl) {
      return;
    }
    const old = this.currentLedger;
    this.currentLedger = this.open(baseUrl);
    // Let pending writes of the old ledger land before it goes.
    void old.flush().then(() => old.dispose());
    this.ledgerEmitter.fire(this.currentLedger);
    this.runsEmitter.fire({ agentIds: [], structural: true });
  }

  /** Resolves once the current ledger's writes have landed (for deactivate and tests). */
  flush(): Promise<void> {
    return this.currentLedger.flush();
  }

  override dispose(): void {
    this.ledgerSubscription?.dispose();
    this.currentLedger.dispose();
    super.dispose();
  }

  private open(baseUrl: string | undefined): RunLedger {
    this.ledgerSubscription?.dispose();
    const store: KeyValueStore = baseUrl ? this.store : new MemoryStore();
    const ledger = new RunLedger(store, baseUrl ?? '', (message) => this.log.warn(message));
    this.ledgerSubscription = ledger.onDidChange((change) => this.runsEmitter.fire(change));
    return ledger;
  }
}
