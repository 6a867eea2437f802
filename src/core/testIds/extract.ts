/**
 * Finding the test IDs of one text. Scanning is bounded: a character cap, a time budget and an
 * ID cap. The built-in convention is linear-time and runs here in chunks that yield to the
 * event loop; a user pattern runs in a worker (worker.ts).
 */
import { conventionRegExp, defaultMatchToRaw, isYamlFile } from './convention';
import { compileTestIdPattern } from './patterns';
import { capSegments, chunksOf, selectionSegments } from './segments';
import {
  DEFAULT_CHUNK_CHARS, DEFAULT_SCAN_LIMITS, type DuplicateId, type ExtractOptions, type ExtractResult, type RawMatch,
  type ScanLimits, type ScanOutcome, type Segment, type Stop, type TestIdOccurrence,
} from './types';
import { scanInWorker } from './worker';

/** Counts lines incrementally as offsets grow. */
class LineCounter {
  private offset = 0;
  private line = 0;
  constructor(private readonly text: string) {}
  lineAt(offset: number): number {
    if (offset < this.offset) {
      this.offset = 0;
      this.line = 0;
    }
    let i = this.text.indexOf('\n', this.offset);
    while (i !== -1 && i < offset) {
      this.line++;
      i = this.text.indexOf('\n', i + 1);
    }
    this.offset = offset;
    return this.line;
  }
}

function summarize(
  text: string,
  raw: readonly RawMatch[],
  convention: 'default' | 'custom',
  limitedToSelection: boolean,
  stop: Stop | undefined,
  totalChars: number,
): ExtractResult {
  const lines = new LineCounter(text);
  const occurrences: TestIdOccurrence[] = [];
  let emptyMatches = 0;
  for (const m of raw) {
    const id = m.id?.trim() ?? '';
    if (id === '') {
      emptyMatches++;
      continue;
    }
    occurrences.push({ id, offset: m.offset, line: lines.lineAt(m.offset) });
  }
  const byId = new Map<string, TestIdOccurrence[]>();
  for (const o of occurrences) {
    const list = byId.get(o.id);
    if (list) list.push(o);
    else byId.set(o.id, [o]);
  }
  const duplicates: DuplicateId[] = [];
  for (const [id, list] of byId) {
    if (list.length > 1) duplicates.push({ id, count: list.length, lines: list.map((o) => o.line) });
  }
  const result: ExtractResult = {
    ids: [...byId.keys()],
    occurrences,
    duplicates,
    emptyMatches,
    convention,
    limitedToSelection,
  };
  if (stop) {
    result.truncated = {
      reason: stop.reason,
      scannedChars: stop.scanned,
      totalChars,
      line: lines.lineAt(Math.min(text.length, Math.max(stop.absolute, occurrences[occurrences.length - 1]?.offset ?? 0))),
    };
  }
  return result;
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function resolveLimits(options: ExtractOptions): ScanLimits {
  return { ...DEFAULT_SCAN_LIMITS, ...options.limits };
}

function prepare(text: string, options: ExtractOptions): {
  segments: Segment[];
  total: number;
  sizeCut: boolean;
  limitedToSelection: boolean;
  limits: ScanLimits;
} {
  const limits = resolveLimits(options);
  const selected = selectionSegments(text, options.selections);
  const all = selected ?? [{ start: 0, end: text.length }];
  const total = all.reduce((n, s) => n + (s.end - s.start), 0);
  const { segments, cut } = capSegments(text, all, limits.maxChars);
  return { segments, total, sizeCut: cut, limitedToSelection: selected !== undefined, limits };
}

function execAll(
  text: string,
  re: RegExp,
  seg: Segment,
  onMatch: (m: RegExpExecArray) => boolean,
): void {
  // Scanning a slice keeps `^`/`$` and lookbehinds inside the segment, as if it were the file.
  const slice = text.slice(seg.start, seg.end);
  re.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(slice)) !== null) {
    if (m[0] === '') re.lastIndex++;
    m.index += seg.start;
    if (m.indices) {
      for (let g = 0; g < m.indices.length; g++) {
        const pair = m.indices[g];
        if (pair) {
          pair[0] += seg.start;
          pair[1] += seg.start;
        }
      }
    }
    if (!onMatch(m)) return;
  }
}

/**
 * Scans in this thread, chunk by chunk, checking the deadline between chunks. With `yielder`
 * it awaits between chunks so the editor never freezes.
 */
