/**
 * activate(): build the object graph, register everything, return. No network, no awaiting:
 * the first request happens when a command needs one or a timer for an unfinished run fires
 * (after the SecretStorage lookup that tells whether there is a token at all).
 */
import * as vscode from 'vscode';
import { Connection } from './connection/connection';
import { apiBundle, connectionPrompts, registerConnectionCommands } from './connection/contribution';
import { TokenStore } from './connection/tokenStore';
import { SEED_TOKEN_ENV, type seedTokenFromEnv } from './connection/seedToken';
import { UnauthorizedGate } from './connection/unauthorizedGate';
import { registerLazyRunCommands, runCommands } from './runs/contribution';
import { registerStartRun, startRunPrefilled } from './launch/contribution';
import { registerCodeReviews, registerStartCodeReview } from './reviews/contribution';
import { Emitter } from './base/common/events';
import type { RunLedger } from './run/common/ledger/ledger';
import type { Poller } from './run/common/polling/poller';
import { showApiError } from './connection/showApiError';
import type { GlueDeps } from './run/glueDeps';
import type { AfterPost } from './run/afterPost';
import { Ledgers } from './run/ledgers';
import { RunSync } from './run/runSync';
import { Transcripts } from './run/transcripts';
import type { TranscriptRead } from './run/common/transcript/transcriptFiles';
import { Drafts } from './run/drafts';
import { FollowUpSends } from './run/followUpSends';
import { knownUserMessageIds, watchFollowUpSends } from './run/followUp';
import { SendDoor, type SendPostsModule } from './run/sendDoor';
import { runsAccess } from './run/runsAccess';
import { UnconfirmedStarts } from './run/unconfirmedStarts';
import { registerStartNotices } from './runs/startNotices';
import { RunAlerts } from './runs/alerts';
import { RunDecorations } from './runs/runDecorations';
import { RunsTreeProvider } from './runs/runsTree';
import { RunsView } from './runs/runsView';
import { RunsStatusBar } from './runs/statusBar';
import { registerRunPanels } from './panel/contribution';
import { registerServiceTestGroups, registerTestGroups } from './testGroups/contribution';
import type { TestGroupsElement } from './testGroups/view';
import { registerAutomations } from './automations/contribution';
import { registerAssistant, type AssistantTestHooks } from './assistant/contribution';
import { registerTesting } from './testing/contribution';
import { registerServiceTests } from './serviceTests/contribution';
import { SerialStore } from './base/common/serialStore';
import type { ReviewsGate } from './reviews/gate';
import { lazyBundle } from './base/common/lazyBundle';
import { capabilityGate, type CapabilityGate } from './connection/capabilities';
import type { Capability } from './connection/common/capabilities';
import type { RunsTreeElement } from './runs/runsTree';

/** What activate() returns: enough for the integration tests to watch, never the token. */
export interface AgentRunsTestApi {
  ledger(): RunLedger;
  readonly poller: Poller;
  /** "Set API Token" prompts shown after a 401. */
  readonly unauthorizedPrompts: number;
  /** Run-finished notifications shown. */
  readonly notificationsShown: number;
  /** Run-finished notifications shown about one run (among the latest 100). */
  notificationsFor(agentId: string): number;
  /** Resolves when the ledger and transcripts are written. */
  flush(): Promise<void>;
  /** Milliseconds activate() took. */
  readonly activationMs: number;
  /** The latest reads of a saved transcript into memory (run, messages, bytes, milliseconds). */
  transcriptReads(): readonly TranscriptRead[];
  /** Base URL and whether a token is stored (never the token). */
  connection(): { baseUrl: string | undefined; signedIn: boolean; tokenRejected: boolean; online: boolean };
  /** Runs the AGENT_RUNS_SEED_TOKEN_FILE import again (tests: "a new token was set"). */
  seedToken(): Promise<boolean>;
  /** What the composer does once the service acknowledged a POST (tests: a follow-up whose reads are still stale). */
  afterPost(post: AfterPost): void;
  /** The `sequence` of every message in a run's transcript, in order (-1 without one). */
  /** The sequences of the run's transcript as the product holds it (read back from its journal when not in memory). */
  transcriptSequences(agentId: string): Promise<number[]>;
  /** The language model tools and the chat handler, as registered (tests drive what the editor's UI would). */
  readonly assistant: AssistantTestHooks;
  /** The Runs view's rows as its tree provider gives them to VS Code. */
  readonly runsTree: { getChildren(element?: RunsTreeElement): RunsTreeElement[] | Promise<RunsTreeElement[]>; getTreeItem(element: RunsTreeElement): vscode.TreeItem };
  /** Whether `agentRuns.codeReviews` is on. */
  codeReviews(): boolean;
  /** Whether a capability's context key (`agentRuns.<capability>`) is on. */
  capability(c: Capability): boolean;
  /** The run whose panel VS Code last reported active: what a run command from the palette acts on. */
  activeRun(): string | undefined;
  /** The Test Groups view's rows as its tree provider gives them to VS Code. */
  readonly testGroupsTree: vscode.TreeDataProvider<TestGroupsElement>;
  /** The extension's global state (tests: what branches and reviews are known here, set or forgotten). */
  readonly globalState: Pick<vscode.Memento, 'get' | 'update'>;
}

