/**
 * Test files and test IDs, without `vscode`: which paths are test files (globs), and which
 * test IDs a file holds (a documented convention, or a user regular expression).
 *
 * Scanning is bounded: a character cap, a time budget, and an ID cap. The built-in convention
 * is linear-time and runs here in chunks that yield to the event loop; a user pattern may
 * backtrack catastrophically, so it runs in a worker thread that is terminated at the deadline.
 */
import { Worker } from 'node:worker_threads';

// ------------------------------------------------------------------ test file globs

// In their own module (the context keys need them at activation, the scanning does not).
export {
  DEFAULT_TEST_FILE_PATTERNS, normalizeGlob, globToRegExpSource, compileTestFileGlobs, globsToWhenClauseRegex,
  type TestFileMatcher,
} from './testFileGlobs';

// ------------------------------------------------------------------ file names

const TEST_NAME_AFFIXES: readonly RegExp[] = [
  /[._-](?:test|tests|spec|specs|e2e|it)$/i,
  /^(?:test|tests|spec)[._-]/i,
  /(?<=[a-z0-9])(?:Tests?|Spec)$/,
];

/** `checkout.test.ts` → `checkout`; `test_login.py` → `login`; `CartTest.java` → `Cart`. */
export function testNameFromFileName(fileName: string): string {
  const base = fileName.replace(/\\/g, '/').split('/').pop() ?? fileName;
  let name = base.replace(/^\.+/, '');
  // Drop extensions, keeping at least one character: `a.test.ts` → `a.test` → `a`.
  const dot = name.lastIndexOf('.');
  if (dot > 0) name = name.slice(0, dot);
  for (const affix of TEST_NAME_AFFIXES) {
    const stripped = name.replace(affix, '');
    if (stripped !== '') name = stripped;
  }
  const dot2 = name.lastIndexOf('.');
  if (dot2 > 0 && /^(?:test|tests|spec|specs|e2e)$/i.test(name.slice(dot2 + 1))) name = name.slice(0, dot2);
  return name.trim() === '' ? base : name.trim();
}

/** The default group name for the given files, in order: `checkout`, `checkout, login`, `a, b, c, …`. */
export function defaultGroupName(fileNames: readonly string[]): string {
  const names: string[] = [];
  for (const f of fileNames) {
    const n = testNameFromFileName(f);
    if (!names.includes(n)) names.push(n);
  }
  if (names.length <= 3) return names.join(', ');
  return `${names.slice(0, 3).join(', ')}, …`;
}

// ------------------------------------------------------------------ test ID patterns

export const MAX_PATTERN_LENGTH = 1000;

export type PatternProblem =
  | { kind: 'invalid'; detail: string }
  | { kind: 'invalidFlags'; detail: string }
  | { kind: 'groupCount'; groups: number }
  | { kind: 'matchesEmpty' }
  | { kind: 'tooLong'; max: number };

export class TestIdPatternError extends Error {
  constructor(readonly pattern: string, readonly problem: PatternProblem) {
    super(describePatternProblem(pattern, problem));
    this.name = 'TestIdPatternError';
  }
}

/** An English description; the extension shows its own localised text built from `problem`. */
export function describePatternProblem(pattern: string, problem: PatternProblem): string {
  switch (problem.kind) {
    case 'invalid':
      return `The test ID pattern ${pattern} is not a valid regular expression: ${problem.detail}`;
    case 'invalidFlags':
      return `The test ID pattern ${pattern} has unsupported flags: ${problem.detail}`;
    case 'groupCount':
      return `The test ID pattern ${pattern} must have exactly one capture group (the test ID); it has ${problem.groups}.`;
    case 'matchesEmpty':
      return `The test ID pattern ${pattern} matches empty text, so it would match everywhere.`;
    case 'tooLong':
      return `The test ID pattern is longer than ${problem.max} characters.`;
  }
}

export interface CompiledPattern {
  source: string;
  /** Always includes `g`, `d` and `m`. */
  flags: string;
}

const ALLOWED_USER_FLAGS = new Set(['i', 'm', 's', 'u', 'v']);

