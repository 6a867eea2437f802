// The extension-host test entry: VS Code loads this module (extensionTestsPath) and calls
// run(), in code-server (scripts/run-integration.ts) or VS Code desktop through
// @vscode/test-electron (scripts/run-desktop.ts). The report and result go where the
// launcher's test context says (test/support/hostMocha.ts).
import { runSuiteInHost } from '../support/hostMocha';

export async function run(): Promise<void> {
  const stats = await runSuiteInHost({
    dir: __dirname,
    defaultTimeoutMs: 20_000,
    couldNotRun: 'The integration suite could not run',
  });
  if (stats.failures > 0) {
    throw new Error(`${stats.failures} integration test(s) failed.`);
  }
}
