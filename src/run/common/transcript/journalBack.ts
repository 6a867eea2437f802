/**
 * A long journal read backwards from its end, a chunk at a time, only until memory's limit of messages
 * (runJournal.ts IN_MEMORY) is in; what lies before is not parsed, only estimated and counted as dropped.
 */
import * as fs from 'node:fs';
import type { AgentMessage } from '../../../api/types';
import { headerNames, parseLines, parseRecord, type JournalEntry } from './journal';

/** Read and parsed at a time, from the end. */
export const BACK_CHUNK = 1 << 20;
/** Where the first record is looked for, to know the lowest sequence of what is left unread. */
const HEAD_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

export interface BackRead {
  /** The latest record of each key read, in the order of their first records among those read. */
  readonly entries: JournalEntry[];
  /** Records parsed (superseded copies included). */
  readonly records: number;
  /** The file's size. */
  readonly bytes: number;
  /** Bytes read (the unread older part excluded). */
  readonly readBytes: number;
  readonly parseMs: number;
  /** The start was reached: everything was read (the header checked). */
  readonly whole: boolean;
  /** What was left unread: about how many messages, and the first record's sequence. */
  readonly unread?: { readonly messages: number; readonly lowest?: number };
}

interface Slot {
  message: AgentMessage;
  /** Where the earliest record of the key read so far starts (order of first records). */
  at: number;
  index: number;
}

/**
 * Reads `file` backwards until `cap` messages are in (or the start is reached). Undefined when
 * there is no file, or its start was reached and it has no header naming `agentId`.
 */
export async function readBack(file: string, agentId: string, cap: number): Promise<BackRead | undefined> {
  const fh = await fs.promises.open(file, 'r').catch(() => undefined);
  if (!fh) {
    return undefined;
  }
  try {
    const { size } = await fh.stat();
    const slots = new Map<string, Slot>();
    let records = 0;
    let parseMs = 0;
    let readBytes = 0;
    let end = size;
    /** The start of the line the later chunk began inside, up to its newline. */
    let carry = Buffer.alloc(0);
    let first = true;
    while (end > 0) {
      const start = Math.max(0, end - BACK_CHUNK);
      const buf = Buffer.alloc(end - start);
      const { bytesRead } = await fh.read(buf, 0, buf.length, start);
      readBytes += bytesRead;
      const data = carry.length > 0 ? Buffer.concat([buf.subarray(0, bytesRead), carry]) : buf.subarray(0, bytesRead);
      // A last line without its newline is a write cut short: never trusted.
      const stop = first ? data.lastIndexOf(NEWLINE) + 1 : data.length;
      first = false;
      let from = 0;
      if (start > 0) {
        const nl = data.indexOf(NEWLINE);
        if (nl < 0 || nl >= stop) {
          carry = data.subarray(0, stop);
          end = start;
          continue;
        }
        carry = Buffer.from(data.subarray(0, nl + 1));
        from = nl + 1;
      } else {
        const nl = data.indexOf(NEWLINE);
        if (nl < 0 || nl >= stop || !headerNames(data.toString('utf8', 0, nl), agentId)) {
          return undefined;
        }
        from = nl + 1;
      }
      const parsing = performance.now();
      const chunk = parseLines(data.toString('utf8', from, stop));
      parseMs += performance.now() - parsing;
      records += chunk.records;
      chunk.entries.forEach((e, index) => {
        const known = slots.get(e.key);
        // A later chunk's record of the key is its latest; this one's place is its earlier first.
        slots.set(e.key, { message: known?.message ?? e.message, at: start, index });
      });
      end = start;
      if (slots.size >= cap && end > 0) {
        break;
      }
    }
    const entries = [...slots].sort(([, a], [, b]) => a.at - b.at || a.index - b.index).map(([key, s]) => ({ key, message: s.message }));
    if (end === 0) {
      return { entries, records, bytes: size, readBytes, parseMs, whole: true };
    }
    // Unread: about as many messages per byte as what was read held.
    const unreadBytes = end + carry.length;
    const messages = Math.max(1, Math.round(unreadBytes * (slots.size / Math.max(1, size - unreadBytes))));
    const lowest = await firstSequence(fh, agentId);
    readBytes += HEAD_BYTES;
    return { entries, records, bytes: size, readBytes, parseMs, whole: false, unread: lowest === undefined ? { messages } : { messages, lowest } };
  } finally {
    await fh.close();
  }
}

/** The first record's sequence (the lowest, as records are written), when it lies within the head. */
async function firstSequence(fh: fs.promises.FileHandle, agentId: string): Promise<number | undefined> {
  const head = Buffer.alloc(HEAD_BYTES);
  const { bytesRead } = await fh.read(head, 0, head.length, 0);
  const text = head.toString('utf8', 0, bytesRead);
  const lines = text.split('\n');
  if (lines.length < 3 || !headerNames(lines[0], agentId)) {
    return undefined;
  }
  const s = parseRecord(lines[1])?.message.sequence;
  return s !== undefined && Number.isSafeInteger(s) ? s : undefined;
}
