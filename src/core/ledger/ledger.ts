/**
 * The run ledger: the service has no list endpoint, so the extension keeps its own record
 * of the runs it started or was asked to track, per base URL, persisted across reloads.
 * One store, many views: the tree, the status bar, the poller and the panels all read it
 * and listen to `onDidChange`, which names exactly the runs that changed.
 */
import { Emitter, type Event } from '../events';
import { isDormant, type Agent, type RunStatus } from '../../api/types';
import { observeAgent } from './observe';
import {
  freshness, isFinishedRun, isRecord, reviveRecord, runTime, sameValue, stripUndefined, type KeyValueStore, type RunRecord,
} from './record';

export { isFinishedRun, reviveRecord, runTime, type KeyValueStore, type RunRecord, type RunSource } from './record';

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

interface StoredLedger {
  version: 1;
  runs: RunRecord[];
  /** Runs removed from the list (agentId → when), so that another window's copy does not bring them back. */
  removed?: Record<string, number>;
}

const STORAGE_PREFIX = 'agentRuns.ledger.v1:';
const MAX_RUNS = 500;
const MAX_REMOVED = 500;

export function storageKeyFor(baseUrl: string): string {
  return STORAGE_PREFIX + baseUrl;
}

/** What went wrong with the stored run list (the UI tells the user; the ledger only reports). */
export type LedgerProblem =
  | { readonly kind: 'reset' }
  | { readonly kind: 'dropped'; readonly count: number }
  | { readonly kind: 'save' };


export class RunLedger {
  private readonly runs = new Map<string, RunRecord>();
  private readonly changeEmitter = new Emitter<LedgerChange>();
  readonly onDidChange: Event<LedgerChange> = this.changeEmitter.event;
  private saving: Promise<void> = Promise.resolve();
  /** Tombstones: runs removed here or in another window, and when (oldest first). */
  private readonly removed = new Map<string, number>();
  /** The stored value last merged or written: the same object means nothing new to merge. */
  private lastStored: unknown;

  /**
   * @param warn called once when stored state was unusable and had to be reset or trimmed.
   */
  constructor(
    private readonly store: KeyValueStore,
    readonly baseUrl: string,
    private readonly warn: (message: string, problem: LedgerProblem) => void = () => undefined,
  ) {
    this.load();
  }

  all(): RunRecord[] {
    return [...this.runs.values()].sort((a, b) => runTime(b) - runTime(a));
  }

  get(agentId: string): RunRecord | undefined {
    return this.runs.get(agentId);
  }

  has(agentId: string): boolean {
    return this.runs.has(agentId);
  }

  /** Runs not yet finished: the only ones anything should poll. */
  active(): RunRecord[] {
    return this.all().filter((r) => !isFinishedRun(r));
  }

  /** Adds a run, or merges the given fields into the one already there. */
  upsert(record: Omit<RunRecord, 'unread' | 'addedAt'> & Partial<Pick<RunRecord, 'unread' | 'addedAt'>>, now = Date.now()): RunRecord {
    const existing = this.runs.get(record.agentId);
    const next: RunRecord = existing
      ? { ...existing, ...stripUndefined(record) }
      : { unread: false, addedAt: now, ...stripUndefined(record) };
    if (!existing) {
      this.removed.delete(next.agentId);
    }
    this.runs.set(next.agentId, next);
    this.trim();
    this.changed({ agentIds: [next.agentId], structural: !existing });
    return next;
  }

  /**
   * Folds a fresh read of the run into its record. Marks it unread when something the user
   * would care about changed and they are not looking at it right now. A read that changes
   * nothing stored writes nothing (the time of the read is kept in memory only).
   */
  applyAgent(agent: Agent, options: { now?: number; viewing?: boolean } = {}): ApplyResult {
    const now = options.now ?? Date.now();
    const existing = this.runs.get(agent.agentId);
    const previousStatus: RunStatus = existing?.status ?? 'queued';
    const base: RunRecord = existing ?? { agentId: agent.agentId, source: 'tracked', addedAt: now, status: previousStatus, unread: false };
    const { fields: observed, followUpSettled } = observeAgent(base, agent, now);
    const changed = !existing || followUpSettled || (Object.keys(observed) as (keyof RunRecord)[]).some((k) => !sameValue(base[k], observed[k]));
    const next: RunRecord = { ...base, ...observed, lastCheckedAt: now, pollError: undefined };
    if (followUpSettled) {
      delete next.pendingFollowUpPrompt;
      delete next.pendingFollowUpAt;
    }
    if (changed) {
      next.lastChangeAt = now;
      if (existing && !options.viewing) {
        next.unread = true;
      }
    }
    if (options.viewing) {
      next.unread = false;
      next.seenAt = now;
    }
    if (!existing) {
      this.removed.delete(next.agentId);
    }
    this.runs.set(next.agentId, next);
    const statusChanged = previousStatus !== next.status;
    const wasUnread = existing?.unread === true && options.viewing === true;
    if (changed || existing?.pollError !== undefined || wasUnread) {
      this.changed({ agentIds: [next.agentId], structural: !existing });
    }
    return {
      changed,
      previousStatus,
      statusChanged,
      becameFinished: !isFinishedRun(base) && isFinishedRun(next),
    };
  }

