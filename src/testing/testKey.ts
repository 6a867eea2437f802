// A test's name and stable key, from its file and labels.
import type * as vscode from 'vscode';

/** The test's labels from the top, e.g. `checkout › adds an item to the cart`. */
export function testName(item: vscode.TestItem): string {
  const labels: string[] = [];
  for (let at: vscode.TestItem | undefined = item; at; at = at.parent) labels.unshift(at.label);
  return labels.join(' › ');
}

/** A stable key for a test: its file and its labels from the top. */
export function testKey(item: vscode.TestItem): string {
  return `${item.uri?.toString() ?? ''}#${testName(item)}`;
}
