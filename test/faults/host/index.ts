// The extension-host entry of the fault suite: code-server loads this module
// (extensionTestsPath) and calls run(). Like test/integration/index.ts, but it runs only the
// fault scenarios next to it, and their records go to the file the launcher named in
// AGENT_RUNS_FAULTS_RECORDS (test/faults/registry.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import Mocha from 'mocha';
import { findFiles } from '../../support/paths';
import { readTestContext, type TestRunResult } from '../../support/testContext';
import { installCrashDetectors } from '../registry';

export async function run(): Promise<void> {
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
    timeout: context?.testTimeoutMs ?? 60_000,
    ...(context?.grep ? { grep: context.grep } : {}),
  });
  for (const file of findFiles(__dirname, '.test.js')) {
    mocha.addFile(path.resolve(file));
  }
  const uninstall = installCrashDetectors();
  let stats: { passes: number; failures: number; pending: number };
  try {
    await mocha.loadFilesAsync();
    stats = await new Promise((resolve) => {
      const runner = mocha.run(() => {
        resolve({ passes: runner.stats?.passes ?? 0, failures: runner.stats?.failures ?? 0, pending: runner.stats?.pending ?? 0 });
      });
    });
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    write(`\nThe fault scenarios could not run in the extension host:\n${message}\n`);
    finish({ passes: 0, failures: 0, pending: 0, error: message });
    throw error;
  } finally {
    uninstall();
  }
  finish(stats);
}
