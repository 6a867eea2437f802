// One ready-to-open VS Code: the service emulator, a fresh profile pointed at it, the
// packaged .vsix installed, and code-server running with the seed-token protocol. Used by
// the integration launcher, the UI test harness and the demo.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  createProfile,
  installTestHooks,
  installVsix,
  TEST_HOOKS_FILE,
  startCodeServer,
  workbenchUrl,
  type CodeServer,
  type InstalledExtension,
  type Profile,
  type WorkbenchUrlOptions,
} from './codeServer';
import type { PresetName } from '../emulator/index';
import { emulatorInfo, emulatorToken, startEmulator, type Emulator } from './emulator';
import { extensionId, paths, readManifest } from './paths';
import { makeTempDir, registerCleanup } from './processes';
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

/**
 * Starts the emulator, lays out a fresh profile pointed at it, installs the .vsix and
 * starts code-server. close() (or the process cleanup, on a signal) stops it all.
 */
export async function startSession(options: SessionOptions): Promise<Session> {
  const root = makeTempDir(`agent-runs-${options.label}`);
  const emulator = await startEmulator({ stepMs: options.stepMs, logRequests: options.logRequests === true, ...(options.preset ? { preset: options.preset } : {}) });
  let server: CodeServer | undefined;
  try {
    const profile = createProfile(root, {
      settings: {
        'agentRuns.baseUrl': emulator.baseUrl,
        // Untrusted unless the test trusts it, without a startup prompt in front of the workbench.
        ...(options.workspaceTrust ? { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never' } : {}),
        ...options.settings,
      },
      workspaceFiles: options.workspaceFiles,
    });
    const manifest = readManifest();
    const vsix = options.vsix ?? snapshotVsix();
    const extension = await installVsix(profile, vsix, extensionId(manifest));
    installTestHooks(extension, vsix);

    const env: Record<string, string> = { ...options.env };
    let seedTokenFile: string | undefined;
    if (options.signedIn !== false) {
      const name = options.signedIn === true ? 'default' : options.signedIn;
      const token = emulatorToken(emulator, name);
      if (token === undefined) {
        throw new Error(`The emulator has no token named ${name}`);
      }
      // Never in settings: a file only this user can read, named in the environment.
      seedTokenFile = path.join(root, 'seed-token');
      fs.writeFileSync(seedTokenFile, token, { mode: 0o600 });
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
