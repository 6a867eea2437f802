/**
 * One run's transcript on disk, JSON lines, append-only: a header `{"agentRunsTranscript":2,"agentId":…}`,
 * then `{"k":key,"m":message}` per change, the last of a key winning in its first one's place. A torn last
 * line is ignored and the next append starts a fresh one, so a cut write loses nothing written before.
 */
import * as fs from 'node:fs';
import type { AgentMessage } from '../../../api/types';
import { normalizeMessage } from './message';

export const JOURNAL_VERSION = 2;
const NEWLINE = 0x0a;

/** A transcript entry as the journal takes it (TranscriptEntry fits). */
export interface JournalEntry {
  readonly key: string;
  readonly message: AgentMessage;
}

/** What a journal holds. */
export interface JournalContents {
  /** The latest copy of each message, in the order their keys first appeared. */
  readonly entries: JournalEntry[];
  /** Records read (superseded copies included). */
  readonly records: number;
  /** Bytes of the file, torn tail included. */
  readonly bytes: number;
  /** Whether the header was there and named this run. */
  readonly valid: boolean;
}

export function headerLine(agentId: string): string {
  return `${JSON.stringify({ agentRunsTranscript: JOURNAL_VERSION, agentId })}\n`;
}

/** The lines appended for these entries. */
export function recordLines(entries: readonly JournalEntry[]): string {
  let out = '';
  for (const e of entries) {
    out += `${JSON.stringify({ k: e.key, m: e.message })}\n`;
  }
  return out;
}

/** One record, or undefined for a torn or foreign line. */
export function parseRecord(line: string): { key: string; message: AgentMessage } | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (v === null || typeof v !== 'object') {
    return undefined;
  }
  const r = v as { k?: unknown; m?: unknown };
  const message = typeof r.k === 'string' ? normalizeMessage(r.m) : undefined;
  return message && typeof r.k === 'string' ? { key: r.k, message } : undefined;
}

/** Whether a first line is a journal header naming this run. */
export function headerNames(line: string, agentId: string): boolean {
  try {
    const h = JSON.parse(line) as { agentRunsTranscript?: unknown; agentId?: unknown };
    return h.agentRunsTranscript === JOURNAL_VERSION && h.agentId === agentId;
  } catch {
    return false;
  }
}

/**
 * Parses a whole journal (see JournalContents). A line that does not parse is skipped. The
 * messages are as stored (normalized when written); Transcript.merge checks them again.
 */
export function parseJournal(text: string, agentId: string, bytes = Buffer.byteLength(text)): JournalContents {
  const firstEnd = text.indexOf('\n');
  if (firstEnd < 0 || !headerNames(text.slice(0, firstEnd), agentId)) {
    return { entries: [], records: 0, bytes, valid: false };
  }
  return { ...parseLines(text.slice(firstEnd + 1)), bytes, valid: true };
}

/**
 * The records of whole lines (a last line without its newline is a write cut short: never
 * trusted, even when it parses), the latest of each key in the place of its first.
 */
export function parseLines(text: string): { entries: JournalEntry[]; records: number } {
  const body = text.slice(0, text.lastIndexOf('\n') + 1).slice(0, -1);
  const records = body === '' ? [] : (parseAll(body) ?? parseEach(body));
  const byKey = new Map<string, AgentMessage>();
  for (const r of records) {
    byKey.set(r.key, r.message);
  }
  return { entries: [...byKey].map(([key, message]) => ({ key, message })), records: records.length };
}

function asRecord(v: unknown): JournalEntry | undefined {
  if (v === null || typeof v !== 'object') {
    return undefined;
  }
  const { k, m } = v as { k?: unknown; m?: unknown };
  return typeof k === 'string' && m !== null && typeof m === 'object' && !Array.isArray(m) ? { key: k, message: m } : undefined;
}

/**
 * Every line at once, as one JSON array (a record never holds a raw newline): several times
 * faster than a parse per line. Undefined when any line does not parse (a torn line followed
 * by later appends): then line by line.
 */
function parseAll(body: string): JournalEntry[] | undefined {
  let all: unknown;
  try {
    all = JSON.parse(`[${body.replaceAll('\n', ',')}]`);
  } catch {
    return undefined;
  }
  const out: JournalEntry[] = [];
  for (const v of all as unknown[]) {
    const r = asRecord(v);
    if (r) {
      out.push(r);
    }
  }
  return out;
}