let shutdown: (() => Promise<void>) | undefined;

/** The send door's POSTs (src/run/sendPosts.ts): the first start, follow-up or test group. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const sendPosts = lazyBundle(() => require('./send.js') as SendPostsModule);

export function activate(context: vscode.ExtensionContext): AgentRunsTestApi {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Agent Runs', { log: true });
  context.subscriptions.push(log);
  Emitter.onListenerError = (err) => log.error(`A listener failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);

  const base = buildBase(context, log);
  const runs = buildRuns(context, log, base);
  const capabilities = capabilityGate(base, runs.view.treeView, log);
  context.subscriptions.push(capabilities);
  const deps = buildDeps(context, log, base, runs, capabilities);
  registerRunCommands(context, deps, base, log);
  runs.host.attach(deps);
  registerStartRun(context, deps);
  registerStartCodeReview(context, deps);
  const testGroups = registerTestGroups(context, deps);
  const assistant = registerAssistant(context, deps, testGroups);
  registerServiceTests(context, deps, registerTesting(context, deps), () => testGroups.store.list());
  const reviews = registerCodeReviews(context, base, runs.view, log, capabilities);
  registerServiceTestGroups(context, deps, testGroups);
  registerAutomations(context, deps, runs.view);

  // Once activation is over: what a test harness seeds is no part of a person's start-up.
  setTimeout(() => void seedToken(base, log).catch((e: unknown) => log.warn(`Seeding the token failed: ${e instanceof Error ? e.message : String(e)}`)), 0);
  const flush = (): Promise<void> => Promise.all([base.ledgers.flush(), base.transcripts.flush()]).then(() => undefined);
  shutdown = flush;

  const activationMs = performance.now() - started;
  log.debug(`Agent Runs activated in ${activationMs.toFixed(1)} ms on ${base.conn.current.baseUrl} (${base.ledgers.current.active().length} unfinished run(s) to follow).`);
  return testApi(base, runs, log, flush, activationMs, assistant, reviews, capabilities, testGroups.tree);
}

/**
 * AGENT_RUNS_SEED_TOKEN_FILE: the test harness's token, stored by dist/testHooks.js
 * (src/connection/seedToken.ts). The .vsix does not contain that file; the harness installs it.
 */
function seedToken(b: Pick<Base, 'conn' | 'auth'>, log: vscode.LogOutputChannel): Promise<boolean> {
  if (!process.env[SEED_TOKEN_ENV]) {
    return Promise.resolve(false);
  }
  let hooks: { seedTokenFromEnv: typeof seedTokenFromEnv };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    hooks = require('./testHooks.js') as typeof hooks;
  } catch {
    log.warn(`${SEED_TOKEN_ENV} is set but this installation has no test hooks (dist/testHooks.js); the token was not stored.`);
    return Promise.resolve(false);
  }
  return hooks.seedTokenFromEnv(process.env, b.conn, b.auth, log);
}

