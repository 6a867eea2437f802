/** What a person is told about a scan: files not read to the end, duplicates, no IDs at all. */
import * as vscode from 'vscode';
import { scanLimits, type FileScan } from './scan';
import { testIdPattern } from './settings';

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
