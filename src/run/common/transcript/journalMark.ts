/**
 * What this session keeps of a run's journal after its transcript left memory, so a background read is
 * saved without reading the journal again; what the mark cannot tell (a message it has no record of,
 * another window's append) sends the save back to reading the journal.
 */
import * as fs from 'node:fs';
import type { JournalEntry } from './journal';
import { appendJournal, appendJournalSync, recordLines } from './journal';
import type { Transcript } from './transcript';
import type { TranscriptEntry } from './entry';

/** The journal's latest record of one key. */
export interface RecordMark {
  readonly fp: number;
  readonly sequence: number | undefined;
}

export interface JournalMark {
  /**
   * The newest `sequence` the journal held when this session first read it, until a read of
   * the service reached back to it (see TranscriptFiles.resumeAfter).
   */
  resumeAfter?: number;
  /** The journal's size after this session last read or wrote it: another size, another writer. */
  bytes?: number;
  /** The newest believed sequence the journal holds. */
  newest?: number;
  /** Each key's latest record, while the run may still change (dropped when it cannot). */
  records?: Map<string, RecordMark>;
}

/** Two 32-bit string hashes in one safe integer: a record line's fingerprint. */
export function fingerprint(text: string): number {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) >>> 11);
}

function recordMark(e: JournalEntry): RecordMark {
  return { fp: fingerprint(recordLines([e])), sequence: e.message.sequence };
}

/** The order sequence of an entry when it is a number to compare with (an implausible one's is borrowed, so believed). */
function believed(e: TranscriptEntry): number | undefined {
  return e.sequence !== undefined && Number.isSafeInteger(e.sequence) ? e.sequence : undefined;
}

/**
 * Fills the mark from a transcript that holds everything its journal was written with (read in
 * and saved), and the journal's size now. Nothing when the journal cannot be looked at.
 */
export function markFrom(mark: JournalMark, t: Transcript, file: string): void {
  let bytes: number;
  try {
    bytes = fs.statSync(file).size;
  } catch {
    return;
  }
  const records = new Map<string, RecordMark>();
  let newest: number | undefined;
  for (const e of t.snapshot().entries) {
    records.set(e.key, recordMark(e));
    const s = believed(e);
    newest = s === undefined ? newest : Math.max(newest ?? s, s);
  }
  mark.bytes = bytes;
  mark.records = records;
  mark.newest = newest;
}

/** What of `entries` the journal lacks, or undefined when the mark cannot tell (see the file comment). */
export function lacking(mark: JournalMark, entries: readonly TranscriptEntry[]): TranscriptEntry[] | undefined {
  const records = mark.records;
  if (!records) {
    return undefined;
  }
  const out: TranscriptEntry[] = [];
  for (const e of entries) {
    const r = records.get(e.key);
    const s = e.message.sequence;
    if (r && r.fp === recordMark(e).fp) {
      continue;
    }
    if (r ? r.sequence === s : s !== undefined && Number.isSafeInteger(s) && (mark.newest === undefined || s > mark.newest)) {
      out.push(e);
      continue;
    }
    return undefined;
  }
  return out;
}

function noteWritten(mark: JournalMark, entries: readonly TranscriptEntry[], bytes: number): void {
  mark.bytes = bytes;
  for (const e of entries) {
    mark.records?.set(e.key, recordMark(e));
    const s = believed(e);
    if (s !== undefined) {
      mark.newest = Math.max(mark.newest ?? s, s);
    }
  }
}

/**
 * Appends what the journal lacks of a window's entries. Returns the bytes written, or
 * undefined when the journal must be read first (the mark cannot tell, or the file changed).
 */
export async function appendWindow(file: string, agentId: string, mark: JournalMark, entries: readonly TranscriptEntry[]): Promise<number | undefined> {
  const size = await fs.promises.stat(file).then((st) => st.size, () => undefined);
  const lacks = size === mark.bytes ? lacking(mark, entries) : undefined;
  if (size === undefined || lacks === undefined) {
    return undefined;
  }
  const bytes = lacks.length > 0 ? await appendJournal(file, agentId, recordLines(lacks)) : 0;
  noteWritten(mark, lacks, size + bytes);
  return bytes;
}

/**
 * dispose()'s part: appends synchronously what the journal lacks of a window's entries; where
 * the mark cannot tell, what could not hide a record the journal holds (a key it has no record of).
 */
export function appendWindowSync(file: string, agentId: string, mark: JournalMark, entries: readonly TranscriptEntry[]): void {
  const lacks = lacking(mark, entries) ?? entries.filter((e) => !mark.records?.has(e.key));
  if (lacks.length > 0) {
    appendJournalSync(file, agentId, recordLines(lacks));
  }
}
