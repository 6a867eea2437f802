/**
 * The parts of TranscriptFiles that concern one run: reading its journal into memory (with the
 * pre-journal file and the pruned note), telling what the journal lacks, and what an export
 * reads. No `vscode` import.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sameMessage } from './message';
import { Transcript, type TranscriptEntry, type TranscriptSnapshot } from './transcript';
import { TranscriptStore } from './store';
import { appendJournal, appendJournalSync, headerNames, parseJournal, parseLines, recordLines, rewriteJournal, type JournalContents, type JournalEntry } from './journal';
import { readBack, type BackRead } from './journalBack';
import { readPruned, type PrunedInfo } from './diskLimit';
import { indexJournal } from './journalStream';
import { appendWindowSync, type JournalMark } from './journalMark';
import type { ExportTranscript } from '../export/export';

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

/** Where the files go: the extension's global storage (`ExtensionContext.globalStorageUri`). */
export interface StorageRoot {
  readonly fsPath: string;
}

/** The part of the log channel used here. */
export interface TranscriptLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface TranscriptFilesOptions {
  /** How long after a change (or after a transcript stopped being used) it is saved and dropped. Default 2 s. */
  saveDelayMs?: number;
  /** The most the journals of one base URL may take (bytes), read at each check. Default 200 MB. */
  maxDiskBytes?: () => number;
  /** Whether a run may still change (never evicted). Default: every run may. */
  isLive?: (agentId: string) => boolean;
  /** The most messages one run keeps in memory. Default IN_MEMORY's. */
  maxMessages?: number;
}

/** One read of a journal into memory (for measurements and the test API). */
export interface TranscriptRead {
  readonly agentId: string;
  readonly messages: number;
  readonly bytes: number;
  /** From the start of the read to the transcript in memory. */
  readonly ms: number;
  /** Of which parsing the journal, and merging it into the in-memory transcript. */
  readonly parseMs: number;
  readonly mergeMs: number;
  /** A long journal: when its newest part was in memory (from the start), and how many messages that was. */
  readonly firstMs?: number;
  readonly firstMessages?: number;
}

/** What is known about a run's journal, once read. */
export interface OnDisk {
  /** The transcript's revision up to which every entry is in the journal. */
  written: number;
  /** Keys to append whatever their revision (merged in memory before the journal was read). */
  pending: Set<string>;
  /** False when there is no readable journal yet: the first write writes it whole. */
  valid: boolean;
  /**
   * Memory holds only what reads merged since the transcript left memory, its journal not read
   * into it: saved against the run's JournalMark (journalMark.ts), read in when it is to be shown.
   */
  window?: boolean;
  /** Only the journal's newest records are in memory yet (see TranscriptFiles.loadIn). */
  partial?: { started: number; first: { ms: number; messages: number }; rest?: Promise<Transcript> };
}

/** A run's transcript as an export reads it: streamed from its journal, or what memory holds. */
export interface ExportSource extends ExportTranscript {
  readonly count: number;
}

/** A TranscriptStore that tells about each transcript it creates and lists what it holds. */
export function trackingStore(onNew: (agentId: string) => void, maxMessages = IN_MEMORY.maxMessages): TranscriptStore & { ids(): string[] } {
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
  })(Number.MAX_SAFE_INTEGER, { maxMessages });
}

export interface ReadContext {
  /** Read only about this many bytes from the end when the journal is much longer (a first, partial read). */
  tailBytes?: number;
  /** Without `tailBytes`: read from the end backwards, only until this many messages are in (journalBack.ts). */
  cap?: number;
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
  /** Only the newest records were read (`tailBytes`): the rest is still to come. */
  readonly partial?: boolean;
  /** Read backwards up to the cap: about this many older messages were left unread (see journalBack.ts). */
  readonly unread?: BackRead['unread'];
  readonly pruned?: PrunedInfo;
}

