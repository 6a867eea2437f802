/**
 * This window's own open follow-ups: the ones it got acknowledged are kept in its own storage
 * (its workspaceState) until their turns end, so another window's save, built before it saw
 * them, cannot take them from this window across a reload.
 */
import { isRecord, type KeyValueStore, type LedgerEntry } from './record';
import { mergeFollowUps, reviveFollowUps, type FollowUpAct } from './runState';
import { ownFollowUpsKeyFor } from './stored';

export class OwnFollowUps {
  /** IDs of the open follow-ups this window got acknowledged (kept in `own` too). */
  private readonly ids = new Set<string>();

  constructor(
    private readonly own: KeyValueStore,
    private readonly baseUrl: string,
  ) {}

  /** A follow-up this window just got acknowledged. */
  add(actId: string): void {
    this.ids.add(actId);
  }

  /** Writes this window's open follow-ups (those whose turn ended, or whose run left, are dropped). */
  persist(runs: Iterable<LedgerEntry>): void {
    if (this.ids.size === 0) {
      return;
    }
    const kept: Record<string, FollowUpAct[]> = {};
    const still = new Set<string>();
    for (const r of runs) {
      const mine = (r.acts ?? []).filter((a) => this.ids.has(a.id) && a.settledAt === undefined);
      if (mine.length > 0) {
        kept[r.agentId] = mine;
        for (const a of mine) still.add(a.id);
      }
    }
    for (const id of [...this.ids]) {
      if (!still.has(id)) this.ids.delete(id);
    }
    void Promise.resolve(this.own.update(ownFollowUpsKeyFor(this.baseUrl), still.size > 0 ? kept : undefined)).then(undefined, () => undefined);
  }

  /** This window's open follow-ups, back into the runs it lists (another window's save may have left them out). */
  load(runs: Map<string, LedgerEntry>): void {
    let raw: unknown;
    try {
      raw = this.own.get<unknown>(ownFollowUpsKeyFor(this.baseUrl));
    } catch {
      return;
    }
    if (!isRecord(raw)) {
      return;
    }
    for (const [agentId, value] of Object.entries(raw)) {
      const r = runs.get(agentId);
      const acts = reviveFollowUps(value);
      if (!r || !acts) {
        continue;
      }
      for (const a of acts) this.ids.add(a.id);
      runs.set(agentId, { ...r, acts: mergeFollowUps(r.acts, acts) });
    }
  }
}
