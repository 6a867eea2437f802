/**
 * The object graph shared by every command, view and flow, built once in `activate()`. Nothing here does
 * network work on its own: `getClient()` loads the HTTP stack (dist/api.js) on first use.
 */
import type * as vscode from 'vscode';
import type { AgentRunsApi } from '../api/contract';
import type { Drafts } from './drafts';
import type { FollowUpSends } from './followUpSends';
import type { RunSync } from './runSync';
import type { Transcripts } from './transcripts';
import type { ConnectionState } from '../connection/connection';
import type { ApiModule } from '../connection/connection';
import type { LaunchPrefill, LedgerChange, RunLedger, LedgerEntry } from './common/ledger/ledger';
import type { Poller } from './common/polling/poller';
import type { TokenStore } from '../connection/tokenStore';
import type { UnconfirmedStarts } from './unconfirmedStarts';
import type { Sender } from './sender';
import type { Capabilities } from '../connection/capabilities';
import type { RunsAccess } from './runsAccess';
import type { TestGroupRecord } from './common/testGroupStore';


export interface Deps {
  readonly context: vscode.ExtensionContext;
  /**
   * The global state, one write in flight at a time (base/common/serialStore.ts): use this, never
   * `context.globalState`, whose concurrent writes can undo each other.
   */
  readonly globalState: vscode.Memento;
  /** The "Agent Runs" output channel. Never log the token; prompt text only at trace level. */
  readonly log: vscode.LogOutputChannel;
  /** SecretStorage wrapper: tokens keyed by normalised base URL. */
  readonly auth: TokenStore;
  /** The one poller. Track a run after starting it, `burst()` after any POST about it. */
  readonly poller: Poller;

  /** The run ledger of the configured base URL (replaced when the base URL changes). */
  ledger(): RunLedger;
  /** Fires after `ledger()` starts returning a different ledger (base URL changed). */
  readonly onDidChangeLedger: vscode.Event<RunLedger>;

  /** Current base URL / sign-in state (cheap, synchronous). */
  connection(): ConnectionState;
  readonly onDidChangeConnection: vscode.Event<ConnectionState>;

  /**
   * The client for the configured base URL and token, recreated when they or the proxy settings change;
   * `undefined` after telling the person what is missing (with `quiet`, telling nobody).
   */
  getClient(options?: { quiet?: boolean }): Promise<AgentRunsApi | undefined>;

  /** The API module (schemas, `describeApiError`, `normalizeBaseUrl`...), loaded on first call. */
  api(): ApiModule;

  /**
   * Shows an error from the service as a notification a person can act on. A 401 goes to
   * `reportUnauthorized` (one "Set API Token" prompt, polling paused) instead.
   * Extra buttons are offered after the built-in ones; resolves to the one picked.
   */
  showApiError(error: unknown, extraButtons?: readonly string[]): Promise<string | undefined>;

  /**
   * A 401 from anywhere: pauses polling and offers "Set API Token" once (not per run);
   * `interactive`: the person asked for something, so they are told even if already told.
   */
  reportUnauthorized(error?: unknown, options?: { interactive?: boolean }): void;

  /** Every change of the current ledger's runs, across ledger switches. */
  readonly onDidChangeRuns: vscode.Event<LedgerChange>;

  /**
   * Starts under way and those that may have reached the service unanswered: the launch flow
   * registers each `POST /agents` here, so a reload or a cut connection never loses one silently.
   */
  readonly starts: UnconfirmedStarts;

  /** The one sender for every start, follow-up and test group (run/sender.ts): the exactly-once rules. */
  readonly sender: Sender;

  /**
   * What the current service serves beyond the reference (connection/common/capabilities.ts): `has(c)` is its
   * context key `agentRuns.<c>`; `onDidChange` fires after any key changed or the base URL did.
   */
  readonly capabilities: Capabilities;

  /** The runs as their one state shows them (run/runsAccess.ts), for surfaces outside the Runs view. */
  readonly runs: RunsAccess;

  /** The run whose panel is the active editor, if one is: what a run command from the palette is about. */
  activeRun(): string | undefined;

  /** Opens the run's panel (tracking nothing new; the run must be in the ledger). */
  openRun(agentId: string): Promise<void>;

  /**
   * Opens the launch form pre-filled (a run to clone, or any subset of its fields), at its
   * review step or the first field still missing. The launch flow loads on first use.
   */
  startRunPrefilled(prefill: LedgerEntry | LaunchPrefill): Promise<void>;

  /** Whether the service rejected the stored token (polling waits for a new one). */
  tokenRejected(): boolean;
  /** Reads again whether a token is stored for the base URL (one set or cleared meanwhile). */
  refreshSignedIn(): Promise<void>;
  readonly sync: RunSync;
  /** The Runs view (src/runs implements it): shows a run, or reads every row again. */
  readonly view: { reveal(agentId: string, options?: { select?: boolean }): Promise<void>; readonly provider: { refreshAll(): void; dismissStartNotice(node: unknown): void } };
  readonly drafts: Drafts;
  /** Follow-ups being sent or that may have arrived, per run: the one lock every send path asks. */
  readonly sends: FollowUpSends;
  readonly transcripts: Transcripts;
}

/** The test IDs found in files named by path (the language model tool's "files"). */
export interface FilesScanAnswer {
  ids: string[];
  /** Workspace-relative paths actually scanned, in order. */
  files: string[];
  /** Set when nothing usable came out: a sentence naming the cause. */
  problem?: string;
}

/** What the test-groups feature offers the others: typed calls, not commands another extension could call. */
export interface TestGroupsAccess {
  /** A group created elsewhere (the tool) is listed in the Test Groups view like one made there. */
  remember(record: TestGroupRecord): Promise<void>;
  /** Scans workspace-relative test files for IDs with the person's settings, without UI; paths outside the workspace are refused. */
  scanFiles(paths: readonly string[]): Promise<FilesScanAnswer>;
}
