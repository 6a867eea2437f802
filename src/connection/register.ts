/**
 * The connection's commands: base URL, token, logs. Their bodies load on first use from
 * dist/runCommands.js, which re-exports ./commands/bodies.ts (src/runs/commands/bodies.ts).
 */
import * as vscode from 'vscode';
import type * as Bodies from './commands/bodies';
import type { ConnectionServices } from './connection';

let loaded: typeof Bodies | undefined;

/** Like `loadApi`: esbuild leaves this require alone (see esbuild.js). */
function bodies(): typeof Bodies {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('./runCommands.js') as typeof Bodies;
  return loaded;
}

export function registerConnectionCommands(context: vscode.ExtensionContext, services: ConnectionServices): void {
  context.subscriptions.push(
    // No token argument on purpose: a command link must not be able to plant one.
    vscode.commands.registerCommand('agentRuns.setToken', () => bodies().setToken(services)),
    vscode.commands.registerCommand('agentRuns.clearToken', () => bodies().clearToken(services)),
    vscode.commands.registerCommand('agentRuns.setBaseUrl', () => bodies().setBaseUrl(services)),
    vscode.commands.registerCommand('agentRuns.showLogs', () => services.log.show()),
  );
}
