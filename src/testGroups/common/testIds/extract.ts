/**
 * Finding the test IDs of one text. Scanning is bounded: a character cap, a time budget and an
 * ID cap. The built-in convention is linear-time and runs in this thread, pausing to check the
 * deadline and yield to the event loop (inThread.ts); a user pattern runs in a worker (worker.ts).
 */
import { conventionRegExp, defaultMatchToRaw, isYamlFile } from './convention';
import { compileTestIdPattern } from './patterns';
import { scanAsync, scanSync, type InThreadScan, type ScanControl } from './inThread';
import { LineIndex } from './lines';
import { capSegments, selectionSegments } from './segments';
import {
  DEFAULT_CHUNK_CHARS, DEFAULT_SCAN_LIMITS, type DuplicateId, type ExtractOptions, type ExtractResult, type RawMatch,
  type ScanLimits, type ScanOutcome, type Segment, type Stop, type TestIdOccurrence,
} from './types';
import { scanInWorker } from './worker';

function summarize(
  text: string,
  raw: readonly RawMatch[],
  convention: 'default' | 'custom',
  limitedToSelection: boolean,
  stop: Stop | undefined,
  totalChars: number,
): ExtractResult {
  const lines = new LineIndex(text);
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

/**
 * The test IDs in `text`, in document order, each once; bounded by size, time and count (a cut is
 * reported). Throws `TestIdPatternError` for an unusable `options.pattern`.
 */
export async function extractTestIds(text: string, options: ExtractOptions = {}): Promise<ExtractResult> {
  const prep = prepare(text, options);
  const control = scanControl(options, prep.limits);
  const custom = options.pattern !== undefined && options.pattern.trim() !== '';
  let outcome: ScanOutcome;
  if (!custom) {
    outcome = await scanAsync(text, conventionScan(text, options), prep.segments, control);
  } else if (options.inThread) {
    const compiled = compileTestIdPattern(options.pattern ?? '');
    const re = new RegExp(compiled.source, compiled.flags);
    const scan: InThreadScan = {
      re,
      interpret: (m) => ({ id: m[1], offset: m.indices?.[1]?.[0] ?? m.index }),
      lineAligned: false,
      chunkChars: options.chunkChars ?? DEFAULT_CHUNK_CHARS,
    };
    outcome = await scanAsync(text, scan, prep.segments, control);
  } else {
    outcome = await scanInWorker(text, compileTestIdPattern(options.pattern ?? ''), prep.segments, prep.limits, options.signal);
  }
  return finishResult(text, prep, outcome, custom ? 'custom' : 'default');
}

/** The built-in convention, synchronously, for small texts (no yielding; the limits still apply). */
export function extractTestIdsSync(text: string, options: Omit<ExtractOptions, 'pattern' | 'inThread'> = {}): ExtractResult {
  const prep = prepare(text, options);
  const outcome = scanSync(text, conventionScan(text, options), prep.segments, scanControl(options, prep.limits));
  return finishResult(text, prep, outcome, 'default');
}

function scanControl(options: ExtractOptions, limits: ScanLimits): ScanControl {
  const control: ScanControl = { limits, now: options.now ?? Date.now };
  if (options.signal) control.signal = options.signal;
  return control;
}

function conventionScan(text: string, options: ExtractOptions): InThreadScan {
  const yaml = isYamlFile(options.fileName);
  const lines = new LineIndex(text);
  return {
    re: conventionRegExp(yaml),
    interpret: (m) => defaultMatchToRaw(text, m, yaml, lines),
    lineAligned: true,
    chunkChars: options.chunkChars ?? DEFAULT_CHUNK_CHARS,
  };
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
