/** The connection's commands: base URL, token, logs. */
import type * as vscode from 'vscode';
import { registerClearToken } from './commands/clearToken';
import { registerSetBaseUrl } from './commands/setBaseUrl';
import { registerSetToken } from './commands/setToken';
import { registerShowLogs } from './commands/showLogs';
import type { ConnectionServices } from './connection';

export function registerConnectionCommands(context: vscode.ExtensionContext, services: ConnectionServices): void {
  registerSetToken(context, services);
  registerClearToken(context, services);
  registerSetBaseUrl(context, services);
  registerShowLogs(context, services);
}
