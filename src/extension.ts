/**
 * activate(): build the object graph, register everything, return. No network, no awaiting:
 * the first request happens when a command needs one or a timer for an unfinished run fires
 * (after the SecretStorage lookup that tells whether there is a token at all).
 */
import * as vscode from 'vscode';
import { Connection } from './connection/connection';
import { registerConnectionCommands } from './connection/register';
import { seedTokenFromEnv } from './connection/seedToken';
import { TokenStore } from './connection/tokenStore';
import { UnauthorizedGate } from './connection/unauthorizedGate';
import { registerClearFinished } from './runs/commands/clearFinished';
import { registerCopyAgentId } from './runs/commands/copyAgentId';
import { registerCopyLink } from './runs/commands/copyLink';
import { registerExportRun } from './runs/commands/exportRun';
import { registerOpenRun } from './runs/commands/openRun';
import { registerRefresh } from './runs/commands/refresh';
import { registerRefreshRun } from './runs/commands/refreshRun';
import { registerRemoveRun } from './runs/commands/removeRun';
import { registerSendFollowUp } from './runs/commands/sendFollowUp';
import { registerStartRun, startRunPrefilled } from './launch/register';
import { registerTrackRun } from './runs/commands/trackRun';
import { registerUriHandler } from './runs/commands/uriHandler';
import { Emitter } from './core/events';
import type { RunLedger } from './core/ledger/ledger';
import type { Poller } from './core/polling/poller';
import { showApiError } from './connection/showApiError';
import type { GlueDeps } from './runs/glueDeps';
import { afterPost } from './runs/afterPost';
import { Ledgers } from './runs/ledgers';
import { RunSync } from './runs/runSync';
import { Transcripts } from './runs/transcripts';
import type { TranscriptRead } from './core/transcript/transcriptFiles';
import { Drafts } from './runs/drafts';
import { loadApi } from './connection/loadApi';
import { RunAlerts } from './runs/alerts';
import { RunDecorations } from './runs/runDecorations';
import { RunsTreeProvider, RunsView } from './runs/runsTree';
import { RunsStatusBar } from './runs/statusBar';
import { PanelHost } from './panel/host';
import { LazyRunPanels } from './panel/panels';
import { registerTestGroups } from './testGroups/register';

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
}

let shutdown: (() => Promise<void>) | undefined;

export function activate(context: vscode.ExtensionContext): AgentRunsTestApi {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Agent Runs', { log: true });
  context.subscriptions.push(log);
  Emitter.onListenerError = (err) => log.error(`A listener failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);

  const auth = new TokenStore(context.secrets);
  const conn = new Connection({ context, auth, log, loadApi });
  const ledgers = new Ledgers(context.globalState, log, conn.current.baseUrl);
  // The journals load on first use (dist/transcripts.js); runs the ledger knows unfinished are never pruned.
  const transcripts = new Transcripts(context.globalStorageUri, log, conn.current.baseUrl, () => ledgers.current);
  const gate = new UnauthorizedGate(conn, auth, log);
  const drafts = new Drafts(context.workspaceState, (message) => log.warn(message));
  context.subscriptions.push(auth, conn, ledgers, transcripts, gate);
  // A new base URL means another service: its own runs, transcripts and token.
  context.subscriptions.push(conn.onDidChange((state) => {
    ledgers.switchTo(state.baseUrl);
    transcripts.switchBaseUrl(state.baseUrl);
  }));

  // The webview serializer must exist when activate returns (panels come back after a reload);
  // the panel manager behind it loads on first use (dist/panel.js).
  const host = new PanelHost(log);
  const panels = new LazyRunPanels(context.extensionUri, host, { store: () => transcripts.store });
  context.subscriptions.push(host, panels);
  const alerts = new RunAlerts(log, (id) => host.isViewing(id));
  const sync = new RunSync({
    ledgers, connection: conn, gate, transcripts, alerts, log,
    isViewing: (id) => host.isViewing(id),
    remember: (id, agent) => host.remember(id, agent),
    unchanged: (id) => host.polled(id),
  });
  context.subscriptions.push(sync);

  const view = new RunsView(new RunsTreeProvider(ledgers, conn), ledgers);
  const statusBar = new RunsStatusBar(ledgers);
  context.subscriptions.push(view, statusBar, new RunDecorations(ledgers));

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
      const showLogs = vscode.l10n.t('Show Logs');
      void vscode.window.showWarningMessage(vscode.l10n.t('Agent Runs cannot reach the service. Runs show their last known state and are read again when it answers.'), showLogs)
        .then((pick) => (pick === showLogs ? log.show(true) : undefined));
    }
    if (online) {
      offlineNotified = false;
    }
  }));

  const deps: GlueDeps = {
    context,
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
    reportUnauthorized: (error) => gate.report(error),
    afterPost: (post) => afterPost(ledgers.current, sync.poller, post),
    openRun: (agentId) => {
      panels.open(agentId);
      return Promise.resolve();
    },
    startRunPrefilled: (prefill) => startRunPrefilled(deps, prefill),
    conn,
    ledgers,
    gate,
    sync,
    view,
    drafts,
    transcripts,
  };

  registerConnectionCommands(context, { conn, auth, log });
  registerTrackRun(context, deps);
  registerOpenRun(context, deps);
  registerSendFollowUp(context, deps);
  registerRefresh(context, deps);
  registerRefreshRun(context, deps);
  registerCopyAgentId(context, deps);
  registerCopyLink(context, deps);
  registerExportRun(context, deps);
  registerRemoveRun(context, deps);
  registerClearFinished(context, deps);
  registerUriHandler(context, deps);
  host.attach(deps);
  registerStartRun(context, deps);
  registerTestGroups(context, deps);

  // After registration, off the activation path.
  void seedTokenFromEnv(process.env, conn, auth, log).catch((e: unknown) => log.warn(`Seeding the token failed: ${e instanceof Error ? e.message : String(e)}`));

  shutdown = async () => {
    await Promise.all([ledgers.flush(), transcripts.flush()]);
  };

  const activationMs = performance.now() - started;
  log.debug(`Agent Runs activated in ${activationMs.toFixed(1)} ms (${ledgers.current.active().length} unfinished run(s) to follow).`);
  return {
    ledger: () => ledgers.current,
    poller: sync.poller,
    get unauthorizedPrompts() {
      return gate.promptCount;
    },
    get notificationsShown() {
      return alerts.shownCount;
    },
    notificationsFor: (agentId) => alerts.shownFor(agentId),
    flush: () => Promise.all([ledgers.flush(), transcripts.flush()]).then(() => undefined),
    activationMs,
    transcriptReads: () => transcripts.reads,
    connection: () => ({ baseUrl: conn.current.baseUrl, signedIn: conn.current.signedIn, tokenRejected: gate.rejected, online: reachable }),
    seedToken: () => seedTokenFromEnv(process.env, conn, auth, log),
  };
}

export async function deactivate(): Promise<void> {
  await shutdown?.();
  shutdown = undefined;
}
