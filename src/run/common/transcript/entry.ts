/**
 * One message of a transcript: the read-only shape the store hands out (`TranscriptEntry`) and
 * the mutable one the transcript keeps (`MutableEntry`), with the copy from one to the other.
 * Pure: no `vscode`, no DOM, no node APIs.
 */
import type { AgentMessage } from '../../../api/types';
import type { OrderFields } from './order';

export interface TranscriptEntry extends OrderFields {
  /** Stable key (`id:…`, `seq:…` or `hash:…`), used by the webview to find the element. */
  readonly key: string;
  readonly arrival: number;
  readonly message: AgentMessage;
  /**
   * Its place in the order: the message's `sequence`, or for one whose sequence is a jump no
   * run could make, the newest believed sequence when it arrived (it is shown where it came).
   */
  readonly sequence?: number;
  readonly createdAt?: number;
  /**
   * Messages just before this one, by `sequence`, that were never taken in here (the service
   * no longer returned them): the transcript is not whole at this point.
   */
  readonly gapBefore?: number;
}

/** A transcript's own entry; `freeze` copies it into a TranscriptEntry for callers. */
export interface MutableEntry {
  key: string;
  arrival: number;
  /** Transcript revision at which this entry was added or last changed. */
  rev: number;
  message: AgentMessage;
  /** The order's sequence: the message's own, or for an implausible one the newest believed at its arrival. */
  sequence?: number;
  createdAt?: number;
  size: number;
  gapBefore?: number;
  /** Its `sequence` is a jump no run could make (see api/sequence.ts): shown, but not ordered, counted or indexed by it. */
  implausible?: boolean;
}

/** The read-only copy of an entry handed out to callers (fields left undefined are left out). */
export function freeze(e: MutableEntry): TranscriptEntry {
  const out: { key: string; arrival: number; message: AgentMessage; sequence?: number; createdAt?: number; gapBefore?: number } = {
    key: e.key,
    arrival: e.arrival,
    message: e.message,
  };
  if (e.sequence !== undefined) {
    out.sequence = e.sequence;
  }
  if (e.createdAt !== undefined) {
    out.createdAt = e.createdAt;
  }
  if (e.gapBefore !== undefined) {
    out.gapBefore = e.gapBefore;
  }
  return out;
}
