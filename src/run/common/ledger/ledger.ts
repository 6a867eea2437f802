/**
 * The run ledger: the service has no list endpoint, so the extension keeps the runs it started or tracks,
 * per base URL, across reloads; every surface reads it and hears `onDidChange` name the runs that changed.
 */
import { Emitter, type Event } from '../../../base/common/events';
import { isFinished, type Agent } from '../../../api/types';
import type { ApplyResult, FollowUpBaseline, FollowUpRecord, LedgerChange, LedgerProblem } from './ledgerTypes';
import { mergeRecords } from './merge';
import { observeAgent } from './observe';
import { OwnFollowUps } from './ownFollowUps';
import { runTime, sameValue, stripUndefined, type KeyValueStore, type LedgerEntry } from './record';
import { actId, bound, followUpAct, isFinishedRun, runState } from './runState';
import { parseStored, storageKeyFor, type StoredLedger } from './stored';

export type { ApplyResult, FollowUpBaseline, FollowUpRecord, LedgerChange, LedgerProblem } from './ledgerTypes';
export { mergeRecords } from './merge';
export { reviveRecord, runTime, type KeyValueStore, type LaunchPrefill, type LedgerEntry, type RunSource } from './record';
export { isFinishedRun, runState, type Run } from './runState';
export { ownFollowUpsKeyFor, storageKeyFor } from './stored';

const MAX_RUNS = 500;
const MAX_REMOVED = 500;

function baseline(r: LedgerEntry): FollowUpBaseline {
  const b: FollowUpBaseline = {};
  if (isFinished(r) && r.completedAt !== undefined) b.completedAt = r.completedAt;
  if (r.lastSequence !== undefined) b.lastSequence = r.lastSequence;
  if (r.updatedAt !== undefined) b.updatedAt = r.updatedAt;
  return b;
}

export class RunLedger {
  private readonly runs = new Map<string, LedgerEntry>();
  private readonly changeEmitter = new Emitter<LedgerChange>();
  readonly onDidChange: Event<LedgerChange> = this.changeEmitter.event;
  private saving: Promise<void> = Promise.resolve();
  /** Tombstones: runs removed here or in another window, and when (oldest first). */
  private readonly removed = new Map<string, number>();
  /** The stored value last merged or written: the same object means nothing new to merge. */
  private lastStored: unknown;
  /** This window's open follow-ups, when it has its own storage (see OwnFollowUps). */
  private readonly ownFollowUps: OwnFollowUps | undefined;

  /**
   * @param warn called once when stored state was unusable and had to be reset or trimmed.
   * @param own this window's workspaceState, for its own follow-ups (see OwnFollowUps).
   */
  constructor(
    private readonly store: KeyValueStore,
    readonly baseUrl: string,
    private readonly warn: (message: string, problem: LedgerProblem) => void = () => undefined,
    own?: KeyValueStore,
  ) {
    this.ownFollowUps = own ? new OwnFollowUps(own, baseUrl) : undefined;
    this.load();
    this.ownFollowUps?.load(this.runs);
  }

  all(): LedgerEntry[] {
    return [...this.runs.values()].sort((a, b) => runTime(b) - runTime(a));
  }

  get(agentId: string): LedgerEntry | undefined {
    return this.runs.get(agentId);
  }

  has(agentId: string): boolean {
    return this.runs.has(agentId);
  }

  /** Runs not yet finished: the only ones anything should poll. */
  active(): LedgerEntry[] {
    return this.all().filter((r) => !isFinishedRun(r));
  }

  /** Adds a run, or merges the given fields into the one already there. */
  upsert(record: Omit<LedgerEntry, 'unread' | 'addedAt'> & Partial<Pick<LedgerEntry, 'unread' | 'addedAt'>>, now = Date.now()): LedgerEntry {
    const existing = this.runs.get(record.agentId);
    const next: LedgerEntry = existing
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
    const base: LedgerEntry = existing ?? { agentId: agent.agentId, source: 'tracked', addedAt: now, status: 'queued', unread: false };
    const previousStatus = runState(base).status;
    const { fields: observed, outOfOrder } = observeAgent(base, agent, now);
    const next: LedgerEntry = { ...base, ...observed, lastCheckedAt: now, pollError: undefined };
    if (!outOfOrder && agent.status !== undefined && agent.completedAt === undefined) {
      // A run that is going again (after a follow-up) has no completion: the last turn's is not kept.
      delete next.completedAt;
    }
    const changed = !existing || (Object.keys(next) as (keyof LedgerEntry)[]).some((k) => k !== 'lastCheckedAt' && k !== 'pollError' && !sameValue(base[k], next[k]))
      || (base.completedAt !== undefined && next.completedAt === undefined);
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
    const status = runState(next).status;
    const wasUnread = existing?.unread === true && options.viewing === true;
    if (changed || existing?.pollError !== undefined || wasUnread) {
      this.changed({ agentIds: [next.agentId], structural: !existing });
    }
    return {
      changed,
      previousStatus,
      statusChanged: previousStatus !== status,
      becameFinished: !isFinishedRun(base) && isFinishedRun(next),
    };
  }

