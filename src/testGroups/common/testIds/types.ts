/** What a scan is asked to do and what it gives back. */

export interface OffsetRange {
  /** Inclusive start offset (UTF-16 code units). */
  start: number;
  /** Exclusive end offset. */
  end: number;
}

export interface ScanLimits {
  /** Characters scanned at most (the sum over selections); the rest is reported as truncated. */
  maxChars: number;
  /** Wall-clock budget for one file; the scan stops and reports truncation when it runs out. */
  timeBudgetMs: number;
  /** IDs (with duplicates) collected at most. */
  maxOccurrences: number;
}

export const DEFAULT_SCAN_LIMITS: ScanLimits = {
  maxChars: 5 * 1024 * 1024,
  timeBudgetMs: 3000,
  maxOccurrences: 10_000,
};

/** The default chunk size of the in-thread scan: it pauses (deadline, signal, event loop) at least this often. */
export const DEFAULT_CHUNK_CHARS = 64 * 1024;

export interface ExtractOptions {
  /** `agentRuns.testIds.pattern`; empty or absent means the built-in convention. */
  pattern?: string;
  /** Used to enable YAML bare values (`.yml`/`.yaml`) for the built-in convention. */
  fileName?: string;
  /** Limit to these ranges (each widened to whole lines); empty ranges are ignored. */
  selections?: readonly OffsetRange[];
  limits?: Partial<ScanLimits>;
  /** Characters the in-thread scan covers between two checks of the deadline (tests make it small). */
  chunkChars?: number;
  /** The clock of the in-thread scan's time budget, in milliseconds (tests inject one). */
  now?: () => number;
  /** Stops the scan; the result is then marked truncated with reason `cancelled`. */
  signal?: AbortSignal;
  /** Run a user pattern in this thread (no catastrophic-backtracking guard). For tests only. */
  inThread?: boolean;
}

export interface TestIdOccurrence {
  id: string;
  /** Offset of the ID in the text. */
  offset: number;
  /** 0-based line of the ID. */
  line: number;
}

export interface DuplicateId {
  id: string;
  /** How many times it occurred in total. */
  count: number;
  /** 0-based lines of every occurrence, in order. */
  lines: number[];
}

export type TruncationReason = 'size' | 'time' | 'count' | 'cancelled';

export interface Truncation {
  reason: TruncationReason;
  /** Characters scanned before stopping (of the scanned ranges). */
  scannedChars: number;
  /** Characters in the scanned ranges (the whole text when there is no selection). */
  totalChars: number;
  /** 0-based line reached, when known. */
  line?: number;
}

export interface ExtractResult {
  /** Unique IDs in document order (first occurrence wins). */
  ids: string[];
  /** Every ID found, duplicates included, in document order. */
  occurrences: TestIdOccurrence[];
  /** IDs that occurred more than once. */
  duplicates: DuplicateId[];
  /** Matches whose captured ID was empty or only spaces (skipped). */
  emptyMatches: number;
  truncated?: Truncation;
  /** Whether the built-in convention or the user's pattern was used. */
  convention: 'default' | 'custom';
  /** True when the scan was limited to the selection. */
  limitedToSelection: boolean;
}


/** A range of the text to scan (whole lines, except where a cap cut it). */
export interface Segment {
  start: number;
  end: number;
}

/** A match before trimming, dropping empties and counting lines. */
export interface RawMatch {
  id: string | undefined;
  offset: number;
}

/** Why and where a scan stopped early. */
export interface Stop {
  reason: TruncationReason;
  /** Characters of the scanned ranges covered before stopping. */
  scanned: number;
  /** Offset in the text where scanning stopped. */
  absolute: number;
}

/** What a scan found, and where it stopped if it stopped early. */
export interface ScanOutcome {
  raw: RawMatch[];
  stop?: Stop;
}