async function scanInThread(
  text: string,
  re: RegExp,
  interpret: (m: RegExpExecArray) => RawMatch | undefined,
  segments: Segment[],
  limits: ScanLimits,
  chunkChars: number,
  lineAligned: boolean,
  signal: AbortSignal | undefined,
  yielder: (() => Promise<void>) | undefined,
): Promise<ScanOutcome> {
  const started = Date.now();
  const raw: RawMatch[] = [];
  let scanned = 0;
  for (const seg of segments) {
    const chunks = lineAligned ? chunksOf(text, seg, chunkChars) : [seg];
    for (const chunk of chunks) {
      if (signal?.aborted) return { raw, stop: { reason: 'cancelled', scanned, absolute: chunk.start } };
      if (Date.now() - started > limits.timeBudgetMs) return { raw, stop: { reason: 'time', scanned, absolute: chunk.start } };
      let full = false;
      execAll(text, re, chunk, (m) => {
        const r = interpret(m);
        if (r) raw.push(r);
        if (raw.length >= limits.maxOccurrences) {
          full = true;
          return false;
        }
        return true;
      });
      if (full) {
        const last = raw[raw.length - 1];
        const absolute = last ? last.offset : chunk.end;
        return { raw, stop: { reason: 'count', scanned: scanned + (absolute - chunk.start), absolute } };
      }
      scanned += chunk.end - chunk.start;
      if (yielder) await yielder();
    }
  }
  return { raw };
}

/**
 * Finds the test IDs in `text`: document order, duplicates removed (and reported), limited to
 * the selections when there are any, bounded by size, time and count (and reported when cut).
 * Throws `TestIdPatternError` for an unusable `options.pattern`.
 */
export async function extractTestIds(text: string, options: ExtractOptions = {}): Promise<ExtractResult> {
  const prep = prepare(text, options);
  const custom = options.pattern !== undefined && options.pattern.trim() !== '';
  let outcome: Awaited<ReturnType<typeof scanInThread>>;
  if (custom) {
    const compiled = compileTestIdPattern(options.pattern ?? '');
    if (options.inThread) {
      const re = new RegExp(compiled.source, compiled.flags);
      outcome = await scanInThread(text, re, (m) => ({ id: m[1], offset: m.indices?.[1]?.[0] ?? m.index }),
        prep.segments, prep.limits, Number.MAX_SAFE_INTEGER, false, options.signal, undefined);
    } else {
      outcome = await scanInWorker(text, compiled, prep.segments, prep.limits, options.signal);
    }
  } else {
    const yaml = isYamlFile(options.fileName);
    const re = conventionRegExp(yaml);
    outcome = await scanInThread(text, re, (m) => defaultMatchToRaw(text, m, yaml), prep.segments, prep.limits,
      options.chunkChars ?? DEFAULT_CHUNK_CHARS, true, options.signal, yieldToEventLoop);
  }
  return finishResult(text, prep, outcome, custom ? 'custom' : 'default');
}

/** The built-in convention, synchronously, for small texts (no yielding; the limits still apply). */
export function extractTestIdsSync(text: string, options: Omit<ExtractOptions, 'pattern' | 'inThread'> = {}): ExtractResult {
  const prep = prepare(text, options);
  const yaml = isYamlFile(options.fileName);
  const re = conventionRegExp(yaml);
  const started = Date.now();
  const raw: RawMatch[] = [];
  let stop: Stop | undefined;
  let scanned = 0;
  outer: for (const seg of prep.segments) {
    for (const chunk of chunksOf(text, seg, options.chunkChars ?? DEFAULT_CHUNK_CHARS)) {
      if (Date.now() - started > prep.limits.timeBudgetMs) {
        stop = { reason: 'time', scanned, absolute: chunk.start };
        break outer;
      }
      let full = false;
      execAll(text, re, chunk, (m) => {
        const r = defaultMatchToRaw(text, m, yaml);
        if (r) raw.push(r);
        full = raw.length >= prep.limits.maxOccurrences;
        return !full;
      });
      if (full) {
        const last = raw[raw.length - 1];
        const absolute = last ? last.offset : chunk.end;
        stop = { reason: 'count', scanned: scanned + (absolute - chunk.start), absolute };
        break outer;
      }
      scanned += chunk.end - chunk.start;
    }
  }
  return finishResult(text, prep, stop ? { raw, stop } : { raw }, 'default');
}

function finishResult(
  text: string,
  prep: ReturnType<typeof prepare>,
  outcome: ScanOutcome,
  convention: 'default' | 'custom',
): ExtractResult {
  let stop = outcome.stop;
  if (!stop && prep.sizeCut) {
    const scanned = prep.segments.reduce((n, s) => n + (s.end - s.start), 0);
    const last = prep.segments[prep.segments.length - 1];
    stop = { reason: 'size', scanned, absolute: last ? last.end : 0 };
  }
  return summarize(text, outcome.raw, convention, prep.limitedToSelection, stop, prep.total);
}
