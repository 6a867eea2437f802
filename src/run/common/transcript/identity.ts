/**
 * Which message of a transcript a polled one is: by `id`, else `sequence`, else a hash of its fields.
 * One `id` may name two messages at two sequences (the second is `id:<id>@<sequence>`); a known id at
 * another sequence is the same message moved only when the read covers its old place without it. Pure.
 */
import type { AgentMessage } from '../../../api/types';
import type { MutableEntry } from './entry';
import { contentHash } from './message';

/** What one read says about the ids it returns, for telling a moved message from a second one. */
export interface ReadIds {
  /** Sequences returned per id. */
  readonly byId: ReadonlyMap<string, ReadonlySet<number | undefined>>;
  /** The read's lowest safe-integer sequence. */
  readonly oldest: number | undefined;
}

export function readIds(messages: readonly AgentMessage[]): ReadIds {
  const byId = new Map<string, Set<number | undefined>>();
  let oldest: number | undefined;
  for (const m of messages) {
    if (m.id !== undefined) {
      let set = byId.get(m.id);
      if (!set) {
        set = new Set();
        byId.set(m.id, set);
      }
      set.add(m.sequence);
    }
    const s = m.sequence;
    if (s !== undefined && Number.isSafeInteger(s)) {
      oldest = Math.min(oldest ?? s, s);
    }
  }
  return { byId, oldest };
}

export class Identities {
  readonly byKey = new Map<string, MutableEntry>();
  private readonly byId = new Map<string, MutableEntry[]>();
  private readonly bySeq = new Map<number, MutableEntry>();

  /** The known entry `m` is a copy of, or undefined for a message not seen before. */
  find(m: AgentMessage, read: ReadIds, occurrences: Map<string, number>): MutableEntry | undefined {
    if (m.id !== undefined) {
      const same = this.byId.get(m.id);
      const hit = same && sameIdEntry(same, m, read);
      if (hit) {
        return hit;
      }
    }
    if (m.sequence !== undefined) {
      const bySeq = this.bySeq.get(m.sequence);
      // Same sequence but two different ids: two messages, not one. Without an id on either
      // side, the same message (one that gains an id later keeps its first key).
      if (bySeq && (bySeq.message.id === undefined || m.id === undefined || bySeq.message.id === m.id)) {
        return bySeq;
      }
      return undefined;
    }
    if (m.id !== undefined) {
      return undefined;
    }
    const h = contentHash(m);
    const n = occurrences.get(h) ?? 0;
    occurrences.set(h, n + 1);
    return this.byKey.get(n === 0 ? `hash:${h}` : `hash:${h}:${n}`);
  }

  /** A key for a message find() did not know; `preferred` (a saved one) when it is free. */
  newKey(m: AgentMessage, occurrences: Map<string, number>, arrival: number, preferred?: string): string {
    let key: string;
    if (preferred !== undefined && !this.byKey.has(preferred)) {
      key = preferred;
    } else if (m.id !== undefined) {
      key = this.byId.has(m.id) ? `id:${m.id}@${m.sequence ?? arrival}` : `id:${m.id}`;
    } else if (m.sequence !== undefined) {
      key = `seq:${m.sequence}`;
    } else {
      // find() already counted this occurrence.
      const h = contentHash(m);
      const n = (occurrences.get(h) ?? 1) - 1;
      key = n === 0 ? `hash:${h}` : `hash:${h}:${n}`;
    }
    // Only possible for pathological ids such as one message's id equal to another's generated
    // key text; keep both rather than overwrite.
    return this.byKey.has(key) ? `${key}~${arrival}` : key;
  }

  index(e: MutableEntry): void {
    this.byKey.set(e.key, e);
    const id = e.message.id;
    if (id !== undefined) {
      const list = this.byId.get(id);
      if (!list) {
        this.byId.set(id, [e]);
      } else if (!list.includes(e)) {
        list.push(e);
      }
    }
    const s = e.message.sequence;
    if (s !== undefined && !this.bySeq.has(s)) {
      this.bySeq.set(s, e);
    }
  }

  /** Out of the id and sequence indexes (a replaced message is indexed again). */
  unindex(e: MutableEntry): void {
    const id = e.message.id;
    const list = id === undefined ? undefined : this.byId.get(id);
    if (id !== undefined && list) {
      const rest = list.filter((x) => x !== e);
      if (rest.length === 0) {
        this.byId.delete(id);
      } else {
        this.byId.set(id, rest);
      }
    }
    const s = e.message.sequence;
    if (s !== undefined && this.bySeq.get(s) === e) {
      this.bySeq.delete(s);
    }
  }

  /** Gone for good (evicted). */
  remove(e: MutableEntry): void {
    this.unindex(e);
    this.byKey.delete(e.key);
  }
}

/** Which of the entries under `m`'s id it is, if any (see the file comment). */
function sameIdEntry(same: readonly MutableEntry[], m: AgentMessage, read: ReadIds): MutableEntry | undefined {
  const s = m.sequence;
  const exact = same.find((e) => e.message.sequence === s);
  if (exact) {
    return exact;
  }
  // Gaining or losing a sequence: the same message.
  const unnumbered = same.find((e) => e.message.sequence === undefined);
  if (s === undefined || unnumbered) {
    return unnumbered ?? same[0];
  }
  if (same.length === 1) {
    const old = same[0].message.sequence;
    const returned = read.byId.get(m.id ?? '')?.has(old) ?? false;
    if (old !== undefined && !returned && read.oldest !== undefined && read.oldest <= old) {
      return same[0];
    }
  }
  return undefined;
}