/**
 * Checks a user pattern (`agentRuns.testIds.pattern`): plain `testId=(\w+)` or a literal
 * `/testId=(\w+)/i`. It must compile, have exactly one capture group (named groups count),
 * and must not match empty text. Returns the source and flags to scan with; throws
 * `TestIdPatternError` otherwise.
 */
export function compileTestIdPattern(pattern: string): CompiledPattern {
  if (pattern.length > MAX_PATTERN_LENGTH) throw new TestIdPatternError(pattern, { kind: 'tooLong', max: MAX_PATTERN_LENGTH });
  let source = pattern;
  let userFlags = '';
  const literal = /^\/([^]*)\/([a-z]*)$/.exec(pattern.trim());
  if (literal && literal[1] !== '') {
    source = literal[1];
    userFlags = literal[2];
    const bad = [...userFlags].filter((f) => !ALLOWED_USER_FLAGS.has(f) && !'gdy'.includes(f));
    if (bad.length > 0) {
      throw new TestIdPatternError(pattern, { kind: 'invalidFlags', detail: `${bad.join('')} (allowed: i, m, s, u, v)` });
    }
    userFlags = [...new Set(userFlags.replace(/[gdy]/g, ''))].join('');
  }
  const flags = `gdm${userFlags.replace('m', '')}`;
  let groups: number;
  try {
    new RegExp(source, flags);
    // `x|` always matches '' through its empty branch, so exec returns every group.
    groups = (new RegExp(`${source}|`, flags.replace('g', '')).exec('')?.length ?? 1) - 1;
  } catch (e) {
    const detail = e instanceof Error ? e.message.replace(/^Invalid regular expression: /, '') : String(e);
    throw new TestIdPatternError(pattern, { kind: 'invalid', detail });
  }
  if (groups !== 1) throw new TestIdPatternError(pattern, { kind: 'groupCount', groups });
  if (new RegExp(`^(?:${source})$`, flags.replace('g', '')).test('')) {
    throw new TestIdPatternError(pattern, { kind: 'matchesEmpty' });
  }
  return { source, flags };
}

// ------------------------------------------------------------------ the default convention

/*
 * One regex, several branches; the first defined group is the ID. All branches stay on one
 * line ([ \t], [^\r\n]) so the text can be scanned in line-aligned chunks, and none nests
 * quantifiers, so it runs in linear time.
 *   1–3  key: `testId: "…"`, `"testId": "…"`, `'testId': '…'`, `testId: \`…\``
 *   4–6  annotation: `@testId ID`, `@testId: ID`, `@testId "ID with spaces"`
 *   7–8  decorator: `@testId("ID")`, `@TestId('ID')`
 * In YAML files a first branch (group 1, shifting the others by one) takes a bare value on
 * its own line: `testId: ID`, `- testId: ID  # comment`.
 */
const KEY = String.raw`(?<![\w$@.])(?:"testId"|'testId'|testId)[ \t]*:[ \t]*(?:"((?:[^"\\\r\n]|\\.)*)"|'((?:[^'\\\r\n]|\\.)*)'|` +
  '`' + String.raw`([^` + '`' + String.raw`\\\r\n$]*)` + '`)';
const ANNOTATION = String.raw`@[tT]estId(?:[ \t]*:[ \t]*|[ \t]+)(?:"([^"\r\n]+)"|'([^'\r\n]+)'|([^\s"'` + '`' + String.raw`]+))`;
const DECORATOR = String.raw`@[tT]estId\([ \t]*(?:"([^"\r\n]+)"|'([^'\r\n]+)')[ \t]*\)`;
const YAML_BARE = String.raw`^[ \t]*(?:-[ \t]+)?testId[ \t]*:[ \t]+([^\s"'#&*!|>{}\[\],` + '`' + String.raw`@%][^\r\n]*?)[ \t]*(?:[ \t]#[^\r\n]*)?$`;

const DEFAULT_SOURCE = `${KEY}|${ANNOTATION}|${DECORATOR}`;
const DEFAULT_SOURCE_YAML = `${YAML_BARE}|${DEFAULT_SOURCE}`;

/** Where the key branch sits in each default regex (1-based group of the first key group). */
const KEY_GROUPS_DEFAULT = [1, 2, 3];
const KEY_GROUPS_YAML = [2, 3, 4];

