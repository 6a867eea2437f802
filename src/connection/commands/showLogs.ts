import * as vscode from 'vscode';
import type { GlueDeps } from '../glue/glueDeps';

export function registerShowLogs(context: vscode.ExtensionContext, deps: GlueDeps): void {
  context.subscriptions.push(vscode.commands.registerCommand('agentRuns.showLogs', () => deps.log.show()));
}
