/**
 * The Runs view's rows for starts that may have reached the service (see unconfirmedStarts.ts):
 * one row each, above the apps, that runs Track Run by ID when clicked and can be dismissed. The
 * row's words load with the run commands (./commands/startNoticeItem.ts, dist/runCommands.js).
 */
import * as vscode from 'vscode';
import type { UnconfirmedStart, UnconfirmedStarts } from '../run/unconfirmedStarts';
import type { Ledgers } from '../run/ledgers';

export class StartNoticeNode {
  constructor(readonly start: UnconfirmedStart) {}
}

/** "Dismiss" on a row, and a run entering the list settles the rows it answers. */
export function registerStartNotices(context: vscode.ExtensionContext, starts: UnconfirmedStarts, ledgers: Ledgers): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('agentRuns.dismissStartNotice', (node?: unknown) => {
      if (node instanceof StartNoticeNode) {
        starts.dismiss(node.start.id);
      }
    }),
    ledgers.onDidChangeRuns((change) => {
      for (const id of change.agentIds) {
        const record = ledgers.current.get(id);
        if (record) {
          starts.settledBy(record);
        }
      }
    }),
  );
}
