// Runs the UI tests (test/e2e/**/*.e2e.test.ts) with mocha in this process; each describe block
// opens its own workbench through test/e2e/harness.ts, all of them windows of one code-server
// (test/support/session.ts `startSharedSession`) in one Chromium.
//
//   npm run test:e2e [-- --grep <pattern>] [-- --vscode latest] [-- <file filter>...]
//
// `npm test` runs it whole on VS Code 1.139 and with `--grep "\[both versions\]"` on 1.100:
// the describes tagged so check what differs between versions (docs/TESTING.md).
// A file filter keeps the compiled test files whose path contains it (e.g. `workbench`).
// Everything started is stopped at the end, on a failure, on Ctrl+C and after the overall
// time limit (AGENT_RUNS_E2E_TIMEOUT_MS, default 35 minutes: the tier took 16 min on VS Code 1.139
// on a quiet 2-core machine, 10 min on 1.100).
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import { assertCodeServerInstalled, describeCodeServer } from '../test/support/codeServer';
import { findFiles, paths, takeVsCodeFlag } from '../test/support/paths';
import { launcherLog, runLauncher } from '../test/support/launcher';
import { runCleanups } from '../test/support/processes';
import { summaryLine } from '../test/support/reportStream';
import { sharedStats, snapshotVsix } from '../test/support/session';
import { workbenchStarts } from '../test/e2e/harness';

const RUN_TIMEOUT_MS = Number(process.env.AGENT_RUNS_E2E_TIMEOUT_MS ?? 35 * 60_000);

function parseArgs(input: readonly string[]): { grep?: string; filters: string[] } {
  const argv = [...input];
  takeVsCodeFlag(argv);
  const filters: string[] = [];
  let grep = process.env.AGENT_RUNS_TEST_GREP;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--grep') {
      grep = argv[++i];
    } else {
      filters.push(argv[i]);
    }
  }
  return grep ? { grep, filters } : { filters };
}

const log = launcherLog('e2e');

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  assertCodeServerInstalled();
  log(`in ${describeCodeServer()}`);
  snapshotVsix(); // every test file installs this same build
  const files = findFiles(path.join(paths.compiledTestRoot, 'e2e'), '.e2e.test.js').filter(
    (file) => args.filters.length === 0 || args.filters.some((filter) => file.includes(filter)),
  );
  if (files.length === 0) {
    throw new Error(`No e2e test files${args.filters.length > 0 ? ` matching ${args.filters.join(', ')}` : ''}: run npm run compile-tests`);
  }
  // Failure screenshots from an earlier run would be mistaken for this run's.
  if (fs.existsSync(paths.screenshots)) {
    for (const name of fs.readdirSync(paths.screenshots).filter((n) => n.startsWith('FAILED-'))) {
      fs.rmSync(path.join(paths.screenshots, name), { force: true });
    }
  }

  const mocha = new Mocha({
    ui: 'bdd',
    reporter: 'spec',
    color: process.stdout.isTTY === true,
    timeout: 60_000,
    ...(args.grep ? { grep: args.grep } : {}),
  });
  files.forEach((file) => mocha.addFile(file));
  await mocha.loadFilesAsync();

  const started = Date.now();
  const watchdog = setTimeout(() => {
    log(`FAILED: the UI tests did not finish within ${RUN_TIMEOUT_MS / 1000} s (AGENT_RUNS_E2E_TIMEOUT_MS)`);
    void runCleanups().finally(() => process.exit(1));
  }, RUN_TIMEOUT_MS);
  const stats = await new Promise<{ passes: number; failures: number; pending: number }>((resolve) => {
    const runner = mocha.run(() =>
      resolve({ passes: runner.stats?.passes ?? 0, failures: runner.stats?.failures ?? 0, pending: runner.stats?.pending ?? 0 }),
    );
  });
  clearTimeout(watchdog);
  process.stdout.write(`\n${summaryLine('e2e', stats)}\n`);
  log(`${workbenchStarts.count} workbench(es) started in ${(workbenchStarts.ms / 1000).toFixed(1)} s, on ${sharedStats.servers} shared code-server start(s)`);
  if (fs.existsSync(paths.screenshots)) {
    log(`screenshots in ${path.relative(process.cwd(), paths.screenshots)}/`);
  }
  log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (stats.passes + stats.failures === 0) {
    // A --grep that matches nothing (e.g. a renamed tag) would otherwise pass on no tests.
    log(`FAILED: no UI test matched${args.grep ? ` --grep ${args.grep}` : ''}`);
    return 1;
  }
  return stats.failures > 0 ? 1 : 0;
}

runLauncher(log, main);
