/** The run ledger's public shapes (ledger.ts re-exports them): what goes in and what it reports. */
import type { RunStatus } from '../../../api/types';

/** A follow-up the service acknowledged (or whose prompt a read found), for `recordFollowUp`. */
export interface FollowUpRecord {
  prompt: string;
  /** The status in the acknowledgement. */
  ackStatus: RunStatus;
  permission?: string;
  permittedBranches?: string[];
  /** The prompt's `sequence` when a read already showed it (a send that may have arrived, found). */
  arrivedSeq?: number;
  /** The run's facts when the follow-up was sent (`followUpBaseline` then); else the record's now. */
  before?: FollowUpBaseline;
}

/** What a follow-up's turn must move past: the run's read facts when it was sent. */
export interface FollowUpBaseline {
  /** Only a finished run's: a going run's next end may be the turn before the follow-up's. */
  completedAt?: number;
  lastSequence?: number;
  updatedAt?: number;
}

export interface LedgerChange {
  /** The runs that changed; empty with `structural` when runs were added or removed. */
  agentIds: string[];
  /** Runs were added or removed (the tree must rebuild its groups, not just re-render nodes). */
  structural: boolean;
}

export interface ApplyResult {
  changed: boolean;
  previousStatus: RunStatus;
  statusChanged: boolean;
  /** The run became finished (see isFinishedRun) with this read. */
  becameFinished: boolean;
}

/** What went wrong with the stored run list (the UI tells the user; the ledger only reports). */
export type LedgerProblem =
  | { readonly kind: 'reset' }
  | { readonly kind: 'dropped'; readonly count: number }
  | { readonly kind: 'save' };
