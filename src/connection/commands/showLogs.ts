import * as vscode from 'vscode';
import type { ConnectionServices } from '../connection';

export function registerShowLogs(context: vscode.ExtensionContext, deps: ConnectionServices): void {
  context.subscriptions.push(vscode.commands.registerCommand('agentRuns.showLogs', () => deps.log.show()));
}
