// The extension-host entry of the fault suite: code-server loads this module
// (extensionTestsPath) and calls run(). Like test/integration/index.ts, but it runs only the
// fault scenarios next to it, and their records go to the file the launcher named in
// AGENT_RUNS_FAULTS_RECORDS (test/faults/registry.ts). Failed scenarios are counted from
// those records, so run() resolves whatever they found.
import { runSuiteInHost } from '../../support/hostMocha';
import { installCrashDetectors } from '../registry';

export async function run(): Promise<void> {
  const uninstall = installCrashDetectors();
  try {
    await runSuiteInHost({
      dir: __dirname,
      defaultTimeoutMs: 60_000,
      couldNotRun: 'The fault scenarios could not run in the extension host',
    });
  } finally {
    uninstall();
  }
}
