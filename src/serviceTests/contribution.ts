/**
 * The activation side of the app's tests in the Test Explorer. The controller lives only while the
 * capability is on and is rebuilt when the base URL changes (another service, other tests); while
 * it is off nothing is loaded or read, so against the reference's five endpoints nothing shows.
 */
import * as vscode from 'vscode';
import { lazyBundle } from '../base/common/lazyBundle';
import type { TestGroupRecord } from '../run/common/testGroupStore';
import type { FailureDescribers } from '../run/failureDescribers';
import type * as ServiceTestsBundle from './bundle';
import type { ServiceTestsDeps } from './types';

/** The test controller (./bundle.ts): while the service offers the app's tests. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const serviceTestsBundle = lazyBundle(() => require('./serviceTests.js') as typeof ServiceTestsBundle);

type Controller = InstanceType<typeof ServiceTestsBundle.ServiceTests>;

/** `knownGroups`: the groups created here (the Test Groups store), read by ID where the service lists none. */
export function registerServiceTests(context: vscode.ExtensionContext, deps: ServiceTestsDeps, describers: FailureDescribers, knownGroups: () => readonly TestGroupRecord[]): void {
  let current: { controller: Controller; baseUrl: string } | undefined;
  const sync = (): void => {
    const baseUrl = deps.connection().baseUrl;
    const on = deps.capabilities.has('serviceTests') && baseUrl !== undefined;
    if (current && (!on || current.baseUrl !== baseUrl)) {
      current.controller.dispose();
      current = undefined;
    }
    if (on && !current) current = { controller: new (serviceTestsBundle().ServiceTests)(deps, describers, knownGroups), baseUrl };
  };
  context.subscriptions.push(
    deps.capabilities.onDidChange(sync),
    deps.onDidChangeConnection(sync),
    { dispose: () => current?.controller.dispose() },
    vscode.commands.registerCommand('agentRuns.serviceTests.refresh', () => current?.controller.refresh()),
    vscode.commands.registerCommand('agentRuns.serviceTests.runGroup', (arg: unknown) => (current
      ? current.controller.runGroup(arg)
      : vscode.window.showInformationMessage(vscode.l10n.t('This service does not offer the app’s tests.')))),
  );
  // Off the activation path: the bundle loads after activate() returned.
  const timer = setTimeout(sync, 0);
  context.subscriptions.push({ dispose: () => clearTimeout(timer) });
}