/** Reads a run's journal (compacting it when most of it is superseded copies). */
export async function readRun(dir: string | undefined, agentId: string, c: ReadContext): Promise<RunRead> {
  if (!dir) {
    return { entries: [], valid: true, bytes: 0, parseMs: 0 };
  }
  const file = path.join(dir, journalName(agentId, 'jsonl'));
  const [pruned, tail] = await Promise.all([
    readPruned(dir, hash(agentId), agentId),
    c.tailBytes === undefined ? undefined : readTail(file, agentId, c.tailBytes),
  ]);
  const extra = pruned ? { pruned } : {};
  if (tail) {
    return { ...tail, ...extra };
  }
  const back = c.tailBytes === undefined && c.cap !== undefined ? await readBack(file, agentId, c.cap) : undefined;
  if (back && !back.whole) {
    return { entries: back.entries, valid: true, bytes: back.bytes, parseMs: back.parseMs, ...(back.unread ? { unread: back.unread } : {}), ...extra };
  }
  let journal: JournalContents | undefined;
  let parseMs = back?.parseMs ?? 0;
  if (back) {
    journal = { entries: back.entries, records: back.records, bytes: back.bytes, valid: true };
  } else {
    const buffer = await fs.promises.readFile(file).catch(() => undefined);
    const parsing = performance.now();
    journal = buffer ? parseJournal(buffer.toString('utf8'), agentId, buffer.length) : undefined;
    parseMs = performance.now() - parsing;
  }
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
 * The newest records of a journal more than twice `bytes` long (undefined otherwise, or without
 * a valid header). One open, one stat, two reads: each step waits its turn on a busy host.
 */
async function readTail(file: string, agentId: string, bytes: number): Promise<Omit<RunRead, 'pruned'> | undefined> {
  const fh = await fs.promises.open(file, 'r').catch(() => undefined);
  if (!fh) {
    return undefined;
  }
  try {
    const { size } = await fh.stat();
    if (size <= 2 * bytes) {
      return undefined;
    }
    const head = Buffer.alloc(4096);
    const tail = Buffer.alloc(bytes);
    const [h, t] = await Promise.all([fh.read(head, 0, head.length, 0), fh.read(tail, 0, bytes, size - bytes)]);
    const parsing = performance.now();
    const first = head.toString('utf8', 0, h.bytesRead);
    if (!first.includes('\n') || !headerNames(first.slice(0, first.indexOf('\n')), agentId)) {
      return undefined;
    }
    const text = tail.toString('utf8', 0, t.bytesRead);
    // From the first whole line on: the one the read started in is cut.
    const { entries } = parseLines(text.slice(text.indexOf('\n') + 1));
    return { entries, valid: true, bytes: size, parseMs: performance.now() - parsing, partial: true };
  } finally {
    await fh.close();
  }
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
    disk.pending.clear();
  } else {
    const entries = unwritten(t, disk);
    if (entries.length === 0) {
      return undefined;
    }
    bytes = await appendJournal(file, agentId, recordLines(entries));
    // Only what was written: the rest of the journal may have joined meanwhile (completeRead).
    for (const e of entries) {
      disk.pending.delete(e.key);
    }
  }
  disk.valid = true;
  disk.written = Math.max(disk.written, revision);
  return bytes;
}

/** dispose()'s last write, synchronous: what each journal lacks (all that is held, when it was never read). */
export function writeAllSync(dir: string, runs: readonly { id: string; t: Transcript; disk: OnDisk | undefined; mark: JournalMark | undefined }[]): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch {
    return;
  }
  for (const { id, t, disk, mark } of runs) {
    const file = path.join(dir, journalName(id, 'jsonl'));
    try {
      if (disk?.window && mark) {
        appendWindowSync(file, id, mark, unwritten(t, disk));
        continue;
      }
      const entries = disk?.valid ? unwritten(t, disk) : t.snapshot().entries;
      if (entries.length > 0) {
        appendJournalSync(file, id, recordLines(entries));
      }
    } catch {
      // Nothing to tell any more: the window is going away.
    }
  }
}

/** Deletes the runs' journals, pre-journal files and pruned notes. */
export async function removeJournals(dir: string, agentIds: readonly string[], warn: (message: string) => void): Promise<void> {
  for (const id of agentIds) {
    for (const ext of ['jsonl', 'json', 'pruned'] as const) {
      await fs.promises.rm(path.join(dir, journalName(id, ext)), { force: true }).catch((e: unknown) => warn(`Could not delete a saved transcript (run ${id}): ${errorText(e)}`));
    }
  }
}

/** What the journal lacks: entries changed since it was last written, and the pending ones. */
export function unwritten(t: Transcript, disk: OnDisk): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [...t.changesSince(disk.written).entries];
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
export function mergeSaved(t: Transcript, saved: readonly JournalEntry[], newer: readonly JournalEntry[] = t.size > 0 ? t.snapshot().entries : []): Set<string> {
  if (saved.length > 0) {
    t.merge(saved.map((e) => e.message), saved.map((e) => e.key));
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
        // The journal's record under this key is another message (two under one id, keyed the
        // other way round here): it is written again under the key it has here, or the append
        // would hide it.
        const other = disk && (disk.id !== kept.message.id || disk.sequence !== kept.message.sequence) ? t.keyOf(disk) : undefined;
        if (other !== undefined && other !== e.key) {
          pending.add(other);
        }
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
