/**
 * activate(): register everything, return. No network, no awaiting, no run model: it is built on
 * first need, or on a timer just after activation when a run was unfinished or unread last session.
 */
import * as vscode from 'vscode';
import { Connection } from './connection/connection';
import { apiBundle, connectionPrompts, registerConnectionCommands } from './connection/contribution';
import { TokenStore } from './connection/tokenStore';
import { SEED_TOKEN_ENV } from './connection/seedToken';
import type * as TestHooks from './testHooks';
export type { AgentRunsTestApi } from './testHooks';
import { UnauthorizedGate } from './connection/unauthorizedGate';
import { registerLazyRunCommands, runsBundle } from './runs/contribution';
import { runCommands } from './runs/runCommands';
import { launchBundle, registerStartRun, startRunPrefilled } from './launch/contribution';
import { registerCodeReviews, registerStartCodeReview, showReviewRows } from './reviews/contribution';
import { Emitter } from './base/common/events';
import type { Deps } from './run/deps';
import { Ledgers } from './run/ledgers';
import { Transcripts } from './run/transcripts';
import { Drafts } from './run/drafts';
import { FollowUpSends } from './run/followUpSends';
import type { SendPostsModule } from './run/sender';
import { settleStartsOnRuns, UnconfirmedStarts } from './run/unconfirmedStarts';
import type { RunsTreeProvider } from './runs/runsTree';
import { runsTreeView } from './runs/treeView';
import type * as RunsBundle from './runs/bundle';
import { registerRunPanels } from './panel/contribution';
import { registerServiceTestGroups, registerTestGroups } from './testGroups/contribution';
import { registerAutomations, showAutomationRows } from './automations/contribution';
import { assistantBundle, registerAssistant } from './assistant/contribution';
import { registerTesting } from './testing/contribution';
import { registerServiceTests } from './serviceTests/contribution';
import { SerialStore } from './base/common/serialStore';
import { lazyBundle } from './base/common/lazyBundle';
import { capabilityGate } from './connection/capabilities';
import { activationExports, registerPublicApi } from './publicApi/contribution';
import type { AgentRunsExtension } from './publicApi/agent-runs';


let shutdown: (() => Promise<void>) | undefined;

/** The sender's POSTs (src/run/sendPosts.ts): the first start, follow-up or test group. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const sendPosts = lazyBundle(() => require('./send.js') as SendPostsModule);

/** The test harness's hooks (src/testHooks.ts), installed by it only: never in a person's install. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const testHooks = lazyBundle(() => require('./testHooks.js') as typeof TestHooks);

export function activate(context: vscode.ExtensionContext): AgentRunsExtension {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Agent Runs', { log: true });
  context.subscriptions.push(log);
  Emitter.onListenerError = (err) => log.error(`A listener failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);

  const base = buildBase(context, log);
  let built: Runs | undefined;
  const runs = (): Runs => {
    if (!built) {
      built = runsBundle().buildRuns({ context, log, base, shell, sendPosts, showOffline: (l) => runCommands().showOffline(l), onListenerError: Emitter.onListenerError });
      // After `built` is set: what the deps' getters reach is there now.
      built.host.attach(deps);
      showReviewRows(built.view, reviews, base, log);
      showAutomationRows(deps, built.view);
    }
    return built;
  };
  const shell = buildShell(context, log, base, () => void runs(), () => runs().view.provider);
  const deps = buildDeps(context, log, base, shell, runs);
  const reviews = registerCodeReviews(context, () => runs().view, shell.capabilities);
  registerRunCommands(context, deps, base, log);
  registerStartRun(context, deps);
  // The review form borrows the launch form's parts from dist/launch.js rather than carrying copies.
  registerStartCodeReview(context, deps, () => launchBundle().reviewParts);
  const testGroups = registerTestGroups(context, deps);
  const assistant = registerAssistant(context, deps, testGroups);
  registerServiceTests(context, deps, registerTesting(context, deps), () => testGroups.store.list());
  registerServiceTestGroups(context, deps, testGroups);
  registerAutomations(context, deps, () => runs().view);
  followFromStart(context, base, () => void runs());

  // Once activation is over: what a test harness seeds is no part of a person's start-up.
  setTimeout(() => void seedToken(base, log).catch((e: unknown) => log.warn(`Seeding the token failed: ${e instanceof Error ? e.message : String(e)}`)), 0);
  const flush = (): Promise<void> => Promise.all([base.ledgers.flush(), base.transcripts.flush()]).then(() => undefined);
  shutdown = flush;

  const activationMs = performance.now() - started;
  log.debug(`Agent Runs activated in ${activationMs.toFixed(1)} ms on ${base.conn.current.baseUrl} (${base.ledgers.current.active().length} unfinished run(s) to follow).`);
  const publicApi = registerPublicApi(context, deps, assistantBundle);
  return activationExports(publicApi.exports, () => Object.assign(testHooks().testApi({ b: base, r: runs, shell, log, flush, activationMs, assistant, reviews, testGroupsTree: testGroups.tree, seedToken: () => seedToken(base, log), sendPosts }), publicApi.exports, { publicApi: publicApi.hooks }));
}

/** A run unfinished (followed) or unread (the view's badge) at the last session, or one that becomes so in another window: the run model is built for it just after activation. */
function followFromStart(context: vscode.ExtensionContext, b: Base, build: () => void): void {
  const follow = (): void => {
    const ledger = b.ledgers.current;
    if (ledger.active().length > 0 || ledger.all().some((r) => r.unread)) build();
  };
  const timer = setTimeout(follow, 0);
  context.subscriptions.push({ dispose: () => clearTimeout(timer) }, b.ledgers.onDidChangeRuns(follow), b.ledgers.onDidChangeLedger(follow));
}

