// The follow pipeline without VS Code, wired the way src/run/runSync.ts (RunSync) wires it:
// the real HTTP client against the emulator, the real poller on virtual time, the real run
// ledger and transcript store, and describeApiError for what the person would read. Every
// place text ends up (log lines, error messages and their causes, the persisted ledger, the
// stale marks) is kept so the scenarios can search it for the token.
import { createClient } from '../../../src/api/client';
import type { AgentRunsApi, RequestLogEntry, Timeouts } from '../../../src/api/contract';
import { describeApiError } from '../../../src/api/describe';
import { isApiError } from '../../../src/api/errors';
import type { Agent, RunStatus } from '../../../src/api/types';
import { Emitter } from '../../../src/base/common/events';
import { RunLedger, type KeyValueStore } from '../../../src/run/common/ledger/ledger';
import { Poller, type PollerSettings } from '../../../src/run/common/polling/poller';
import { HistoryWindows } from '../../../src/run/common/polling/historyWindow';
import { RunReader, applyRead } from '../../../src/run/common/polling/runReads';
import type { LedgerEntry } from '../../../src/run/common/ledger/ledger';
import { afterPost } from '../../../src/run/afterPost';
import { TranscriptStore } from '../../../src/run/common/transcript/store';
import { TranscriptFiles } from '../../../src/run/common/transcript/transcriptFiles';
import type { Scenario } from '../registry';
import { VirtualClock } from './virtualClock';

export const FAST_TIMEOUTS: Timeouts = { connectMs: 2_000, headersMs: 1_000, bodyMs: 1_000 };

/** Everything the persisted store was ever asked to write, as JSON. */
export class RecordingStore implements KeyValueStore {
  private readonly values = new Map<string, unknown>();
  readonly writes: string[] = [];
  constructor(initial: Record<string, unknown> = {}) {
    for (const [k, v] of Object.entries(initial)) {
      this.values.set(k, v);
    }
  }
  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }
  update(key: string, value: unknown): PromiseLike<void> {
    this.values.set(key, value);
    this.writes.push(JSON.stringify(value));
    return Promise.resolve();
  }
}

export interface PipelineOptions {
  baseUrl: string;
  token: string;
  timeouts?: Timeouts;
  settings?: Partial<PollerSettings>;
  /** What an earlier session persisted (the run list); default: nothing. */
  store?: RecordingStore;
  /** Saves transcripts as the extension does, journals under this folder; default: memory only. */
  journalDir?: string;
}

export interface ReadAttempt {
  agentId: string;
  /** Virtual time the read started. */
  at: number;
  /** `ok`, or the ApiError kind of the failure. */
  outcome?: string;
}

/** Real-time wait for a condition (never a fixed sleep). */
export async function until(what: string, probe: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 2));
  }
}

export class Pipeline {
  readonly clock = new VirtualClock();
  readonly store: RecordingStore;
  readonly logs: string[] = [];
  readonly requestLog: RequestLogEntry[] = [];
  readonly errorTexts: string[] = [];
  readonly reads: ReadAttempt[] = [];
  readonly connectivity: boolean[] = [];
  readonly ledgerWarnings: string[] = [];
  readonly crashes: string[] = [];
  unauthorized = 0;
  client: AgentRunsApi;
  readonly ledger: RunLedger;
  readonly transcripts: TranscriptStore;
  /** The transcripts' journals, with `journalDir`. */
  readonly files: TranscriptFiles | undefined;
  readonly poller: Poller;
  /** "Run finished" notices raised (what RunAlerts would show). */
  readonly finishedNotices: LedgerEntry[] = [];
  private readonly reader: RunReader;
  private readonly previousListenerError = Emitter.onListenerError;

  constructor(private readonly options: PipelineOptions) {
    this.client = this.makeClient(options.token);
    this.store = options.store ?? new RecordingStore();
    this.ledger = new RunLedger(this.store, options.baseUrl, (m) => this.ledgerWarnings.push(m));
    const files = options.journalDir === undefined ? undefined : new TranscriptFiles({ fsPath: options.journalDir }, { info: (m) => this.logs.push(m), warn: (m) => this.logs.push(m) }, options.baseUrl, { saveDelayMs: 10 });
    this.files = files;
    this.transcripts = files?.store ?? new TranscriptStore(50);
    this.reader = new RunReader({
      windows: () => new HistoryWindows(),
      lastSequence: (id) => this.ledger.get(id)?.lastSequence,
      resumeAfter: (id) => files?.resumeAfter(id),
      resumed: (id) => files?.resumed(id),
      now: () => this.clock.now(),
      log: (m) => this.logs.push(m),
    });
    Emitter.onListenerError = (err) => this.crashes.push(`a listener threw: ${String(err)}`);
    this.poller = new Poller({
      clock: this.clock,
      random: () => 0,
      settings: options.settings,
      log: (m) => {
        this.logs.push(m);
        if (/ threw: |Poller bug/.test(m)) {
          this.crashes.push(m);
        }
      },
      fetchRun: (agentId, signal) => this.fetchRun(agentId, signal),
      onResult: (agentId, agent) => this.applyAgent(agentId, agent),
      behind: (agentId) => this.reader.behind(agentId),
      onError: (agentId, error) => this.onError(agentId, error),
      onUnauthorized: (error) => {
        this.unauthorized++;
        this.errorTexts.push(this.describe(error));
      },
      onConnectivityChange: (online, error) => {
        this.connectivity.push(online);
        if (error !== undefined) {
          this.errorTexts.push(this.describe(error));
        }
      },
    });
  }

