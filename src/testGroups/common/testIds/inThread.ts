/**
 * Scanning in this thread, bounded by the time budget and the ID cap even inside one long line:
 * it pauses every `chunkChars` (deadline, signal, a yield) keeping only `lastIndex`, so the matches
 * equal one pass; between pauses runs one `exec`, linear for the built-in regex (convention.ts).
 */
import { chunksOf } from './segments';
import type { RawMatch, ScanLimits, ScanOutcome, Segment, Stop } from './types';

export interface InThreadScan {
  re: RegExp;
  /** The match as an ID and its offset, or undefined for a match that does not count. */
  interpret(m: RegExpExecArray): RawMatch | undefined;
  /** Line-aligned chunks (the built-in convention); a user pattern may span lines, so it gets whole segments. */
  lineAligned: boolean;
  /** Characters scanned between pauses. */
  chunkChars: number;
}

export interface ScanControl {
  limits: ScanLimits;
  signal?: AbortSignal;
  /** Milliseconds; tests inject a clock. */
  now: () => number;
}

/** Where the scan is at a pause: characters of the segments covered, and the offset in the text. */
interface Pause {
  scanned: number;
  absolute: number;
}

/** Shifts a match of a slice that starts at `offset` to offsets in the whole text. */
function shiftMatch(m: RegExpExecArray, offset: number): void {
  m.index += offset;
  if (!m.indices) return;
  for (const pair of m.indices) {
    if (pair) {
      pair[0] += offset;
      pair[1] += offset;
    }
  }
}

/**
 * The scan as steps: yields a pause before each chunk and inside a long one; returns the stop
 * for the ID cap (an ID found past it: exactly the cap is no truncation), or undefined at the
 * end. Collects into `raw`.
 */
function* scanSteps(text: string, scan: InThreadScan, segments: readonly Segment[], maxOccurrences: number, raw: RawMatch[]): Generator<Pause, Stop | undefined> {
  const { re } = scan;
  let scanned = 0;
  // Where the last collected ID was: the ID cap stops there.
  let last: Pause = { scanned: 0, absolute: segments[0]?.start ?? 0 };
  for (const seg of segments) {
    const chunks = scan.lineAligned ? chunksOf(text, seg, scan.chunkChars) : [seg];
    for (const chunk of chunks) {
      yield { scanned, absolute: chunk.start };
      // Scanning a slice keeps `^`/`$` and lookbehinds inside the segment, as if it were the file.
      const slice = text.slice(chunk.start, chunk.end);
      re.lastIndex = 0;
      let pausedAt = 0;
      let m: RegExpExecArray | null;
      while ((m = re.exec(slice)) !== null) {
        if (m[0] === '') re.lastIndex++;
        shiftMatch(m, chunk.start);
        const found = scan.interpret(m);
        if (found) {
          if (raw.length >= maxOccurrences) return { reason: 'count', ...last };
          raw.push(found);
          last = { scanned: scanned + (found.offset - chunk.start), absolute: found.offset };
        }
        if (re.lastIndex - pausedAt >= scan.chunkChars) {
          pausedAt = re.lastIndex;
          yield { scanned: scanned + pausedAt, absolute: chunk.start + pausedAt };
        }
      }
      scanned += chunk.end - chunk.start;
    }
  }
  return undefined;
}

function stopAt(pause: Pause, control: ScanControl, started: number): Stop | undefined {
  if (control.signal?.aborted) return { reason: 'cancelled', ...pause };
  if (control.now() - started > control.limits.timeBudgetMs) return { reason: 'time', ...pause };
  return undefined;
}

function outcome(raw: RawMatch[], stop: Stop | undefined): ScanOutcome {
  return stop ? { raw, stop } : { raw };
}

/** One step of the scan: its outcome once it ended or must stop, else undefined (go on). */
function advance(steps: ReturnType<typeof scanSteps>, raw: RawMatch[], control: ScanControl, started: number): ScanOutcome | undefined {
  const step = steps.next();
  if (step.done) return outcome(raw, step.value);
  const stop = stopAt(step.value, control, started);
  return stop ? outcome(raw, stop) : undefined;
}

/** Runs the scan to its end or its first stop, without yielding. */
export function scanSync(text: string, scan: InThreadScan, segments: readonly Segment[], control: ScanControl): ScanOutcome {
  const started = control.now();
  const raw: RawMatch[] = [];
  const steps = scanSteps(text, scan, segments, control.limits.maxOccurrences, raw);
  for (;;) {
    const done = advance(steps, raw, control, started);
    if (done) return done;
  }
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Runs the scan, yielding to the event loop at every pause so the editor never freezes. */
export async function scanAsync(text: string, scan: InThreadScan, segments: readonly Segment[], control: ScanControl): Promise<ScanOutcome> {
  const started = control.now();
  const raw: RawMatch[] = [];
  const steps = scanSteps(text, scan, segments, control.limits.maxOccurrences, raw);
  for (;;) {
    const done = advance(steps, raw, control, started);
    if (done) return done;
    await yieldToEventLoop();
  }
}
