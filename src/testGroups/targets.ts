/**
 * Which files a command is about: the Explorer's selection, the editor's file (with its
 * selections), or the active editor; and how a file is named to people.
 */
import * as vscode from 'vscode';
import type { OffsetRange } from './common/testIds';

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

export function sameUri(a: vscode.Uri, b: vscode.Uri): boolean {
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

/** The files of a command invocation in order: the Explorer's selection, else the (active) editor with its selections. */
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
