/**
 * What the poller (poller.ts) is given, and how it calls it: a callback or a logger that
 * throws is reported (or, for the logger, ignored) and never breaks polling. Pure: no vscode.
 */
import type { Agent } from '../../../api/types';
import type { Clock } from '../../../base/common/clock';
import type { PollerSettings } from './settings';

export interface PollerDeps {
  /** Reads one run; rejects with ApiError (or anything). Must honour `signal`. */
  fetchRun(agentId: string, signal: AbortSignal): Promise<Agent>;
  /**
   * Called with each successful read. Return true if the run is now finished (stop polling it),
   * `'dormant'` for a run that is not finished but not known to be moving either (read slowly).
   */
  onResult(agentId: string, agent: Agent): boolean | 'dormant';
  /**
   * Called for each failed read, after the poller decided what to do; `willRetryInMs` is undefined when it
   * will not read the run again on its own (a 404 past its retries, a one-off `pollNow`). Not for a 401.
   */
  onError(agentId: string, error: unknown, willRetryInMs: number | undefined): void;
  /** Called ONCE when a 401 stops all polling; polling stays paused until resume(). */
  onUnauthorized(error: unknown): void;
  /**
   * Asked after each successful read of a run that is not finished: true when that read came
   * back with a full window of new messages (the run writes faster than it is read), so the
   * next read comes at the fast cadence (`burstMs`) until one is no longer full.
   */
  behind?(agentId: string): boolean;
  /** Called when reachability changes: offline after consecutive network/5xx failures across runs, online on the next success. Once per transition, never per poll. */
  onConnectivityChange?(online: boolean, error?: unknown): void;
  clock?: Clock;
  settings?: Partial<PollerSettings>;
  /** `error` for a callback that threw or a bug in the poller itself; `info` for the rest. */
  log?(message: string, level?: 'info' | 'error'): void;
  /** Source of jitter in [0, 1); defaults to Math.random. Tests pass a constant. */
  random?(): number;
}

export type LogLevel = 'info' | 'error';

/** Logs through `deps.log` when there is one; a broken logger must not break polling. */
export function logSafely(deps: Pick<PollerDeps, 'log'>, message: string, level: LogLevel = 'info'): void {
  if (deps.log) {
    try {
      deps.log(message, level);
    } catch {
      // A broken logger must not break polling.
    }
  }
}

/** Calls a callback (`what`, for the log); when it throws, logs that as an error and returns `fallback`. */
export function guarded<T>(log: (message: string, level: LogLevel) => void, what: string, fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch (err) {
    log(`${what} threw: ${err instanceof Error && err.stack ? err.stack : errorText(err)}`, 'error');
    return fallback;
  }
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
