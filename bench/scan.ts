/**
 * The built-in test-ID scan on the worst case issue 12 §7 names for the extension host's
 * thread: a 5 MB JSON file on one line with 10,000 `"testId"` keys, scanned the way the
 * extension scans it (`extractTestIds`: the default limits, pauses every 64 KB, yielding to the
 * event loop). src/base/common/testIds has no `vscode` import, so it runs here in plain Node.
 */
import { performance } from 'node:perf_hooks';
import { extractTestIds } from '../src/testGroups/common/testIds/index';
import type { Report } from './report';
import { median, spread } from './stats';

const IDS = 10_000;
const CHARS = 5 * 1024 * 1024;
const RUNS = 5;
export const SCAN_BUDGET_MS = 1000;

/** `[{"testId":"T-0",…},…]` on one line, about `CHARS` long. */
function oneLineJson(): string {
  const pad = 'x'.repeat(Math.floor(CHARS / IDS) - 50);
  return `[${Array.from({ length: IDS }, (_, i) => `{"testId":"T-${i}","name":"case ${i}","pad":"${pad}"}`).join(',')}]`;
}

/** One scan: its duration and the longest the event loop waited meanwhile (a ticker's longest gap). */
async function scanOnce(text: string): Promise<{ ms: number; stallMs: number; ids: number; truncated: string | undefined }> {
  let last = performance.now();
  let stallMs = 0;
  let ticking = true;
  const tick = (): void => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const started = performance.now();
  const result = await extractTestIds(text, { fileName: 'cases.json' });
  const ms = performance.now() - started;
  ticking = false;
  stallMs = Math.max(stallMs, performance.now() - last);
  return { ms, stallMs, ids: result.ids.length, truncated: result.truncated?.reason };
}

export async function measureScan(report: Report): Promise<void> {
  const text = oneLineJson();
  const name = `Test-ID scan: ${(text.length / 1024 / 1024).toFixed(1)} MB one-line JSON, 10,000 IDs`;
  await scanOnce(text); // warm-up: compiles the regex and the scan
  const samples: number[] = [];
  const stalls: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const run = await scanOnce(text);
    if (run.ids !== IDS || run.truncated !== undefined) {
      // A scan that stopped early (time budget) did not measure the scan.
      throw new Error(`the scan found ${run.ids} of ${IDS} IDs${run.truncated ? ` and stopped (${run.truncated})` : ''}`);
    }
    samples.push(run.ms);
    stalls.push(run.stallMs);
  }
  report.add('scan', {
    name,
    value: median(samples),
    unit: 'ms',
    budget: { op: '<', limit: SCAN_BUDGET_MS },
    note: `median of ${RUNS} scans after a warm-up, all ${IDS} IDs found; ${spread(samples, 'ms')}`,
    samples,
  });
  report.add('scan', {
    name: 'Test-ID scan: longest event-loop wait during that scan',
    value: median(stalls),
    unit: 'ms',
    note: `median over the ${RUNS} scans of the longest gap between turns of a setImmediate ticker; ${spread(stalls, 'ms')}`,
    samples: stalls,
  });
}
