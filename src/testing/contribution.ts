/**
 * The Test Explorer as an entry point, for whatever test extension made the items. "Ask Agent to Fix"
 * is also a `testing/message/content` button, as VS Code 1.139 gives a row with one message the test's
 * menu instead. Other extensions' items cannot be decorated, so test-to-run links live here.
 */
import * as vscode from 'vscode';
import { lazyBundle } from '../base/common/lazyBundle';
import type { FailureDescribers } from '../run/failureDescribers';
import type { Deps } from '../run/deps';
import type * as TestingBundle from './bundle';

export const CREATE_FROM_TESTS = 'agentRuns.testing.createGroup';
export const ASK_TO_FIX = 'agentRuns.testing.askToFix';
export const SHOW_RUN = 'agentRuns.testing.showRun';

/** The commands' bodies (./bundle.ts): the first use of one of them. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const testingBundle = lazyBundle(() => require('./testing.js') as typeof TestingBundle);

/** The commands; their bodies load on first use (dist/testing.js, ./commands.ts). */
export function registerTesting(context: vscode.ExtensionContext, deps: Deps): FailureDescribers {
  const describers: FailureDescribers = new Set();
  // "Show Agent Run for This Test" shows where links are stored; the links themselves are read on first use.
  const stored = context.workspaceState.get<unknown>('agentRuns.testing.links');
  void vscode.commands.executeCommand('setContext', 'agentRuns.testing.hasLinks', Array.isArray(stored) && stored.length > 0);
  context.subscriptions.push(
    vscode.commands.registerCommand(CREATE_FROM_TESTS, (...args: unknown[]) => testingBundle().createFromTests(args)),
    vscode.commands.registerCommand(ASK_TO_FIX, (arg: unknown) => testingBundle().askToFix(deps, testingBundle().linksOf(context), arg, describers)),
    vscode.commands.registerCommand(SHOW_RUN, (...args: unknown[]) => testingBundle().showRun(deps, context, args)),
  );
  return describers;
}
