/**
 * Which files a command is about, and what test IDs they hold: reading (bounded, off the
 * editor's buffers when open), extraction (src/core/testIds), and the notes a person sees.
 */
import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import {
  DEFAULT_SCAN_LIMITS, TestIdPatternError, compileTestIdPattern, extractTestIds, mergeFileTestIds, type ExtractResult, type MergedTestIds,
  type OffsetRange, type PatternProblem, type ScanLimits,
} from '../core/testIds';
import { SETTING_ID_PATTERN, section, showWithOpenSetting, testIdPattern } from './settings';

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

/** At most this many files per command. */
export const MAX_FILES = 100;

export interface Target {
  uri: vscode.Uri;
  /** Selections (non-empty) of the editor the command came from, as offsets. */
  selections?: OffsetRange[];
  /** 1-based line span of the selections, for messages and the prompt. */
  lines?: { from: number; to: number };
}

export interface TargetSet {
  targets: Target[];
  /** Folders that were selected and skipped. */
  skippedFolders: vscode.Uri[];
  /** Files beyond `MAX_FILES`, left out. */
  leftOut: number;
}

function isUri(v: unknown): v is vscode.Uri {
  return v instanceof vscode.Uri;
}

function sameUri(a: vscode.Uri, b: vscode.Uri): boolean {
  return a.toString() === b.toString();
}

function editorSelections(editor: vscode.TextEditor): Pick<Target, 'selections' | 'lines'> {
  const nonEmpty = editor.selections.filter((s) => !s.isEmpty);
  if (nonEmpty.length === 0) return {};
  const doc = editor.document;
  const selections = nonEmpty.map((s) => ({ start: doc.offsetAt(s.start), end: doc.offsetAt(s.end) }));
  const from = Math.min(...nonEmpty.map((s) => s.start.line)) + 1;
  const to = Math.max(...nonEmpty.map((s) => (s.end.character === 0 && s.end.line > s.start.line ? s.end.line - 1 : s.end.line))) + 1;
  return { selections, lines: { from, to } };
}

/**
 * The files of a command invocation, in order:
 * - explorer: `(uri, uris)`; `uris` is the multi-selection in the order the editor gives it;
 * - editor context menu: `(uri)` of the editor; its non-empty selections limit the scan;
 * - palette or a view button: nothing; the active editor (with its selections).
 */
export async function resolveTargets(args: readonly unknown[]): Promise<TargetSet> {
  const [first, second] = args;
  const active = vscode.window.activeTextEditor;
  let uris: vscode.Uri[];
  let fromExplorer = false;
  if (Array.isArray(second) && second.every(isUri) && second.length > 0) {
    uris = second;
    fromExplorer = true;
  } else if (isUri(first)) {
    uris = [first];
  } else if (active) {
    uris = [active.document.uri];
  } else {
    uris = [];
  }
  const unique: vscode.Uri[] = [];
  for (const u of uris) if (!unique.some((x) => sameUri(x, u))) unique.push(u);

  const targets: Target[] = [];
  const skippedFolders: vscode.Uri[] = [];
  for (const uri of unique) {
    if (await isFolder(uri)) {
      skippedFolders.push(uri);
      continue;
    }
    const target: Target = { uri };
    // The editor's selection counts only when the command came from that editor (or the palette).
    if (!fromExplorer && active && sameUri(active.document.uri, uri)) Object.assign(target, editorSelections(active));
    targets.push(target);
  }
  const leftOut = Math.max(0, targets.length - MAX_FILES);
  return { targets: targets.slice(0, MAX_FILES), skippedFolders, leftOut };
}

async function isFolder(uri: vscode.Uri): Promise<boolean> {
  if (vscode.workspace.textDocuments.some((d) => sameUri(d.uri, uri))) return false;
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    return (stat.type & vscode.FileType.Directory) !== 0;
  } catch {
    return false;
  }
}

/** How a file is named to people: workspace-relative when inside the workspace. */
export function displayPath(uri: vscode.Uri): string {
  return vscode.workspace.asRelativePath(uri, vscode.workspace.workspaceFolders !== undefined && vscode.workspace.workspaceFolders.length > 1);
}

export type ReadProblem = 'binary' | 'unreadable';

export interface ReadText {
  text: string;
  /** Set when only the first `readBytes` of `totalBytes` were read. */
  cut?: { readBytes: number; totalBytes: number };
}

/** The text, or undefined for a binary file. */
function decode(bytes: Uint8Array, partial: boolean): string | undefined {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2), { stream: partial });
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2), { stream: partial });
  const head = bytes.subarray(0, 8000);
  if (head.includes(0)) return undefined;
  // `stream` keeps a multi-byte character cut at the end out of the text instead of a U+FFFD.
  return new TextDecoder('utf-8').decode(bytes, { stream: partial });
}