  /**
   * Whether this window should announce that the run finished: true once per completion across
   * all windows sharing the store (the mark is stored with the run and merged like a tombstone,
   * newest wins). Reads the store first, so another window's mark is seen.
   */
  claimFinishNotice(agentId: string, now = Date.now()): boolean {
    this.syncFromStore();
    const r = this.runs.get(agentId);
    if (!r || !isFinishedRun(r)) {
      return false;
    }
    const mark = r.completedAt ?? r.updatedAt ?? now;
    if (r.finishNotifiedFor !== undefined && r.finishNotifiedFor >= mark) {
      return false;
    }
    this.runs.set(agentId, { ...r, finishNotifiedFor: mark });
    this.persist();
    return true;
  }

  /** Records a failed poll (user-facing text) so views can show the run as stale. */
  recordPollError(agentId: string, message: string): void {
    const r = this.runs.get(agentId);
    if (!r || r.pollError === message) {
      return;
    }
    this.runs.set(agentId, { ...r, pollError: message });
    this.changed({ agentIds: [agentId], structural: false });
  }

  markSeen(agentId: string, now = Date.now()): void {
    const r = this.runs.get(agentId);
    if (!r) {
      return;
    }
    this.runs.set(agentId, { ...r, unread: false, seenAt: now });
    if (r.unread) {
      this.changed({ agentIds: [agentId], structural: false });
    } else {
      this.persist();
    }
  }

  remove(agentId: string): boolean {
    const r = this.runs.get(agentId);
    if (!r) {
      return false;
    }
    this.runs.delete(agentId);
    this.buried(r);
    this.changed({ agentIds: [agentId], structural: true });
    return true;
  }

  /** Removes finished runs; returns how many went. */
  clearFinished(): number {
    const finished = [...this.runs.values()].filter(isFinishedRun);
    const gone = finished.map((r) => r.agentId);
    for (const r of finished) {
      this.runs.delete(r.agentId);
      this.buried(r);
    }
    if (gone.length > 0) {
      this.changed({ agentIds: gone, structural: true });
    }
    return gone.length;
  }

  /**
   * Takes in what other windows wrote to the shared store: runs they added, newer reads of runs
   * both know, and runs they removed. Fires `onDidChange` when anything changed here. (Every
   * write merges first too, so no window's save drops another window's runs.)
   */
  syncFromStore(): boolean {
    const change = this.mergeStored();
    if (change) {
      this.changeEmitter.fire(change);
    }
    return change !== undefined;
  }

  /** Resolves once every change so far has been written to the store. */
  flush(): Promise<void> {
    return this.saving;
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }

  private changed(change: LedgerChange): void {
    this.persist();
    this.changeEmitter.fire(change);
  }

  private persist(): void {
    const merged = this.mergeStored();
    const snapshot: StoredLedger = { version: 1, runs: [...this.runs.values()], removed: Object.fromEntries(this.removed) };
    this.lastStored = snapshot;
    // Writes are chained so a slow write can never land after a newer one.
    this.saving = this.saving
      .then(() => this.store.update(storageKeyFor(this.baseUrl), snapshot))
      .then(undefined, (err: unknown) => this.warn(`Could not save the run list: ${err instanceof Error ? err.message : String(err)}`, { kind: 'save' }));
    if (merged) {
      this.changeEmitter.fire(merged);
    }
  }

  /** A run this window removed: not to come back from a stored copy that still has it. */
  private buried(r: RunRecord): void {
    this.tombstone(r.agentId, Math.max(Date.now(), r.addedAt));
  }

  private tombstone(agentId: string, at: number): void {
    this.removed.delete(agentId);
    this.removed.set(agentId, at);
    for (const id of this.removed.keys()) {
      if (this.removed.size <= MAX_REMOVED) {
        break;
      }
      this.removed.delete(id);
    }
  }

