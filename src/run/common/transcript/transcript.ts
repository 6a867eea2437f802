/**
 * The per-run transcript cache: merges each polled `history` so the panel posts only what changed and
 * keeps messages the service stopped returning; a message that gains an id keeps its first key, so its
 * element is replaced, not duplicated. Bounded: what was evicted is not taken in again (no churn). Pure.
 */
import { safeSequences, sequenceCeiling } from '../../../api/sequence';
import type { AgentMessage } from '../../../api/types';
import { freeze, type MutableEntry, type TranscriptEntry } from './entry';
import { Identities, readIds } from './identity';
import { normalizeMessage, sameMessage, sizeOf } from './message';
import { compareOrder, type OrderFields } from './order';
import {
  DEFAULT_MAX_MESSAGES, DEFAULT_MAX_TOTAL_CHARS, type MergeResult, type TranscriptChanges, type TranscriptOptions, type TranscriptSnapshot,
} from './transcriptTypes';

export type { TranscriptEntry } from './entry';
export { DEFAULT_MAX_MESSAGES, DEFAULT_MAX_TOTAL_CHARS } from './transcriptTypes';
export type { MergeResult, TranscriptChanges, TranscriptOptions, TranscriptSnapshot } from './transcriptTypes';

const MAX_EVICTION_LOG = 20_000;

/** The first sequence number the service is assumed to use (0 or 1 are both accepted). */
const FIRST_SEQUENCES = 1;
/** Gaps are an estimate; beyond this it says nothing more and must stay a safe integer. */
const MAX_MISSING_ESTIMATE = 1_000_000_000;

export class Transcript {
  private readonly maxMessages: number;
  private readonly maxTotalChars: number;
  /** Sorted by compareOrder. */
  private list: MutableEntry[] = [];
  private readonly ids = new Identities();
  private nextArrival = 0;
  private totalChars = 0;
  private dropped = 0;
  /** Position of the newest evicted entry; nothing at or before it is taken in again. */
  private evictedUpTo: OrderFields | undefined;
  private earlierUnavailable = false;
  private missing = 0;
  private rev = 0;
  /** Lowest and highest believed integer sequences ever taken in (evicted ones included). */
  private minSequenceSeen: number | undefined;
  private highWater: number | undefined;
  /** Recent evictions with their revisions (bounded), for changesSince(). */
  private evictionLog: { rev: number; key: string }[] = [];
  /** changesSince() is complete only for revisions at or after this one. */
  private evictionLogFloor = 0;

  constructor(options: TranscriptOptions = {}) {
    this.maxMessages = Math.max(1, options.maxMessages ?? DEFAULT_MAX_MESSAGES);
    this.maxTotalChars = Math.max(1, options.maxTotalChars ?? DEFAULT_MAX_TOTAL_CHARS);
  }

  get size(): number {
    return this.list.length;
  }

  /**
   * Grows with every added, changed or evicted message. Several views (or a persisting cache
   * and a panel) can share one transcript: each remembers the revision it has shown and asks
   * `changesSince`, so it does not matter who merged.
   */
  get revision(): number {
    return this.rev;
  }

  changesSince(revision: number): TranscriptChanges {
    const entries = revision >= this.rev ? [] : this.list.filter((e) => e.rev > revision).map(freeze);
    const evicted = this.evictionLog.filter((x) => x.rev > revision).map((x) => x.key);
    return { entries, evicted, revision: this.rev, complete: revision >= this.evictionLogFloor };
  }

  get(key: string): TranscriptEntry | undefined {
    return this.ids.byKey.get(key);
  }

  /** The key of the entry holding this message (the same identity), if any. */
  keyOf(m: AgentMessage): string | undefined {
    return this.ids.find(m, readIds([m]), new Map())?.key;
  }

  /** The last message in transcript order. */
  last(): TranscriptEntry | undefined {
    const e = this.list[this.list.length - 1];
    return e ? freeze(e) : undefined;
  }

  /** The gap/eviction figures without copying the entries. */
  snapshotInfo(): Omit<TranscriptSnapshot, 'entries'> {
    return {
      earlierMessagesUnavailable: this.earlierUnavailable,
      missingMessageCount: this.missing,
      droppedMessageCount: this.dropped,
    };
  }

  snapshot(): TranscriptSnapshot {
    return {
      entries: this.list.map(freeze),
      earlierMessagesUnavailable: this.earlierUnavailable,
      missingMessageCount: this.missing,
      droppedMessageCount: this.dropped,
    };
  }

  /**
   * Messages known to be gone from the local copy though never evicted here (a saved transcript
   * pruned to stay under the disk limit): counted and shown like evicted ones.
   */
  noteDropped(count: number): void {
    if (count > 0) {
      this.dropped += count;
      this.rev++;
    }
  }

