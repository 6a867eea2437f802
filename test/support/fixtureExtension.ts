// Another extension beside ours in a test profile: a fixture folder under test/fixtures,
// packaged with the project's vsce (from a copy: vsce writes next to it) and installed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { installVsix, type InstalledExtension, type Profile } from './codeServer';
import { paths } from './paths';
import { makeTempDir, runToCompletion } from './processes';

/** The fixture extension that uses Agent Runs' public API (test/integration/publicApi.test.ts). */
export const API_CLIENT_FIXTURE = { dir: path.join(paths.repoRoot, 'test', 'fixtures', 'api-client-extension'), id: 'agent-runs-tests.fixture-api-client' };

export async function installFixtureExtension(profile: Profile, fixture: { dir: string; id: string }): Promise<InstalledExtension> {
  const dir = makeTempDir('fixture-ext');
  for (const name of fs.readdirSync(fixture.dir)) fs.copyFileSync(path.join(fixture.dir, name), path.join(dir, name));
  const vsix = path.join(dir, 'fixture.vsix');
  await runToCompletion(process.execPath, [path.join(paths.repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--allow-missing-repository', '--skip-license', '-o', vsix],
    { label: `vsce package (${fixture.id})`, timeoutMs: 60_000, cwd: dir });
  return installVsix(profile, vsix, fixture.id);
}
