/**
 * A private copy of what `npm run package` produced (dist/*.js, dist/webview/, dist/meta.json,
 * dist/agent-runs.vsix), taken when the bench starts: every section measures the same build,
 * even if something rebuilds dist/ meanwhile (`npm run package` starts by deleting it).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { paths } from '../test/support/paths';
import { makeTempDir } from '../test/support/processes';

export interface Build {
  /** The copy of dist/. */
  readonly dist: string;
  readonly vsix: string;
}

export function snapshotBuild(): Build {
  const source = path.join(paths.repoRoot, 'dist');
  for (const file of [path.join(source, 'extension.js'), path.join(source, 'webview', 'main.js'), paths.vsix]) {
    if (!fs.existsSync(file)) {
      throw new Error(`${path.relative(paths.repoRoot, file)} is missing: the bench runs \`npm run package\` first`);
    }
  }
  const dist = path.join(makeTempDir('agent-runs-bench-build'), 'dist');
  fs.cpSync(source, dist, { recursive: true, filter: (src) => !src.endsWith('.map') });
  const vsix = path.join(dist, path.basename(paths.vsix));
  if (!fs.existsSync(vsix)) {
    fs.copyFileSync(paths.vsix, vsix);
  }
  return { dist, vsix };
}
