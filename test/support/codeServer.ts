// code-server (the real VS Code workbench served to a browser, with the real Node extension
// host), installed by scripts/setup-test-env.sh: fresh profiles, installing the packaged
// .vsix, starting and stopping the server on 127.0.0.1 with an ephemeral port.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { codeServerInstall } from './paths';
import { descendantsMatching, ManagedProcess, runToCompletion } from './processes';

/** Settings every harness profile starts with: quiet, no tours, nothing phoning home. */
export const QUIET_SETTINGS: Readonly<Record<string, unknown>> = {
  'telemetry.telemetryLevel': 'off',
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.enableExperiments': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  'security.workspace.trust.enabled': false,
  'window.restoreWindows': 'none',
  'chat.commandCenter.enabled': false,
  'git.openRepositoryInParentFolders': 'never',
};

export interface Profile {
  /** A fresh temporary folder holding everything below. */
  readonly root: string;
  readonly userDataDir: string;
  readonly extensionsDir: string;
  readonly workspaceDir: string;
  readonly configFile: string;
  /** code-server's own stdout/stderr. */
  readonly serverLog: string;
  /**
   * Log files of earlier windows of the same code-server (a shared one, see `startSharedSession`),
   * which `logFiles` leaves out: each session reads only its own windows' logs.
   */
  readonly earlierLogs?: ReadonlySet<string>;
}

export interface ProfileOptions {
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Files to create in the opened workspace folder, by relative path. */
  readonly workspaceFiles?: Readonly<Record<string, string>>;
}

/** The code-server of the chosen VS Code (see `vscodeFlavour`), checked to be installed. */
export function assertCodeServerInstalled(): void {
  const install = codeServerInstall();
  for (const file of [install.node, install.entry]) {
    if (!fs.existsSync(file)) {
      throw new Error(`code-server (${install.flavour}) is not installed (${file} is missing): run ${install.setupCommand}`);
    }
  }
}

/** `code-server 4.139.1 (VS Code 1.139.1, Node 24.21.0)`: what a launcher runs, for its log. */
export function describeCodeServer(): string {
  const install = codeServerInstall();
  const lib = path.join(path.dirname(install.entry), '..', '..');
  const version = (file: string): string => {
    try {
      return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: string }).version ?? '?';
    } catch {
      return '?';
    }
  };
  // The cached Node is the npm package node-linux-<arch>: bin/node next to its package.json.
  const node = install.node === process.execPath ? process.versions.node : version(path.join(path.dirname(path.dirname(install.node)), 'package.json'));
  return `code-server ${version(path.join(lib, 'package.json'))} (VS Code ${version(path.join(lib, 'lib', 'vscode', 'package.json'))}, Node ${node})`;
}

/**
 * Lays out a fresh profile inside `root`: user data with settings, extensions, workspace. The
 * extension declares no machine-scoped setting, so a remote window (code-server's) applies
 * them from User/settings.json like desktop VS Code does.
 */
