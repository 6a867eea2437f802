/**
 * Wires the one Poller to the rest: each read lands once in the transcript and then the ledger, a finished
 * run raises one alert across windows, a 401 goes to the gate. Every unfinished run is followed from
 * activation on; nothing is read without a base URL and an accepted token.
 */
import * as vscode from 'vscode';
import { ApiError, isApiError } from '../api/errors';
import type { Agent } from '../api/types';
import { Poller, type PollerSettings } from './common/polling/poller';
import { RunReader, applyRead, type ReadClient } from './common/polling/runReads';
import { lazyBundle } from '../base/common/lazyBundle';
import type * as HistoryWindowModule from './common/polling/historyWindow';
import { isFinishedRun, type LedgerChange, type LedgerEntry } from './common/ledger/ledger';
import type { Connection } from '../connection/connection';
import type { UnauthorizedGate } from '../connection/unauthorizedGate';
import { Disposable } from '../base/common/disposable';
import type { Ledgers } from './ledgers';
import type { Transcripts } from './transcripts';

export interface RunSyncOptions {
  ledgers: Ledgers;
  connection: Connection;
  gate: UnauthorizedGate;
  transcripts: Transcripts;
  /** Announces a run that finished (src/runs/alerts.ts). */
  alerts: { runFinished(run: LedgerEntry): void };
  log: vscode.LogOutputChannel;
  /** Whether the user is looking at the run right now (its panel is visible). */
  isViewing(agentId: string): boolean;
  /** Each successful read of a listed run, before the ledger hears of it (a follow-up that may have arrived is looked for). */
  beforeApply?(agentId: string, agent: Agent): void;
  /** A read that changed nothing the ledger tracks (the transcript may still have moved). */
  unchanged?(agentId: string): void;
  /** A follow-up that may have arrived is still looked for in the run's reads: follow it, finished or not. */
  awaiting?(agentId: string): boolean;
}

/** `agentRuns.polling.*` (seconds) as poller settings (ms). Bounds are the poller's. */
export function readPollingSettings(): Partial<PollerSettings> {
  const c = vscode.workspace.getConfiguration('agentRuns.polling');
  const ms = (key: string): number | undefined => {
    const v = c.get<number>(key);
    return typeof v === 'number' && Number.isFinite(v) ? v * 1000 : undefined;
  };
  return { panelMs: ms('panelSeconds'), backgroundMs: ms('backgroundSeconds'), unfocusedMs: ms('unfocusedSeconds') };
}

