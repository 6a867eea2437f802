/**
 * Runs the extension's own commands that one feature runs for another, arguments typed
 * (src/base/common/ownCommands.ts); ESLint refuses `executeCommand('agentRuns.…')` anywhere else.
 * In the lowest layer that may import `vscode`, so every feature can use it.
 */
import * as vscode from 'vscode';
import type { OwnCommand, OwnCommandArgs } from '../base/common/ownCommands';

export function runOwnCommand<K extends OwnCommand>(command: K, ...args: OwnCommandArgs[K]): Thenable<unknown> {
  return vscode.commands.executeCommand(command, ...args);
}
