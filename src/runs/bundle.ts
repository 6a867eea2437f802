// The run model (dist/runs.js): polling, the sender, alerts, the Runs view's rows and status bar, built on first need.
import * as vscode from 'vscode';
import { Emitter } from '../base/common/events';
import type { Base, Shell } from '../extension';
import type { UnauthorizedGate } from '../connection/unauthorizedGate';
import { RunSync } from '../run/runSync';
import { knownUserMessageIds, watchFollowUpSends } from '../run/followUp';
import { Sender, type SendPostsModule } from '../run/sender';
import { runsAccess } from '../run/runsAccess';
import { RunAlerts } from './alerts';
import { RunDecorations } from './runDecorations';
import { RunsTreeProvider } from './runsTree';
import { RunsView } from './runsView';
import { RunsStatusBar } from './statusBar';

/** What the run model is built from: activation's base and shell, and the loaders of two other bundles. */
export interface RunsInputs {
  readonly context: vscode.ExtensionContext;
  readonly log: vscode.LogOutputChannel;
  readonly base: Base;
  readonly shell: Shell;
  /** dist/send.js: the sender's POSTs. */
  readonly sendPosts: () => SendPostsModule;
  /** dist/runCommands.js's offline notification. */
  readonly showOffline: (log: vscode.LogOutputChannel) => void;
  /** Where a throwing listener's error goes: this bundle has its own copy of Emitter. */
  readonly onListenerError: (err: unknown) => void;
}

export function buildRuns({ context, log, base: b, shell, sendPosts, showOffline, onListenerError }: RunsInputs) {
  Emitter.onListenerError = onListenerError;
  const { host } = shell;
  const alerts = new RunAlerts(log, (id) => host.isViewing(id), shell.openRun);
  const sync = new RunSync({
    ledgers: b.ledgers, connection: b.conn, gate: b.gate, transcripts: b.transcripts, alerts, log,
    isViewing: (id) => host.isViewing(id),
    // A follow-up that may have arrived is found in the history that shows it (the sender).
    beforeApply: (id, agent) => sender.observeRead(id, agent),
    // ... and looked for until it shows or UNCERTAIN_READ_MS passed, however finished the run reads.
    awaiting: (id) => b.sends.awaiting(id),
    unchanged: (id) => host.polled(id),
  });
  const sender = new Sender({
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
  const view = new RunsView(new RunsTreeProvider(b.ledgers, b.conn), b.ledgers, shell.runsTree);
  const statusBar = new RunsStatusBar(b.ledgers);
  const access = runsAccess(b.ledgers, b.transcripts, sync);
  context.subscriptions.push(view, statusBar, new RunDecorations(b.ledgers), access);
  view.provider.showStartNotices(b.starts);
  const connectivity = wireNotices(context, log, b.gate, sync, view, statusBar, showOffline);
  return { host, alerts, sync, view, connectivity, sender, access };
}
export type Runs = ReturnType<typeof buildRuns>;

/** The rejected-token and offline notices of the view and status bar; returns whether the service is reachable. */
function wireNotices(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, gate: UnauthorizedGate, sync: RunSync, view: RunsView, statusBar: RunsStatusBar, showOffline: RunsInputs['showOffline']): () => boolean {
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
      showOffline(log);
    }
    if (online) {
      offlineNotified = false;
    }
  }));
  return () => reachable;
}
