/**
 * Before Create Test Group's POST: IDs unknown to the app's tests are named ("Create Anyway",
 * "Drop Unknown"); a check that cannot be made does not stand in the way.
 */
import * as vscode from 'vscode';
import type { AppTest } from '../api/testTypes';
import { unknownIdsMessage, unknownTestIds, withoutIds } from './common/serviceGroups';

export interface IdCheckDeps {
  /** Whether the service lists the app's tests (`agentRuns.serviceTests`). */
  enabled(): boolean;
  getClient(options: { quiet: boolean }): Promise<{ listTests(appId: string): Promise<AppTest[]> } | undefined>;
  readonly log: Pick<vscode.LogOutputChannel, 'info'>;
}

/** The IDs to send (all, or the known ones), or undefined when the person cancelled. */
export async function checkTestIds(d: IdCheckDeps, appId: string, ids: readonly string[]): Promise<string[] | undefined> {
  if (!d.enabled() || ids.length === 0) return [...ids];
  let tests: AppTest[];
  try {
    const client = await d.getClient({ quiet: true });
    if (!client) return [...ids];
    tests = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Checking the test IDs against the tests of {0}…', appId) },
      () => client.listTests(appId),
    );
  } catch (e) {
    d.log.info(`The test IDs could not be checked against the tests of ${appId} (${e instanceof Error ? e.message : String(e)}); creating the group without the check.`);
    return [...ids];
  }
  const unknown = unknownTestIds(ids, tests);
  if (unknown.length === 0) return [...ids];
  const anyway = vscode.l10n.t('Create Anyway');
  const drop = vscode.l10n.t('Drop Unknown');
  const known = withoutIds(ids, unknown);
  const buttons = known.length > 0 ? [anyway, drop] : [anyway];
  const pick = await vscode.window.showWarningMessage(
    unknownIdsMessage(unknown, ids.length, appId, vscode.l10n),
    { modal: true, detail: known.length > 0 ? vscode.l10n.t('Create the group with all {0} IDs, or with the {1} the app knows?', ids.length, known.length) : vscode.l10n.t('None of them is a test of the app. Create the group anyway?') },
    ...buttons,
  );
  if (pick === anyway) return [...ids];
  if (pick === drop) return known;
  return undefined;
}
