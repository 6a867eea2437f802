/**
 * The bodies of the Test Explorer commands registered by ./contribution.ts, in the testing bundle
 * (`dist/testing.js`, loaded on their first use): the activation bundle keeps only their names.
 */
import * as vscode from 'vscode';
import { runOwnCommand } from '../connection/ownCommands';
import type { TestItemsArgument } from '../base/common/testItems';
import type { Deps } from '../run/deps';
import { testKey } from './testKey';
import { TestRunLinks } from './links';

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

let links: TestRunLinks | undefined;

/** The workspace's test → run links, read on the first command that needs them (one per window). */
export function linksOf(context: vscode.ExtensionContext): TestRunLinks {
  if (!links) {
    links = new TestRunLinks(context.workspaceState);
    context.subscriptions.push(links);
  }
  return links;
}

/** "Create Test Group from These Tests". */
export function createFromTests(args: readonly unknown[]): Thenable<unknown> | undefined {
  // One item per selected row, in the order the Test Explorer passes them; a row twice counts once.
  const items = args.filter(isTestItem).filter((item, i, all) => all.findIndex((o) => testKey(o) === testKey(item)) === i);
  if (items.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Right-click tests in the Testing view to create a test group from them.'));
    return undefined;
  }
  return runOwnCommand('agentRuns.testGroups.create', testItemsArgument(items));
}

/** "Show Agent Run for This Test". */
export async function showRun(deps: Deps, context: vscode.ExtensionContext, args: readonly unknown[]): Promise<void> {
  const item = args.find(isTestItem);
  const agentId = item ? linksOf(context).get(testKey(item)) : undefined;
  if (!item || !agentId) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No agent run was started for this test from “Ask Agent to Fix”.'));
    return;
  }
  if (!deps.ledger().get(agentId)) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Run {0} for this test is no longer in the run list.', agentId));
    return;
  }
  await deps.openRun(agentId);
}
