// Runs the same extension-host suite (test/integration) in VS Code desktop through
// @vscode/test-electron, for a developer machine that can run VS Code (it downloads VS Code
// from Microsoft unless VSCODE_EXECUTABLE names one; on Linux it needs a display, e.g.
// `xvfb-run -a npm run test:desktop`). This machine has neither: use test:integration.
//
//   npm run test:desktop [-- --grep <pattern>]
//
// Same protocol as scripts/run-integration.ts: the emulator, a fresh profile whose settings
// point at it, the packaged .vsix installed with VS Code's own CLI and loaded from its
// unpacked folder (extensionDevelopmentPath), AGENT_RUNS_TEST_CONTEXT and
// AGENT_RUNS_SEED_TOKEN_FILE in the extension host's environment, mocha's report streamed
// from a file.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  downloadAndUnzipVSCode,
  resolveCliArgsFromVSCodeExecutablePath,
  runTests,
} from '@vscode/test-electron';
import { createProfile, installTestHooks, installVsix, TEST_HOOKS_ENV } from '../test/support/codeServer';
import { startEmulator } from '../test/support/emulator';
import { extensionId, paths, readManifest } from '../test/support/paths';
import { launcherLog, resultStatus, runLauncher } from '../test/support/launcher';
import { makeTempDir } from '../test/support/processes';
import { readResult, streamFile } from '../test/support/reportStream';
import { writeSuiteContext } from '../test/support/session';
import { API_CLIENT_FIXTURE } from '../test/support/fixtureExtension';
import { SEED_TOKEN_FILE_ENV, TEST_CONTEXT_ENV } from '../test/support/testContext';

/** The VS Code version code-server 4.100.3 embeds, so both tiers test the same editor. */
const VSCODE_VERSION = process.env.VSCODE_VERSION ?? '1.100.3';

const log = launcherLog('desktop');

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const grepIndex = argv.indexOf('--grep');
  const grep = grepIndex >= 0 ? argv[grepIndex + 1] : process.env.AGENT_RUNS_TEST_GREP;
  const testsEntry = path.join(paths.compiledTestRoot, 'integration', 'index.js');
  if (!fs.existsSync(testsEntry)) {
    throw new Error(`${testsEntry} is missing: run npm run compile-tests`);
  }

  const vscodeExecutablePath = process.env.VSCODE_EXECUTABLE ?? (await downloadAndUnzipVSCode(VSCODE_VERSION));
  // reuseMachineInstall: only the CLI path; the profile folders are ours.
  const [cli, ...cliArgs] = resolveCliArgsFromVSCodeExecutablePath(vscodeExecutablePath, { reuseMachineInstall: true });
  if (!cli) {
    throw new Error(`No VS Code CLI next to ${vscodeExecutablePath}`);
  }

  const root = makeTempDir('agent-runs-desktop');
  const emulator = await startEmulator({ stepMs: 30 });
  const profile = createProfile(path.join(root, 'profile'), {
    settings: { 'agentRuns.baseUrl': emulator.baseUrl },
  });
  const extension = await installVsix(profile, paths.vsix, extensionId(readManifest()), {
    command: cli,
    args: cliArgs,
    label: 'code --install-extension',
  });
  installTestHooks(extension, paths.vsix);

  const seedTokenFile = path.join(root, 'seed-token');
  fs.writeFileSync(seedTokenFile, emulator.tokens.default, { mode: 0o600 });
  const env: Record<string, string> = { [SEED_TOKEN_FILE_ENV]: seedTokenFile, [TEST_HOOKS_ENV]: '1' };
  const contextFile = path.join(root, 'context.json');
  const context = writeSuiteContext(contextFile, { emulator, profile, extension }, { grep, testTimeoutMs: 20_000 });
  env[TEST_CONTEXT_ENV] = contextFile;

  const report = streamFile(context.reportFile);
  try {
    await runTests({
      vscodeExecutablePath,
      // Beside ours, the fixture extension that builds on its API (test/integration/publicApi.test.ts).
      extensionDevelopmentPath: [extension.path, API_CLIENT_FIXTURE.dir],
      extensionTestsPath: testsEntry,
      launchArgs: [
        profile.workspaceDir,
        `--user-data-dir=${profile.userDataDir}`,
        `--extensions-dir=${profile.extensionsDir}`,
        '--disable-telemetry',
      ],
      extensionTestsEnv: env,
    });
  } catch (error) {
    log(`VS Code exited with an error: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    report.stop();
    await emulator.close();
  }
  const result = readResult(context.resultFile);
  if (!result) {
    log('FAILED: the suite did not report a result');
    return 1;
  }
  return resultStatus('desktop', result, log);
}

runLauncher(log, main);
