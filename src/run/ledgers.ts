/**
 * One run ledger per base URL: switching `agentRuns.baseUrl` swaps the ledger, and every
 * listener keeps working through `onDidChangeRuns`, which follows whichever ledger is current.
 */
import * as vscode from 'vscode';
import { RunLedger, type KeyValueStore, type LedgerChange, type LedgerProblem } from './common/ledger/ledger';
import { Disposable } from '../base/common/disposable';

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
  private readonly told = new Set<LedgerProblem['kind']>();
  private readonly ledgerEmitter = this._register(new vscode.EventEmitter<RunLedger>());
  readonly onDidChangeLedger: vscode.Event<RunLedger> = this.ledgerEmitter.event;
  private readonly runsEmitter = this._register(new vscode.EventEmitter<LedgerChange>());
  readonly onDidChangeRuns: vscode.Event<LedgerChange> = this.runsEmitter.event;

  constructor(
    private readonly store: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
    baseUrl: string | undefined,
    /** This window's workspaceState: the follow-ups it got acknowledged, until their turns end (RunLedger's `own`). */
    private readonly own?: vscode.Memento,
  ) {
    super();
    this.currentLedger = this.open(baseUrl);
    // Other windows share the stored list: take in what they changed when this one gets focus.
    this._register(vscode.window.onDidChangeWindowState((state) => {
      if (state.focused) {
        this.currentLedger.syncFromStore();
      }
    }));
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

  /** Logged always; told to the user once per session and kind (a failing disk must not nag on every write). */
  private problem(message: string, problem: LedgerProblem): void {
    try {
      this.log.warn(message);
    } catch {
      // The log channel is closed before deactivate(): a last save's failure has nowhere to go.
      return;
    }
    if (this.told.has(problem.kind)) {
      return;
    }
    this.told.add(problem.kind);
    const text = problem.kind === 'reset'
      ? vscode.l10n.t('Agent Runs could not read its saved list of runs and started a new one. The runs still exist on the service: use "Track Run by ID" to follow one again.')
      : problem.kind === 'dropped'
        ? (problem.count === 1
          ? vscode.l10n.t('Agent Runs could not read 1 saved run and left it out of the list. Use "Track Run by ID" to follow it again.')
          : vscode.l10n.t('Agent Runs could not read {0} saved runs and left them out of the list. Use "Track Run by ID" to follow them again.', problem.count))
        : vscode.l10n.t('Agent Runs could not save its list of runs; changes may be lost when the window closes.');
    const showLogs = vscode.l10n.t('Show Logs');
    void Promise.resolve(vscode.window.showWarningMessage(text, showLogs))
      .then((pick) => (pick === showLogs ? this.log.show(true) : undefined), () => undefined);
  }

  private open(baseUrl: string | undefined): RunLedger {
    this.ledgerSubscription?.dispose();
    const store: KeyValueStore = baseUrl ? this.store : new MemoryStore();
    const ledger = new RunLedger(store, baseUrl ?? '', (message, problem) => this.problem(message, problem), baseUrl ? this.own : undefined);
    this.ledgerSubscription = ledger.onDidChange((change) => this.runsEmitter.fire(change));
    return ledger;
  }
}