function isYamlFile(fileName: string | undefined): boolean {
  return fileName !== undefined && /\.ya?ml$/i.test(fileName);
}

/** Lines starting like a comment hold commented-out definitions: keys there do not count. */
const COMMENT_LINE_START = /^[ \t]*(?:\/\/|#|\/\*|\*|<!--|--|;)/;

function unescapeQuoted(raw: string, quote: '"' | "'" | '`'): string {
  if (!raw.includes('\\')) return raw;
  if (quote === '"') {
    try {
      const parsed: unknown = JSON.parse(`"${raw}"`);
      if (typeof parsed === 'string') return parsed;
    } catch {
      // Not JSON-escaped: fall through to the simple rule.
    }
  }
  return raw.replace(/\\(.)/g, '$1');
}

// Trailing comment closers that hug an annotation's ID (`@testId A-1*` + `/`, `@testId A-1-->`).
function trimAnnotationId(id: string): string {
  return id.replace(/(?:\*\/|-->|[,;)])+$/, '');
}

// ------------------------------------------------------------------ extraction

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

/** The default chunk size of the in-thread scan: each chunk runs without yielding. */
export const DEFAULT_CHUNK_CHARS = 64 * 1024;

export interface ExtractOptions {
  /** `agentRuns.testIds.pattern`; empty or absent means the built-in convention. */
  pattern?: string;
  /** Used to enable YAML bare values (`.yml`/`.yaml`) for the built-in convention. */
  fileName?: string;
  /** Limit to these ranges (each widened to whole lines); empty ranges are ignored. */
  selections?: readonly OffsetRange[];
  limits?: Partial<ScanLimits>;
  /** Chunk size of the in-thread scan (tests make it small). */
  chunkChars?: number;
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

interface Segment {
  start: number;
  end: number;
}

/** Widens every non-empty range to whole lines, sorts and merges them. */
export function selectionSegments(text: string, selections: readonly OffsetRange[] | undefined): Segment[] | undefined {
  const nonEmpty = (selections ?? []).filter((s) => s.end > s.start);
  if (nonEmpty.length === 0) return undefined;
  const widened = nonEmpty
    .map((s) => {
      const start = Math.max(0, Math.min(s.start, text.length));
      let end = Math.max(start, Math.min(s.end, text.length));
      const lineStart = text.lastIndexOf('\n', start - 1) + 1;
      // A selection ending at column 0 of a line does not include that line.
      if (end > start && text[end - 1] === '\n') end--;
      const nl = text.indexOf('\n', end);
      const lineEnd = nl === -1 ? text.length : nl + 1;
      return { start: lineStart, end: lineEnd };
    })
    .sort((a, b) => a.start - b.start);
  const merged: Segment[] = [];
  for (const s of widened) {
    const last = merged[merged.length - 1];
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ ...s });
  }
  return merged;
}

/** Cuts the segments so their total length is at most `maxChars`, at a line end when one is near. */
function capSegments(text: string, segments: Segment[], maxChars: number): { segments: Segment[]; cut: boolean } {
  const out: Segment[] = [];
  let left = maxChars;
  for (const s of segments) {
    if (left <= 0) return { segments: out, cut: true };
    const len = s.end - s.start;
    if (len <= left) {
      out.push(s);
      left -= len;
      continue;
    }
    let end = s.start + left;
    const nl = text.lastIndexOf('\n', end - 1);
    if (nl >= s.start && end - nl < 64 * 1024) end = nl + 1;
    // Never split a surrogate pair.
    const code = text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end--;
    if (end > s.start) out.push({ start: s.start, end });
    return { segments: out, cut: true };
  }
  return { segments: out, cut: false };
}

/** Splits a segment into chunks of about `size` characters, each ending at a line end when possible. */
function* chunksOf(text: string, seg: Segment, size: number): Generator<Segment> {
  let start = seg.start;
  while (start < seg.end) {
    let end = Math.min(seg.end, start + size);
    if (end < seg.end) {
      const nl = text.indexOf('\n', end);
      end = nl === -1 || nl >= seg.end ? seg.end : nl + 1;
    }
    yield { start, end };
    start = end;
  }
}

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

interface RawMatch {
  id: string | undefined;
  offset: number;
}

