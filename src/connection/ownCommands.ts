/**
 * The extension's own commands that one feature runs for another (a notification's "Open", the
 * launch form's "Set API Token"), with their arguments typed (src/base/common/ownCommands.ts): the
 * edges that go through the command registry (to load a feature's bundle on first use, or to
 * run its whole flow) are checked by the compiler and run from here only (ESLint refuses
 * `executeCommand('agentRuns.…')` elsewhere; test/unit/base/ownCommands.test.ts checks each against
 * package.json). In the lowest layer that may import `vscode`, so every feature can use it.
 */
import * as vscode from 'vscode';
import type { OwnCommand, OwnCommandArgs } from '../base/common/ownCommands';

export function runOwnCommand<K extends OwnCommand>(command: K, ...args: OwnCommandArgs[K]): Thenable<unknown> {
  return vscode.commands.executeCommand(command, ...args);
}
