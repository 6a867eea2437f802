// A Sender on the real client against the emulator, with in-memory stores: the setup the sender's unit tests share.
import { createClient, type AgentRunsApi } from '../../../src/api';
import { RunLedger } from '../../../src/run/common/ledger/ledger';
import { FollowUpSends } from '../../../src/run/followUpSends';
import { Sender } from '../../../src/run/sender';
import * as sendPosts from '../../../src/run/sendPosts';
import { UnconfirmedStarts } from '../../../src/run/unconfirmedStarts';
import type { Emulator } from '../../emulator/index';
import { MemoryStore } from '../fixtures/memoryStore';

export interface SenderRig {
  readonly client: AgentRunsApi;
  readonly ledger: RunLedger;
  readonly starts: UnconfirmedStarts;
  readonly sends: FollowUpSends;
  readonly drafts: Map<string, string>;
  readonly sender: Sender;
}

/** `connected` says whether the sender has a client now (a sign-out between sends). */
export function senderRig(emu: Emulator, connected: () => boolean = () => true): SenderRig {
  const client = createClient({ baseUrl: emu.baseUrl, token: emu.tokens.default });
  const store = new MemoryStore();
  const ledger = new RunLedger(store, client.baseUrl);
  const starts = new UnconfirmedStarts(store);
  const sends = new FollowUpSends(store);
  const drafts = new Map<string, string>();
  const sender = new Sender({
    client: () => Promise.resolve(connected() ? client : undefined),
    ledger: () => ledger,
    poller: { track: () => undefined, burst: () => undefined },
    starts,
    sends, targetState: store,
    drafts: { get: (id) => drafts.get(id), set: (id, text) => (text === undefined ? drafts.delete(id) : drafts.set(id, text)) },
    log: { info: () => undefined, warn: () => undefined },
  }, () => sendPosts);
  return { client, ledger, starts, sends, drafts, sender };
}
