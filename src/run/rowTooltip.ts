/** A row's tooltip in the Runs view (runs, code reviews, automations): one function, no state. */
import * as vscode from 'vscode';

/** Untrusted markdown: values are escaped text, no command links, no HTML. */
export function runTooltip(label: string, details: Array<[string, string]>, warnings: string[]): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.isTrusted = false;
  md.supportHtml = false;
  md.appendMarkdown('**');
  md.appendText(label);
  md.appendMarkdown('**\n\n');
  for (const [k, v] of details) {
    md.appendText(k);
    md.appendMarkdown(': ');
    md.appendText(v);
    md.appendMarkdown('  \n');
  }
  for (const w of warnings) {
    md.appendMarkdown('\n\n$(warning) ');
    md.appendText(w);
  }
  return md;
}
