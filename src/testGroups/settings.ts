import * as vscode from 'vscode';
import {
  DEFAULT_SCAN_LIMITS, DEFAULT_TEST_FILE_PATTERNS, compileTestFileGlobs, type ScanLimits, type TestFileMatcher,
} from '../core/testIds';

export const SETTING_PATTERNS = 'agentRuns.testFiles.patterns';
export const SETTING_ID_PATTERN = 'agentRuns.testIds.pattern';
export const SETTING_MAX_SIZE_KB = 'agentRuns.testIds.maxFileSizeKB';
export const SETTING_TIMEOUT_MS = 'agentRuns.testIds.scanTimeoutMs';
export const SETTING_APP_ID = 'agentRuns.appId';

function section(): vscode.WorkspaceConfiguration {
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

function boundedNumber(key: string, fallback: number, min: number, max: number): number {
  const value = section().get<unknown>(key);
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, value));
}

export function scanLimits(): ScanLimits & { maxBytes: number } {
  const kb = boundedNumber('testIds.maxFileSizeKB', DEFAULT_SCAN_LIMITS.maxChars / 1024, 16, 100 * 1024);
  const maxBytes = Math.round(kb * 1024);
  return {
    maxChars: maxBytes,
    maxBytes,
    timeBudgetMs: boundedNumber('testIds.scanTimeoutMs', DEFAULT_SCAN_LIMITS.timeBudgetMs, 100, 60_000),
    maxOccurrences: DEFAULT_SCAN_LIMITS.maxOccurrences,
  };
}

export function defaultAppId(): string {
  const value = section().get<unknown>('appId');
  return typeof value === 'string' ? value.trim() : '';
}

export function openSetting(id: string): Thenable<unknown> {
  return vscode.commands.executeCommand('workbench.action.openSettings', id);
}