function parseEach(body: string): JournalEntry[] {
  const out: JournalEntry[] = [];
  for (const line of body.split('\n')) {
    try {
      const r = asRecord(JSON.parse(line));
      if (r) {
        out.push(r);
      }
    } catch {
      // A torn line.
    }
  }
  return out;
}

/** Reads a journal; undefined when there is none. */
export async function readJournal(file: string, agentId: string): Promise<JournalContents | undefined> {
  let buffer: Buffer;
  try {
    buffer = await fs.promises.readFile(file);
  } catch {
    return undefined;
  }
  return parseJournal(buffer.toString('utf8'), agentId, buffer.length);
}

export function readJournalSync(file: string, agentId: string): JournalContents | undefined {
  let buffer: Buffer;
  try {
    buffer = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  return parseJournal(buffer.toString('utf8'), agentId, buffer.length);
}

/**
 * What to write in front of an append to a file of `size` bytes whose last byte is `last`: the
 * header for an empty file, a newline after a torn last line, else nothing.
 */
function prefixFor(size: number, last: number | undefined, agentId: string): string {
  if (size === 0) {
    return headerLine(agentId);
  }
  return last === NEWLINE ? '' : '\n';
}

/** Appends records (one write); returns the bytes written. */
export async function appendJournal(file: string, agentId: string, lines: string): Promise<number> {
  const fh = await fs.promises.open(file, 'a+');
  try {
    const { size } = await fh.stat();
    let last: number | undefined;
    if (size > 0) {
      const one = Buffer.alloc(1);
      await fh.read(one, 0, 1, size - 1);
      last = one[0];
    }
    const data = Buffer.from(prefixFor(size, last, agentId) + lines, 'utf8');
    await fh.write(data);
    return data.length;
  } finally {
    await fh.close();
  }
}

export function appendJournalSync(file: string, agentId: string, lines: string): number {
  const fd = fs.openSync(file, 'a+');
  try {
    const { size } = fs.fstatSync(fd);
    let last: number | undefined;
    if (size > 0) {
      const one = Buffer.alloc(1);
      fs.readSync(fd, one, 0, 1, size - 1);
      last = one[0];
    }
    const data = Buffer.from(prefixFor(size, last, agentId) + lines, 'utf8');
    fs.writeSync(fd, data);
    return data.length;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes a whole journal to `temp`, then renames it over `file` unless `file` changed size
 * meanwhile from `expectedBytes` (someone appended: the rewrite would lose that) or `abort()`
 * says so. Returns the bytes written, or undefined when the journal was left as it was.
 */
export async function rewriteJournal(
  file: string,
  temp: string,
  agentId: string,
  entries: readonly JournalEntry[],
  expectedBytes: number | undefined,
  abort: () => boolean,
): Promise<number | undefined> {
  const data = Buffer.from(headerLine(agentId) + recordLines(entries), 'utf8');
  await fs.promises.writeFile(temp, data);
  let current: number | undefined;
  try {
    current = (await fs.promises.stat(file)).size;
  } catch {
    current = undefined;
  }
  if (abort() || current !== expectedBytes) {
    await fs.promises.rm(temp, { force: true });
    return undefined;
  }
  // Synchronous, so no append of ours can land between the check and the rename.
  fs.renameSync(temp, file);
  return data.length;
}

/** Lines in a file (records plus header, about the messages it holds), read in chunks. */
export async function countLines(file: string): Promise<number> {
  let n = 0;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
    const b = chunk as Buffer;
    for (let i = b.indexOf(NEWLINE); i >= 0; i = b.indexOf(NEWLINE, i + 1)) {
      n++;
    }
  }
  return n;
}

/** The run a journal belongs to, from its header (undefined when it has none). */
export async function journalAgentId(file: string): Promise<string | undefined> {
  let fh: fs.promises.FileHandle | undefined;
  try {
    fh = await fs.promises.open(file, 'r');
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    const end = text.indexOf('\n');
    if (end < 0) {
      return undefined;
    }
    const h = JSON.parse(text.slice(0, end)) as { agentRunsTranscript?: unknown; agentId?: unknown };
    return h.agentRunsTranscript === JOURNAL_VERSION && typeof h.agentId === 'string' ? h.agentId : undefined;
  } catch {
    return undefined;
  } finally {
    await fh?.close();
  }
}
