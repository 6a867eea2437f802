// Brings the extension host's mocha report to the launcher's terminal: the test entry
// (test/integration/index.ts) appends to a file, the launcher streams new bytes as they come.
import * as fs from 'node:fs';
import type { TestRunResult } from './testContext';

export interface FileStream {
  /** Whether anything has been written yet (the suite started). */
  started(): boolean;
  /** Copies what is left and stops. */
  stop(): void;
}

export function streamFile(file: string, out: NodeJS.WritableStream = process.stdout): FileStream {
  let offset = 0;
  const pump = () => {
    let size: number;
    try {
      size = fs.statSync(file).size;
    } catch {
      return; // not created yet
    }
    if (size <= offset) {
      return;
    }
    const buffer = Buffer.alloc(size - offset);
    const fd = fs.openSync(file, 'r');
    try {
      fs.readSync(fd, buffer, 0, buffer.length, offset);
    } finally {
      fs.closeSync(fd);
    }
    offset = size;
    out.write(buffer);
  };
  const timer = setInterval(pump, 100);
  return {
    started: () => offset > 0 || fs.existsSync(file),
    stop: () => {
      clearInterval(timer);
      pump();
    },
  };
}

/** The result file the test entry writes at the end, or undefined while there is none. */
export function readResult(file: string): TestRunResult | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  return text.length > 0 ? (JSON.parse(text) as TestRunResult) : undefined;
}

/** The closing line CI reads: `<tier>: N passed, N failed, N skipped`. */
export function summaryLine(tier: string, result: Pick<TestRunResult, 'passes' | 'failures' | 'pending'>): string {
  return `${tier}: ${result.passes} passed, ${result.failures} failed, ${result.pending} skipped`;
}
