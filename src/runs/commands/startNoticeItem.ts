/**
 * The tree item of a start that may have reached the service (../startNotices.ts): loaded with
 * the run commands (dist/runCommands.js) the first time such a row shows, not at activation.
 */
import * as vscode from 'vscode';
import { firstWords } from '../../run/common/firstWords';
import type { StartNoticeNode } from '../startNotices';

export function startNoticeItem(node: StartNoticeNode): vscode.TreeItem {
  const s = node.start;
  // Short label first (the side bar is narrow); the whole sentence is the tooltip and the accessible name.
  const words = firstWords(s.prompt, 40);
  const item = new vscode.TreeItem(vscode.l10n.t('May have started: “{0}”', words), vscode.TreeItemCollapsibleState.None);
  item.id = `start:${s.id}`;
  item.description = vscode.l10n.t('{0} · Track Run by ID', s.appId);
  item.accessibilityInformation = { label: vscode.l10n.t('A start may have reached the service ({0}, “{1}”). Track Run by ID to follow it, or dismiss.', s.appId, words) };
  item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
  item.contextValue = 'startNotice;';
  item.command = { command: 'agentRuns.trackRun', title: vscode.l10n.t('Track Run by ID') };
  const md = new vscode.MarkdownString(undefined, true);
  md.isTrusted = false;
  md.supportHtml = false;
  md.appendText(vscode.l10n.t('Starting this run on {0} was cut off ({1}) before the service answered: the run may exist although it is not in the list. It is not sent again on its own. Find its ID in the service\'s web interface and add it with Track Run by ID, or dismiss this row.', s.appId, new Date(s.since).toLocaleString()));
  md.appendMarkdown('\n\n');
  md.appendText(vscode.l10n.t('Model: {0}', s.model));
  md.appendMarkdown('  \n');
  md.appendText(vscode.l10n.t('Prompt: {0}', firstWords(s.prompt, 200)));
  item.tooltip = md;
  return item;
}

