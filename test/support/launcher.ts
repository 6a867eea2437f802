// How every launcher (scripts/run-*.ts, test/faults/run.ts) starts and ends: cleanup handlers
// first; then, however main ends (a status, an exception), everything it started is released
// before the process exits with that status.
import { installCleanupHandlers, runCleanups } from './processes';
import { summaryLine } from './reportStream';
import type { TestRunResult } from './testContext';

export type Log = (message: string) => void;

/** A launcher's log: `[tag] message` on stderr (stdout carries the test report). */
export function launcherLog(tag: string): Log {
  return (message) => {
    process.stderr.write(`[${tag}] ${message}\n`);
  };
}

/**
 * Installs the cleanup handlers and runs `main`. An exception is logged and means status 1.
 * The process exits with main's status once every cleanup has run.
 */
export function runLauncher(log: Log, main: () => Promise<number>): void {
  installCleanupHandlers();
  void main()
    .catch((error: unknown) => {
      log(`ERROR: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return 1;
    })
    .then(async (code) => {
      await runCleanups();
      process.exit(code);
    });
}

/**
 * The end of an extension-host suite's run: says why it could not run, if so, prints the
 * closing `<tier>: N passed, ...` line, and returns the exit status (1 on a failure or error).
 */
export function resultStatus(tier: string, result: TestRunResult, log: Log): number {
  const { passes, failures, pending, error } = result;
  if (error) {
    log(`the suite could not run: ${error.split('\n')[0]}`);
  }
  process.stdout.write(`\n${summaryLine(tier, { passes, failures, pending })}\n`);
  return failures > 0 || error ? 1 : 0;
}
