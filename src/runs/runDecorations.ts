/**
 * Badges at the right edge of run rows, because a narrow side bar cuts the description first:
 * "●" changed since last opened, "!" its last reads failed.
 */
import * as vscode from 'vscode';
import type { Ledgers } from '../run/ledgers';
import { Disposable } from '../base/common/disposable';

export const RUN_URI_SCHEME = 'agent-runs-run';

export function runUri(agentId: string): vscode.Uri {
  return vscode.Uri.from({ scheme: RUN_URI_SCHEME, path: `/${encodeURIComponent(agentId)}` });
}

export class RunDecorations extends Disposable implements vscode.FileDecorationProvider {
  private readonly changeEmitter = this._register(new vscode.EventEmitter<vscode.Uri | vscode.Uri[] | undefined>());
  readonly onDidChangeFileDecorations: vscode.Event<vscode.Uri | vscode.Uri[] | undefined> = this.changeEmitter.event;

  constructor(private readonly ledgers: Ledgers) {
    super();
    this._register(vscode.window.registerFileDecorationProvider(this));
    this._register(ledgers.onDidChangeRuns((c) => this.changeEmitter.fire(c.agentIds.length > 0 ? c.agentIds.map(runUri) : undefined)));
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== RUN_URI_SCHEME) {
      return undefined;
    }
    const record = this.ledgers.current.get(decodeURIComponent(uri.path.slice(1)));
    if (!record) {
      return undefined;
    }
    if (record.pollError !== undefined) {
      return new vscode.FileDecoration('!', vscode.l10n.t('Could not refresh; showing the last known state'), new vscode.ThemeColor('list.warningForeground'));
    }
    if (record.unread) {
      return new vscode.FileDecoration('●', vscode.l10n.t('Changed since you last looked'), new vscode.ThemeColor('notificationsInfoIcon.foreground'));
    }
    return undefined;
  }
}