/** The file's text: the editor's buffer when open (unsaved edits count), else at most `maxBytes` from disk. */
export async function readText(uri: vscode.Uri, maxBytes: number): Promise<ReadText | ReadProblem> {
  const open = vscode.workspace.textDocuments.find((d) => sameUri(d.uri, uri));
  if (open) return { text: open.getText() };
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    if (stat.size > maxBytes && uri.scheme === 'file') {
      // Read only the head of a huge local file: never load hundreds of MB to scan 5.
      const handle = await fs.open(uri.fsPath, 'r');
      try {
        const buffer = new Uint8Array(maxBytes);
        const { bytesRead } = await handle.read(buffer, 0, maxBytes, 0);
        const text = decode(buffer.subarray(0, bytesRead), true);
        return text === undefined ? 'binary' : { text, cut: { readBytes: bytesRead, totalBytes: stat.size } };
      } finally {
        await handle.close();
      }
    }
    const bytes = await vscode.workspace.fs.readFile(uri);
    const cut = bytes.length > maxBytes;
    const text = decode(cut ? bytes.subarray(0, maxBytes) : bytes, cut);
    if (text === undefined) return 'binary';
    return cut ? { text, cut: { readBytes: maxBytes, totalBytes: bytes.length } } : { text };
  } catch {
    return 'unreadable';
  }
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

function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return vscode.l10n.t('{0} MB', (bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, ''));
  return vscode.l10n.t('{0} KB', Math.ceil(bytes / 1024));
}

/** A one-line note when a file was not scanned to the end, or undefined. */
export function truncationNote(scan: FileScan): string | undefined {
  const t = scan.result?.truncated;
  const limits = scanLimits();
  if (scan.readCut && (!t || t.reason === 'size')) {
    return vscode.l10n.t('only the first {0} of {1} were scanned (agentRuns.testIds.maxFileSizeKB)', formatSize(scan.readCut.readBytes), formatSize(scan.readCut.totalBytes));
  }
  if (!t) return undefined;
  const line = (t.line ?? 0) + 1;
  switch (t.reason) {
    case 'size':
      return vscode.l10n.t('only the first {0} were scanned (agentRuns.testIds.maxFileSizeKB), up to line {1}', formatSize(t.scannedChars), line);
    case 'time':
      return vscode.l10n.t('scanning stopped after {0} s at line {1} (agentRuns.testIds.scanTimeoutMs)', (limits.timeBudgetMs / 1000).toFixed(1).replace(/\.0$/, ''), line);
    case 'count':
      return vscode.l10n.t('stopped after {0} test IDs at line {1}', limits.maxOccurrences, line);
    case 'cancelled':
      return vscode.l10n.t('scanning was cancelled at line {0}', line);
  }
}

/** A one-line note about duplicates within a file, or undefined. */
export function duplicatesNote(scan: FileScan): string | undefined {
  const d = scan.result?.duplicates ?? [];
  if (d.length === 0) return undefined;
  const shown = d.slice(0, 3).map((x) => vscode.l10n.t('{0} (lines {1})', x.id, x.lines.map((l) => l + 1).join(', ')));
  const more = d.length > 3 ? vscode.l10n.t(', and {0} more', d.length - 3) : '';
  return d.length === 1
    ? vscode.l10n.t('1 duplicate removed: {0}', shown.join(', '))
    : vscode.l10n.t('{0} duplicates removed: {1}{2}', d.length, shown.join(', '), more);
}

/** The message when no file gave any ID. */
export function noIdsMessage(scans: readonly FileScan[]): string {
  const names = scans.map((s) => s.label);
  const custom = testIdPattern().trim() !== '';
  const how = custom
    ? vscode.l10n.t('The pattern in agentRuns.testIds.pattern matched nothing.')
    : vscode.l10n.t('Mark each test with an @testId <id> comment or a testId: "<id>" key, or set agentRuns.testIds.pattern.');
  const notes = scans.map(truncationNote).filter((n): n is string => n !== undefined);
  const truncated = notes.length > 0 ? ` ${vscode.l10n.t('Note: {0}.', notes.join('; '))}` : '';
  const unreadable = scans.filter((s) => s.problem !== undefined).map((s) => s.label);
  const unreadableNote = unreadable.length > 0 ? ` ${vscode.l10n.t('Not readable as text: {0}.', unreadable.join(', '))}` : '';
  if (scans.length === 1) {
    const only = scans[0];
    if (only?.problem === 'binary') return vscode.l10n.t('{0} is not a text file, so it has no test IDs.', names[0] ?? '');
    if (only?.problem === 'unreadable') return vscode.l10n.t('{0} could not be read.', names[0] ?? '');
    if (only?.result?.limitedToSelection) {
      return `${vscode.l10n.t('No test IDs found in the selected lines of {0}.', names[0] ?? '')} ${how}${truncated}`;
    }
    return `${vscode.l10n.t('No test IDs found in {0}.', names[0] ?? '')} ${how}${truncated}`;
  }
  const list = names.length <= 5 ? names.join(', ') : `${names.slice(0, 5).join(', ')}, …`;
  return `${vscode.l10n.t('No test IDs found in the {0} selected files ({1}).', names.length, list)} ${how}${truncated}${unreadableNote}`;
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
