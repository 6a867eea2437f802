/**
 * The public API's run events. A change event only says which runs may have changed, so each
 * run's last announced state (runState) is kept and an event fires once per transition of it:
 * a stale or repeated read fires nothing, two change events for one transition fire it once.
 */
import type { LedgerEntry } from '../../run/common/ledger/record';
import { runState, type RunOutcome } from '../../run/common/ledger/runState';

export type RunEvent =
  | { readonly kind: 'added'; readonly agentId: string }
  | { readonly kind: 'stateChanged'; readonly agentId: string; readonly oldStatus: string; readonly newStatus: string }
  | { readonly kind: 'followUpAcknowledged'; readonly agentId: string; readonly prompt: string }
  | { readonly kind: 'finished'; readonly agentId: string; readonly outcome: RunOutcome; readonly completedAt?: number }
  | { readonly kind: 'removed'; readonly agentId: string };

/** What was last announced of a run. */
interface Announced {
  readonly status: string;
  readonly finished: boolean;
  /** The acts (acknowledged follow-ups) already announced, by ID. */
  readonly acts: ReadonlySet<string>;
}

export interface RunsSource {
  get(agentId: string): (LedgerEntry & { readonly agentId: string }) | undefined;
  all(): readonly (LedgerEntry & { readonly agentId: string })[];
}

/** Act IDs remembered per run: the record keeps a few settled acts only, and a merge can bring one back. */
const ACTS_REMEMBERED = 100;

function announced(r: LedgerEntry, before?: Announced): Announced {
  const state = runState(r);
  const acts = [...(before?.acts ?? []), ...(r.acts ?? []).map((a) => a.id)];
  return { status: state.status, finished: state.finished, acts: new Set(acts.slice(-ACTS_REMEMBERED)) };
}

export class RunEvents {
  private readonly known = new Map<string, Announced>();

  /** Starts from the list as it is: what is in it now is not news. */
  constructor(source: RunsSource) {
    this.reset(source);
  }

  /** Another list (the base URL changed): taken as it is, without events. */
  reset(source: RunsSource): void {
    this.known.clear();
    for (const r of source.all()) {
      this.known.set(r.agentId, announced(r));
    }
  }

  /**
   * The events of one change of the list, in order: per run, added, then its state, then its
   * acknowledged follow-ups, then finished. `agentIds` empty: any run may have changed.
   */
  changed(source: RunsSource, agentIds: readonly string[]): RunEvent[] {
    const ids = agentIds.length > 0 ? agentIds : [...new Set([...this.known.keys(), ...source.all().map((r) => r.agentId)])];
    const events: RunEvent[] = [];
    for (const agentId of ids) {
      this.diff(source.get(agentId), agentId, events);
    }
    return events;
  }

  private diff(r: (LedgerEntry & { readonly agentId: string }) | undefined, agentId: string, events: RunEvent[]): void {
    const before = this.known.get(agentId);
    if (!r) {
      if (before) {
        this.known.delete(agentId);
        events.push({ kind: 'removed', agentId });
      }
      return;
    }
    const now = announced(r, before);
    const state = runState(r);
    this.known.set(agentId, now);
    if (!before) {
      // A new run: its current state is part of what "added" tells, not a change of it.
      events.push({ kind: 'added', agentId });
      return;
    }
    if (before.status !== now.status) {
      events.push({ kind: 'stateChanged', agentId, oldStatus: before.status, newStatus: now.status });
    }
    for (const act of r.acts ?? []) {
      if (!before.acts.has(act.id)) {
        events.push({ kind: 'followUpAcknowledged', agentId, prompt: act.prompt });
      }
    }
    if (!before.finished && now.finished && state.outcome !== undefined) {
      events.push({ kind: 'finished', agentId, outcome: state.outcome, ...(state.completedAt !== undefined ? { completedAt: state.completedAt } : {}) });
    }
  }
}