/** Connection, token, run list, transcripts, 401 gate, drafts: what every feature stands on. */
function buildBase(context: vscode.ExtensionContext, log: vscode.LogOutputChannel) {
  const auth = new TokenStore(context.secrets);
  // Every global-state write goes through one queue: concurrent ones can undo each other.
  const globalState = new SerialStore(context.globalState);
  const conn = new Connection({ context, globalState, auth, log, loadApi: apiBundle, prompts: connectionPrompts });
  const ledgers = new Ledgers(globalState, log, conn.current.baseUrl, context.workspaceState);
  // The journals load on first use (dist/transcripts.js); runs the ledger knows unfinished are never pruned.
  const transcripts = new Transcripts(context.globalStorageUri, log, conn.current.baseUrl, () => ledgers.current);
  const gate = new UnauthorizedGate(conn, auth, log);
  const drafts = new Drafts(context.workspaceState, (message) => log.warn(message));
  const sends = new FollowUpSends(context.workspaceState);
  const starts = new UnconfirmedStarts(context.workspaceState);
  context.subscriptions.push(auth, conn, ledgers, transcripts, gate, sends, starts);
  // A new base URL means another service: its own runs, transcripts and token.
  context.subscriptions.push(conn.onDidChange((state) => {
    ledgers.switchTo(state.baseUrl);
    transcripts.switchBaseUrl(state.baseUrl);
  }));
  return { auth, globalState, conn, ledgers, transcripts, gate, drafts, sends, starts };
}
type Base = ReturnType<typeof buildBase>;

/** The run model's readers and views: panel host, polling, alerts, the Runs view and status bar. */
function buildRuns(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, b: Base) {
  // The webview serializer must exist when activate returns (panels come back after a reload);
  // the panel manager behind it loads on first use (dist/panel.js).
  const { host, panels } = registerRunPanels(context, log, { store: () => b.transcripts.store });
  const alerts = new RunAlerts(log, (id) => host.isViewing(id));
  const sync = new RunSync({
    ledgers: b.ledgers, connection: b.conn, gate: b.gate, transcripts: b.transcripts, alerts, log,
    isViewing: (id) => host.isViewing(id),
    // A follow-up that may have arrived is found in the history that shows it (the send door).
    beforeApply: (id, agent) => door.observeRead(id, agent),
    // ... and looked for until it shows or UNCERTAIN_READ_MS passed, however finished the run reads.
    awaiting: (id) => b.sends.awaiting(id),
    unchanged: (id) => host.polled(id),
  });
  const door = new SendDoor({
    client: (o) => b.conn.getClient(o),
    ledger: () => b.ledgers.current,
    poller: sync.poller,
    starts: b.starts,
    sends: b.sends,
    targetState: context.workspaceState,
    drafts: b.drafts,
    knownUserMessageIds: (id, prompt) => knownUserMessageIds(b, id, prompt),
    log,
    l10n: vscode.l10n,
  }, sendPosts);
  context.subscriptions.push(sync, watchFollowUpSends(b.sends, b.ledgers, sync));
  const view = new RunsView(new RunsTreeProvider(b.ledgers, b.conn), b.ledgers);
  const statusBar = new RunsStatusBar(b.ledgers);
  context.subscriptions.push(view, statusBar, new RunDecorations(b.ledgers));
  view.provider.showStartNotices(b.starts);
  registerStartNotices(context, b.starts, b.ledgers);
  const connectivity = wireNotices(context, log, b.gate, sync, view, statusBar);
  return { host, panels, alerts, sync, view, connectivity, door };
}
type Runs = ReturnType<typeof buildRuns>;

