/** The run commands (Send Follow-up, Export Run…, Open, Refresh, Remove, Clear Finished, Copy Agent ID, Copy Link, Track Run by ID) and the run links, registered at activation; their bodies load on first use (dist/runCommands.js). */
import * as vscode from 'vscode';
import type { GlueDeps } from '../../run/glueDeps';
import type * as Bodies from './bodies';

let loaded: typeof Bodies | undefined;

/** dist/runCommands.js (src/runs/commands/bodies.ts); esbuild leaves this require alone (see esbuild.js). */
export function bodies(): typeof Bodies {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('./runCommands.js') as typeof Bodies;
  return loaded;
}

export function registerLazyRunCommands(context: vscode.ExtensionContext, deps: GlueDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('agentRuns.sendFollowUp', (arg?: unknown) => bodies().followUpCommand(deps, arg)),
    vscode.commands.registerCommand('agentRuns.exportRun', (arg?: unknown, format?: unknown) => bodies().exportRunCommand(deps, arg, format)),
    vscode.commands.registerCommand('agentRuns.clearFinished', () => bodies().clearFinishedCommand(deps)),
    vscode.commands.registerCommand('agentRuns.refreshRun', (arg?: unknown, selection?: unknown) => bodies().refreshRunCommand(deps, arg, selection)),
    vscode.commands.registerCommand('agentRuns.removeRun', (arg?: unknown, selection?: unknown) => bodies().removeRunCommand(deps, arg, selection)),
    vscode.commands.registerCommand('agentRuns.copyAgentId', (arg?: unknown) => bodies().copyAgentIdCommand(deps, arg)),
    vscode.commands.registerCommand('agentRuns.openRun', (arg?: unknown) => bodies().openRunCommand(deps, arg)),
    vscode.commands.registerCommand('agentRuns.refresh', () => bodies().refreshCommand(deps)),
    vscode.commands.registerCommand('agentRuns.copyLink', (arg?: unknown) => bodies().copyLinkCommand(deps, arg)),
    vscode.commands.registerCommand('agentRuns.trackRun', (arg?: unknown) => bodies().trackRunCommand(deps, arg)),
    // vscode://agent-runs-team.agent-runs/run?id=…&base=…: opens the run, tracking it first (see uriHandler.ts).
    vscode.window.registerUriHandler({ handleUri: (uri) => bodies().handleRunUri(deps, uri) }),
  );
}
