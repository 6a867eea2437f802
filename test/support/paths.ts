// Where things are, for the test launchers and the tests themselves. Only `node:` imports:
// this module is also loaded inside the extension host.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The project's package.json, as far as the test harness reads it. */
export interface ExtensionManifest {
  readonly name: string;
  readonly publisher: string;
  readonly version: string;
  readonly contributes?: {
    readonly commands?: readonly ContributedCommand[];
    readonly menus?: Readonly<Record<string, readonly { readonly command?: string; readonly when?: string }[]>>;
  };
}

export interface ContributedCommand {
  readonly command: string;
  readonly title: string;
  readonly category?: string;
}

function isProjectRoot(dir: string): boolean {
  const file = path.join(dir, 'package.json');
  if (!fs.existsSync(file) || !fs.existsSync(path.join(dir, 'esbuild.js'))) {
    return false;
  }
  try {
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: unknown };
    return pkg.name === 'agent-runs';
  } catch {
    return false;
  }
}

function findRepoRoot(): string {
  const fromEnv = process.env.AGENT_RUNS_REPO_ROOT;
  if (fromEnv) {
    return path.resolve(fromEnv);
  }
  // Compiled files live in <repo>/out/...; a developer may also compile elsewhere and run
  // from the repo, hence the second start.
  for (const start of [__dirname, process.cwd()]) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      if (isProjectRoot(dir)) {
        return dir;
      }
      if (path.dirname(dir) === dir) {
        break;
      }
    }
  }
  throw new Error(`Cannot find the agent-runs project root above ${__dirname} or ${process.cwd()} (set AGENT_RUNS_REPO_ROOT).`);
}

export const repoRoot = findRepoRoot();

export const paths = {
  repoRoot,
  /** The packaged extension, built by `npm run package` (AGENT_RUNS_VSIX: another one). */
  vsix: process.env.AGENT_RUNS_VSIX ? path.resolve(process.env.AGENT_RUNS_VSIX) : path.join(repoRoot, 'dist', 'agent-runs.vsix'),
  /** code-server, installed by scripts/setup-test-env.sh. */
  codeServerEntry: path.join(
    process.env.AGENT_RUNS_CODE_SERVER_DIR ?? path.join(repoRoot, '.cache', 'code-server'),
    'node_modules', 'code-server', 'out', 'node', 'entry.js',
  ),
  /** Git-ignored: screenshots and logs kept after a run. */
  testResults: path.join(repoRoot, 'test-results'),
  screenshots: path.join(repoRoot, 'test-results', 'screenshots'),
  /** The compiled test folder this module belongs to (out/test, or another --outDir). */
  compiledTestRoot: path.resolve(__dirname, '..'),
};

export function readManifest(dir: string = repoRoot): ExtensionManifest {
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as ExtensionManifest;
}

export function extensionId(manifest: ExtensionManifest = readManifest()): string {
  return `${manifest.publisher}.${manifest.name}`;
}

/**
 * A manifest string as a person sees it: `%key%` placeholders are looked up in the
 * package.nls.json next to the manifest.
 */
export function localize(value: string, dir: string = repoRoot): string {
  const match = /^%(.+)%$/.exec(value);
  if (!match) {
    return value;
  }
  const nlsFile = path.join(dir, 'package.nls.json');
  if (!fs.existsSync(nlsFile)) {
    return value;
  }
  const nls = JSON.parse(fs.readFileSync(nlsFile, 'utf8')) as Record<string, unknown>;
  const entry = nls[match[1]];
  if (typeof entry === 'string') {
    return entry;
  }
  if (entry && typeof entry === 'object' && typeof (entry as { message?: unknown }).message === 'string') {
    return (entry as { message: string }).message;
  }
  return value;
}

/** Every `*.test.js`-like file under a folder, sorted, for mocha. */
export function findFiles(dir: string, suffix: string): string[] {
  if (!fs.existsSync(dir)) {
    return [];
  }
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(suffix))
    .map((name) => path.join(dir, name))
    .sort();
}
