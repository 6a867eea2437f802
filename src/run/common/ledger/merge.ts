/** Cross-window merge: one run as two windows sharing the store know it. */
import { freshness, sameValue, type LedgerEntry } from './record';
import { mergeFollowUps } from './runState';

/**
 * One run as two windows know it: what was read from the fresher read, the follow-ups as a set, so a
 * fresher read cannot undo the other window's follow-up. Returns `mine` when nothing of `theirs` is news.
 */
export function mergeRecords(mine: LedgerEntry, theirs: LedgerEntry): LedgerEntry {
  const theirsFresher = (theirs.updatedAt !== undefined && mine.updatedAt !== undefined && theirs.updatedAt !== mine.updatedAt)
    ? theirs.updatedAt > mine.updatedAt
    : freshness(theirs) > freshness(mine);
  const base = theirsFresher ? theirs : mine;
  const other = theirsFresher ? mine : theirs;
  const acts = mergeFollowUps(base.acts, other.acts);
  const notice = Math.max(base.finishNotifiedFor ?? -Infinity, other.finishNotifiedFor ?? -Infinity);
  const sequence = Math.max(base.lastSequence ?? -Infinity, other.lastSequence ?? -Infinity);
  const merged: LedgerEntry = { ...base };
  if (acts !== undefined) merged.acts = acts;
  if (Number.isFinite(notice)) merged.finishNotifiedFor = notice;
  if (Number.isFinite(sequence)) merged.lastSequence = sequence;
  if (base === mine && sameRecord(mine, merged)) {
    return mine;
  }
  return merged;
}

function sameRecord(a: LedgerEntry, b: LedgerEntry): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)] as (keyof LedgerEntry)[]);
  for (const k of keys) {
    if (k === 'acts') {
      if (JSON.stringify(a.acts ?? []) !== JSON.stringify(b.acts ?? [])) return false;
    } else if (!sameValue(a[k], b[k])) {
      return false;
    }
  }
  return true;
}