  private makeClient(token: string): AgentRunsApi {
    return createClient({
      baseUrl: this.options.baseUrl,
      token,
      timeouts: this.options.timeouts ?? FAST_TIMEOUTS,
      log: (entry) => this.requestLog.push(entry),
    });
  }

  /** A new token was set: a new client, and polling resumes (what the glue does). */
  async setToken(token: string): Promise<void> {
    const old = this.client;
    this.client = this.makeClient(token);
    await old.dispose();
    this.poller.resume();
  }

  describe(error: unknown): string {
    return isApiError(error) ? describeApiError(error) : error instanceof Error ? error.message : String(error);
  }

  private async fetchRun(agentId: string, signal: AbortSignal): Promise<Agent> {
    const attempt: ReadAttempt = { agentId, at: this.clock.now() };
    this.reads.push(attempt);
    try {
      const agent = await this.reader.read(this.client, agentId, signal);
      attempt.outcome = 'ok';
      return agent;
    } catch (e) {
      if (!isApiError(e)) {
        // The client's contract: every failure is an ApiError.
        this.crashes.push(`getAgent rejected with a non-ApiError: ${String(e)}`);
      }
      attempt.outcome = isApiError(e) ? e.kind : 'non-ApiError';
      throw e;
    }
  }

  private applyAgent(agentId: string, agent: Agent): boolean | 'dormant' {
    return applyRead(this.ledger, agentId, agent, {
      viewing: false,
      now: this.clock.now(),
      merge: (id, history) => (this.files ? this.files.merge(id, history) : this.transcripts.get(id).merge(history)),
      finished: (record) => this.finishedNotices.push(record),
    });
  }

  private onError(agentId: string, error: unknown): void {
    if (isApiError(error) && error.kind === 'aborted') {
      return;
    }
    const text = this.describe(error);
    this.errorTexts.push(text);
    if (error instanceof Error) {
      this.errorTexts.push(String(error.stack ?? ''));
      const cause = (error as Error & { cause?: unknown }).cause;
      if (cause instanceof Error) {
        this.errorTexts.push(`${cause.name} ${cause.message} ${(cause as Error & { code?: string }).code ?? ''}`);
      }
    }
    this.ledger.recordPollError(agentId, text);
  }

  /** Adds runs to the ledger (as the launch flow would) and follows them. */
  follow(...agentIds: string[]): void {
    for (const agentId of agentIds) {
      this.ledger.upsert({ agentId, source: 'started', status: 'queued' });
      this.poller.track(agentId);
    }
  }

  /** A follow-up the service acknowledged, through the same afterPost as the extension. */
  followedUp(agentId: string, prompt: string, status: RunStatus): void {
    afterPost(this.ledger, this.poller, { kind: 'followUp', agentId, prompt, ack: { agentId, status } }, this.clock.now());
  }

  /** Lets `ms` of virtual time pass; requests run in real time, with virtual time stopped. */
  runFor(ms: number): Promise<void> {
    return this.clock.advance(ms, () => until('the poller to have no read in flight', () => this.poller.inFlight === 0, 15_000));
  }

  /** Runs virtual time in 1 s steps until `probe` holds (or `maxMs` of virtual time passed). */
  async runUntil(what: string, probe: () => boolean, maxMs: number): Promise<number> {
    const start = this.clock.now();
    while (!probe()) {
      if (this.clock.now() - start >= maxMs) {
        throw new Error(`${what} did not happen within ${maxMs / 1000} s of virtual time`);
      }
      await this.runFor(1_000);
    }
    return this.clock.now() - start;
  }

  readsOf(agentId: string): ReadAttempt[] {
    return this.reads.filter((r) => r.agentId === agentId);
  }

  /** Reports every sink this pipeline wrote to, and every crash it saw, to the scenario. */
  check(s: Scenario): void {
    s.sink('output log lines', this.logs.join('\n'));
    s.sink('request log entries', this.requestLog.map((e) => JSON.stringify(e)).join('\n'));
    s.sink('error messages', this.errorTexts.join('\n'));
    s.sink('persisted run ledger', this.store.writes.join('\n'));
    s.sink('ledger warnings', this.ledgerWarnings.join('\n'));
    for (const c of this.crashes) {
      s.crash(c);
    }
  }

  async dispose(): Promise<void> {
    this.poller.dispose();
    this.files?.dispose();
    this.ledger.dispose();
    Emitter.onListenerError = this.previousListenerError;
    await this.client.dispose();
  }
}