export function createProfile(root: string, options: ProfileOptions = {}): Profile {
  const profile: Profile = {
    root,
    userDataDir: path.join(root, 'user-data'),
    extensionsDir: path.join(root, 'extensions'),
    workspaceDir: path.join(root, 'workspace'),
    configFile: path.join(root, 'code-server.yaml'),
    serverLog: path.join(root, 'code-server.log'),
  };
  fs.mkdirSync(path.join(profile.userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(profile.extensionsDir, { recursive: true });
  fs.mkdirSync(profile.workspaceDir, { recursive: true });
  // An empty config file: otherwise code-server writes one under ~/.config.
  fs.writeFileSync(profile.configFile, '');
  writeUserSettings(profile.userDataDir, options.settings);
  writeWorkspaceFiles(profile.workspaceDir, options.workspaceFiles);
  return profile;
}

/** Writes User/settings.json: the quiet defaults, then `settings`. */
export function writeUserSettings(userDataDir: string, settings: ProfileOptions['settings']): void {
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify({ ...QUIET_SETTINGS, ...settings }, null, 2));
}

/** Creates `files` (by relative path) in the folder `dir`. */
export function writeWorkspaceFiles(dir: string, files: ProfileOptions['workspaceFiles']): void {
  for (const [relative, content] of Object.entries(files ?? {})) {
    const file = path.join(dir, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

export interface InstalledExtension {
  readonly id: string;
  readonly version: string;
  /** The unpacked .vsix inside the profile's extensions folder. */
  readonly path: string;
}

interface ExtensionsJsonEntry {
  readonly identifier: { readonly id: string };
  readonly version: string;
  readonly location: { readonly path?: string; readonly fsPath?: string };
}

/** A VS Code command line that takes --install-extension (code-server, or desktop `code`). */
export interface ExtensionCli {
  readonly command: string;
  readonly args: readonly string[];
  readonly label: string;
}

const CODE_SERVER_CLI_LABEL = 'code-server --install-extension';

/** code-server's own CLI, run by the Node that runs that code-server. */
export function codeServerCli(): ExtensionCli {
  const install = codeServerInstall();
  return { command: install.node, args: [install.entry], label: CODE_SERVER_CLI_LABEL };
}

/**
 * Installs the packaged extension into the profile (`--install-extension <vsix>`, by
 * code-server unless another CLI is given); returns where it was unpacked.
 */
export async function installVsix(profile: Profile, vsix: string, id: string, cli: ExtensionCli = codeServerCli()): Promise<InstalledExtension> {
  if (!fs.existsSync(vsix)) {
    throw new Error(`${vsix} is missing: run npm run package`);
  }
  const configArgs = cli.label === CODE_SERVER_CLI_LABEL ? ['--config', profile.configFile] : [];
  await runToCompletion(
    cli.command,
    [...cli.args, ...configArgs, `--user-data-dir=${profile.userDataDir}`, `--extensions-dir=${profile.extensionsDir}`,
      '--install-extension', vsix, '--force'],
    { label: cli.label, timeoutMs: 120_000, logFile: profile.serverLog },
  );
  const entries = JSON.parse(fs.readFileSync(path.join(profile.extensionsDir, 'extensions.json'), 'utf8')) as ExtensionsJsonEntry[];
  const entry = entries.find((e) => e.identifier.id.toLowerCase() === id.toLowerCase());
  const location = entry?.location.fsPath ?? entry?.location.path;
  if (!entry || !location || !fs.existsSync(path.join(location, 'package.json'))) {
    throw new Error(`${id} is not in ${profile.extensionsDir}/extensions.json after installing ${vsix}`);
  }
  return { id, version: entry.version, path: location };
}

/** The test hooks (esbuild.js testEntries): `npm run package` writes them beside the .vsix, which leaves them out. */
export const TEST_HOOKS_FILE = 'testHooks.js';
/**
 * Set for every extension host the harness starts: with the test hooks installed, activate()
 * returns the test API beside getAPI (src/publicApi/contribution.ts); without, other extensions'
 * view of it, getAPI alone.
 */
export const TEST_HOOKS_ENV = 'AGENT_RUNS_TEST_HOOKS';

/**
 * Puts the test hooks found beside `vsix` into the installed extension's dist/, where
 * dist/extension.js looks for them when AGENT_RUNS_SEED_TOKEN_FILE is set.
 */
export function installTestHooks(extension: InstalledExtension, vsix: string): void {
  const file = path.join(path.dirname(vsix), TEST_HOOKS_FILE);
  if (!fs.existsSync(file)) {
    throw new Error(`${file} is missing: \`npm run package\` builds the test hooks beside the .vsix`);
  }
  fs.copyFileSync(file, path.join(extension.path, 'dist', TEST_HOOKS_FILE));
}

export interface CodeServer {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** `127.0.0.1:<port>`: the authority of `vscode-remote://` URIs for this server. */
  readonly authority: string;
  readonly process: ManagedProcess;
  readonly profile: Profile;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Added to this process's environment; the extension host inherits it. */
  readonly env?: Readonly<Record<string, string>>;
  /** Copy code-server's output to stderr (AGENT_RUNS_VERBOSE=1 does it too). */
  readonly echo?: boolean;
  /** A fixed port on 127.0.0.1; ephemeral (0) by default. */
  readonly port?: number;
  /** Leave workspace trust on (code-server otherwise starts with --disable-workspace-trust). */
  readonly workspaceTrust?: boolean;
  /** The workbench URL will carry extension tests (see `workbenchUrl`): let the workbench run them. */
  readonly extensionTests?: boolean;
}

export async function startCodeServer(profile: Profile, options: StartOptions = {}): Promise<CodeServer> {
  assertCodeServerInstalled();
  const install = codeServerInstall();
  const proc = new ManagedProcess(
    install.node,
    [install.entry, '--config', profile.configFile, '--auth', 'none', '--bind-addr', `127.0.0.1:${options.port ?? 0}`,
      '--user-data-dir', profile.userDataDir, '--extensions-dir', profile.extensionsDir,
      '--disable-telemetry', '--disable-update-check', ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']),
      '--disable-getting-started-override', '--ignore-last-opened', ...(options.extensionTests ? install.extensionTestArgs : []),
      profile.workspaceDir],
    {
      label: 'code-server',
      env: { ...process.env, [TEST_HOOKS_ENV]: '1', ...options.env },
      logFile: profile.serverLog,
      echo: options.echo ?? process.env.AGENT_RUNS_VERBOSE === '1',
    },
  );
  try {
    const match = await proc.waitForOutput(/HTTP server listening on (http:\/\/127\.0\.0\.1:(\d+)\/)/, 60_000);
    return {
      url: match[1],
      authority: `127.0.0.1:${match[2]}`,
      process: proc,
      profile,
      stop: () => proc.stop(),
    };
  } catch (error) {
    await proc.stop();
    throw error;
  }
}

/** A `vscode-remote://` URI naming a file on the server's machine (this machine). */
export function remoteUri(server: CodeServer, absolutePath: string): string {
  return `vscode-remote://${server.authority}${pathToFileURL(absolutePath).pathname}`;
}

export interface WorkbenchUrlOptions {
  /** The folder to open; the profile's workspace by default. */
  readonly folder?: string;
  /**
   * Extension development/test locations, passed the way code-server's web workbench
   * accepts them (its CLI rejects --extensionDevelopmentPath/--extensionTestsPath).
   */
  readonly extensionDevelopmentPath?: string;
  readonly extensionTestsPath?: string;
}

export function workbenchUrl(server: CodeServer, options: WorkbenchUrlOptions = {}): string {
  const url = new URL(server.url);
  url.searchParams.set('folder', options.folder ?? server.profile.workspaceDir);
  const payload: [string, string][] = [];
  if (options.extensionDevelopmentPath) {
    payload.push(['extensionDevelopmentPath', remoteUri(server, options.extensionDevelopmentPath)]);
  }
  if (options.extensionTestsPath) {
    payload.push(['extensionTestsPath', remoteUri(server, options.extensionTestsPath)]);
  }
  if (payload.length > 0) {
    url.searchParams.set('payload', JSON.stringify(payload));
  }
  return url.toString();
}

/** The newest session's logs folder under the profile (`<user-data>/logs/<timestamp>`). */
export function logsDir(profile: Profile): string | undefined {
  const root = path.join(profile.userDataDir, 'logs');
  if (!fs.existsSync(root)) {
    return undefined;
  }
  const sessions = fs.readdirSync(root).sort();
  return sessions.length > 0 ? path.join(root, sessions[sessions.length - 1]) : undefined;
}

/** Every log file under the profile's logs folder (but its `earlierLogs`), newest session last. */
export function logFiles(profile: Profile): string[] {
  const root = path.join(profile.userDataDir, 'logs');
  if (!fs.existsSync(root)) {
    return [];
  }
  return fs
    .readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.log'))
    .map((name) => path.join(root, name))
    .filter((file) => !profile.earlierLogs?.has(file))
    .sort();
}

/** The PIDs of the server's extension hosts (one per window, kept a while after it closed), oldest first. */
export function extensionHostPids(server: CodeServer): number[] {
  return descendantsMatching(server.process.pid, /--type=extensionHost\b/);
}

/** The extension host's exit code, once its log says it exited (else undefined). */
export function extensionHostExitCode(profile: Profile): number | undefined {
  for (const file of logFiles(profile).filter((f) => /exthost\.log$/i.test(f))) {
    const match = /Extension host with pid \d+ exiting with code (\d+)/.exec(fs.readFileSync(file, 'utf8'));
    if (match) {
      return Number(match[1]);
    }
  }
  return undefined;
}