  /**
   * Messages of the saved transcript older than memory keeps, left unread (a long journal read
   * backwards): counted as dropped; `lowest`, the lowest sequence among them, means no gap is
   * claimed before what was read.
   */
  noteUnread(count: number, lowest: number | undefined): void {
    this.noteDropped(count);
    if (lowest !== undefined && Number.isSafeInteger(lowest) && lowest < (this.minSequenceSeen ?? Number.POSITIVE_INFINITY)) {
      this.minSequenceSeen = lowest;
    }
    this.computeGaps();
  }

  /**
   * Merges one polled `history` (any order, maybe partial, malformed items skipped); never removes a message
   * the service stopped returning. `keys`: a journal's, kept when free, so two messages under one id keep theirs.
   */
  merge(history: readonly unknown[] | undefined, keys?: readonly string[]): MergeResult {
    const added: MutableEntry[] = [];
    const addedSet = new Set<MutableEntry>();
    const changed = new Set<MutableEntry>();
    const occurrences = new Map<string, number>();
    let needsSort = false;
    const messages: AgentMessage[] = [];
    const savedKeys: (string | undefined)[] = [];
    (history ?? []).forEach((raw, i) => {
      const m = normalizeMessage(raw);
      if (m) {
        messages.push(m);
        savedKeys.push(keys?.[i]);
      }
    });
    // A sequence no run could reach (e.g. 2^53−1 among 1…29) is not believed: kept where it arrived, it sizes no gap.
    const ceiling = sequenceCeiling(safeSequences(messages), this.highWater);
    const read = readIds(messages);

    for (const [i, m] of messages.entries()) {
      const existing = this.ids.find(m, read, occurrences);
      if (existing === undefined) {
        const got = this.add(m, occurrences, ceiling, savedKeys[i]);
        if (got) {
          added.push(got.entry);
          addedSet.add(got.entry);
          needsSort ||= got.outOfOrder;
        }
      } else if (!sameMessage(existing.message, m)) {
        needsSort = this.replace(existing, m, ceiling) || needsSort;
        if (!addedSet.has(existing)) {
          changed.add(existing);
        }
      }
    }

    if (needsSort) {
      this.list.sort(compareOrder);
    }

    const evicted = this.evict();
    const evictedSet = new Set(evicted);
    const before = [this.earlierUnavailable, this.missing];
    for (const e of this.computeGaps()) {
      if (!addedSet.has(e) && !evictedSet.has(e.key)) {
        changed.add(e);
      }
    }

    const byOrder = (a: MutableEntry, b: MutableEntry) => compareOrder(a, b);
    return {
      added: added.filter((e) => !evictedSet.has(e.key)).sort(byOrder).map(freeze),
      changed: [...changed].filter((e) => !evictedSet.has(e.key)).sort(byOrder).map(freeze),
      evicted,
      gapsChanged: before[0] !== this.earlierUnavailable || before[1] !== this.missing,
      earlierMessagesUnavailable: this.earlierUnavailable,
      missingMessageCount: this.missing,
      droppedMessageCount: this.dropped,
    };
  }

  /** A message not seen before, appended (the caller sorts when it came out of order); undefined when it was evicted before. */
  private add(m: AgentMessage, occurrences: Map<string, number>, ceiling: number, savedKey: string | undefined): { entry: MutableEntry; outOfOrder: boolean } | undefined {
    const entry: MutableEntry = { key: '', arrival: this.nextArrival, rev: 0, message: m, sequence: m.sequence, createdAt: m.createdAt, size: sizeOf(m) };
    this.place(entry, ceiling);
    if (this.isEvictedPosition(entry)) {
      return undefined;
    }
    entry.key = this.ids.newKey(m, occurrences, entry.arrival, savedKey);
    this.nextArrival++;
    entry.rev = ++this.rev;
    this.ids.index(entry);
    this.totalChars += entry.size;
    const last = this.list[this.list.length - 1];
    this.list.push(entry);
    return { entry, outOfOrder: last !== undefined && compareOrder(last, entry) > 0 };
  }

  /** A known message that the service now returns changed; true when its place in the order moved. */
  private replace(existing: MutableEntry, m: AgentMessage, ceiling: number): boolean {
    const oldOrder: OrderFields = { sequence: existing.sequence, createdAt: existing.createdAt, arrival: existing.arrival };
    this.totalChars += sizeOf(m) - existing.size;
    this.ids.unindex(existing);
    const unchangedNumber = existing.message.sequence === m.sequence;
    existing.message = m;
    existing.createdAt = m.createdAt;
    existing.size = sizeOf(m);
    existing.rev = ++this.rev;
    if (!(unchangedNumber && existing.implausible)) {
      // An implausible one keeps the place it was given; a new number is judged afresh (an
      // implausible new number keeps the place the message had).
      this.place(existing, ceiling);
    }
    this.ids.index(existing);
    return compareOrder(oldOrder, existing) !== 0;
  }

