/**
 * A journal read for export without holding its messages: a first pass keeps, per message,
 * only where its latest record lies and its order fields; the second reads the records back
 * in transcript order, a chunk at a time. No `vscode` import.
 */
import * as fs from 'node:fs';
import { sequenceCeiling } from '../../../api/sequence';
import type { AgentMessage } from '../../../api/types';
import { compareOrder } from './order';
import { JOURNAL_VERSION, parseRecord } from './journal';

const READ_CHUNK = 1 << 20;
/** A batch whose records lie within this span is read in one go. */
const MAX_SPAN = 16 << 20;

interface Slot {
  off: number;
  len: number;
  /** Position of the key's first record: the transcript's arrival order. */
  arrival: number;
  /** The order's sequence (as the in-memory transcript places an implausible one: where it arrived). */
  sequence?: number;
  createdAt?: number;
  /** Its own sequence is a jump no run could make (api/sequence.ts): it counts no gap. */
  implausible?: boolean;
}

export interface GapInfo {
  readonly earlierMessagesUnavailable: boolean;
  readonly missingMessageCount: number;
}

export interface JournalIndex extends GapInfo {
  readonly count: number;
  /** The messages in transcript order, `size` at a time; each batch is read when asked for. */
  chunks(size: number): AsyncGenerator<AgentMessage[]>;
}

function isHeader(line: string, agentId: string): boolean {
  try {
    const h = JSON.parse(line) as { agentRunsTranscript?: unknown; agentId?: unknown };
    return h.agentRunsTranscript === JOURNAL_VERSION && h.agentId === agentId;
  } catch {
    return false;
  }
}

/** First pass: every complete line's place, the latest record of each key kept. */
async function scan(file: string, agentId: string): Promise<Slot[] | undefined> {
  const slots = new Map<string, Slot>();
  let pending: Buffer = Buffer.alloc(0);
  let pendingAt = 0;
  let lineNo = 0;
  let valid = true;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: READ_CHUNK })) {
    const buf: Buffer = pending.length > 0 ? Buffer.concat([pending, chunk as Buffer]) : (chunk as Buffer);
    const base = pendingAt;
    let start = 0;
    for (let nl = buf.indexOf(0x0a); nl >= 0 && valid; nl = buf.indexOf(0x0a, start)) {
      const line = buf.toString('utf8', start, nl);
      if (lineNo++ === 0) {
        valid = isHeader(line, agentId);
      } else {
        const r = parseRecord(line);
        if (r) {
          const known = slots.get(r.key);
          slots.set(r.key, { off: base + start, len: nl - start, arrival: known?.arrival ?? slots.size, sequence: r.message.sequence, createdAt: r.message.createdAt });
        }
      }
      start = nl + 1;
    }
    if (!valid) {
      return undefined;
    }
    pending = buf.subarray(start);
    pendingAt = base + start;
  }
  // A last line without its newline is a write cut short: left out.
  return lineNo > 0 ? place([...slots.values()]).sort(compareOrder) : undefined;
}

/**
 * Slots in journal order (a key's first record: its arrival) whose sequence no run could reach
 * are placed after the newest believed sequence before them, as the in-memory transcript does.
 */
function place(slots: Slot[]): Slot[] {
  const ceiling = sequenceCeiling(slots.flatMap((s) => (s.sequence !== undefined && Number.isSafeInteger(s.sequence) ? [s.sequence] : [])));
  let high: number | undefined;
  for (const s of slots) {
    const seq = s.sequence;
    if (seq !== undefined && seq > ceiling) {
      s.sequence = high;
      s.implausible = true;
    } else if (seq !== undefined && Number.isSafeInteger(seq)) {
      high = Math.max(high ?? seq, seq);
    }
  }
  return slots;
}

/** Messages the sequence numbers say were never seen (as the in-memory transcript counts them). */
function gaps(slots: readonly Slot[]): GapInfo {
  let missing = 0;
  let prev: number | undefined;
  let min: number | undefined;
  for (const s of slots) {
    const seq = s.sequence;
    if (seq === undefined || !Number.isSafeInteger(seq) || s.implausible) {
      continue;
    }
    min = Math.min(min ?? seq, seq);
    if (prev !== undefined && seq > prev + 1) {
      missing += seq - prev - 1;
    }
    prev = seq;
  }
  if (min !== undefined && min > 1) {
    missing += min - 1;
  }
  return { earlierMessagesUnavailable: missing > 0, missingMessageCount: missing };
}

async function* read(file: string, slots: readonly Slot[], size: number): AsyncGenerator<AgentMessage[]> {
  const fh = await fs.promises.open(file, 'r');
  try {
    for (let i = 0; i < slots.length; i += size) {
      const batch = slots.slice(i, i + size);
      const lo = Math.min(...batch.map((s) => s.off));
      const hi = Math.max(...batch.map((s) => s.off + s.len));
      const out: AgentMessage[] = [];
      if (hi - lo <= MAX_SPAN) {
        const buf = Buffer.alloc(hi - lo);
        await fh.read(buf, 0, buf.length, lo);
        for (const s of batch) {
          const r = parseRecord(buf.toString('utf8', s.off - lo, s.off - lo + s.len));
          if (r) out.push(r.message);
        }
      } else {
        for (const s of batch) {
          const buf = Buffer.alloc(s.len);
          await fh.read(buf, 0, s.len, s.off);
          const r = parseRecord(buf.toString('utf8'));
          if (r) out.push(r.message);
        }
      }
      yield out;
    }
  } finally {
    await fh.close();
  }
}

/** The journal's index, or undefined when there is no readable journal. */
export async function indexJournal(file: string, agentId: string): Promise<JournalIndex | undefined> {
  let slots: Slot[] | undefined;
  try {
    slots = await scan(file, agentId);
  } catch {
    return undefined;
  }
  if (!slots) {
    return undefined;
  }
  const ordered = slots;
  return { ...gaps(ordered), count: ordered.length, chunks: (size) => read(file, ordered, Math.max(1, size)) };
}
