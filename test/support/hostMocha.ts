// The extension-host side of a suite run by a launcher: VS Code loads the suite's index.js
// (extensionTestsPath) and calls its run(), which hands over to runSuiteInHost. Only `node:`
// imports and mocha: this module is loaded inside the extension host.
//
// Mocha's report goes to the file named in the test context, which the launcher streams to
// its terminal: the extension host's own stdout does not reach the launcher in code-server.
// When run without a launcher's context, the report goes to the console.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import Mocha from 'mocha';
import { findFiles } from './paths';
import { readTestContext, type TestRunResult } from './testContext';

export interface HostSuite {
  /** The compiled suite's folder: every `*.test.js` below it is run. */
  readonly dir: string;
  /** Mocha's per-test timeout when no launcher context names one. */
  readonly defaultTimeoutMs: number;
  /** Heads the report's explanation when the suite cannot load or run. */
  readonly couldNotRun: string;
}

export type SuiteStats = Pick<TestRunResult, 'passes' | 'failures' | 'pending'>;

/**
 * Runs the suite with mocha (bdd, spec reporter) and writes the launcher's result file when it
 * ends. Throws when the suite cannot run (no test files, a load error); resolves to mocha's
 * counts otherwise, failures included.
 */
export async function runSuiteInHost(suite: HostSuite): Promise<SuiteStats> {
  const context = readTestContext();
  const write = context
    ? (text: string) => fs.appendFileSync(context.reportFile, text)
    : (text: string) => process.stdout.write(text);
  Mocha.reporters.Base.consoleLog = (...args: unknown[]) => write(`${format(...args)}\n`);

  const finish = (result: TestRunResult) => {
    if (context) {
      fs.writeFileSync(context.resultFile, JSON.stringify(result));
    }
  };

  const mocha = new Mocha({
    ui: 'bdd',
    reporter: 'spec',
    color: context?.color ?? false,
    timeout: context?.testTimeoutMs ?? suite.defaultTimeoutMs,
    ...(context?.grep ? { grep: context.grep } : {}),
  });
  const files = findFiles(suite.dir, '.test.js');
  if (files.length === 0) {
    const error = `No *.test.js files in ${suite.dir}`;
    finish({ passes: 0, failures: 0, pending: 0, error });
    throw new Error(error);
  }
  for (const file of files) {
    mocha.addFile(path.resolve(file));
  }

  let stats: SuiteStats;
  try {
    await mocha.loadFilesAsync();
    stats = await new Promise((resolve) => {
      const runner = mocha.run(() => {
        resolve({ passes: runner.stats?.passes ?? 0, failures: runner.stats?.failures ?? 0, pending: runner.stats?.pending ?? 0 });
      });
    });
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    write(`\n${suite.couldNotRun}:\n${message}\n`);
    finish({ passes: 0, failures: 0, pending: 0, error: message });
    throw error;
  }
  finish(stats);
  return stats;
}
