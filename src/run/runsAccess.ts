/**
 * The runs as runState shows them, for the surfaces outside the Runs view (chat, tools, Testing); a refresh
 * is one read through RunSync, so the stale-read rule and the follow-up evidence apply as to any poll.
 */
import * as vscode from 'vscode';
import type { AgentMessage } from '../api/types';
import { runState, type LedgerEntry, type Run } from './common/ledger/ledger';
import type { Ledgers } from './ledgers';
import type { RunSync } from './runSync';
import type { Transcripts } from './transcripts';

export interface RunsAccess {
  get(agentId: string): { readonly record: LedgerEntry; readonly run: Run } | undefined;
  /** The run's messages as the transcript holds them (the saved one is loaded first). */
  messages(agentId: string): Promise<readonly AgentMessage[]>;
  /** One read now, through the poller (never rejects; a failure marks the run stale). */
  refresh(agentId: string): Promise<void>;
  /** Fires with the agentId whenever a listed run changed. */
  readonly onDidChange: vscode.Event<string>;
}

export function runsAccess(ledgers: Ledgers, transcripts: Transcripts, sync: RunSync): RunsAccess & vscode.Disposable {
  const emitter = new vscode.EventEmitter<string>();
  const sub = ledgers.onDidChangeRuns((c) => {
    for (const id of c.agentIds) emitter.fire(id);
  });
  return {
    get(agentId) {
      const record = ledgers.current.get(agentId);
      return record ? { record, run: runState(record) } : undefined;
    },
    async messages(agentId) {
      if (!transcripts.isLoaded(agentId)) {
        await transcripts.load(agentId);
      }
      return transcripts.store.get(agentId).snapshot().entries.map((e) => e.message);
    },
    refresh: (agentId) => sync.poller.pollNow(agentId),
    onDidChange: emitter.event,
    dispose() {
      sub.dispose();
      emitter.dispose();
    },
  };
}
