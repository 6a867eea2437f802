// Runs the extension-host integration suite (test/integration) in code-server, offline.
//
//   npm run test:integration [-- --grep <pattern>] [-- --vscode latest]
//
// 1. Starts the service emulator, lays out a fresh profile whose settings point the
//    extension at it, installs the packaged dist/agent-runs.vsix with
//    `code-server --install-extension`, and starts code-server on 127.0.0.1:<ephemeral>.
// 2. Opens the workbench in Chromium with the `payload` query parameter:
//    extensionDevelopmentPath = the folder the .vsix was unpacked to inside the profile's
//    extensions dir (so the packaged code is what runs: a development extension replaces an
//    installed one with the same id, and here both are the same files), and
//    extensionTestsPath = out/test/integration/index.js.
//    The fixture extension test/fixtures/api-client-extension is installed beside it.
// 3. index.js runs mocha in the extension host and appends its report to a file that this
//    launcher streams to the terminal; the exit status follows mocha's result.
// Launcher and tests talk through AGENT_RUNS_TEST_CONTEXT (see test/support/testContext.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openWorkbench, type WorkbenchPage } from '../test/support/browser';
import { assertCodeServerInstalled, describeCodeServer, extensionHostExitCode, logFiles } from '../test/support/codeServer';
import { paths, takeVsCodeFlag } from '../test/support/paths';
import { launcherLog, resultStatus, runLauncher } from '../test/support/launcher';
import { interruptedBy, makeTempDir } from '../test/support/processes';
import { readResult, streamFile } from '../test/support/reportStream';
import { startSession, writeSuiteContext, type Session } from '../test/support/session';
import { API_CLIENT_FIXTURE, installFixtureExtension } from '../test/support/fixtureExtension';
import { TEST_CONTEXT_ENV, type IntegrationTestContext, type TestRunResult } from '../test/support/testContext';

const RUN_TIMEOUT_MS = Number(process.env.AGENT_RUNS_INTEGRATION_TIMEOUT_MS ?? 10 * 60_000);
/** From opening the workbench to mocha's first output. */
const START_TIMEOUT_MS = 120_000;

function parseArgs(input: readonly string[]): { grep?: string } {
  const argv = [...input];
  takeVsCodeFlag(argv);
  const grepIndex = argv.indexOf('--grep');
  const grep = grepIndex >= 0 ? argv[grepIndex + 1] : process.env.AGENT_RUNS_TEST_GREP;
  return grep ? { grep } : {};
}

const log = launcherLog('integration');

type Outcome = { kind: 'result'; result: TestRunResult } | { kind: 'problem'; message: string };

async function waitForOutcome(
  context: IntegrationTestContext,
  session: Session,
  workbench: WorkbenchPage,
  reportStarted: () => boolean,
): Promise<Outcome> {
  const openedAt = Date.now();
  let lastHostLogCheck = 0;
  return new Promise<Outcome>((resolve) => {
    const finish = (outcome: Outcome) => {
      clearInterval(timer);
      resolve(outcome);
    };
    const timer = setInterval(() => {
      const result = readResult(context.resultFile);
      const now = Date.now();
      if (result) {
        finish({ kind: 'result', result });
      } else if (!reportStarted() && now - openedAt > START_TIMEOUT_MS) {
        finish({ kind: 'problem', message: `the suite did not start within ${START_TIMEOUT_MS / 1000} s of opening the workbench` });
      } else if (now - openedAt > RUN_TIMEOUT_MS) {
        finish({ kind: 'problem', message: `the suite did not finish within ${RUN_TIMEOUT_MS / 1000} s (AGENT_RUNS_INTEGRATION_TIMEOUT_MS)` });
      } else if (now - lastHostLogCheck > 1_000) {
        // The result file is written before run() returns, so an extension host that exits
        // without one crashed (or a test ended the process).
        lastHostLogCheck = now;
        const exit = extensionHostExitCode(session.profile);
        if (exit !== undefined && !readResult(context.resultFile)) {
          finish({ kind: 'problem', message: `the extension host exited (code ${exit}) before the suite finished` });
        }
      }
    }, 100);
    void session.server.process.exited.then((info) => {
      finish({ kind: 'problem', message: `code-server exited during the run (code ${info.code}, signal ${info.signal})` });
    });
    workbench.page.once('crash', () => finish({ kind: 'problem', message: 'the workbench page crashed' }));
  });
}

