// `npm run test:faults`: every fault scenario, in three tiers, then one summary.
//
//   node out/test/faults/run.js [--tier node|host|ui]... [--grep <pattern>] [--vscode latest]
//
// 1. node: in this process: the client, the poller on virtual time, the ledger and the
//    transcript store against the emulator; the start flow's submit logic; the webview bundle
//    under the panel's HTML and CSP in Chromium (test/faults/node).
// 2. host: the packaged extension in code-server's extension host, with the output channel at
//    trace level (test/faults/host, started like scripts/run-integration.ts does). It runs
//    beside the node tier when both are asked for; its report follows the node tier's.
// 3. ui: a person's clicks in the real workbench (test/faults/ui, through test/e2e/harness).
// Each scenario reports a record (test/faults/registry.ts); the counts below come from those
// records. Exit status 0 only when every scenario passed and crashes, token leaks, duplicate
// POSTs, lost drafts and messages lost between polls are all 0.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import Mocha from 'mocha';
import { openWorkbench, type WorkbenchPage } from '../support/browser';
import { assertCodeServerInstalled, extensionHostExitCode, remoteUri } from '../support/codeServer';
import { findFiles, paths, takeVsCodeFlag } from '../support/paths';
import { launcherLog, runLauncher } from '../support/launcher';
import { interruptedBy, makeTempDir } from '../support/processes';
import { readResult, streamFile } from '../support/reportStream';
import { startSession, writeSuiteContext } from '../support/session';
import { TEST_CONTEXT_ENV } from '../support/testContext';
import {
  installCrashDetectors, localRecords, PROFILE_ENV, TRACE_LOG_LEVEL, readRecords, RECORDS_ENV, summaryLine, TIER_ENV, totals, type ScenarioRecord,
} from './registry';

type Tier = 'node' | 'host' | 'ui';
const TIERS: readonly Tier[] = ['node', 'host', 'ui'];

const HOST_TIMEOUT_MS = Number(process.env.AGENT_RUNS_FAULTS_HOST_TIMEOUT_MS ?? 8 * 60_000);

const log = launcherLog('faults');

function parseArgs(input: readonly string[]): { tiers: Tier[]; grep?: string } {
  const argv = [...input];
  takeVsCodeFlag(argv);
  const tiers: Tier[] = [];
  let grep = process.env.AGENT_RUNS_TEST_GREP;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--tier') {
      const t = argv[++i] as Tier;
      if (!TIERS.includes(t)) {
        throw new Error(`--tier must be one of ${TIERS.join(', ')}`);
      }
      tiers.push(t);
    } else if (argv[i] === '--grep') {
      grep = argv[++i];
    }
  }
  return { tiers: tiers.length > 0 ? tiers : [...TIERS], ...(grep ? { grep } : {}) };
}

/** A tier that could not run at all is one failed record, so it can never pass unnoticed. */
function tierFailure(tier: Tier, message: string): ScenarioRecord {
  return {
    tier, category: 'responses', title: `the ${tier} tier could not run`, passed: false,
    crashes: 0, tokenLeaks: 0, duplicatePosts: 0, lostDrafts: 0, findings: [], error: message, durationMs: 0,
  };
}

/** Runs mocha in this process over the compiled files of one tier folder. */
async function runInProcess(tier: Tier, folder: string, grep: string | undefined, timeoutMs: number): Promise<ScenarioRecord[]> {
  const files = findFiles(path.join(paths.compiledTestRoot, 'faults', folder), '.test.js');
  if (files.length === 0) {
    return [tierFailure(tier, `no compiled tests in out/test/faults/${folder}: run npm run compile-tests`)];
  }
  process.env[TIER_ENV] = tier;
  const before = localRecords().length;
  const mocha = new Mocha({ ui: 'bdd', reporter: 'spec', color: process.stdout.isTTY === true, timeout: timeoutMs, ...(grep ? { grep } : {}) });
  files.forEach((f) => mocha.addFile(f));
  await mocha.loadFilesAsync();
  const failures = await new Promise<number>((resolve) => {
    const runner = mocha.run((n) => resolve(n));
    void runner;
  });
  const records = localRecords().slice(before);
  if (failures > records.filter((r) => !r.passed).length) {
    // A hook (before/after) failed: the scenarios it guarded never reported.
    records.push(tierFailure(tier, `${failures - records.filter((r) => !r.passed).length} mocha hook(s) or test(s) failed outside a scenario`));
  }
  return records;
}

