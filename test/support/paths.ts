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

/**
 * Which VS Code the real-editor tiers run in (AGENT_RUNS_VSCODE, or a launcher's --vscode):
 * - `minimum` (default; also `1.100`): code-server 4.100.3 = VS Code 1.100, the oldest version
 *   the manifest accepts, run by Node 20 like that editor's extension host: this process's Node
 *   when it is 20, else the one scripts/setup-test-env.sh keeps in .cache/node20;
 * - `latest` (also `1.139`): code-server 4.139.1 = VS Code 1.139, run by the Node 24 that
 *   scripts/setup-test-env.sh keeps in .cache/node24 (the machine's Node stays as it is).
 * code-server's extension host runs on the Node that started it, and inherits the variable.
 */
export type VsCodeFlavour = 'minimum' | 'latest';

export const VSCODE_FLAVOUR_ENV = 'AGENT_RUNS_VSCODE';

const FLAVOUR_NAMES: Readonly<Record<string, VsCodeFlavour>> = { minimum: 'minimum', '1.100': 'minimum', latest: 'latest', '1.139': 'latest' };

export function parseVsCodeFlavour(value: string | undefined): VsCodeFlavour {
  if (value === undefined || value === '') {
    return 'minimum';
  }
  const flavour = FLAVOUR_NAMES[value];
  if (!flavour) {
    throw new Error(`${VSCODE_FLAVOUR_ENV} (or --vscode) must be one of ${Object.keys(FLAVOUR_NAMES).join(', ')}, not "${value}"`);
  }
  return flavour;
}

export function vscodeFlavour(): VsCodeFlavour {
  return parseVsCodeFlavour(process.env[VSCODE_FLAVOUR_ENV]);
}

/**
 * A launcher's `--vscode <flavour>` (removed from `argv`): sets AGENT_RUNS_VSCODE for this
 * process and everything it starts. Returns the flavour in effect.
 */
export function takeVsCodeFlag(argv: string[]): VsCodeFlavour {
  const index = argv.indexOf('--vscode');
  if (index >= 0) {
    const value = argv[index + 1];
    argv.splice(index, 2);
    process.env[VSCODE_FLAVOUR_ENV] = parseVsCodeFlavour(value ?? '<missing>');
  }
  return vscodeFlavour();
}

export interface CodeServerInstall {
  readonly flavour: VsCodeFlavour;
  /** code-server's `out/node/entry.js`. */
  readonly entry: string;
  /** The Node that runs it (and so its extension host). */
  readonly node: string;
  /** How to install it when missing. */
  readonly setupCommand: string;
  /**
   * Arguments that let the workbench take extensionDevelopmentPath/extensionTestsPath from
   * its URL's `payload`. VS Code 1.139's built workbench ignores them unless the server runs
   * with enable-smoke-test-driver (1.100 took them as they are).
   */
  readonly extensionTestArgs: readonly string[];
}

/** The `node` of a Node cached by scripts/lib/code-server.sh in `dir` (the npm package node-linux-<arch>). */
function cachedNode(dir: string): string {
  return path.join(dir, 'node_modules', `node-linux-${process.arch}`, 'bin', 'node');
}

/** The Node 20 that runs code-server 4.100.3: this process's when its major is 20, else the cached one. */
export function minimumNode(nodeVersion: string = process.versions.node): string {
  return nodeVersion.split('.')[0] === '20'
    ? process.execPath
    : cachedNode(process.env.AGENT_RUNS_NODE20_DIR ?? path.join(repoRoot, '.cache', 'node20'));
}

export function codeServerInstall(flavour: VsCodeFlavour = vscodeFlavour()): CodeServerInstall {
  const cache = path.join(repoRoot, '.cache');
  const entryIn = (dir: string) => path.join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  if (flavour === 'minimum') {
    return {
      flavour,
      entry: entryIn(process.env.AGENT_RUNS_CODE_SERVER_DIR ?? path.join(cache, 'code-server')),
      node: minimumNode(),
      setupCommand: 'npm run test:setup',
      extensionTestArgs: [],
    };
  }
  const nodeDir = process.env.AGENT_RUNS_NODE24_DIR ?? path.join(cache, 'node24');
  return {
    flavour,
    entry: entryIn(process.env.AGENT_RUNS_CODE_SERVER_LATEST_DIR ?? path.join(cache, 'code-server-latest')),
    node: cachedNode(nodeDir),
    setupCommand: 'npm run test:setup (or bash scripts/setup-test-env.sh --vscode latest)',
    extensionTestArgs: ['--vscode-option', 'enable-smoke-test-driver'],
  };
}

export const paths = {
  repoRoot,
  /** The packaged extension, built by `npm run package` (AGENT_RUNS_VSIX: another one). */
  vsix: process.env.AGENT_RUNS_VSIX ? path.resolve(process.env.AGENT_RUNS_VSIX) : path.join(repoRoot, 'dist', 'agent-runs.vsix'),
  /** The code-server of the chosen VS Code (AGENT_RUNS_VSCODE), installed by scripts/setup-test-env.sh. */
  get codeServerEntry(): string {
    return codeServerInstall().entry;
  },
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