  /**
   * A follow-up the service acknowledged: an act of the person that every read must prove
   * before the run counts as finished again (runState.ts). Returns false when the run is not
   * in the list.
   */
  recordFollowUp(agentId: string, f: FollowUpRecord, now = Date.now()): boolean {
    const r = this.runs.get(agentId);
    if (!r) {
      return false;
    }
    const act = followUpAct(actId(now), f.prompt, f.ackStatus, f.before ?? baseline(r), now, f.arrivedSeq);
    this.ownFollowUps?.add(act.id);
    const next: LedgerEntry = { ...r, acts: bound([...(r.acts ?? []), act]) };
    if (f.permission) {
      next.permission = f.permission;
    }
    if (f.permittedBranches) {
      next.permittedBranches = f.permittedBranches;
    }
    this.runs.set(agentId, next);
    this.changed({ agentIds: [agentId], structural: false });
    return true;
  }

  /** The run's facts a follow-up sent now must move past (see FollowUpRecord.before). */
  followUpBaseline(agentId: string): FollowUpBaseline | undefined {
    const r = this.runs.get(agentId);
    return r ? baseline(r) : undefined;
  }

  /**
   * Whether this window should announce that the run finished: true once per completion across
   * all windows sharing the store (the mark is stored with the run and merged like a tombstone,
   * newest wins). Reads the store first, so another window's mark is seen.
   */
  claimFinishNotice(agentId: string, now = Date.now()): boolean {
    this.syncFromStore();
    const r = this.runs.get(agentId);
    const state = r ? runState(r) : undefined;
    if (!r || !state?.finished) {
      return false;
    }
    const mark = state.completedAt ?? r.updatedAt ?? now;
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
    this.ownFollowUps?.persist(this.runs.values());
    if (merged) {
      this.changeEmitter.fire(merged);
    }
  }

  /** A run this window removed: not to come back from a stored copy that still has it. */
  private buried(r: LedgerEntry): void {
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
    const stored = raw === this.lastStored ? undefined : parseStored(raw);
    if (!stored) {
      return undefined;
    }
    this.lastStored = raw;
    const ids = new Set<string>();
    let structural = false;
    for (const [id, at] of stored.removed) {
      if (at > (this.removed.get(id) ?? -Infinity)) {
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
    for (const theirs of stored.runs) {
      const gone = this.removed.get(theirs.agentId);
      if (gone !== undefined && gone >= theirs.addedAt) {
        continue;
      }
      const mine = this.runs.get(theirs.agentId);
      if (!mine) {
        this.runs.set(theirs.agentId, theirs);
        ids.add(theirs.agentId);
        structural = true;
      } else {
        const merged = mergeRecords(mine, theirs);
        if (merged !== mine) {
          this.runs.set(mine.agentId, merged);
          ids.add(mine.agentId);
        }
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
    for (const r of [...oldestFirst.filter(isFinishedRun), ...oldestFirst.filter((x) => runState(x).dormant)]) {
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
    const stored = parseStored(raw);
    if (!stored) {
      this.warn('The saved run list was unreadable and has been reset.', { kind: 'reset' });
      void this.store.update(storageKeyFor(this.baseUrl), { version: 1, runs: [] } satisfies StoredLedger);
      return;
    }
    this.lastStored = raw;
    for (const [id, at] of stored.removed) {
      this.removed.set(id, at);
    }
    for (const r of stored.runs) {
      this.runs.set(r.agentId, r);
    }
    const { dropped } = stored;
    if (dropped > 0) {
      this.warn(`${dropped} unreadable entr${dropped === 1 ? 'y was' : 'ies were'} dropped from the saved run list.`, { kind: 'dropped', count: dropped });
    }
  }
}