/** The packaged extension in code-server's extension host, running test/faults/host. */
async function runHostTier(grep: string | undefined, out: NodeJS.WritableStream): Promise<ScenarioRecord[]> {
  assertCodeServerInstalled();
  const entry = path.join(paths.compiledTestRoot, 'faults', 'host', 'index.js');
  if (!fs.existsSync(entry)) {
    return [tierFailure('host', `${entry} is missing: run npm run compile-tests`)];
  }
  const runDir = makeTempDir('agent-runs-faults-host');
  const contextFile = path.join(runDir, 'context.json');
  const recordsFile = path.join(runDir, 'records.jsonl');
  const profileFile = path.join(runDir, 'profile.json');
  const session = await startSession({
    label: 'faults-host',
    stepMs: 30,
    signedIn: true,
    extensionTests: true,
    settings: { 'agentRuns.polling.panelSeconds': 1, 'agentRuns.polling.backgroundSeconds': 5, 'agentRuns.notifications': 'all' },
    env: { [TEST_CONTEXT_ENV]: contextFile, [RECORDS_ENV]: recordsFile, [TIER_ENV]: 'host', [PROFILE_ENV]: profileFile },
  });
  let workbench: WorkbenchPage | undefined;
  const report = streamFile(path.join(runDir, 'report.txt'), out);
  try {
    fs.writeFileSync(profileFile, JSON.stringify({ userDataDir: session.profile.userDataDir }));
    const context = writeSuiteContext(contextFile, session, { grep, testTimeoutMs: 90_000 });
    const url = new URL(session.workbenchUrl());
    url.searchParams.set('payload', JSON.stringify([
      ['extensionDevelopmentPath', remoteUri(session.server, session.extension.path)],
      ['extensionTestsPath', remoteUri(session.server, entry)],
      ['logLevel', TRACE_LOG_LEVEL],
    ]));
    workbench = await openWorkbench(url.toString());
    // Headless Chromium reports the window unfocused; a person at the keyboard has it focused.
    const cdp = await workbench.page.context().newCDPSession(workbench.page);
    await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: true });
    await workbench.page.evaluate("window.dispatchEvent(new FocusEvent('focus'))");
    const started = Date.now();
    let crashed: string | undefined;
    workbench.page.once('crash', () => {
      crashed = 'the workbench page crashed';
    });
    void session.server.process.exited.then((info) => {
      crashed ??= `code-server exited (code ${info.code})`;
    });
    while (!readResult(context.resultFile) && !crashed) {
      if (Date.now() - started > HOST_TIMEOUT_MS) {
        crashed = `the host tier did not finish within ${HOST_TIMEOUT_MS / 1000} s`;
        break;
      }
      const exit = extensionHostExitCode(session.profile);
      if (exit !== undefined && !readResult(context.resultFile)) {
        crashed = `the extension host exited (code ${exit}) before the scenarios finished`;
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    report.stop();
    const records = readRecords(recordsFile);
    const result = readResult(context.resultFile);
    if (crashed) {
      records.push({ ...tierFailure('host', crashed), crashes: /exited|crashed/.test(crashed) ? 1 : 0 });
    } else if (result?.error) {
      records.push(tierFailure('host', result.error.split('\n')[0]));
    } else if (result && result.failures > records.filter((r) => !r.passed).length) {
      records.push(tierFailure('host', 'a mocha hook failed outside a scenario'));
    }
    return records;
  } finally {
    report.stop();
    if (records(recordsFile).some((r) => !r.passed) || !readResult(path.join(runDir, 'result.json'))) {
      await keepDiagnostics(session.profile.userDataDir, workbench);
    }
    await workbench?.context.close().catch(() => undefined);
    await session.close();
  }
}

function records(file: string): ScenarioRecord[] {
  try {
    return readRecords(file);
  } catch {
    return [];
  }
}

