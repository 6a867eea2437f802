/**
 * What a Transcript (transcript.ts) answers and takes: snapshots, the result of a merge, the
 * changes after a revision, and its size bounds. Pure: no `vscode`, no DOM, no node APIs.
 */
import type { TranscriptEntry } from './entry';

export interface TranscriptSnapshot {
  /** Messages in transcript order. */
  readonly entries: readonly TranscriptEntry[];
  readonly earlierMessagesUnavailable: boolean;
  readonly missingMessageCount: number;
  readonly droppedMessageCount: number;
}

export interface MergeResult {
  /** Messages not seen before, in transcript order. */
  readonly added: TranscriptEntry[];
  /** Known messages whose fields changed (e.g. streamed content), in transcript order. */
  readonly changed: TranscriptEntry[];
  /** Keys evicted by the size bounds during this merge. */
  readonly evicted: string[];
  /** Whether `earlierMessagesUnavailable` / `missingMessageCount` changed with this merge. */
  readonly gapsChanged: boolean;
  readonly earlierMessagesUnavailable: boolean;
  readonly missingMessageCount: number;
  readonly droppedMessageCount: number;
}

/** What changed after a given revision, for a view that has shown everything up to it. */
export interface TranscriptChanges {
  /** Added or changed since the revision, in transcript order. */
  readonly entries: TranscriptEntry[];
  /** Keys evicted since the revision. */
  readonly evicted: string[];
  /** The revision the view is at after applying these. */
  readonly revision: number;
  /**
   * False when the eviction log no longer reaches back to the revision: the view must
   * start over from a snapshot.
   */
  readonly complete: boolean;
}

export interface TranscriptOptions {
  /** Default 10,000. */
  maxMessages?: number;
  /** Default 32 million characters (content + tool parameters + attachments). */
  maxTotalChars?: number;
}

export const DEFAULT_MAX_MESSAGES = 10_000;
export const DEFAULT_MAX_TOTAL_CHARS = 32_000_000;
