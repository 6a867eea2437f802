/**
 * The run list as stored (shared by every window on the same base URL), its keys, and reading
 * it back: pure, so that loading and merging another window's copy read it the same way.
 */
import { isRecord, reviveRecord, type LedgerEntry } from './record';

export interface StoredLedger {
  version: 1;
  runs: LedgerEntry[];
  /** Runs removed from the list (agentId → when), so that another window's copy does not bring them back. */
  removed?: Record<string, number>;
}

const STORAGE_PREFIX = 'agentRuns.ledger.v1:';

/** This window's own follow-ups until their turns end (ownFollowUps.ts); the key keeps its first name so saved ones are found. */
export function ownFollowUpsKeyFor(baseUrl: string): string {
  return `agentRuns.ownActs.v1:${baseUrl}`;
}

export function storageKeyFor(baseUrl: string): string {
  return STORAGE_PREFIX + baseUrl;
}

/** A stored list, read. */
export interface ParsedLedger {
  /** The entries that were readable runs, in stored order. */
  runs: LedgerEntry[];
  /** How many entries were not readable runs. */
  dropped: number;
  /** The readable tombstones (agentId, when), in stored order. */
  removed: [string, number][];
}

/** Reads a stored list; undefined when the value is not one (not a version-1 object with a runs array). */
export function parseStored(raw: unknown): ParsedLedger | undefined {
  if (!isRecord(raw) || raw.version !== 1 || !Array.isArray(raw.runs)) {
    return undefined;
  }
  const removed: [string, number][] = [];
  if (isRecord(raw.removed)) {
    for (const [id, at] of Object.entries(raw.removed)) {
      if (typeof at === 'number' && Number.isFinite(at)) {
        removed.push([id, at]);
      }
    }
  }
  const runs: LedgerEntry[] = [];
  let dropped = 0;
  for (const item of raw.runs as unknown[]) {
    const r = reviveRecord(item);
    if (r) {
      runs.push(r);
    } else {
      dropped++;
    }
  }
  return { runs, dropped, removed };
}
