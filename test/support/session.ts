// One ready-to-open VS Code: the service emulator, a fresh profile pointed at it, the
// packaged .vsix installed, and code-server running with the seed-token protocol. Used by
// the integration launcher, the UI test harness and the demo.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  createProfile,
  extensionHostPids,
  installTestHooks,
  installVsix,
  logFiles,
  TEST_HOOKS_FILE,
  startCodeServer,
  workbenchUrl,
  writeUserSettings,
  writeWorkspaceFiles,
  type CodeServer,
  type InstalledExtension,
  type Profile,
  type WorkbenchUrlOptions,
} from './codeServer';
import type { PresetName } from '../emulator/index';
import { emulatorInfo, emulatorToken, startEmulator, type Emulator } from './emulator';
import { extensionId, paths, readManifest } from './paths';
import { makeTempDir, registerCleanup, stopProcesses } from './processes';
import { SEED_TOKEN_FILE_ENV, writeTestContext, type IntegrationTestContext } from './testContext';

export interface SessionOptions {
  /** Names the temp folder, e.g. `it`, `e2e-tree`, `demo`. */
  readonly label: string;
  /** Emulator step length: ~30 ms for tests, 1000 ms for the demo. */
  readonly stepMs: number;
  /**
   * Seed this emulator token (by name, `default` if true) through AGENT_RUNS_SEED_TOKEN_FILE,
   * so the extension starts signed in. false: start signed out.
   */
  readonly signedIn: boolean | string;
  /** Extra user settings (after the quiet defaults and `agentRuns.baseUrl`). */
  readonly settings?: Readonly<Record<string, unknown>>;
  readonly workspaceFiles?: Readonly<Record<string, string>>;
  /** Extra environment for code-server and so the extension host. */
  readonly env?: Readonly<Record<string, string>>;
  /** The .vsix to install; by default a copy of dist/agent-runs.vsix (see snapshotVsix). */
  readonly vsix?: string;
  /** code-server's port on 127.0.0.1; ephemeral by default. */
  readonly port?: number;
  /** The emulator prints one line per API request. */
  readonly logRequests?: boolean;
  /** The emulator's preset (`reference` by default). */
  readonly preset?: PresetName;
  /**
   * Workspace trust as a person has it: the workspace opens in Restricted Mode until trusted.
   * Off by default (the editor's trust prompt would stand in front of every test).
   */
  readonly workspaceTrust?: boolean;
  /** The workbench will be opened with extension tests in its URL (integration, host faults). */
  readonly extensionTests?: boolean;
}

export interface Session {
  readonly emulator: Emulator;
  readonly profile: Profile;
  readonly extension: InstalledExtension;
  readonly server: CodeServer;
  /** The token file handed to the extension, if signed in (the extension deletes it). */
  readonly seedTokenFile: string | undefined;
  workbenchUrl(options?: WorkbenchUrlOptions): string;
  close(): Promise<void>;
}

let vsixSnapshot: string | undefined;

/**
 * The .vsix this process tests (dist/agent-runs.vsix or AGENT_RUNS_VSIX), copied once on
 * first use: a rebuild of dist/ during a long run can then neither remove it nor give later
 * test files another build.
 */
export function snapshotVsix(): string {
  if (!vsixSnapshot) {
    if (!fs.existsSync(paths.vsix)) {
      throw new Error(`${paths.vsix} is missing: run npm run package`);
    }
    const copy = path.join(makeTempDir('agent-runs-vsix'), path.basename(paths.vsix));
    fs.copyFileSync(paths.vsix, copy);
    const hooks = path.join(path.dirname(paths.vsix), TEST_HOOKS_FILE);
    if (fs.existsSync(hooks)) {
      fs.copyFileSync(hooks, path.join(path.dirname(copy), TEST_HOOKS_FILE));
    }
    vsixSnapshot = copy;
  }
  return vsixSnapshot;
}

function sessionEmulator(options: SharedSessionOptions): Promise<Emulator> {
  return startEmulator({ stepMs: options.stepMs, logRequests: options.logRequests === true, ...(options.preset ? { preset: options.preset } : {}) });
}

