/** The run commands (Send Follow-up, Export Run…, Open, Refresh, Remove, Clear Finished, Copy Agent ID, Copy Link, Track Run by ID, Dismiss a start's row) and the run links, registered at activation; their bodies load on first use (dist/runCommands.js). */
import * as vscode from 'vscode';
import type { Deps } from '../run/deps';
import { lazyBundle } from '../base/common/lazyBundle';
import { runCommands } from './runCommands';
import type * as RunsBundle from './bundle';

/** The run model (./bundle.ts, dist/runs.js): the first feature that reaches it, or a run to follow at start. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const runsBundle = lazyBundle(() => require('./runs.js') as typeof RunsBundle);

export function registerLazyRunCommands(context: vscode.ExtensionContext, deps: Deps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('agentRuns.sendFollowUp', (arg?: unknown) => runCommands().followUpCommand(deps, arg)),
    vscode.commands.registerCommand('agentRuns.exportRun', (arg?: unknown, format?: unknown) => runCommands().exportRunCommand(deps, arg, format)),
    vscode.commands.registerCommand('agentRuns.clearFinished', () => runCommands().clearFinishedCommand(deps)),
    vscode.commands.registerCommand('agentRuns.refreshRun', (arg?: unknown, selection?: unknown) => runCommands().refreshRunCommand(deps, arg, selection)),
    vscode.commands.registerCommand('agentRuns.removeRun', (arg?: unknown, selection?: unknown) => runCommands().removeRunCommand(deps, arg, selection)),
    vscode.commands.registerCommand('agentRuns.copyAgentId', (arg?: unknown) => runCommands().copyAgentIdCommand(deps, arg)),
    vscode.commands.registerCommand('agentRuns.openRun', (arg?: unknown) => runCommands().openRunCommand(deps, arg)),
    vscode.commands.registerCommand('agentRuns.refresh', () => runCommands().refreshCommand(deps)),
    vscode.commands.registerCommand('agentRuns.copyLink', (arg?: unknown) => runCommands().copyLinkCommand(deps, arg)),
    vscode.commands.registerCommand('agentRuns.trackRun', (arg?: unknown) => runCommands().trackRunCommand(deps, arg)),
    // Only a start's row offers it, and rows exist once the run model does.
    vscode.commands.registerCommand('agentRuns.dismissStartNotice', (node?: unknown) => deps.view.provider.dismissStartNotice(node)),
    // vscode://agent-runs-team.agent-runs/run?id=…&base=…: opens the run, tracking it first (see uriHandler.ts).
    vscode.window.registerUriHandler({ handleUri: (uri) => runCommands().handleRunUri(deps, uri) }),
  );
}
