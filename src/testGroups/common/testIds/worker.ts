/**
 * A user pattern runs in a worker thread that is terminated at the deadline: it may backtrack
 * catastrophically, and then it costs at most the time budget and never blocks the editor.
 */
import { Worker } from 'node:worker_threads';
import type { CompiledPattern } from './patterns';
import type { RawMatch, ScanLimits, ScanOutcome, Segment, Stop } from './types';

// The worker that runs a user pattern. Plain JS, self-contained, so the bundle needs no extra file.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { source, flags, segments, maxOccurrences } = workerData;
const re = new RegExp(source, flags);
let batch = [];
let total = 0;
let lastPost = Date.now();
let scanned = 0;
let last = [0, segments.length > 0 ? segments[0].start : 0];
let full = false;
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
    if (total >= maxOccurrences) {
      // One past the cap: stop where the last collected ID was (exactly the cap is no truncation).
      parentPort.postMessage({ done: true, full: true, matches: batch, scanned: last[0], absolute: last[1] });
      full = true;
      break outer;
    }
    batch.push([m[1] === undefined ? null : m[1], seg.start + at]);
    total++;
    last = [scanned + at, seg.start + at];
    if (batch.length >= 256 || Date.now() - lastPost > 25) post(false, seg.start + re.lastIndex);
  }
  scanned += text.length;
  post(false, seg.start + text.length);
}
if (!full) post(true, 0);
`;

interface WorkerReply {
  done: boolean;
  full?: boolean;
  matches: [string | null, number][];
  scanned: number;
  absolute: number;
}

/** Scans the segments with a user pattern in a worker thread, stopped at the deadline. */
export function scanInWorker(
  text: string,
  compiled: CompiledPattern,
  segments: Segment[],
  limits: ScanLimits,
  signal: AbortSignal | undefined,
): Promise<ScanOutcome> {
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
