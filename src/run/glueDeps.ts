/**
 * What the glue's own commands get on top of the shared `Deps`: the run machinery behind it.
 * Other features (launch, test groups) only see `Deps`. One door per thing: the run list is
 * `ledger()`, the connection `connection()`, a 401 `reportUnauthorized` (all in `Deps`); the
 * objects behind them (Ledgers, Connection, UnauthorizedGate) are not handed out.
 */
import type { Deps } from './deps';
import type { Drafts } from './drafts';
import type { FollowUpSends } from './followUpSends';
import type { RunSync } from './runSync';
import type { Transcripts } from './transcripts';

export interface GlueDeps extends Deps {
  /** Whether the service rejected the stored token (polling waits for a new one). */
  tokenRejected(): boolean;
  /** Reads again whether a token is stored for the base URL (one set or cleared meanwhile). */
  refreshSignedIn(): Promise<void>;
  readonly sync: RunSync;
  /** The Runs view (src/runs implements it): shows a run, or reads every row again. */
  readonly view: { reveal(agentId: string, options?: { select?: boolean }): Promise<void>; readonly provider: { refreshAll(): void } };
  readonly drafts: Drafts;
  /** Follow-ups being sent or that may have arrived, per run: the one lock every send path asks. */
  readonly sends: FollowUpSends;
  readonly transcripts: Transcripts;
}
