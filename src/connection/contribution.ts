// The connection's commands (base URL, token, logs) and its two lazy loads: the HTTP stack and the prompts.
import * as vscode from 'vscode';
import { lazyBundle } from '../base/common/lazyBundle';
import type * as ClearToken from './commands/clearToken';
import type * as Missing from './commands/missing';
import type * as SetBaseUrl from './commands/setBaseUrl';
import type * as SetToken from './commands/setToken';
import type { ApiModule, ConnectionServices } from './connection';
import type { showApiError } from './showApiError';

/** The client, zod's schemas and undici (src/api/index.ts, dist/api.js): the first request. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const apiBundle = lazyBundle(() => require('./api.js') as ApiModule);

/**
 * The prompts for the base URL and the token, and the error message of a failed request, ride in
 * dist/runCommands.js (src/runs/commands/bundle.ts re-exports them): one more file in the .vsix
 * would compress worse than these few KB.
 */
export type ConnectionPrompts = typeof ClearToken & typeof Missing & typeof SetBaseUrl & typeof SetToken & { showApiError: typeof showApiError };
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const connectionPrompts = lazyBundle(() => require('./runCommands.js') as ConnectionPrompts);

export function registerConnectionCommands(context: vscode.ExtensionContext, services: ConnectionServices): void {
  context.subscriptions.push(
    // No token argument on purpose: a command link must not be able to plant one.
    vscode.commands.registerCommand('agentRuns.setToken', () => connectionPrompts().setToken(services)),
    vscode.commands.registerCommand('agentRuns.clearToken', () => connectionPrompts().clearToken(services)),
    vscode.commands.registerCommand('agentRuns.setBaseUrl', () => connectionPrompts().setBaseUrl(services)),
    vscode.commands.registerCommand('agentRuns.showLogs', () => services.log.show()),
  );
}
