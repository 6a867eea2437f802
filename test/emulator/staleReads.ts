/**
 * Stale reads, as deployed services serve them (settings `staleReadMs`, `staleReadEvery` and
 * `staleStatusAfterFollowUpMs`; all off in `reference`). Both habits are built from what the
 * emulator really stored and when, never from canned answers:
 *
 * - A lagging replica. `GET /agents/{id}` may be answered from a copy of the run as it was
 *   `staleReadMs` ago: every read, or only every `staleReadEvery`-th one when a load balancer
 *   spreads reads over the primary and the replica (so two consecutive reads can go back in
 *   time). Every write to a run is kept as a version of its "row" (status, timestamps,
 *   lifecycle, permissions, and how many messages its history held); a lagging read serves
 *   the newest version at least `staleReadMs` old. A run younger than that is served as it
 *   was created (a replica that answers 404 for a new run is another habit, not modelled).
 * - A status that lags a follow-up, seen on an independent implementation of the service: it
 *   stores a follow-up's prompt in the history the moment it accepts it, but updates the run
 *   itself only when a worker picks the turn up. For `staleStatusAfterFollowUpMs` after a
 *   follow-up re-opens a finished run, reads hold the new prompt yet still carry the previous
 *   turn's completion (status, completedAt, lastError, updatedAt, lifecycle with
 *   queuedTurnCount 0) and no message after the prompt; afterwards they are truthful.
 *
 * POST answers, webhook payloads and the admin view always come from the primary.
 */
import type { AgentRecord, Lifecycle, Settings } from './domain';

/** What a lagging copy of a run can be behind on: everything a write to the run changes. */
export interface RunRow {
  status: string;
  updatedAt: number;
  completedAt?: number;
  lastError?: string;
  lifecycle: Lifecycle;
  permission: string;
  permittedBranches: string[];
  /** The history is served as its first `historyLength` messages: histories only grow. */
  historyLength: number;
}

/** The run as the primary holds it now. */
export function rowOf(record: AgentRecord): RunRow {
  const row: RunRow = {
    status: record.status,
    updatedAt: record.updatedAt,
    lifecycle: { ...record.lifecycle },
    permission: record.permission,
    permittedBranches: [...record.permittedBranches],
    historyLength: record.history.length,
  };
  if (record.completedAt !== undefined) row.completedAt = record.completedAt;
  if (record.lastError !== undefined) row.lastError = record.lastError;
  return row;
}

interface Version {
  /** Emulator time of the write. */
  at: number;
  row: RunRow;
  /** The row as JSON, to skip writes that changed nothing a read shows. */
  key: string;
}

/** A follow-up accepted on a finished run, while its run row still says finished. */
interface FollowUpLag {
  /** Reads from this emulator time on are truthful again. */
  until: number;
  /** The row just before the follow-up: the previous turn's completion. */
  previous: RunRow;
  /** Messages up to and including the follow-up's prompt. */
  historyLength: number;
}

export class StaleReads {
  private readonly versions = new Map<string, Version[]>();
  private readonly lags = new Map<string, FollowUpLag>();
  /** Reads served so far, across runs: the load balancer's round robin. */
  private reads = 0;

  constructor(
    private readonly settings: Settings,
    private readonly now: () => number,
  ) {}

  reset(): void {
    this.versions.clear();
    this.lags.clear();
    this.reads = 0;
  }

  /**
   * Keeps the run's row after a write, for a replica that lags. Several writes at one instant
   * are one version: a copy taken at that instant would see only the last.
   */
  written(record: AgentRecord): void {
    const now = this.now();
    const row = rowOf(record);
    const key = JSON.stringify(row);
    const list = this.versions.get(record.agentId) ?? [];
    const last = list.at(-1);
    if (last?.key === key) return;
    if (last !== undefined && last.at === now) list[list.length - 1] = { at: now, row, key };
    else list.push({ at: now, row, key });
    this.versions.set(record.agentId, list);
    this.prune(list, now);
  }

  /** Whether a follow-up's prompt is stored when it is accepted, not when its turn starts (the implementation with the lag does so). */
  storesPromptOnAcceptance(): boolean {
    return this.settings.staleStatusAfterFollowUpMs !== null;
  }

  /** A follow-up re-opened a finished (or halted) run whose row was `previous`; its prompt is already stored. */
  followUpAccepted(record: AgentRecord, previous: RunRow): void {
    const ms = this.settings.staleStatusAfterFollowUpMs;
    if (ms === null) return;
    this.lags.set(record.agentId, { until: this.now() + ms, previous, historyLength: record.history.length });
  }

  /** The row one `GET /agents/{id}` serves now (counts as one read for the round robin). */
  read(record: AgentRecord): RunRow {
    this.reads += 1;
    const now = this.now();
    const lagMs = this.settings.staleReadMs;
    const fromReplica = lagMs !== null && this.reads % this.settings.staleReadEvery === 0;
    let row = fromReplica ? this.asOf(record, now - lagMs) : rowOf(record);
    const lag = this.lags.get(record.agentId);
    if (lag !== undefined && now >= lag.until) this.lags.delete(record.agentId);
    else if (lag !== undefined) {
      // The run row has not moved yet; the messages have, up to the prompt (a lagging replica may be further behind).
      row = { ...structuredClone(lag.previous), historyLength: Math.min(row.historyLength, lag.historyLength) };
    }
    return row;
  }

  /** The newest version written at or before `at`; the first one for a run younger than that. */
  private asOf(record: AgentRecord, at: number): RunRow {
    const list = this.versions.get(record.agentId);
    if (list === undefined || list.length === 0) return rowOf(record);
    let found = list[0];
    for (const version of list) {
      if (version.at > at) break;
      found = version;
    }
    return structuredClone(found.row);
  }

  /**
   * Drops versions no lagging read can be served any more: all but the newest one older than
   * the lag. With the lag off only the latest is kept, so a replica turned on later starts
   * lagging from then on.
   */
  private prune(list: Version[], now: number): void {
    const lagMs = this.settings.staleReadMs;
    const horizon = lagMs === null ? now : now - lagMs;
    let keepFrom = 0;
    for (let i = 0; i < list.length; i++) {
      if (list[i].at <= horizon) keepFrom = i;
    }
    if (lagMs === null) keepFrom = list.length - 1;
    if (keepFrom > 0) list.splice(0, keepFrom);
  }
}
