/**
 * "Create Test Group from These Tests": the file menus' scanner on each item's lines (and the
 * annotation comments above), or the items' labels when set so or when there is nothing to scan.
 */
import * as vscode from 'vscode';
import type { FilesScanAnswer } from '../run/deps';
import { groupByFile, idsFromLabels, leadingAnnotationStart, type ItemLines, type TestItemsArgument } from '../base/common/testItems';
import { mergeFileTestIds, type ExtractResult } from './common/testIds';
import { noIdsMessage } from './notes';
import { PatternSettingError, scanForCommand, scanTargets, type FileScan, type ScanOutcome } from './scan';
import type { Target } from './targets';

async function targetFor(file: string, spans: readonly { startLine: number; endLine: number }[]): Promise<Target | undefined> {
  const uri = vscode.Uri.parse(file, true);
  let doc: vscode.TextDocument;
  try {
    doc = await vscode.workspace.openTextDocument(uri);
  } catch {
    return undefined;
  }
  const lines = doc.getText().split(/\r?\n/);
  const last = Math.max(0, doc.lineCount - 1);
  const selections = spans.map((s) => {
    const from = leadingAnnotationStart(lines, Math.min(s.startLine, last));
    const to = Math.min(Math.max(s.endLine, s.startLine), last);
    return { start: doc.offsetAt(new vscode.Position(from, 0)), end: doc.offsetAt(doc.lineAt(to).range.end) };
  });
  const from = Math.min(...spans.map((s) => s.startLine)) + 1;
  const to = Math.max(...spans.map((s) => s.endLine)) + 1;
  return { uri, selections, lines: { from, to } };
}

function labelScan(items: readonly ItemLines[], label: string): FileScan {
  const ids = idsFromLabels(items.map((i) => i.label));
  const result: ExtractResult = {
    ids,
    occurrences: ids.map((id) => ({ id, offset: 0, line: items.find((i) => i.label.trim() === id)?.startLine ?? 0 })),
    duplicates: [],
    emptyMatches: 0,
    convention: 'custom',
    limitedToSelection: false,
  };
  return { target: { uri: vscode.Uri.parse('untitled:test-explorer') }, label, result };
}

/** The outcome to pick from, and a key for the draft; undefined when the scan was cancelled or the pattern is unusable. */
export async function outcomeForTestItems(arg: TestItemsArgument, log?: vscode.LogOutputChannel): Promise<{ outcome: ScanOutcome; key: string } | undefined> {
  const key = `testItems:${arg.idSource}:${arg.items.map((i) => `${i.file ?? ''}#${i.startLine ?? ''}-${i.endLine ?? ''}#${i.label}`).join('|')}`;
  const byLabel = arg.idSource === 'label' ? arg.items : groupByFile(arg.items).withoutRange;
  let files: FileScan[] = [];
  if (arg.idSource === 'scan') {
    const targets: Target[] = [];
    for (const f of groupByFile(arg.items).files) {
      const t = await targetFor(f.file, f.spans);
      if (t) targets.push(t);
    }
    if (targets.length > 0) {
      const scanned = await scanForCommand(targets, log);
      if (!scanned) return undefined;
      files = scanned.files;
    }
  }
  if (byLabel.length > 0) files.push(labelScan(byLabel, vscode.l10n.t('Test Explorer labels')));
  const merged = mergeFileTestIds(files.filter((f) => f.result).map((f) => ({ file: f.label, result: f.result as ExtractResult })));
  return { outcome: { files, merged, cancelled: false }, key };
}


async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

async function resolvePath(file: string): Promise<vscode.Uri | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const rel = file.replace(/\\/g, '/').replace(/^\.\//, '');
  if (rel.split('/').includes('..')) return undefined;
  for (const folder of folders) {
    const uri = vscode.Uri.joinPath(folder.uri, rel);
    if (await exists(uri)) return uri;
  }
  return undefined;
}

/**
 * Workspace-relative test files → their test IDs, with the file menus' scanner and settings,
 * without any UI (a tool reports problems as text). Paths outside the workspace are refused.
 */
export async function scanFilesQuietly(paths: readonly string[], log?: vscode.LogOutputChannel): Promise<FilesScanAnswer> {
  const targets: Target[] = [];
  for (const p of paths) {
    const uri = await resolvePath(p);
    if (!uri) return { ids: [], files: [], problem: vscode.l10n.t('{0} is not a file in the open workspace folders.', p.slice(0, 200)) };
    targets.push({ uri });
  }
  let outcome: ScanOutcome;
  try {
    outcome = await scanTargets(targets, log);
  } catch (e) {
    if (e instanceof PatternSettingError) return { ids: [], files: [], problem: e.message };
    throw e;
  }
  const files = outcome.files.map((f) => f.label);
  const ids = outcome.merged.ids.map((i) => i.id);
  return ids.length > 0 ? { ids, files } : { ids, files, problem: noIdsMessage(outcome.files) };
}