interface Stop {
  reason: TruncationReason;
  /** Characters of the scanned ranges covered before stopping. */
  scanned: number;
  /** Offset in the text where scanning stopped. */
  absolute: number;
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

/** Interprets one match of a default regex: the first defined group is the ID. */
function defaultMatchToRaw(text: string, m: RegExpExecArray, yaml: boolean): RawMatch | undefined {
  const keyGroups = yaml ? KEY_GROUPS_YAML : KEY_GROUPS_DEFAULT;
  for (let g = 1; g < m.length; g++) {
    const value = m[g];
    if (value === undefined) continue;
    const at = m.indices?.[g]?.[0] ?? m.index;
    if (keyGroups.includes(g)) {
      const lineStart = text.lastIndexOf('\n', m.index - 1) + 1;
      if (COMMENT_LINE_START.test(text.slice(lineStart, m.index))) return undefined;
      const quote = g === keyGroups[0] ? '"' : g === keyGroups[1] ? "'" : '`';
      return { id: unescapeQuoted(value, quote), offset: at };
    }
    const isAnnotationBare = g === (yaml ? 7 : 6);
    return { id: isAnnotationBare ? trimAnnotationId(value) : value, offset: at };
  }
  return undefined;
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
): Promise<{ raw: RawMatch[]; stop?: Stop }> {
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

// The worker that runs a user pattern. Plain JS, self-contained, so the bundle needs no extra file.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { source, flags, segments, maxOccurrences } = workerData;
const re = new RegExp(source, flags);
let batch = [];
let total = 0;
let lastPost = Date.now();
let scanned = 0;
function post(done, absolute) {
  parentPort.postMessage({ done, matches: batch, scanned, absolute });
  batch = [];
  lastPost = Date.now();
}
outer: for (const seg of segments) {
  const text = seg.text;
  re.lastIndex = 0;
  let m;
  while ((m = re.exec(text)) !== null) {
    if (m[0] === '') re.lastIndex++;
    const at = m.indices && m.indices[1] ? m.indices[1][0] : m.index;
    batch.push([m[1] === undefined ? null : m[1], seg.start + at]);
    total++;
    if (total >= maxOccurrences) {
      parentPort.postMessage({ done: true, full: true, matches: batch, scanned: scanned + at, absolute: seg.start + at });
      batch = [];
      break outer;
    }
    if (batch.length >= 256 || Date.now() - lastPost > 25) post(false, seg.start + re.lastIndex);
  }
  scanned += text.length;
  if (total < maxOccurrences) post(false, seg.start + text.length);
}
if (total < maxOccurrences) post(true, 0);
`;

interface WorkerReply {
  done: boolean;
  full?: boolean;
  matches: [string | null, number][];
  scanned: number;
  absolute: number;
}

/**
 * Runs a user pattern in a worker thread and terminates it at the deadline, so a pattern that
 * backtracks catastrophically costs at most the time budget and never blocks the editor.
 */
function scanInWorker(
  text: string,
  compiled: CompiledPattern,
  segments: Segment[],
  limits: ScanLimits,
  signal: AbortSignal | undefined,
): Promise<{ raw: RawMatch[]; stop?: Stop }> {
  return new Promise((resolve, reject) => {
    const raw: RawMatch[] = [];
    let scanned = 0;
    let absolute = segments[0]?.start ?? 0;
    let settled = false;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        source: compiled.source,
        flags: compiled.flags,
        segments: segments.map((s) => ({ start: s.start, text: text.slice(s.start, s.end) })),
        maxOccurrences: limits.maxOccurrences,
      },
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    const finish = (stop?: Stop, error?: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      if (error !== undefined) reject(error instanceof Error ? error : new Error('The test ID scan failed.'));
      else resolve(stop ? { raw, stop } : { raw });
    };
    const onAbort = (): void => finish({ reason: 'cancelled', scanned, absolute });
    const timer = setTimeout(() => finish({ reason: 'time', scanned, absolute }), limits.timeBudgetMs);
    signal?.addEventListener('abort', onAbort);
    if (signal?.aborted) onAbort();
    worker.on('message', (reply: WorkerReply) => {
      for (const [id, offset] of reply.matches) raw.push({ id: id ?? undefined, offset });
      scanned = reply.scanned;
      absolute = reply.absolute;
      if (reply.full) finish({ reason: 'count', scanned, absolute });
      else if (reply.done) finish();
    });
    worker.on('error', (err) => finish(undefined, err));
    worker.on('exit', () => finish(undefined, new Error('The test ID scan stopped unexpectedly.')));
  });
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
    const re = new RegExp(yaml ? DEFAULT_SOURCE_YAML : DEFAULT_SOURCE, 'gdm');
    outcome = await scanInThread(text, re, (m) => defaultMatchToRaw(text, m, yaml), prep.segments, prep.limits,
      options.chunkChars ?? DEFAULT_CHUNK_CHARS, true, options.signal, yieldToEventLoop);
  }
  return finishResult(text, prep, outcome, custom ? 'custom' : 'default');
}

/** The built-in convention, synchronously, for small texts (no yielding; the limits still apply). */
export function extractTestIdsSync(text: string, options: Omit<ExtractOptions, 'pattern' | 'inThread'> = {}): ExtractResult {
  const prep = prepare(text, options);
  const yaml = isYamlFile(options.fileName);
  const re = new RegExp(yaml ? DEFAULT_SOURCE_YAML : DEFAULT_SOURCE, 'gdm');
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
  outcome: { raw: RawMatch[]; stop?: Stop },
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

// ------------------------------------------------------------------ several files

export interface FileTestIds {
  /** How the file is shown (workspace-relative path). */
  file: string;
  result: ExtractResult;
}

export interface MergedTestIds {
  /** Unique IDs in order: files in the given order, document order within each. */
  ids: { id: string; file: string }[];
  /** IDs found in more than one file (kept once, at their first file). */
  crossFileDuplicates: { id: string; files: string[] }[];
  /** Files where nothing was found. */
  filesWithoutIds: string[];
}

export function mergeFileTestIds(files: readonly FileTestIds[]): MergedTestIds {
  const seen = new Map<string, string[]>();
  const ids: { id: string; file: string }[] = [];
  const filesWithoutIds: string[] = [];
  for (const { file, result } of files) {
    if (result.ids.length === 0) filesWithoutIds.push(file);
    for (const id of result.ids) {
      const where = seen.get(id);
      if (where) {
        if (!where.includes(file)) where.push(file);
        continue;
      }
      seen.set(id, [file]);
      ids.push({ id, file });
    }
  }
  const crossFileDuplicates = [...seen.entries()].filter(([, f]) => f.length > 1).map(([id, f]) => ({ id, files: f }));
  return { ids, crossFileDuplicates, filesWithoutIds };
}

// ------------------------------------------------------------------ the run prompt

export interface PromptFile {
  /** Workspace-relative path. */
  file: string;
  ids: readonly string[];
  /** 1-based inclusive line range when limited to a selection. */
  lines?: { from: number; to: number };
}

/** The sentences of the prompt, passed in localised by the extension. */
export interface TestsPromptText {
  /** One file: `Work on these tests in {file}: {ids}`. */
  one(file: string, ids: string): string;
  /** Several files, first line: `Work on these tests in {count} files ({names}):`. */
  many(count: number, names: string): string;
  /** In place of the IDs when a file has none. */
  noIds: string;
  /** After a path when limited to a selection: `lines 3–9`. */
  linesLabel(from: number, to: number): string;
}

/**
 * The prompt pre-filled by "Start Agent Run for These Tests". One file gives one line (easy
 * to extend in the launch form's prompt box); several files give a summary line, then one
 * `- path: IDs` line per file, in order.
 */
export function buildTestsPrompt(files: readonly PromptFile[], text: TestsPromptText): string {
  const label = (f: PromptFile): string => (f.lines ? `${f.file} (${text.linesLabel(f.lines.from, f.lines.to)})` : f.file);
  const ids = (f: PromptFile): string => (f.ids.length > 0 ? f.ids.join(', ') : text.noIds);
  const [only] = files;
  if (files.length === 1 && only) return text.one(label(only), ids(only));
  const names = files.map((f) => f.file.replace(/\\/g, '/').split('/').pop() ?? f.file);
  const shown = names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')}, …`;
  return [text.many(files.length, shown), ...files.map((f) => `- ${label(f)}: ${ids(f)}`)].join('\n');
}
