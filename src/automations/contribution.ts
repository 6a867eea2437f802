/**
 * Automations in the Runs view (activation side, kept small): an "Automations" row under each
 * app while `agentRuns.automations` is on, and the commands Refresh and Run Now (offered while
 * `agentRuns.automationRuns` is on). The rows and Run Now load with dist/automations.js.
 */
import * as vscode from 'vscode';
import { lazyBundle } from '../base/common/lazyBundle';
import type { Automation } from '../api/testTypes';
import type { Deps } from '../run/deps';
import type { AppRowsHost } from '../run/appRows';
import type * as AutomationsBundle from './bundle';
import type { AutomationRows } from './rows';
import type { RunNowDeps } from './runNow';

/** What automations need of `Deps` (src/run/deps.ts), the capability keys and the sender included. */
export interface AutomationsDeps extends Pick<Deps, 'onDidChangeConnection' | 'auth' | 'reportUnauthorized' | 'api' | 'log'> {
  readonly capabilities: { has(c: 'automations' | 'automationRuns'): boolean; readonly onDidChange: vscode.Event<void> };
  getClient(options: { quiet: boolean }): Promise<{ listAutomations(appId: string): Promise<Automation[]> } | undefined>;
  readonly sender: RunNowDeps['sender'];
}

/** The rows and Run Now (./bundle.ts): the first "Automations" row shown or the first Run Now. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const automationsBundle = lazyBundle(() => require('./automations.js') as typeof AutomationsBundle);

/** Refresh and Run Now; `view()` builds the Runs view (and the run model). */
export function registerAutomations(context: vscode.ExtensionContext, d: AutomationsDeps, view: () => { readonly provider: AppRowsHost }): void {
  const rows = (): AutomationRows | undefined => view().provider.rowsOf('automation') as AutomationRows | undefined;
  context.subscriptions.push(
    vscode.commands.registerCommand('agentRuns.automations.refresh', (arg?: unknown) => rows()?.refresh(arg)),
    vscode.commands.registerCommand('agentRuns.automations.runNow', (arg?: unknown) => automationsBundle().runNow(d, rows(), arg)),
  );
}

/** The "Automations" rows of the Runs view, from when the view is built. */
export function showAutomationRows(d: AutomationsDeps, view: { readonly provider: AppRowsHost }): void {
  const provider = view.provider;
  const gate = { get enabled() { return d.capabilities.has('automations'); }, onDidChange: d.capabilities.onDidChange };
  provider.showRows('automation', gate, () => automationsBundle().automationRows(d, () => provider.refreshAll()));
}