async function keepDiagnostics(userDataDir: string, workbench: WorkbenchPage | undefined): Promise<void> {
  const dir = path.join(paths.testResults, 'faults-host');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  if (workbench && !workbench.page.isClosed()) {
    await workbench.page.screenshot({ path: path.join(dir, 'workbench.png') }).catch(() => undefined);
    fs.writeFileSync(path.join(dir, 'browser-console.log'), workbench.consoleLines.join('\n'));
  }
  const logs = path.join(userDataDir, 'logs');
  if (fs.existsSync(logs)) {
    fs.cpSync(logs, path.join(dir, 'logs'), { recursive: true });
  }
  log(`host tier diagnostics kept in ${path.relative(process.cwd(), dir)}/`);
}

function printReport(all: readonly ScenarioRecord[]): void {
  const out = process.stdout;
  out.write('\n── fault scenarios ──────────────────────────────────────────────\n');
  const byTier = new Map<string, ScenarioRecord[]>();
  for (const r of all) {
    byTier.set(r.tier, [...(byTier.get(r.tier) ?? []), r]);
  }
  for (const [tier, list] of byTier) {
    const cats = new Map<string, number>();
    for (const r of list) {
      cats.set(r.category, (cats.get(r.category) ?? 0) + 1);
    }
    out.write(`${tier}: ${list.length} scenarios (${[...cats].map(([c, n]) => `${c} ${n}`).join(', ')})\n`);
  }
  const notes = all.flatMap((r) => r.findings.filter((f) => f.startsWith('note: ')).map((f) => `  ${r.tier} · ${r.title.slice(0, 60)}: ${f.slice(6)}`));
  if (notes.length > 0) {
    out.write(`measured:\n${notes.join('\n')}\n`);
  }
  const failed = all.filter((r) => !r.passed);
  if (failed.length > 0) {
    out.write('failed:\n');
    for (const r of failed) {
      out.write(`  ✗ [${r.tier}/${r.category}] ${r.title}\n`);
      for (const f of r.findings.filter((x) => !x.startsWith('note: '))) {
        out.write(`      ${f}\n`);
      }
      if (r.error) {
        out.write(`      ${r.error.split('\n').join('\n      ')}\n`);
      }
    }
  }
  const t = totals(all);
  out.write(`\n${summaryLine(t)}\n${t.passed} passed, ${t.failed} failed\n`);
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const all: ScenarioRecord[] = [];
  const uninstall = installCrashDetectors();
  /** One tier, timed; a tier that throws is one failed record. */
  const runTier = async (tier: Tier, out: NodeJS.WritableStream): Promise<ScenarioRecord[]> => {
    const t0 = Date.now();
    log(`${tier} tier …`);
    let records: ScenarioRecord[];
    try {
      records = tier === 'node' ? await runInProcess('node', 'node', args.grep, 60_000)
        : tier === 'host' ? await runHostTier(args.grep, out)
          : await runInProcess('ui', 'ui', args.grep, 120_000);
    } catch (error) {
      records = [tierFailure(tier, error instanceof Error ? (error.stack ?? error.message) : String(error))];
    }
    log(`${tier} tier done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return records;
  };
  // The host tier mostly waits on its extension host's real time (outages, Retry-After), the
  // node tier mostly computes: side by side they take about as long as the node tier alone.
  // The host tier's report is printed whole after the node tier's.
  const hostAlongside = args.tiers.includes('node') && args.tiers.includes('host');
  try {
    for (const tier of args.tiers) {
      if (tier === 'host' && hostAlongside) {
        continue;
      }
      if (tier === 'node' && hostAlongside) {
        const hostReport: Buffer[] = [];
        const hostOut = new Writable({ write(chunk: Buffer, _encoding, done) { hostReport.push(chunk); done(); } });
        const host = runTier('host', hostOut);
        all.push(...(await runTier('node', process.stdout)));
        const hostRecords = await host;
        process.stdout.write(Buffer.concat(hostReport));
        all.push(...hostRecords);
      } else {
        all.push(...(await runTier(tier, process.stdout)));
      }
      if (interruptedBy()) {
        return 130;
      }
    }
  } finally {
    uninstall();
  }
  printReport(all);
  log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const t = totals(all);
  return t.failed === 0 && t.crashes + t.tokenLeaks + t.duplicatePosts + t.lostDrafts + t.lostMessages === 0 && t.scenarios > 0 ? 0 : 1;
}

runLauncher(log, main);