  /**
   * Sets an entry's order sequence from its message: its own when believable (then noted), else
   * it keeps the place it has, or a new one is placed after the newest believed sequence.
   */
  private place(e: MutableEntry, ceiling: number): void {
    const s = e.message.sequence;
    if (s !== undefined && s > ceiling) {
      if (!e.implausible && e.rev === 0) {
        e.sequence = this.highWater;
      }
      e.implausible = true;
      return;
    }
    e.implausible = undefined;
    e.sequence = s;
    if (s !== undefined && Number.isSafeInteger(s)) {
      this.minSequenceSeen = Math.min(this.minSequenceSeen ?? s, s);
      this.highWater = Math.max(this.highWater ?? s, s);
    }
  }

  /**
   * Whether a message not in the cache sits at or before the newest evicted one (so it was
   * evicted, or is older than what is kept). Arrival is ignored: a re-polled message gets a
   * new arrival number. Without sequence and createdAt there is nothing to compare.
   */
  private isEvictedPosition(e: OrderFields): boolean {
    const w = this.evictedUpTo;
    if (!w || (w.sequence === undefined && w.createdAt === undefined)) {
      return false;
    }
    return compareOrder({ sequence: e.sequence, createdAt: e.createdAt, arrival: 0 }, { sequence: w.sequence, createdAt: w.createdAt, arrival: 0 }) <= 0;
  }

  private evict(): string[] {
    let n = 0;
    let chars = this.totalChars;
    while (this.list.length - n > this.maxMessages || (chars > this.maxTotalChars && this.list.length - n > 1)) {
      chars -= this.list[n].size;
      n++;
    }
    if (n === 0) {
      return [];
    }
    const gone = this.list.slice(0, n);
    this.list = this.list.slice(n);
    for (const e of gone) {
      this.ids.remove(e);
      this.evictionLog.push({ rev: ++this.rev, key: e.key });
    }
    if (this.evictionLog.length > MAX_EVICTION_LOG) {
      const cut = this.evictionLog.length - MAX_EVICTION_LOG;
      this.evictionLogFloor = this.evictionLog[cut - 1].rev;
      this.evictionLog = this.evictionLog.slice(cut);
    }
    this.totalChars = chars;
    this.dropped += n;
    const last = gone[gone.length - 1];
    this.evictedUpTo = { sequence: last.sequence, createdAt: last.createdAt, arrival: last.arrival };
    return gone.map((e) => e.key);
  }

  /**
   * Gaps in the known `sequence` numbers mean the service returned only part of the history
   * (e.g. the recent part) and some messages were never seen here. The count is an estimate:
   * the service does not document that sequences are contiguous.
   */
  private computeGaps(): MutableEntry[] {
    let missing = 0;
    let prev: number | undefined;
    const moved: MutableEntry[] = [];
    // Only safe integers count: a sequence of 1e300 (or -1e300) from a confused service would
    // make an estimate the webview's schema refuses, and the panel would never show.
    let lead = 0;
    if (this.minSequenceSeen !== undefined && Number.isSafeInteger(this.minSequenceSeen) && this.minSequenceSeen > FIRST_SEQUENCES) {
      lead = Math.min(this.minSequenceSeen - FIRST_SEQUENCES, MAX_MISSING_ESTIMATE);
      missing += lead;
    }
    for (const e of this.list) {
      const s = e.sequence;
      if (s === undefined || !Number.isSafeInteger(s) || e.implausible) {
        if (e.gapBefore !== undefined) {
          e.gapBefore = undefined;
          e.rev = ++this.rev;
          moved.push(e);
        }
        continue;
      }
      // Between evicted messages and the first kept one nothing is counted: those were seen.
      let gap: number | undefined;
      if (prev !== undefined && s > prev + 1) {
        gap = Math.min(s - prev - 1, MAX_MISSING_ESTIMATE);
        missing += gap;
      } else if (prev === undefined && this.dropped === 0 && s === this.minSequenceSeen && lead > 0) {
        gap = lead;
      }
      if (e.gapBefore !== gap) {
        // The panel and the exports show the gap at this message, so it counts as a change.
        e.gapBefore = gap;
        e.rev = ++this.rev;
        moved.push(e);
      }
      prev = s;
    }
    this.missing = Math.min(missing, MAX_MISSING_ESTIMATE);
    this.earlierUnavailable = missing > 0;
    return moved;
  }
}
