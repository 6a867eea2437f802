// The protocol between a test launcher (scripts/run-*.ts) and the tests it starts in an
// extension host. Only `node:` imports: this module is loaded inside the extension host.
//
// The launcher writes one JSON file and names it in the environment of code-server (or of
// VS Code desktop); the extension host inherits that environment:
//   AGENT_RUNS_TEST_CONTEXT=<file>     the IntegrationTestContext below
//   AGENT_RUNS_SEED_TOKEN_FILE=<file>  an API token (mode 0600) that the extension moves
//                                      into SecretStorage for the configured base URL and
//                                      deletes, so tests and the demo start signed in
// Settings reach the extension the ordinary way: <user-data-dir>/User/settings.json.
import * as fs from 'node:fs';

export const TEST_CONTEXT_ENV = 'AGENT_RUNS_TEST_CONTEXT';
export const SEED_TOKEN_FILE_ENV = 'AGENT_RUNS_SEED_TOKEN_FILE';

/** What the launcher knows about the service emulator it started. */
export interface EmulatorInfo {
  /** The API base URL, also written to the `agentRuns.baseUrl` setting. */
  readonly baseUrl: string;
  /** The emulator's admin endpoint, to script scenarios from a test. */
  readonly adminUrl: string;
  readonly origin: string;
  /** Tokens the emulator accepts, by name; `default` is the one seeded into SecretStorage. */
  readonly tokens: Readonly<Record<string, string>>;
}

export interface IntegrationTestContext {
  readonly emulator: EmulatorInfo;
  /** `publisher.name` of the extension under test. */
  readonly extensionId: string;
  /**
   * The folder the packaged .vsix was installed to. The extension host loads the
   * extension from there, so the tests run the packaged code, not the source tree.
   */
  readonly installedExtensionPath: string;
  readonly workspaceFolder: string;
  /** Mocha's report is appended here; the launcher streams it to its terminal. */
  readonly reportFile: string;
  /** Written once when the run ends: a TestRunResult. */
  readonly resultFile: string;
  /** Mocha `--grep`, if the launcher was given one. */
  readonly grep?: string;
  readonly color: boolean;
  /** Mocha's per-test timeout in the extension host. */
  readonly testTimeoutMs: number;
}

export interface TestRunResult {
  readonly passes: number;
  readonly failures: number;
  readonly pending: number;
  /** Set when the suite could not run at all (load error, no test files). */
  readonly error?: string;
}

export function writeTestContext(file: string, context: IntegrationTestContext): void {
  fs.writeFileSync(file, JSON.stringify(context, null, 2), { mode: 0o600 });
}

/** The context the launcher wrote, or undefined when the tests were started some other way. */
export function readTestContext(): IntegrationTestContext | undefined {
  const file = process.env[TEST_CONTEXT_ENV];
  if (!file) {
    return undefined;
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')) as IntegrationTestContext;
}

/** Like readTestContext, for tests that cannot do without the launcher. */
export function requireTestContext(): IntegrationTestContext {
  const context = readTestContext();
  if (!context) {
    throw new Error(`${TEST_CONTEXT_ENV} is not set: start the integration tests with npm run test:integration (or test:desktop).`);
  }
  return context;
}