/** The rejected-token and offline notices of the view and status bar; returns whether the service is reachable. */
function wireNotices(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, gate: UnauthorizedGate, sync: RunSync, view: RunsView, statusBar: RunsStatusBar): () => boolean {
  context.subscriptions.push(gate.onDidChange(() => {
    statusBar.setRejected(gate.rejected);
    view.setNotice('rejected', gate.rejected ? vscode.l10n.t('The service rejected the API token. Runs are not updated until you set a new one.') : undefined);
  }));
  let offlineNotified = false;
  let reachable = true;
  context.subscriptions.push(sync.onDidChangeConnectivity((online) => {
    reachable = online;
    statusBar.setOffline(!online);
    view.setNotice('offline', online ? undefined : vscode.l10n.t('The service cannot be reached. Showing the last known state; retrying in the background.'));
    // One notification per session of trouble, not per poll or per transition.
    if (!online && !offlineNotified) {
      offlineNotified = true;
      runCommands().showOffline(log);
    }
    if (online) {
      offlineNotified = false;
    }
  }));
  return () => reachable;
}

/** What the features receive (run/glueDeps.ts): extension.ts wires them through it, never to each other. */
function buildDeps(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, b: Base, r: Runs, capabilities: CapabilityGate): GlueDeps {
  const { auth, globalState, conn, ledgers, gate, drafts, transcripts, sends, starts } = b;
  const { sync, panels, view, door } = r;
  const runs = runsAccess(ledgers, transcripts, sync);
  context.subscriptions.push(runs);
  const deps: GlueDeps = {
    context,
    globalState,
    log,
    auth,
    poller: sync.poller,
    ledger: () => ledgers.current,
    onDidChangeLedger: ledgers.onDidChangeLedger,
    onDidChangeRuns: ledgers.onDidChangeRuns,
    connection: () => conn.current,
    onDidChangeConnection: conn.onDidChange,
    getClient: (options) => conn.getClient(options),
    api: () => conn.api(),
    showApiError: (error, extraButtons) => showApiError(conn, gate, log, error, extraButtons),
    reportUnauthorized: (error, options) => gate.report(error, options),
    starts,
    door,
    capabilities,
    runs,
    activeRun: () => panels.activeRun(),
    openRun: (agentId) => {
      panels.open(agentId);
      return Promise.resolve();
    },
    startRunPrefilled: (prefill) => startRunPrefilled(deps, prefill),
    tokenRejected: () => gate.rejected,
    refreshSignedIn: () => conn.refreshSignedIn(),
    sync,
    view,
    drafts,
    sends,
    transcripts,
  };
  return deps;
}

function registerRunCommands(context: vscode.ExtensionContext, deps: GlueDeps, b: Base, log: vscode.LogOutputChannel): void {
  registerConnectionCommands(context, { conn: b.conn, auth: b.auth, log });
  registerLazyRunCommands(context, deps);
}

function testApi(b: Base, r: Runs, log: vscode.LogOutputChannel, flush: () => Promise<void>, activationMs: number, assistant: AssistantTestHooks, reviews: ReviewsGate, caps: CapabilityGate, testGroupsTree: AgentRunsTestApi['testGroupsTree']): AgentRunsTestApi {
  const { conn, ledgers, gate } = b;
  return {
    ledger: () => ledgers.current,
    poller: r.sync.poller,
    get unauthorizedPrompts() {
      return gate.promptCount;
    },
    get notificationsShown() {
      return r.alerts.shownCount;
    },
    notificationsFor: (agentId) => r.alerts.shownFor(agentId),
    flush,
    activationMs,
    transcriptReads: () => b.transcripts.reads,
    connection: () => ({ baseUrl: conn.current.baseUrl, signedIn: conn.current.signedIn, tokenRejected: gate.rejected, online: r.connectivity() }),
    seedToken: () => seedToken(b, log),
    afterPost: (post) => sendPosts().afterPost(b.ledgers.current, r.sync.poller, post),
    // Not the in-memory store alone: a transcript no panel shows is dropped from memory once saved.
    transcriptSequences: async (agentId) => (await b.transcripts.load(agentId)).snapshot().entries.map((e) => e.sequence ?? -1),
    assistant,
    runsTree: r.view.provider,
    codeReviews: () => reviews.enabled,
    capability: (c) => caps.has(c),
    activeRun: () => r.panels.activeRun(),
    testGroupsTree,
    globalState: b.globalState,
  };
}

export async function deactivate(): Promise<void> {
  await shutdown?.();
  shutdown = undefined;
}
