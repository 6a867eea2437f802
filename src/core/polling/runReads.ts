/**
 * One read of a run, both ways of it: fetching (the history window from the served schema,
 * widened when messages were left out) and folding the answer into the run model (transcript,
 * then ledger, then the "finished" notice). The glue (src/runs/runSync.ts) and the fault
 * suite's pipeline use these, so both follow a run the same way. Pure: no vscode.
 */
import type { AgentRunsApi } from '../../api/contract';
import type { Agent, HistoryLimitParam } from '../../api/types';
import { runState, type RunLedger, type RunRecord } from '../ledger/ledger';
import { HistoryWindows } from './historyWindow';

/** After a failed schema read, reads go without a window this long before it is tried again. */
export const SCHEMA_RETRY_MS = 5 * 60_000;

export type ReadClient = Pick<AgentRunsApi, 'baseUrl' | 'getAgent' | 'getSchemaInfo'>;

export interface RunReaderDeps {
  /** The highest sequence already taken in for the run (the ledger's `lastSequence`). */
  lastSequence(agentId: string): number | undefined;
  /**
   * The newest sequence the run's saved transcript held when read back this session, if any:
   * below `lastSequence` when the window closed after the ledger was saved and before the
   * transcript was. The next read then reaches back to it, and `resumed` is called. May read
   * the journal first (a promise), whether or not a panel shows the run.
   */
  resumeAfter?(agentId: string): number | undefined | Promise<number | undefined>;
  resumed?(agentId: string): void;
  now?(): number;
  log?(message: string): void;
}

export class RunReader {
  private readonly windows = new HistoryWindows();
  /** The served schema's window parameter, read once per service on the first read. */
  private schema: { baseUrl: string; param: Promise<HistoryLimitParam | undefined>; failedAt?: number } | undefined;

  constructor(private readonly deps: RunReaderDeps) {}

  async read(client: ReadClient, agentId: string, signal?: AbortSignal): Promise<Agent> {
    const param = await this.historyParam(client);
    const seen = this.deps.lastSequence(agentId);
    const saved = await this.deps.resumeAfter?.(agentId);
    const result = await this.windows.read(agentId, seen, param, (limit) =>
      client.getAgent(agentId, { signal, history: param && limit !== undefined ? { param: param.name, limit } : undefined }), saved);
    if (saved !== undefined) {
      this.deps.resumed?.(agentId);
    }
    return result.agent;
  }

  forget(agentId: string): void {
    this.windows.forget(agentId);
  }

  private historyParam(client: ReadClient): Promise<HistoryLimitParam | undefined> {
    const now = this.deps.now?.() ?? Date.now();
    const s = this.schema;
    if (s && s.baseUrl === client.baseUrl && (s.failedAt === undefined || now - s.failedAt < SCHEMA_RETRY_MS)) {
      return s.param;
    }
    const next: NonNullable<RunReader['schema']> = { baseUrl: client.baseUrl, param: Promise.resolve(undefined) };
    next.param = client.getSchemaInfo().then(
      (info) => info.historyLimit,
      (error: unknown) => {
        next.failedAt = this.deps.now?.() ?? Date.now();
        this.deps.log?.(`The service's schema could not be read (${error instanceof Error ? error.message : String(error)}); reading runs without a history window for now.`);
        return undefined;
      },
    );
    this.schema = next;
    return next.param;
  }
}

export interface ApplyReadOptions {
  /** The person is looking at the run now (its panel is visible and focused). */
  viewing: boolean;
  /** The time of the read (Unix ms); default Date.now(). */
  now?: number;
  /** Merges the history into the run's transcript (before the ledger hears of the read). */
  merge(agentId: string, history: Agent['history']): void;
  /** The run finished with this read and no window announced it yet. */
  finished(record: RunRecord): void;
  /** A read that changed nothing the ledger keeps. */
  unchanged?(agentId: string): void;
}

/**
 * Folds one read into the run model: transcript, ledger, and the one "finished" notice across
 * windows. Returns what the poller does next: true (finished: stop), `'dormant'` (an unknown
 * status without `completedAt`: read slowly), false (keep following).
 */
export function applyRead(ledger: RunLedger, agentId: string, agent: Agent, o: ApplyReadOptions): boolean | 'dormant' {
  if (!ledger.has(agentId)) {
    // Removed from the list while the read was under way: do not bring it back.
    return true;
  }
  o.merge(agentId, agent.history);
  const result = ledger.applyAgent({ ...agent, agentId }, { viewing: o.viewing, now: o.now });
  if (!result.changed) {
    o.unchanged?.(agentId);
  }
  const record = ledger.get(agentId);
  if (!record) {
    return true;
  }
  if (result.becameFinished && ledger.claimFinishNotice(agentId, o.now)) {
    o.finished(ledger.get(agentId) ?? record);
  }
  const state = runState(record);
  return state.finished ? true : state.dormant ? 'dormant' : false;
}
