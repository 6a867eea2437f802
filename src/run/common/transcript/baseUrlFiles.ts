/**
 * One base URL's transcripts in TranscriptFiles: in memory, what is known of their journals, and reading a
 * journal in (a long one in two steps, newest first). The schedule and the writes stay with TranscriptFiles.
 */
import * as path from 'node:path';
import { maxSequence } from '../../../api/types';
import type { DiskLimit } from './diskLimit';
import { appendWindow, markFrom, type JournalMark } from './journalMark';
import { IN_MEMORY, journalName, mergeSaved, readRun, unwritten, type OnDisk, type ReadContext, type TranscriptRead } from './runJournal';
import type { TranscriptStore } from './store';
import { Transcript } from './transcript';

/** A journal over twice this long is read newest part first (about 2,000 messages, several screens). */
export const TAIL_BYTES = 512 * 1024;

/** Everything of one base URL. */
export interface BaseUrlFiles {
  /** Undefined without a base URL: nothing is saved. */
  readonly dir: string | undefined;
  readonly store: TranscriptStore & { ids(): string[] };
  readonly loading: Map<string, Promise<Transcript>>;
  readonly disk: Map<string, OnDisk>;
  /** What is kept of each journal read this session, also after its transcript left memory. */
  readonly marks: Map<string, JournalMark>;
  /** Runs changed since they were last written, with the number of their latest change. */
  readonly dirty: Map<string, number>;
  readonly limit: DiskLimit | undefined;
}

/** What reading a journal into a base URL's files needs of the TranscriptFiles around it. */
export interface JournalReadHost {
  /** How a journal is read: its newest `tailBytes` only, or (undefined) backwards as far as memory keeps. */
  readContext(tailBytes: number | undefined): ReadContext;
  /** A read is done (the second step's, for a journal read in two). */
  logRead(read: TranscriptRead): void;
  /** The run's transcript holds what its journal lacks: to be saved. */
  markDirty(files: BaseUrlFiles, agentId: string): void;
  /** The run's journal was read and nothing is to be saved. */
  readClean(files: BaseUrlFiles, agentId: string): void;
}

/**
 * A journal much longer than TAIL_BYTES is read in two steps: its newest records first, so a
 * panel shows them at once (load() resolves then, isLoaded() stays false), then the whole,
 * merged in when read (load() again waits for that).
 */
export function loadRun(files: BaseUrlFiles, agentId: string, host: JournalReadHost): Promise<Transcript> {
  const disk = files.disk.get(agentId);
  if (disk?.window) {
    // Memory holds only what reads merged since: the journal is read in under it (what memory
    // changed is compared with it and kept pending).
    files.disk.delete(agentId);
  } else if (disk && files.store.has(agentId)) {
    return disk.partial ? completeRead(files, agentId, disk, host) : Promise.resolve(files.store.get(agentId));
  }
  let p = files.loading.get(agentId);
  if (!p) {
    const started = performance.now();
    const reading: Promise<Transcript> = readRun(files.dir, agentId, host.readContext(TAIL_BYTES)).then((read) => {
      const { entries, valid, pruned } = read;
      if (files.loading.get(agentId) !== reading) {
        // Removed while its journal was read: it does not come back into memory.
        const detached = new Transcript(IN_MEMORY);
        detached.merge(entries.map((e) => e.message));
        return detached;
      }
      const t = files.store.get(agentId);
      const merging = performance.now();
      const pending = mergeSaved(t, entries);
      const read1: TranscriptRead = { agentId, messages: entries.length, bytes: read.bytes, ms: performance.now() - started, parseMs: read.parseMs, mergeMs: performance.now() - merging };
      t.noteDropped(pruned?.messages ?? 0);
      if (!files.marks.has(agentId)) {
        // Only the session's first read of the journal tells where it ended before the service was read.
        const resumeAfter = maxSequence(entries.map((e) => e.message));
        files.marks.set(agentId, resumeAfter === undefined ? {} : { resumeAfter });
      }
      files.disk.set(agentId, {
        written: t.revision, pending, valid,
        ...(read.partial ? { partial: { started, first: read1 } } : {}),
      });
      files.loading.delete(agentId);
      if (!read.partial) {
        host.logRead(read1);
      }
      if (pending.size > 0 || !valid) {
        host.markDirty(files, agentId);
      } else {
        host.readClean(files, agentId);
      }
      return t;
    });
    files.loading.set(agentId, reading);
    p = reading;
  }
  return p;
}

/** The second step of a long journal's read: everything, with what memory changed meanwhile kept. */
function completeRead(files: BaseUrlFiles, agentId: string, disk: OnDisk, host: JournalReadHost): Promise<Transcript> {
  const t = files.store.get(agentId);
  const partial = disk.partial;
  if (!partial) {
    return Promise.resolve(t);
  }
  partial.rest ??= readRun(files.dir, agentId, host.readContext(undefined)).then((read) => {
    if (files.disk.get(agentId) !== disk || !files.store.has(agentId) || files.store.get(agentId) !== t) {
      return t; // Dropped or removed meanwhile.
    }
    const merging = performance.now();
    // What memory changed since the journal was last written wins over the journal's copies.
    for (const key of mergeSaved(t, read.entries, unwritten(t, disk))) {
      disk.pending.add(key);
    }
    if (read.unread) {
      // Older than memory keeps: counted as dropped, and no gap is claimed before what was read.
      t.noteUnread(read.unread.messages, read.unread.lowest);
    }
    disk.written = t.revision;
    disk.partial = undefined;
    const mergeMs = performance.now() - merging;
    host.logRead({ ...read, agentId, messages: read.entries.length, ms: performance.now() - partial.started, mergeMs, firstMs: partial.first.ms, firstMessages: partial.first.messages });
    if (disk.pending.size > 0) {
      host.markDirty(files, agentId);
    }
    return t;
  });
  return partial.rest;
}

/**
 * Appends what the journal lacks of a read merged while the transcript was out of memory, by
 * the run's mark; false when the mark cannot tell: then the journal has been read in under it.
 */
export async function writeWindow(files: BaseUrlFiles, agentId: string, disk: OnDisk, file: string, host: JournalReadHost): Promise<boolean> {
  const mark = files.marks.get(agentId);
  const t = files.store.get(agentId);
  const revision = t.revision;
  const bytes = mark ? await appendWindow(file, agentId, mark, unwritten(t, disk)) : undefined;
  if (bytes !== undefined) {
    disk.written = Math.max(disk.written, revision);
    files.limit?.wrote(bytes);
    return true;
  }
  await loadRun(files, agentId, host);
  return false;
}

/**
 * Before a saved transcript leaves memory: its journal's mark takes what a later read needs
 * (journalMark.ts), or, for a run that cannot change (not read in the background), only the
 * read-back point stays.
 */
export function keepMark(files: BaseUrlFiles, agentId: string, live: boolean): void {
  const mark = files.marks.get(agentId);
  const disk = files.disk.get(agentId);
  if (mark && !live) {
    delete mark.records;
  } else if (mark && files.dir && disk?.valid && !disk.window && files.store.has(agentId) && !files.dirty.has(agentId)) {
    markFrom(mark, files.store.get(agentId), path.join(files.dir, journalName(agentId, 'jsonl')));
  }
}