/** A session's user settings: the emulator's base URL, trust when asked for, then its own. */
function sessionSettings(emulator: Emulator, options: SharedSessionOptions): Record<string, unknown> {
  return {
    'agentRuns.baseUrl': emulator.baseUrl,
    // Untrusted unless the test trusts it, without a startup prompt in front of the workbench.
    ...(options.workspaceTrust ? { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never' } : {}),
    ...options.settings,
  };
}

/**
 * Writes the emulator token a session signs in with (`signedIn`: its name, `default` if true) to
 * `file` and returns the file; signed out: writes nothing. Never in settings: a file only this
 * user can read, named in the environment.
 */
function writeSeedToken(emulator: Emulator, signedIn: boolean | string, file: string): string | undefined {
  if (signedIn === false) {
    return undefined;
  }
  const name = signedIn === true ? 'default' : signedIn;
  const token = emulatorToken(emulator, name);
  if (token === undefined) {
    throw new Error(`The emulator has no token named ${name}`);
  }
  fs.writeFileSync(file, token, { mode: 0o600 });
  return file;
}

/**
 * Starts the emulator, lays out a fresh profile pointed at it, installs the .vsix and
 * starts code-server. close() (or the process cleanup, on a signal) stops it all.
 */
export async function startSession(options: SessionOptions): Promise<Session> {
  const root = makeTempDir(`agent-runs-${options.label}`);
  const emulator = await sessionEmulator(options);
  let server: CodeServer | undefined;
  try {
    const profile = createProfile(root, { settings: sessionSettings(emulator, options), workspaceFiles: options.workspaceFiles });
    const manifest = readManifest();
    const vsix = options.vsix ?? snapshotVsix();
    const extension = await installVsix(profile, vsix, extensionId(manifest));
    installTestHooks(extension, vsix);

    const env: Record<string, string> = { ...options.env };
    const seedTokenFile = writeSeedToken(emulator, options.signedIn, path.join(root, 'seed-token'));
    if (seedTokenFile) {
      env[SEED_TOKEN_FILE_ENV] = seedTokenFile;
    }
    server = await startCodeServer(profile, { env, ...(options.port ? { port: options.port } : {}), ...(options.workspaceTrust ? { workspaceTrust: true } : {}),
      ...(options.extensionTests ? { extensionTests: true } : {}) });
    const started = server;
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => {
      closing ??= (async () => {
        unregister();
        await started.stop();
        await emulator.close();
        if (process.env.AGENT_RUNS_KEEP_TEMP !== '1') {
          fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
        }
      })();
      return closing;
    };
    const unregister = registerCleanup(`close session ${options.label}`, close);
    return {
      emulator,
      profile,
      extension,
      server: started,
      seedTokenFile,
      workbenchUrl: (urlOptions) => workbenchUrl(started, urlOptions),
      close,
    };
  } catch (error) {
    await server?.stop();
    await emulator.close();
    throw error;
  }
}

/** What a session on the shared code-server can ask for: everything but the server's own process options. */
export type SharedSessionOptions = Omit<SessionOptions, 'env' | 'vsix' | 'port' | 'extensionTests'>;

/** The code-server that `startSharedSession` opens every session on: one per process. */
interface SharedServer {
  readonly profile: Profile;
  readonly extension: InstalledExtension;
  readonly server: CodeServer;
  /** The token file the server's environment names; each signed-in session writes its token there. */
  readonly seedTokenFile: string;
  /** extensions.json as installed: a session that installs another extension spoils the server for the next. */
  readonly extensions: string;
  stop(): Promise<void>;
}

let shared: Promise<SharedServer> | undefined;
let sharedInUse = false;
/** code-server processes started for shared sessions, and shared sessions opened, in this process. */
export const sharedStats = { servers: 0, sessions: 0 };

function sharedServer(): Promise<SharedServer> {
  shared ??= (async () => {
    const root = makeTempDir('agent-runs-shared');
    const profile = createProfile(root);
    const vsix = snapshotVsix();
    const extension = await installVsix(profile, vsix, extensionId(readManifest()));
    installTestHooks(extension, vsix);
    const seedTokenFile = path.join(root, 'seed-token');
    // Workspace trust left to the settings (QUIET_SETTINGS: off), so a session can turn it on.
    const server = await startCodeServer(profile, { env: { [SEED_TOKEN_FILE_ENV]: seedTokenFile }, workspaceTrust: true });
    sharedStats.servers++;
    const stop = async (): Promise<void> => {
      unregister();
      await server.stop();
      if (process.env.AGENT_RUNS_KEEP_TEMP !== '1') {
        fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
      }
    };
    const unregister = registerCleanup('stop the shared code-server', stop);
    return { profile, extension, server, seedTokenFile, extensions: extensionsJson(profile), stop };
  })();
  const starting = shared;
  // A failed start is not kept: the next session tries again.
  starting.catch(() => {
    if (shared === starting) {
      shared = undefined;
    }
  });
  return starting;
}

function extensionsJson(profile: Profile): string {
  return fs.readFileSync(path.join(profile.extensionsDir, 'extensions.json'), 'utf8');
}

/**
 * A session on the one code-server this process shares (started, with the .vsix installed, on
 * first use): what `startSession` gives, for a fraction of its cost, and as isolated. Each
 * session gets its own emulator, its own workspace folder (opened through the workbench URL),
 * the user settings it asks for (written before its window loads, when the window reads them),
 * and its token in the seed file. What the extension keeps lives in the browser (globalState,
 * workspaceState, secrets: a fresh browser context per window) or under the server's user data,
 * which is emptied here (User/ and Machine/: settings, global and workspace storage). Windows of
 * earlier sessions are gone: code-server keeps a closed window's extension host for hours in case
 * it reconnects, so they are stopped here, and their logs are left out of this session's.
 * Trust comes from the settings; only other environment (`env`) needs a server of its own.
 */
export async function startSharedSession(options: SharedSessionOptions): Promise<Session> {
  if (sharedInUse) {
    // Two at once (a describe block's workbench inside another's) would share user data: this one gets its own server.
    process.stderr.write(`[harness] ${options.label}: the shared code-server is in use, starting one of its own\n`);
    return startSession(options);
  }
  let host = await sharedServer();
  if (host.server.process.hasExited) {
    shared = undefined;
    host = await sharedServer();
  }
  sharedInUse = true;
  let emulator: Emulator | undefined;
  try {
    await stopProcesses(extensionHostPids(host.server));
    const { userDataDir } = host.profile;
    fs.rmSync(path.join(userDataDir, 'Machine'), { recursive: true, force: true, maxRetries: 3 });
    // All of User/ but code-server's caches of the built-in extensions (rebuilt on each window's load otherwise).
    for (const name of fs.readdirSync(path.join(userDataDir, 'User')).filter((n) => !/ExtensionsCache\.json$/.test(n))) {
      fs.rmSync(path.join(userDataDir, 'User', name), { recursive: true, force: true, maxRetries: 3 });
    }
    fs.rmSync(host.seedTokenFile, { force: true });
    emulator = await sessionEmulator(options);
    writeUserSettings(userDataDir, sessionSettings(emulator, options));
    const root = makeTempDir(`agent-runs-${options.label}`);
    const workspaceDir = path.join(root, 'workspace');
    fs.mkdirSync(workspaceDir);
    writeWorkspaceFiles(workspaceDir, options.workspaceFiles);
    const seedTokenFile = writeSeedToken(emulator, options.signedIn, host.seedTokenFile);
    const profile: Profile = { ...host.profile, root, workspaceDir, earlierLogs: new Set(logFiles(host.profile)) };
    sharedStats.sessions++;
    const started = emulator;
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => {
      closing ??= (async () => {
        unregister();
        try {
          await stopProcesses(extensionHostPids(host.server));
          await started.close();
          fs.rmSync(host.seedTokenFile, { force: true });
          if (process.env.AGENT_RUNS_KEEP_TEMP !== '1') {
            fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
          }
          if (!host.server.process.hasExited && extensionsJson(host.profile) !== host.extensions) {
            // Another extension was installed (the Test Explorer's fixture): the next session gets a new server.
            shared = undefined;
            await host.stop();
          }
        } finally {
          sharedInUse = false;
        }
      })();
      return closing;
    };
    const unregister = registerCleanup(`close session ${options.label}`, close);
    return {
      emulator: started,
      profile,
      extension: host.extension,
      server: host.server,
      seedTokenFile,
      workbenchUrl: (urlOptions) => workbenchUrl(host.server, { folder: workspaceDir, ...urlOptions }),
      close,
    };
  } catch (error) {
    sharedInUse = false;
    await emulator?.close();
    throw error;
  }
}

/**
 * Writes the context of a suite run in the extension host of `parts` (a session, or the
 * desktop launcher's own emulator, profile and extension) to `file`, and returns it. The
 * suite's report and result files go next to `file`.
 */
export function writeSuiteContext(
  file: string,
  parts: Pick<Session, 'emulator' | 'profile' | 'extension'>,
  suite: { readonly grep?: string; readonly testTimeoutMs: number },
): IntegrationTestContext {
  const dir = path.dirname(file);
  const context: IntegrationTestContext = {
    emulator: emulatorInfo(parts.emulator),
    extensionId: parts.extension.id,
    installedExtensionPath: parts.extension.path,
    workspaceFolder: parts.profile.workspaceDir,
    reportFile: path.join(dir, 'report.txt'),
    resultFile: path.join(dir, 'result.json'),
    ...(suite.grep ? { grep: suite.grep } : {}),
    color: process.stdout.isTTY === true,
    testTimeoutMs: suite.testTimeoutMs,
  };
  writeTestContext(file, context);
  return context;
}
