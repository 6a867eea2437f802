/**
 * The parts of TranscriptFiles that concern one run: reading its journal into memory (with the
 * pre-journal file and the pruned note), telling what the journal lacks, and what an export
 * reads. No `vscode` import.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Transcript, TranscriptStore, sameMessage, type TranscriptSnapshot } from './transcript';
import { appendJournal, appendJournalSync, parseJournal, recordLines, rewriteJournal, type JournalEntry } from './journal';
import { readPruned, type PrunedInfo } from './diskLimit';
import { indexJournal } from './journalStream';
import type { ExportTranscript } from '../panel/export';

/** What one run keeps in memory while shown: far more than any panel needs at once. */
export const IN_MEMORY = { maxMessages: 100_000 };
/** A journal is compacted on read when most of its records are superseded copies. */
const COMPACT_MIN_SUPERSEDED = 500;

export function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function journalName(agentId: string, ext: 'jsonl' | 'json' | 'pruned'): string {
  return `${hash(agentId)}.${ext}`;
}

/** What is known about a run's journal, once read. */
export interface OnDisk {
  /** The transcript's revision up to which every entry is in the journal. */
  written: number;
  /** Keys to append whatever their revision (merged in memory before the journal was read). */
  pending: Set<string>;
  /** False when there is no readable journal yet: the first write writes it whole. */
  valid: boolean;
}

/** A run's transcript as an export reads it: streamed from its journal, or what memory holds. */
export interface ExportSource extends ExportTranscript {
  readonly count: number;
}

/** A TranscriptStore that tells about each transcript it creates and lists what it holds. */
export function trackingStore(onNew: (agentId: string) => void): TranscriptStore & { ids(): string[] } {
  const ids = new Set<string>();
  // The run panel creates transcripts in the store too; they must be dropped like the others.
  return new (class extends TranscriptStore {
    override get(agentId: string): Transcript {
      const fresh = !ids.has(agentId);
      ids.add(agentId);
      const t = super.get(agentId);
      if (fresh) {
        onNew(agentId);
      }
      return t;
    }
    override delete(agentId: string): void {
      ids.delete(agentId);
      super.delete(agentId);
    }
    ids(): string[] {
      return [...ids];
    }
  })(Number.MAX_SAFE_INTEGER, IN_MEMORY);
}

export interface ReadContext {
  tempFor(file: string): string;
  closed(): boolean;
  warn(message: string): void;
}

export interface RunRead {
  readonly entries: readonly JournalEntry[];
  readonly valid: boolean;
  readonly bytes: number;
  /** Time spent parsing (the file read itself excluded), ms. */
  readonly parseMs: number;
  readonly pruned?: PrunedInfo;
}

/** Reads a run's journal (compacting it when most of it is superseded copies). */
export async function readRun(dir: string | undefined, agentId: string, c: ReadContext): Promise<RunRead> {
  if (!dir) {
    return { entries: [], valid: true, bytes: 0, parseMs: 0 };
  }
  const file = path.join(dir, journalName(agentId, 'jsonl'));
  const pruned = await readPruned(dir, hash(agentId), agentId);
  const extra = pruned ? { pruned } : {};
  const buffer = await fs.promises.readFile(file).catch(() => undefined);
  const parsing = performance.now();
  const journal = buffer ? parseJournal(buffer.toString('utf8'), agentId, buffer.length) : undefined;
  const parseMs = performance.now() - parsing;
  if (!journal) {
    // Before journals: one JSON file per run, the newest messages only.
    const legacy = await readLegacy(path.join(dir, journalName(agentId, 'json')), agentId);
    return { entries: legacy, valid: legacy.length === 0, bytes: 0, parseMs, ...extra };
  }
  if (!journal.valid && journal.bytes > 0) {
    c.warn(`A saved transcript was unreadable and is replaced (run ${agentId}).`);
  }
  const superseded = journal.records - journal.entries.length;
  if (journal.valid && superseded >= COMPACT_MIN_SUPERSEDED && superseded > journal.entries.length) {
    await rewriteJournal(file, c.tempFor(file), agentId, journal.entries, journal.bytes, () => c.closed()).catch((e: unknown) =>
      c.warn(`Could not compact a saved transcript (run ${agentId}): ${errorText(e)}`));
  }
  return { entries: journal.entries, valid: journal.valid, bytes: journal.bytes, parseMs, ...extra };
}

/**
 * Appends what the journal lacks, or, when it had none readable, writes it whole (then the
 * pre-journal file goes). Returns the bytes written, or undefined when it was left alone.
 */