/** The history windows (dist/windows.js): the first read of a run. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loadHistoryWindows = lazyBundle(() => require('./windows.js') as typeof HistoryWindowModule);

export class RunSync extends Disposable {
  readonly poller: Poller;
  private readonly reader = new RunReader({
    windows: () => new (loadHistoryWindows().HistoryWindows)(),
    lastSequence: (agentId) => this.o.ledgers.current.get(agentId)?.lastSequence,
    resumeAfter: (agentId) => this.o.transcripts.resumeAfter(agentId),
    resumed: (agentId) => this.o.transcripts.resumed(agentId),
    log: (message) => this.o.log.info(message),
  });
  private readonly wasActive = new Map<string, boolean>();
  private readonly connectivityEmitter = this._register(new vscode.EventEmitter<boolean>());
  /** True = reachable again, false = offline. Once per transition. */
  readonly onDidChangeConnectivity: vscode.Event<boolean> = this.connectivityEmitter.event;
  private shouldRun = false;
  private baseUrl: string | undefined;

  constructor(private readonly o: RunSyncOptions) {
    super();
    this.poller = this._register(new Poller({
      fetchRun: (agentId, signal) => this.fetchRun(agentId, signal),
      onResult: (agentId, agent) => this.applyAgent(agentId, agent),
      onError: (agentId, error, retryIn) => this.onError(agentId, error, retryIn),
      onUnauthorized: (error) => o.gate.report(error),
      behind: (agentId) => this.reader.behind(agentId),
      onConnectivityChange: (online, error) => {
        o.log.warn(online ? 'The service is reachable again.' : `The service looks unreachable: ${this.describe(error)}`);
        this.connectivityEmitter.fire(online);
      },
      settings: readPollingSettings(),
      log: (message, level) => (level === 'error' ? o.log.error(`[poller] ${message}`) : o.log.info(`[poller] ${message}`)),
    }));
    // Nothing is read before the first token lookup finished: see syncPauseState.
    this.poller.pause();
    this.poller.setFocused(vscode.window.state.focused);
    this._register(vscode.window.onDidChangeWindowState((s) => this.poller.setFocused(s.focused)));
    this._register(vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('agentRuns.polling')) {
        this.poller.updateSettings(readPollingSettings());
      }
    }));
    this._register(o.ledgers.onDidChangeRuns((c) => this.onRunsChanged(c)));
    this.baseUrl = o.connection.current.baseUrl;
    this._register(o.connection.onDidChange((state) => {
      if (state.baseUrl !== this.baseUrl) {
        this.baseUrl = state.baseUrl;
        this.switchService();
      }
      this.syncPauseState();
    }));
    this._register(o.gate.onDidChange(() => this.syncPauseState()));
    // Resume following unfinished runs from the last session: timers only, no request yet.
    this.onRunsChanged({ agentIds: [], structural: true });
    void o.connection.ready.then(() => this.syncPauseState());
  }

  /**
   * Folds one read into the ledger and the transcript cache; raises the completion alert (once
   * across windows). Returns whether the run is finished (the poller stops reading it), or
   * `'dormant'` for an unknown status without `completedAt` (read slowly).
   */
  applyAgent(agentId: string, agent: Agent): boolean | 'dormant' {
    if (this.o.ledgers.current.has(agentId)) {
      this.o.beforeApply?.(agentId, agent);
    }
    return applyRead(this.o.ledgers.current, agentId, agent, {
      viewing: this.o.isViewing(agentId) && vscode.window.state.focused,
      merge: (id, history) => this.o.transcripts.merge(id, history),
      finished: (record) => this.o.alerts.runFinished(record),
      unchanged: (id) => this.o.unchanged?.(id),
      awaiting: this.o.awaiting?.(agentId) === true,
    });
  }

  /** One read the way the poller reads (history window included), for a run read outside it (Track Run by ID). */
  readRun(client: ReadClient, agentId: string, signal?: AbortSignal): Promise<Agent> {
    return this.reader.read(client, agentId, signal);
  }

  /** The user-facing text of an error (the API module's describeApiError when it is one). */
  describe(error: unknown): string {
    if (isApiError(error)) {
      try {
        return this.o.connection.api().describeApiError(error);
      } catch {
        return error.message;
      }
    }
    return error instanceof Error ? error.message : String(error);
  }

  private async fetchRun(agentId: string, signal: AbortSignal): Promise<Agent> {
    const client = await this.o.connection.getClient({ quiet: true });
    if (!client) {
      throw new ApiError({ kind: 'invalid_input', message: vscode.l10n.t('Not connected: set the base URL and the API token.'), mayHaveReachedServer: false });
    }
    return this.reader.read(client, agentId, signal);
  }

  private onError(agentId: string, error: unknown, retryIn: number | undefined): void {
    if (isApiError(error) && error.kind === 'aborted') {
      return;
    }
    const ledger = this.o.ledgers.current;
    if (!ledger.has(agentId)) {
      return;
    }
    let text = this.describe(error);
    if (isApiError(error) && error.kind === 'not_found' && retryIn === undefined) {
      text = vscode.l10n.t('The service no longer knows this run; it is not followed any more. {0}', text);
    }
    ledger.recordPollError(agentId, text);
  }

  private onRunsChanged(change: LedgerChange): void {
    const ledger = this.o.ledgers.current;
    const ids = change.agentIds.length > 0
      ? change.agentIds
      : [...new Set([...this.wasActive.keys(), ...ledger.all().map((r) => r.agentId)])];
    for (const id of ids) {
      const record = ledger.get(id);
      if (!record) {
        this.poller.untrack(id);
        this.reader.forget(id);
        this.wasActive.delete(id);
        continue;
      }
      const active = !isFinishedRun(record) || this.o.awaiting?.(id) === true;
      const before = this.wasActive.get(id);
      // Only transitions: a run the poller gave up on (404) is not picked up again by
      // an unrelated change, only by a refresh or a follow-up.
      if (active && before !== true) {
        this.poller.track(id);
      } else if (!active && before === true) {
        this.poller.untrack(id);
      }
      this.wasActive.set(id, active);
    }
  }

  /** A new base URL is another service: the old one's outage or rate limit is not carried over. */
  private switchService(): void {
    const wasOffline = !this.poller.reachable;
    this.poller.resetConnectivity();
    if (wasOffline) {
      this.o.log.info('Another base URL: the previous service\'s connection trouble no longer applies.');
      this.connectivityEmitter.fire(true);
    }
  }

  private syncPauseState(): void {
    const s = this.o.connection.current;
    const run = s.baseUrl !== undefined && s.signedIn && !this.o.gate.rejected;
    if (run === this.shouldRun) {
      return;
    }
    this.shouldRun = run;
    if (run) {
      this.o.log.debug(`Polling ${this.poller.trackedCount} unfinished run(s).`);
      this.poller.resume();
    } else {
      this.poller.pause();
    }
  }
}
