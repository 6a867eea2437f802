/**
 * The Test Explorer as an entry point, for whatever test extension made the items:
 * - "Create Test Group from These Tests" (`testing/item/context`): the items' files and lines
 *   (or labels, by `agentRuns.testExplorer.testIdSource`) go to the test-groups feature's own
 *   flow through its command, so scanning, settings, review and the Test Groups view are the same;
 * - "Ask Agent to Fix" (`testing/message/context`): the launch form, pre-filled with a prompt
 *   built from the failure; the run started from it is linked to the test;
 * - "Show Agent Run for This Test": opens the run linked to the item.
 * Items of other extensions cannot be decorated by us, so the link lives here (workspace
 * state) and is shown through that command and the run's own label in the Runs view.
 */
import * as vscode from 'vscode';
import { runOwnCommand } from '../connection/ownCommands';
import type { FailedTest } from '../core/assistant/prompts';
import type { TestItemsArgument } from '../core/assistant/testItems';
import type { Deps } from '../runs/deps';
import { testKey } from './testKey';
import { loadTesting } from './load';
import { TestRunLinks } from './links';

export const CREATE_FROM_TESTS = 'agentRuns.testing.createGroup';
export const ASK_TO_FIX = 'agentRuns.testing.askToFix';
export const SHOW_RUN = 'agentRuns.testing.showRun';

/** A TestItem by shape (items of other extensions arrive rebuilt by the editor, not as our objects). */
export function isTestItem(v: unknown): v is vscode.TestItem {
  return typeof v === 'object' && v !== null && typeof (v as vscode.TestItem).id === 'string' && typeof (v as vscode.TestItem).label === 'string'
    && typeof (v as vscode.TestItem).children === 'object';
}

/** The line a test with a file but no range covers: all of it (the scan clamps to the file). */
const WHOLE_FILE = 1_000_000;

export function testItemsArgument(items: readonly vscode.TestItem[]): TestItemsArgument {
  const source = vscode.workspace.getConfiguration('agentRuns').get<unknown>('testExplorer.testIdSource');
  return {
    kind: 'agentRuns.testItems',
    idSource: source === 'label' ? 'label' : 'scan',
    items: items.map((item) => ({
      file: item.uri?.toString(),
      startLine: item.uri ? (item.range?.start.line ?? 0) : undefined,
      endLine: item.uri ? (item.range?.end.line ?? WHOLE_FILE) : undefined,
      label: item.label,
    })),
  };
}

/**
 * Items whose failure another feature describes itself ("Ask Agent to Fix" of a service test:
 * its failed steps and comments): the first describer that knows the item answers, with the
 * item the agent run is linked to. Features add theirs to the set registerTesting returns.
 */
export type FailureDescriber = (item: vscode.TestItem) => { failed: FailedTest; linkTo: vscode.TestItem } | undefined;
export type FailureDescribers = Set<FailureDescriber>;

export function registerTesting(context: vscode.ExtensionContext, deps: Deps): FailureDescribers {
  const links = new TestRunLinks(context.workspaceState);
  const describers: FailureDescribers = new Set();
  context.subscriptions.push(
    links,
    vscode.commands.registerCommand(CREATE_FROM_TESTS, (...args: unknown[]) => {
      // One item per selected row, in the order the Test Explorer passes them; a row twice counts once.
      const items = args.filter(isTestItem).filter((item, i, all) => all.findIndex((o) => testKey(o) === testKey(item)) === i);
      if (items.length === 0) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Right-click tests in the Testing view to create a test group from them.'));
        return undefined;
      }
      return runOwnCommand('agentRuns.testGroups.create', testItemsArgument(items));
    }),
    vscode.commands.registerCommand(ASK_TO_FIX, (arg: unknown) => loadTesting().askToFix(deps, links, arg, describers)),
    vscode.commands.registerCommand(SHOW_RUN, async (...args: unknown[]) => {
      const item = args.find(isTestItem);
      const agentId = item ? links.get(testKey(item)) : undefined;
      if (!item || !agentId) {
        void vscode.window.showInformationMessage(vscode.l10n.t('No agent run was started for this test from “Ask Agent to Fix”.'));
        return;
      }
      if (!deps.ledger().get(agentId)) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Run {0} for this test is no longer in the run list.', agentId));
        return;
      }
      await deps.openRun(agentId);
    }),
  );
  return describers;
}
