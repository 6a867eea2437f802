/**
 * One read of a run: fetched with the served schema's history window, then folded into the transcript,
 * the ledger and the "finished" notice. RunSync and the fault suite both use it, so both read alike. Pure.
 */
import type { AgentRunsApi } from '../../../api/contract';
import { isApiError } from '../../../api/errors';
import type { Agent, HistoryLimitParam } from '../../../api/types';
import { runState, type RunLedger, type LedgerEntry } from '../ledger/ledger';
import type { HistoryWindows, WindowedRead } from './historyWindow';

/** After a failed schema read, the documented window is assumed this long before the schema is tried again. */
export const SCHEMA_RETRY_MS = 5 * 60_000;

/**
 * The window the deployed service documents (service-api-wider.md §1: `historyLimit`, integer,
 * default 100, at most 500), sent while its schema cannot be read: without it the service's
 * default applies and no read can reach back past it.
 */
export const DOCUMENTED_HISTORY_PARAM: Readonly<HistoryLimitParam> = Object.freeze({ name: 'historyLimit', defaultLimit: 100, maximum: 500 });

export type ReadClient = Pick<AgentRunsApi, 'baseUrl' | 'getAgent' | 'getSchemaInfo'>;

export interface RunReaderDeps {
  /**
   * Makes the history windows, on the first read (the extension loads them as their own bundle,
   * dist/windows.js, so activation does not carry them: src/run/runSync.ts).
   */
  windows(): HistoryWindows;
  /** The highest sequence already taken in for the run (the ledger's `lastSequence`). */
  lastSequence(agentId: string): number | undefined;
  /**
   * The newest sequence of the run's saved transcript read back this session: below `lastSequence` when the
   * window closed between saving the ledger and the transcript, so the next read reaches back to it.
   */
  resumeAfter?(agentId: string): number | undefined | Promise<number | undefined>;
  resumed?(agentId: string): void;
  now?(): number;
  log?(message: string): void;
}

/** The window parameter to send: the served schema's, or the documented one assumed without a schema. */
interface WindowParam {
  readonly param: HistoryLimitParam | undefined;
  /** Not read from the schema (it could not be read): a 400 to a read carrying it is the service refusing it. */
  readonly assumed: boolean;
}

export class RunReader {
  private made: HistoryWindows | undefined;
  /** The served schema's window parameter, read once per service on the first read. */
  private schema: { baseUrl: string; param: Promise<WindowParam>; failedAt?: number } | undefined;
  /** The service (base URL) that answered 400 to the assumed parameter: reads go without it. */
  private refusedBy: string | undefined;
  /** Runs whose latest read showed them outrunning their reads (see HistoryWindows' `full`). */
  private readonly outrunning = new Set<string>();

  constructor(private readonly deps: RunReaderDeps) {}

  private get windows(): HistoryWindows {
    this.made ??= this.deps.windows();
    return this.made;
  }

  async read(client: ReadClient, agentId: string, signal?: AbortSignal): Promise<Agent> {
    const { param, assumed } = await this.historyParam(client);
    const lastSequence = this.deps.lastSequence(agentId);
    const saved = await this.deps.resumeAfter?.(agentId);
    const get = (p: HistoryLimitParam | undefined) => (limit: number | undefined): Promise<Agent> =>
      client.getAgent(agentId, { signal, history: p && limit !== undefined ? { param: p.name, limit } : undefined });
    let result: WindowedRead;
    try {
      result = await this.windows.read(agentId, lastSequence, param, get(param), saved);
    } catch (error) {
      if (!assumed || !isApiError(error) || error.status !== 400) {
        throw error;
      }
      // Whatever the 400 names, a read that carried a parameter no schema vouched for is made
      // once more without it; when that one is answered, the service is not asked with it again.
      result = await this.windows.read(agentId, lastSequence, undefined, get(undefined), saved);
      this.refusedBy = client.baseUrl;
      this.deps.log?.(`The service refused a read with ${param?.name ?? 'a history window'} (400${error.code ? ` ${error.code}` : ''}) and answered one without: reading runs without a history window.`);
    }
    if (saved !== undefined) {
      this.deps.resumed?.(agentId);
    }
    if (result.full) {
      this.outrunning.add(agentId);
    } else {
      this.outrunning.delete(agentId);
    }
    return result.agent;
  }

  /**
   * The latest read of the run came back full of new messages (see HistoryWindows' `full`): what
   * the run writes before a read at the usual cadence may already be out of reach, so the poller
   * reads it at its fast cadence until a window is no longer full (PollerDeps.behind).
   */
  behind(agentId: string): boolean {
    return this.outrunning.has(agentId);
  }

  forget(agentId: string): void {
    this.made?.forget(agentId);
    this.outrunning.delete(agentId);
  }

  private historyParam(client: ReadClient): Promise<WindowParam> {
    const now = this.deps.now?.() ?? Date.now();
    let s = this.schema;
    if (!s || s.baseUrl !== client.baseUrl || (s.failedAt !== undefined && now - s.failedAt >= SCHEMA_RETRY_MS)) {
      s = this.readSchema(client);
      this.schema = s;
    }
    return s.param.then((w) => (w.assumed && this.refusedBy === client.baseUrl ? { param: undefined, assumed: false } : w));
  }

  private readSchema(client: ReadClient): NonNullable<RunReader['schema']> {
    const next: NonNullable<RunReader['schema']> = { baseUrl: client.baseUrl, param: Promise.resolve({ param: undefined, assumed: false }) };
    next.param = client.getSchemaInfo().then(
      (info): WindowParam => ({ param: info.historyLimit, assumed: false }),
      (error: unknown): WindowParam => {
        next.failedAt = this.deps.now?.() ?? Date.now();
        const how = this.refusedBy === client.baseUrl
          ? 'without a history window (the service refused the documented one)'
          : `with the documented history window (${DOCUMENTED_HISTORY_PARAM.name}, at most ${DOCUMENTED_HISTORY_PARAM.maximum})`;
        this.deps.log?.(`The service's schema could not be read (${error instanceof Error ? error.message : String(error)}); reading runs ${how} for now.`);
        return { param: DOCUMENTED_HISTORY_PARAM, assumed: true };
      },
    );
    return next;
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
  finished(record: LedgerEntry): void;
  /** A read that changed nothing the ledger keeps. */
  unchanged?(agentId: string): void;
  /**
   * A follow-up to the run may have arrived and no read has shown its prompt yet (see
   * FollowUpSends.awaiting): a finished read does not end the following, so a late prompt is seen.
   */
  awaiting?: boolean;
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
  return state.finished && !o.awaiting ? true : state.dormant ? 'dormant' : false;
}
