/**
 * What the glue's own commands get on top of the shared `Deps`: the concrete objects behind
 * it. Other features (launch, test groups) only see `Deps`.
 */
import type { Connection } from '../auth/connection';
import type { UnauthorizedGate } from '../auth/unauthorized';
import type { Deps } from '../deps';
import type { Drafts } from '../util/drafts';
import type { RunsView } from '../views/runsTree';
import type { Ledgers } from './ledgers';
import type { RunSync } from './polling';
import type { Transcripts } from './lazyTranscripts';

export interface GlueDeps extends Deps {
  readonly conn: Connection;
  readonly ledgers: Ledgers;
  readonly gate: UnauthorizedGate;
  readonly sync: RunSync;
  readonly view: RunsView;
  readonly drafts: Drafts;
  readonly transcripts: Transcripts;
}
