/**
 * `npm run bench`: measures what the extension costs the editor and checks the budgets of
 * issue 8. package.json builds first (`npm run test:setup`, `npm run package`, `tsc -p bench`).
 *
 *   npm run bench [-- --only activation,size,webview,network,history,memory,scan] [--cold-starts N] [--heap-snapshots]
 *
 * Prints the environment and a Markdown table (each figure with its budget and PASS/FAIL),
 * writes test-results/bench.json, and exits 1 when a budget is missed or a measurement failed.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { paths } from '../test/support/paths';
import { installCleanupHandlers, interruptedBy, runCleanups } from '../test/support/processes';
import { environment, environmentLines, markdownTable, Report, writeJson, type Environment, type Section } from './report';
import { measureActivation } from './activation';
import { snapshotBuild, type Build } from './build';
import { measureFullWindow } from './fullWindow';
import { measureMemory } from './memory';
import { configuredSettings, measureNetwork } from './network';
import { measureScan } from './scan';
import { measureSizes } from './size';
import { measureWebview } from './webview';

const SECTIONS: readonly Section[] = ['size', 'webview', 'network', 'history', 'activation', 'memory', 'scan'];

interface Options {
  readonly only: ReadonlySet<Section>;
  readonly coldStarts: number;
  /** Memory: also write a heap snapshot at each sample (test-results/bench-heap/). */
  readonly heapSnapshots: boolean;
}

function parseArgs(argv: readonly string[]): Options {
  let only = new Set<Section>(SECTIONS);
  let coldStarts = Number(process.env.AGENT_RUNS_BENCH_COLD_STARTS ?? 10);
  let heapSnapshots = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--only') {
      const names = (argv[++i] ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
      const unknown = names.filter((n) => !SECTIONS.includes(n as Section));
      if (unknown.length > 0) {
        throw new Error(`unknown section(s) ${unknown.join(', ')}; known: ${SECTIONS.join(', ')}`);
      }
      only = new Set(names as Section[]);
    } else if (arg === '--cold-starts') {
      coldStarts = Number(argv[++i]);
    } else if (arg === '--heap-snapshots') {
      heapSnapshots = true;
    } else {
      throw new Error(`unknown argument ${arg}`);
    }
  }
  if (!Number.isInteger(coldStarts) || coldStarts < 1) {
    throw new Error('--cold-starts needs a positive whole number');
  }
  return { only, coldStarts, heapSnapshots };
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

function gitDescription(): string | undefined {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: paths.repoRoot, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: paths.repoRoot, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head} + uncommitted changes` : head;
  } catch {
    return undefined;
  }
}

async function main(): Promise<number> {
  installCleanupHandlers();
  const options = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const env: Environment = environment();
  env.git = gitDescription();
  log(`${env.cpus} CPU(s), Node ${env.node}, load average ${env.loadAverageStart.join(' / ')}`);
  const report = new Report();
  // Taken when the first section that measures the build starts (network and history need none).
  let snapshot: Build | undefined;
  const build = (): Build => (snapshot ??= snapshotBuild());

  const run = async (section: Section, fn: () => Promise<void>): Promise<void> => {
    if (!options.only.has(section) || interruptedBy()) {
      return;
    }
    const t0 = Date.now();
    log(`${section}…`);
    try {
      await fn();
    } catch (error) {
      if (interruptedBy()) {
        return; // stopped by a signal: the cleanup handler is ending the run
      }
      log(`${section} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      report.error(section, `${section} measurements`, error);
    }
    log(`${section} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  };

  await run('size', () => {
    measureSizes(report, build());
    return Promise.resolve();
  });
  await run('webview', async () => {
    env.chromium = await measureWebview(report, build());
  });
  await run('network', () => measureNetwork(report));
  await run('history', () => measureFullWindow(report, configuredSettings()));
  await run('activation', async () => {
    env.codeServer = await measureActivation(report, build(), { coldStarts: options.coldStarts });
  });
  await run('memory', async () => {
    const snapshots = path.join(paths.testResults, 'bench-heap');
    if (options.heapSnapshots) {
      fs.rmSync(snapshots, { recursive: true, force: true });
    }
    const version = await measureMemory(report, build(), options.heapSnapshots ? { heapSnapshots: snapshots } : {});
    env.codeServer ??= version;
  });
  await run('scan', () => measureScan(report));

  if (interruptedBy()) {
    return 130;
  }
  env.loadAverageEnd = os.loadavg().map((l) => Math.round(l * 100) / 100);
  const elapsed = Date.now() - started;
  const order = new Map(SECTIONS.map((s, i) => [s, i]));
  const figures = [...report.figures].sort((a, b) => (order.get(a.section) ?? 0) - (order.get(b.section) ?? 0));

  const out: string[] = [];
  const count = (status: string) => figures.filter((f) => f.status === status).length;
  out.push('', '**Environment**', '', ...environmentLines(env), `- Bench time: ${(elapsed / 1000).toFixed(0)} s`, '');
  out.push(`**Results** (${count('PASS')} pass, ${count('FAIL')} fail, ${count('ERROR')} not measured, ${count('INFO')} for information)`, '', markdownTable(figures), '');
  const notes = figures.filter((f) => f.note);
  if (notes.length > 0) {
    out.push('**Notes**', '');
    for (const f of notes) {
      out.push(`- ${f.name} — ${f.note}`);
    }
    out.push('');
  }
  for (const note of report.notes) {
    out.push(`- ${note}`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
  const jsonFile = path.join(paths.testResults, 'bench.json');
  writeJson(jsonFile, env, figures, report.notes, elapsed);
  log(`wrote ${path.relative(process.cwd(), jsonFile)}`);
  const failed = figures.filter((f) => f.status === 'FAIL' || f.status === 'ERROR');
  if (failed.length > 0) {
    log(`${failed.length} figure(s) missed the budget or could not be measured: ${failed.map((f) => f.name).join('; ')}`);
    return 1;
  }
  log('every budget held');
  return 0;
}

void main()
  .catch((error: unknown) => {
    log(`ERROR: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 2;
  })
  .then(async (code) => {
    await runCleanups();
    process.exit(interruptedBy() ? 130 : code);
  });
