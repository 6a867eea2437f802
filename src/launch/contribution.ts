// "Start Agent Run", "Start Agent Run with Selection" and "Clone Run", registered at activation; the flow is dist/launch.js.
import * as vscode from 'vscode';
import { lazyBundle } from '../base/common/lazyBundle';
import { guarded } from '../base/guarded';
import type { LaunchPrefill, LedgerEntry } from '../run/common/ledger/ledger';
import type { Deps } from '../run/deps';
import type * as LaunchBundle from './bundle';

/** The launch flow (./bundle.ts, the one `LaunchController`), loaded on the first start-run command. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const launchBundle = lazyBundle(() => require('./launch.js') as typeof LaunchBundle);

export function registerStartRun(context: vscode.ExtensionContext, deps: Deps): void {
  context.subscriptions.push(
    // An argument with prompt/appId/... (e.g. from "Start Agent Run for These Tests") pre-fills the form.
    vscode.commands.registerCommand('agentRuns.startRun', guarded(deps.log, vscode.l10n.t('Start Agent Run'), (arg) => launchBundle().startRun(deps, arg))),
    vscode.commands.registerCommand('agentRuns.startRunWithSelection', guarded(deps.log, vscode.l10n.t('Start Agent Run with Selection'), () => launchBundle().startRunWithSelection(deps))),
    vscode.commands.registerCommand('agentRuns.cloneRun', guarded(deps.log, vscode.l10n.t('Clone Run'), (arg) => launchBundle().cloneRun(deps, arg))),
  );
}

/**
 * The launch form pre-filled from a run record ("Clone Run") or any subset of its fields, at its review
 * step or the first field missing. Loads the launch flow on first use; a failure to load rejects.
 */
export function startRunPrefilled(deps: Deps, prefill: LedgerEntry | LaunchPrefill): Promise<void> {
  try {
    return launchBundle().startRunPrefilled(deps, prefill);
  } catch (e) {
    return Promise.reject(e instanceof Error ? e : new Error(String(e)));
  }
}
