// The extension-host test entry: VS Code loads this module (extensionTestsPath) and calls
// run(), in code-server (scripts/run-integration.ts) or VS Code desktop through
// @vscode/test-electron (scripts/run-desktop.ts).
//
// Mocha's report goes to the file named in the test context, which the launcher streams to
// its terminal: the extension host's own stdout does not reach the launcher in code-server.
// When run without a launcher's context, the report goes to the console.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import Mocha from 'mocha';
import { findFiles } from '../support/paths';
import { readTestContext, type TestRunResult } from '../support/testContext';

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
    timeout: context?.testTimeoutMs ?? 20_000,
    ...(context?.grep ? { grep: context.grep } : {}),
  });
  const files = findFiles(__dirname, '.test.js');
  if (files.length === 0) {
    const error = `No *.test.js files in ${__dirname}`;
    finish({ passes: 0, failures: 0, pending: 0, error });
    throw new Error(error);
  }
  for (const file of files) {
    mocha.addFile(path.resolve(file));
  }

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
    write(`\nThe integration suite could not run:\n${message}\n`);
    finish({ passes: 0, failures: 0, pending: 0, error: message });
    throw error;
  }
  finish(stats);
  if (stats.failures > 0) {
    throw new Error(`${stats.failures} integration test(s) failed.`);
  }
}