/**
 * AGENT_RUNS_SEED_TOKEN_FILE: the test harness's token, stored by dist/testHooks.js
 * (src/connection/seedToken.ts). The .vsix does not contain that file; the harness installs it.
 */
function seedToken(b: Pick<Base, 'conn' | 'auth'>, log: vscode.LogOutputChannel): Promise<boolean> {
  if (!process.env[SEED_TOKEN_ENV]) {
    return Promise.resolve(false);
  }
  let hooks: typeof TestHooks;
  try {
    hooks = testHooks();
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
  // Made on first use: a person who sends nothing this session never reads them.
  let drafts: Drafts | undefined;
  let sends: FollowUpSends | undefined;
  let starts: UnconfirmedStarts | undefined;
  const base = {
    auth, globalState, conn, ledgers, transcripts, gate,
    get drafts(): Drafts {
      return (drafts ??= new Drafts(context.workspaceState, (message) => log.warn(message)));
    },
    get sends(): FollowUpSends {
      return (sends ??= new FollowUpSends(context.workspaceState));
    },
    get starts(): UnconfirmedStarts {
      return (starts ??= new UnconfirmedStarts(context.workspaceState));
    },
  };
  context.subscriptions.push(auth, conn, ledgers, transcripts, gate, settleStartsOnRuns(() => base.starts, ledgers), {
    dispose: () => {
      sends?.dispose();
      starts?.dispose();
    },
  });
  // A new base URL means another service: its own runs, transcripts and token.
  context.subscriptions.push(conn.onDidChange((state) => {
    ledgers.switchTo(state.baseUrl);
    transcripts.switchBaseUrl(state.baseUrl);
  }));
  return base;
}
export type Base = ReturnType<typeof buildBase>;

/** What must exist when activate returns: the Runs view's tree view, the panels' serializer, the capability keys, the start notices' command. */
function buildShell(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, b: Base, ready: () => void, rows: () => RunsTreeProvider) {
  // Panels come back after a reload into a serializer that exists when VS Code asks; the panel
  // manager behind it loads on first use (dist/panel.js), after the run model it reads.
  const { host, panels } = registerRunPanels(context, log, { store: () => b.transcripts.store }, ready);
  const runsTree = runsTreeView(rows);
  const capabilities = capabilityGate(b, runsTree.treeView, log);
  context.subscriptions.push(runsTree, capabilities);
  // The one way to open a run's panel: deps.openRun, and the finished alert's Open.
  const openRun = (agentId: string): Promise<void> => {
    panels.open(agentId);
    return Promise.resolve();
  };
  return { host, panels, runsTree, capabilities, openRun };
}
export type Shell = ReturnType<typeof buildShell>;
export type Runs = RunsBundle.Runs;

/** What the features receive (run/deps.ts): extension.ts wires them through it, never to each other. */
function buildDeps(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, b: Base, shell: Shell, r: () => Runs): Deps {
  const { auth, globalState, conn, ledgers, gate, transcripts } = b;
  const { panels, capabilities } = shell;
  // The run model's parts are getters: the first feature that reaches one builds it.
  const deps: Deps = {
    context,
    globalState,
    log,
    auth,
    get poller() {
      return r().sync.poller;
    },
    ledger: () => ledgers.current,
    onDidChangeLedger: ledgers.onDidChangeLedger,
    onDidChangeRuns: ledgers.onDidChangeRuns,
    connection: () => conn.current,
    onDidChangeConnection: conn.onDidChange,
    getClient: (options) => conn.getClient(options),
    api: () => conn.api(),
    showApiError: (error, extraButtons) => connectionPrompts().showApiError(conn, gate, log, error, extraButtons),
    reportUnauthorized: (error, options) => gate.report(error, options),
    get starts() {
      return b.starts;
    },
    get sender() {
      return r().sender;
    },
    capabilities,
    get runs() {
      return r().access;
    },
    activeRun: () => panels.activeRun(),
    openRun: shell.openRun,
    startRunPrefilled: (prefill) => startRunPrefilled(deps, prefill),
    tokenRejected: () => gate.rejected,
    refreshSignedIn: () => conn.refreshSignedIn(),
    get sync() {
      return r().sync;
    },
    get view() {
      return r().view;
    },
    get drafts() {
      return b.drafts;
    },
    get sends() {
      return b.sends;
    },
    transcripts,
  };
  return deps;
}

function registerRunCommands(context: vscode.ExtensionContext, deps: Deps, b: Base, log: vscode.LogOutputChannel): void {
  registerConnectionCommands(context, { conn: b.conn, auth: b.auth, log });
  registerLazyRunCommands(context, deps);
}

export async function deactivate(): Promise<void> {
  await shutdown?.();
  shutdown = undefined;
}
