/** "Start Agent Run for These Tests": the launch flow with the files' (or a group's) test IDs in the prompt. */
import * as vscode from 'vscode';
import { buildTestsPrompt, type PromptFile } from './common/testIds';
import type { Deps } from '../run/deps';
import { noIdsMessage } from './notes';
import { scanForCommand } from './scan';
import { resolveTargets } from './targets';
import { defaultAppId } from './settings';
import type { TestGroupRecord } from '../run/common/testGroupStore';

/** What the launch flow is opened with. */
export interface RunPrefill {
  prompt: string;
  appId?: string;
}

function promptText(files: readonly PromptFile[]): string {
  return buildTestsPrompt(files, {
    one: (file, ids) => vscode.l10n.t('Work on these tests in {0}: {1}', file, ids),
    many: (count, names) => vscode.l10n.t('Work on these tests in {0} files ({1}):', count, names),
    noIds: vscode.l10n.t('no test IDs found'),
    linesLabel: (from, to) => (from === to ? vscode.l10n.t('line {0}', from) : vscode.l10n.t('lines {0}–{1}', from, to)),
  });
}

/** Opens the launch form pre-filled, not awaited: the command resolves to the prefill while the form is open. */
export function openLaunchFlow(deps: Deps, prefill: RunPrefill): void {
  deps.startRunPrefilled(prefill).catch((e: unknown) => {
    deps.log.error(`Opening the start-run flow failed: ${e instanceof Error ? (e.stack ?? e.message) : 'unknown error'}`);
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not open the start-run flow: {0}', e instanceof Error ? e.message : ''));
  });
}

export async function startRunForFiles(deps: Deps, args: readonly unknown[]): Promise<RunPrefill | undefined> {
  const set = await resolveTargets(args);
  if (set.targets.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Open a test file, or select test files in the Explorer, to start a run about them.'));
    return undefined;
  }
  const outcome = await scanForCommand(set.targets, deps.log);
  if (!outcome) return undefined;
  if (outcome.merged.ids.length === 0) {
    const anyway = vscode.l10n.t('Start Anyway');
    const choice = await vscode.window.showWarningMessage(noIdsMessage(outcome.files), anyway);
    if (choice !== anyway) return undefined;
  }
  const files: PromptFile[] = outcome.files.map((f) => {
    // Each file with its own IDs, duplicates within it removed.
    const entry: PromptFile = { file: f.label, ids: f.result?.ids ?? [] };
    if (f.result?.limitedToSelection && f.target.lines) entry.lines = f.target.lines;
    return entry;
  });
  const prefill: RunPrefill = { prompt: promptText(files) };
  const appId = defaultAppId();
  if (appId !== '') prefill.appId = appId;
  openLaunchFlow(deps, prefill);
  return prefill;
}

export function startRunForGroup(deps: Deps, group: TestGroupRecord): RunPrefill {
  const ids = group.testIds.length > 0 ? group.testIds.join(', ') : vscode.l10n.t('test IDs not stored');
  const more = group.testCount > group.testIds.length && group.testIds.length > 0 ? vscode.l10n.t(' and {0} more', group.testCount - group.testIds.length) : '';
  const prompt = vscode.l10n.t('Work on the tests of test group “{0}” (ID {1}): {2}{3}', group.name, group.groupId, ids, more);
  const prefill: RunPrefill = { prompt, appId: group.appId };
  openLaunchFlow(deps, prefill);
  return prefill;
}
