/** The test IDs a command's files hold, scanned (common/testIds) within the settings' limits, behind a cancellable progress when slow. */
import * as vscode from 'vscode';
import {
  DEFAULT_SCAN_LIMITS, TestIdPatternError, compileTestIdPattern, extractTestIds, mergeFileTestIds, type ExtractResult, type MergedTestIds,
  type PatternProblem, type ScanLimits,
} from './common/testIds';
import { readText, type ReadProblem } from './readFile';
import { SETTING_ID_PATTERN, section, showWithOpenSetting, testIdPattern } from './settings';
import { displayPath, type Target } from './targets';

// `agentRuns.testIds.maxFileSizeKB` and `agentRuns.testIds.scanTimeoutMs`, bounded (read per scan).
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

export interface FileScan {
  target: Target;
  /** Workspace-relative path. */
  label: string;
  result?: ExtractResult;
  problem?: ReadProblem;
  /** Only the head of the file was read (size cap). */
  readCut?: { readBytes: number; totalBytes: number };
}

export interface ScanOutcome {
  files: FileScan[];
  merged: MergedTestIds;
  cancelled: boolean;
}

export class PatternSettingError extends Error {
  constructor(readonly pattern: string, readonly problem: PatternProblem) {
    super(describePatternSetting(pattern, problem));
    this.name = 'PatternSettingError';
  }
}

/** The localised message for an unusable `agentRuns.testIds.pattern`. */
export function describePatternSetting(pattern: string, problem: PatternProblem): string {
  switch (problem.kind) {
    case 'invalid':
      return vscode.l10n.t('The setting agentRuns.testIds.pattern is not a valid regular expression: {0}. Fix it or clear it to use the built-in @testId / testId convention.', problem.detail);
    case 'invalidFlags':
      return vscode.l10n.t('The setting agentRuns.testIds.pattern has unsupported flags: {0}.', problem.detail);
    case 'groupCount':
      return problem.groups === 0
        ? vscode.l10n.t('The setting agentRuns.testIds.pattern has no capture group. Put the test ID in exactly one pair of parentheses, for example testId=(\\w+); use (?:…) for other groups.')
        : vscode.l10n.t('The setting agentRuns.testIds.pattern has {0} capture groups; it needs exactly one, around the test ID. Turn the others into (?:…) groups.', problem.groups);
    case 'matchesEmpty':
      return vscode.l10n.t('The setting agentRuns.testIds.pattern {0} matches empty text, so it would match everywhere. Make the test ID part require at least one character (+ instead of *).', pattern);
    case 'tooLong':
      return vscode.l10n.t('The setting agentRuns.testIds.pattern is longer than {0} characters.', problem.max);
  }
}

/**
 * Reads and scans the targets, in order. Throws `PatternSettingError` when the pattern
 * setting is unusable. Slow scans show a cancellable progress notification.
 */
export async function scanTargets(targets: readonly Target[], log?: vscode.LogOutputChannel): Promise<ScanOutcome> {
  const pattern = testIdPattern();
  const limits = scanLimits();
  const controller = new AbortController();
  const files: FileScan[] = [];
  const work = async (): Promise<void> => {
    for (const target of targets) {
      if (controller.signal.aborted) break;
      const label = displayPath(target.uri);
      const read = await readText(target.uri, limits.maxBytes);
      if (read === 'binary' || read === 'unreadable') {
        files.push({ target, label, problem: read });
        continue;
      }
      const started = Date.now();
      let result: ExtractResult;
      try {
        result = await extractTestIds(read.text, {
          pattern,
          fileName: target.uri.path,
          selections: target.selections,
          limits,
          signal: controller.signal,
        });
      } catch (e) {
        if (e instanceof TestIdPatternError) throw new PatternSettingError(pattern, e.problem);
        // E.g. the worker running a custom pattern ran out of memory on a huge file.
        log?.warn(`Test IDs: scanning ${label} failed: ${e instanceof Error ? e.message : 'unknown error'}`);
        files.push({ target, label, problem: 'unreadable' });
        continue;
      }
      log?.debug(`Test IDs: ${label}: ${result.ids.length} unique of ${result.occurrences.length} in ${Date.now() - started} ms${result.truncated ? ` (stopped: ${result.truncated.reason})` : ''}`);
      const scan: FileScan = { target, label, result };
      if (read.cut) scan.readCut = read.cut;
      files.push(scan);
    }
  };
  await withDelayedProgress(vscode.l10n.t('Reading test IDs…'), controller, work);
  const merged = mergeFileTestIds(files.filter((f) => f.result).map((f) => ({ file: f.label, result: f.result as ExtractResult })));
  return { files, merged, cancelled: controller.signal.aborted };
}

/**
 * `scanTargets` for a command: an unusable pattern setting is shown to the person (with Open
 * Settings). Resolves to undefined then, and when the person cancelled the scan.
 */
export async function scanForCommand(targets: readonly Target[], log?: vscode.LogOutputChannel): Promise<ScanOutcome | undefined> {
  let outcome: ScanOutcome;
  try {
    outcome = await scanTargets(targets, log);
  } catch (e) {
    if (!(e instanceof PatternSettingError)) throw e;
    showWithOpenSetting('error', e.message, SETTING_ID_PATTERN);
    return undefined;
  }
  return outcome.cancelled ? undefined : outcome;
}

/** Runs `task`; when it takes longer than `delayMs`, shows a cancellable notification until it ends. */
async function withDelayedProgress(title: string, controller: AbortController, task: () => Promise<void>, delayMs = 400): Promise<void> {
  const running = task();
  let finished = false;
  const done = running.then(() => { finished = true; }, () => { finished = true; });
  const timer = setTimeout(() => {
    if (finished) return;
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (_progress, token) => {
      token.onCancellationRequested(() => controller.abort());
      return done;
    });
  }, delayMs);
  try {
    await running;
  } finally {
    clearTimeout(timer);
  }
}

/** Tells the person at once when they save an unusable pattern, with the regex error. */
export function checkPatternSetting(): void {
  const pattern = testIdPattern();
  if (pattern.trim() === '') return;
  try {
    compileTestIdPattern(pattern);
  } catch (e) {
    if (!(e instanceof TestIdPatternError)) throw e;
    showWithOpenSetting('warning', describePatternSetting(pattern, e.problem), SETTING_ID_PATTERN);
  }
}
