// The test-file and test-ID settings, read in one place.
import * as vscode from 'vscode';
import { DEFAULT_TEST_FILE_PATTERNS, compileTestFileGlobs, type TestFileMatcher } from './common/testIds/testFileGlobs';

export const SETTING_PATTERNS = 'agentRuns.testFiles.patterns';
export const SETTING_ID_PATTERN = 'agentRuns.testIds.pattern';
export const SETTING_MAX_SIZE_KB = 'agentRuns.testIds.maxFileSizeKB';
export const SETTING_TIMEOUT_MS = 'agentRuns.testIds.scanTimeoutMs';
export const SETTING_APP_ID = 'agentRuns.appId';

export function section(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('agentRuns');
}

/** The configured test-file globs, or the defaults when the setting is unusable. */
export function testFilePatterns(): readonly string[] {
  const value = section().get<unknown>('testFiles.patterns');
  if (!Array.isArray(value)) return DEFAULT_TEST_FILE_PATTERNS;
  return value.filter((v): v is string => typeof v === 'string' && v.trim() !== '');
}

export function testFileMatcher(): TestFileMatcher {
  return compileTestFileGlobs(testFilePatterns());
}

/** True when the patterns differ from the defaults the `explorer/context` regex was built from. */
export function hasCustomPatterns(): boolean {
  const patterns = testFilePatterns();
  return patterns.length !== DEFAULT_TEST_FILE_PATTERNS.length || patterns.some((p, i) => p !== DEFAULT_TEST_FILE_PATTERNS[i]);
}

/** `agentRuns.testIds.pattern`; empty means the built-in convention. */
export function testIdPattern(): string {
  const value = section().get<unknown>('testIds.pattern');
  return typeof value === 'string' ? value : '';
}

export function defaultAppId(): string {
  const value = section().get<unknown>('appId');
  return typeof value === 'string' ? value.trim() : '';
}

export function openSetting(id: string): Thenable<unknown> {
  return vscode.commands.executeCommand('workbench.action.openSettings', id);
}

/** Shows `message` with an "Open Settings" button that opens the setting `id`; does not wait. */
export function showWithOpenSetting(severity: 'error' | 'warning', message: string, id: string): void {
  const open = vscode.l10n.t('Open Settings');
  const shown = severity === 'error' ? vscode.window.showErrorMessage(message, open) : vscode.window.showWarningMessage(message, open);
  void shown.then((c) => {
    if (c === open) void openSetting(id);
  });
}