/** Keeps what helps explain a failed run in test-results/ (git-ignored). */
async function keepDiagnostics(session: Session, workbench: WorkbenchPage | undefined, showHostLog: boolean): Promise<void> {
  const dir = path.join(paths.testResults, 'integration');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(paths.screenshots, { recursive: true });
  fs.mkdirSync(dir, { recursive: true });
  if (workbench && !workbench.page.isClosed()) {
    const shot = path.join(paths.screenshots, 'integration-failure.png');
    await workbench.page.screenshot({ path: shot }).catch(() => undefined);
    fs.writeFileSync(path.join(dir, 'browser-console.log'), workbench.consoleLines.join('\n'));
    log(`screenshot: ${path.relative(process.cwd(), shot)}`);
  }
  fs.copyFileSync(session.profile.serverLog, path.join(dir, 'code-server.log'));
  const root = path.join(session.profile.userDataDir, 'logs');
  for (const file of logFiles(session.profile)) {
    const target = path.join(dir, 'logs', path.relative(root, file));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(file, target);
  }
  if (showHostLog) {
    // The extension host's own log says why a suite never started or never finished.
    for (const file of logFiles(session.profile).filter((f) => /exthost\.log$/i.test(f))) {
      const lines = fs.readFileSync(file, 'utf8').split('\n').filter((line) => !line.startsWith('\t'));
      log(`--- ${path.basename(file)} (last lines) ---`);
      process.stderr.write(`${lines.slice(-30).join('\n')}\n`);
    }
  }
  log(`logs kept in ${path.relative(process.cwd(), dir)}/`);
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  assertCodeServerInstalled();
  const testsEntry = path.join(paths.compiledTestRoot, 'integration', 'index.js');
  if (!fs.existsSync(testsEntry)) {
    throw new Error(`${testsEntry} is missing: run npm run compile-tests`);
  }

  const started = Date.now();
  const runDir = makeTempDir('agent-runs-it-run');
  const contextFile = path.join(runDir, 'context.json');
  const session = await startSession({
    label: 'it',
    stepMs: 30,
    signedIn: true,
    extensionTests: true,
    env: { [TEST_CONTEXT_ENV]: contextFile },
  });
  // Another extension that builds on ours through getAPI(1) (test/integration/publicApi.test.ts).
  await installFixtureExtension(session.profile, API_CLIENT_FIXTURE);
  const context = writeSuiteContext(contextFile, session, { grep: args.grep, testTimeoutMs: 20_000 });
  log(`${describeCodeServer()} at ${session.server.url} ready in ${((Date.now() - started) / 1000).toFixed(1)} s; extension from ${session.extension.path}`);

  const url = session.workbenchUrl({
    extensionDevelopmentPath: session.extension.path,
    extensionTestsPath: testsEntry,
  });
  const report = streamFile(context.reportFile);
  let workbench: WorkbenchPage | undefined;
  let outcome: Outcome;
  try {
    workbench = await openWorkbench(url);
    log(`workbench open in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    outcome = await waitForOutcome(context, session, workbench, () => report.started());
  } catch (error) {
    outcome = { kind: 'problem', message: error instanceof Error ? error.message : String(error) };
  } finally {
    report.stop();
  }

  if (interruptedBy()) {
    return 130; // the signal handler is stopping everything and sets the exit status
  }
  let exitCode: number;
  if (outcome.kind === 'result') {
    exitCode = resultStatus('integration', outcome.result, log);
  } else {
    log(`FAILED: ${outcome.message}`);
    exitCode = 1;
  }
  if (exitCode !== 0) {
    await keepDiagnostics(session, workbench, outcome.kind === 'problem');
  }
  log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return exitCode;
}

runLauncher(log, main);
