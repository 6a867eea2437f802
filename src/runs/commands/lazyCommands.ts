/** "Send Follow-up" and "Export Run…", registered at activation; their bodies load on first use. */
import * as vscode from 'vscode';
import type { GlueDeps } from '../glueDeps';
import type * as Bodies from './bodies';

let loaded: typeof Bodies | undefined;

/** dist/runCommands.js (src/runs/commands/bodies.ts); esbuild leaves this require alone (see esbuild.js). */
function bodies(): typeof Bodies {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('./runCommands.js') as typeof Bodies;
  return loaded;
}

export function registerLazyRunCommands(context: vscode.ExtensionContext, deps: GlueDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('agentRuns.sendFollowUp', (arg?: unknown) => bodies().followUpCommand(deps, arg)),
    vscode.commands.registerCommand('agentRuns.exportRun', (arg?: unknown, format?: unknown) => bodies().exportRunCommand(deps, arg, format)),
  );
}
