/**
 * What the glue's own commands get on top of the shared `Deps`: the concrete objects behind
 * it. Other features (launch, test groups) only see `Deps`.
 */
import type { Connection } from '../connection/connection';
import type { UnauthorizedGate } from '../connection/unauthorizedGate';
import type { Deps } from './deps';
import type { Drafts } from './drafts';
import type { FollowUpSends } from './followUpSends';
import type { RunsView } from './runsView';
import type { Ledgers } from './ledgers';
import type { RunSync } from './runSync';
import type { Transcripts } from './transcripts';

export interface GlueDeps extends Deps {
  readonly conn: Connection;
  readonly ledgers: Ledgers;
  readonly gate: UnauthorizedGate;
  readonly sync: RunSync;
  readonly view: RunsView;
  readonly drafts: Drafts;
  /** Follow-ups being sent or that may have arrived, per run: the one lock every send path asks. */
  readonly sends: FollowUpSends;
  readonly transcripts: Transcripts;
}