  /** Folds the stored list (possibly written by another window) into this one; no event, no write. */
  private mergeStored(): LedgerChange | undefined {
    let raw: unknown;
    try {
      raw = this.store.get<unknown>(storageKeyFor(this.baseUrl));
    } catch {
      return undefined;
    }
    if (raw === this.lastStored || !isRecord(raw) || raw.version !== 1 || !Array.isArray(raw.runs)) {
      return undefined;
    }
    this.lastStored = raw;
    const ids = new Set<string>();
    let structural = false;
    if (isRecord(raw.removed)) {
      for (const [id, at] of Object.entries(raw.removed)) {
        if (typeof at === 'number' && Number.isFinite(at) && at > (this.removed.get(id) ?? -Infinity)) {
          this.tombstone(id, at);
          const mine = this.runs.get(id);
          // Removed there after it was added here.
          if (mine && at >= mine.addedAt) {
            this.runs.delete(id);
            ids.add(id);
            structural = true;
          }
        }
      }
    }
    for (const item of raw.runs as unknown[]) {
      const theirs = reviveRecord(item);
      if (!theirs) {
        continue;
      }
      const gone = this.removed.get(theirs.agentId);
      if (gone !== undefined && gone >= theirs.addedAt) {
        continue;
      }
      const mine = this.runs.get(theirs.agentId);
      if (!mine) {
        this.runs.set(theirs.agentId, theirs);
        ids.add(theirs.agentId);
        structural = true;
      } else if (freshness(theirs) > freshness(mine)) {
        this.runs.set(theirs.agentId, withNotice(theirs, mine.finishNotifiedFor));
        ids.add(theirs.agentId);
      } else if ((theirs.finishNotifiedFor ?? -Infinity) > (mine.finishNotifiedFor ?? -Infinity)) {
        // Older in all else, but that window announced a completion this one has not.
        this.runs.set(mine.agentId, { ...mine, finishNotifiedFor: theirs.finishNotifiedFor });
      }
    }
    if (ids.size === 0) {
      return undefined;
    }
    this.trim();
    return { agentIds: [...ids], structural };
  }

  private trim(): void {
    if (this.runs.size <= MAX_RUNS) {
      return;
    }
    // Oldest finished runs go first, then runs halted in a status the reference does not list
    // (they may never end: they must not hold the cap); queued and running runs never go.
    const oldestFirst = this.all().reverse();
    for (const r of [...oldestFirst.filter(isFinishedRun), ...oldestFirst.filter((x) => !isFinishedRun(x) && x.pendingFollowUpAt === undefined && isDormant(x))]) {
      if (this.runs.size <= MAX_RUNS) {
        break;
      }
      this.runs.delete(r.agentId);
      this.buried(r);
    }
  }

  private load(): void {
    let raw: unknown;
    try {
      raw = this.store.get<unknown>(storageKeyFor(this.baseUrl));
    } catch {
      raw = { corrupt: true };
    }
    if (raw === undefined) {
      return;
    }
    const runs = isRecord(raw) && raw.version === 1 && Array.isArray(raw.runs) ? raw.runs : undefined;
    if (!runs) {
      this.warn('The saved run list was unreadable and has been reset.', { kind: 'reset' });
      void this.store.update(storageKeyFor(this.baseUrl), { version: 1, runs: [] } satisfies StoredLedger);
      return;
    }
    this.lastStored = raw;
    const removed = isRecord(raw) ? raw.removed : undefined;
    if (isRecord(removed)) {
      for (const [id, at] of Object.entries(removed)) {
        if (typeof at === 'number' && Number.isFinite(at)) {
          this.removed.set(id, at);
        }
      }
    }
    let dropped = 0;
    for (const item of runs) {
      const r = reviveRecord(item);
      if (r) {
        this.runs.set(r.agentId, r);
      } else {
        dropped++;
      }
    }
    if (dropped > 0) {
      this.warn(`${dropped} unreadable entr${dropped === 1 ? 'y was' : 'ies were'} dropped from the saved run list.`, { kind: 'dropped', count: dropped });
    }
  }
}

/** `r` keeping the later of its own and `other`'s finish-notice mark. */
function withNotice(r: RunRecord, other: number | undefined): RunRecord {
  return other !== undefined && other > (r.finishNotifiedFor ?? -Infinity) ? { ...r, finishNotifiedFor: other } : r;
}