export async function writeRun(dir: string, agentId: string, t: Transcript, disk: OnDisk, temp: string, abort: () => boolean): Promise<number | undefined> {
  const revision = t.revision;
  const file = path.join(dir, journalName(agentId, 'jsonl'));
  let bytes: number | undefined;
  if (!disk.valid) {
    const size = await fs.promises.stat(file).then((st) => st.size, () => undefined);
    bytes = await rewriteJournal(file, temp, agentId, t.snapshot().entries, size, abort);
    if (bytes === undefined) {
      return undefined;
    }
    await fs.promises.rm(path.join(dir, journalName(agentId, 'json')), { force: true });
  } else {
    const entries = unwritten(t, disk);
    if (entries.length === 0) {
      return undefined;
    }
    bytes = await appendJournal(file, agentId, recordLines(entries));
  }
  Object.assign(disk, { written: revision, valid: true });
  disk.pending.clear();
  return bytes;
}

/** dispose()'s last write, synchronous: what the journal lacks (all that is held, when it was never read). */
export function writeRunSync(dir: string, agentId: string, t: Transcript, disk: OnDisk | undefined): void {
  const entries = disk?.valid ? unwritten(t, disk) : t.snapshot().entries;
  if (entries.length > 0) {
    appendJournalSync(path.join(dir, journalName(agentId, 'jsonl')), agentId, recordLines(entries));
  }
}

/** What the journal lacks: entries changed since it was last written, and the pending ones. */
export function unwritten(t: Transcript, disk: OnDisk): JournalEntry[] {
  const entries: JournalEntry[] = [...t.changesSince(disk.written).entries];
  const seen = new Set(entries.map((e) => e.key));
  for (const key of disk.pending) {
    const e = t.get(key);
    if (e && !seen.has(key)) {
      entries.push(e);
    }
  }
  return entries;
}

/**
 * Merges saved entries into a transcript that may already hold newer copies of some of them
 * (merged from a read of the service while the journal was read): those win, and are returned
 * as the keys the journal lacks.
 */
export function mergeSaved(t: Transcript, saved: readonly JournalEntry[]): Set<string> {
  const newer = t.size > 0 ? t.snapshot().entries : [];
  if (saved.length > 0) {
    t.merge(saved.map((e) => e.message));
  }
  const pending = new Set<string>();
  if (newer.length > 0) {
    t.merge(newer.map((e) => e.message));
    const onDisk = new Map(saved.map((e) => [e.key, e.message]));
    for (const e of newer) {
      const kept = t.get(e.key);
      const disk = onDisk.get(e.key);
      if (kept && (!disk || !sameMessage(disk, kept.message))) {
        pending.add(e.key);
      }
    }
  }
  return pending;
}

async function readLegacy(file: string, agentId: string): Promise<JournalEntry[]> {
  try {
    const parsed = JSON.parse(await fs.promises.readFile(file, 'utf8')) as { version?: unknown; agentId?: unknown; messages?: unknown };
    if (parsed.version !== 1 || parsed.agentId !== agentId || !Array.isArray(parsed.messages)) {
      return [];
    }
    const t = new Transcript(IN_MEMORY);
    t.merge(parsed.messages as unknown[]);
    return [...t.snapshot().entries];
  } catch {
    return [];
  }
}

/** An export's source: the journal when there is one, else the transcript in memory. */
export async function exportSourceOf(dir: string | undefined, agentId: string, memory: TranscriptSnapshot | undefined): Promise<ExportSource> {
  const index = dir ? await indexJournal(path.join(dir, journalName(agentId, 'jsonl')), agentId) : undefined;
  const pruned = dir ? await readPruned(dir, hash(agentId), agentId) : undefined;
  // What was pruned is counted like what memory dropped; the export says when.
  const extra = pruned ? { prunedAt: pruned.at } : {};
  if (index) {
    const { count, earlierMessagesUnavailable, missingMessageCount } = index;
    return { count, earlierMessagesUnavailable, missingMessageCount, droppedMessageCount: pruned?.messages ?? 0, chunks: (n) => index.chunks(n), ...extra };
  }
  const messages = memory?.entries.map((e) => e.message) ?? [];
  return {
    count: messages.length,
    earlierMessagesUnavailable: memory?.earlierMessagesUnavailable ?? false,
    missingMessageCount: memory?.missingMessageCount ?? 0,
    droppedMessageCount: memory?.droppedMessageCount ?? 0,
    ...extra,
    chunks: async function* (n: number) {
      const size = Math.max(1, n);
      for (let i = 0; i < messages.length; i += size) {
        yield await Promise.resolve(messages.slice(i, i + size));
      }
    },
  };
}
