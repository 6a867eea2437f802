/**
 * "Ask Agent to Fix" on a failed test: the launch form pre-filled from the test (bounded by
 * `agentRuns.selection.maxCharacters`); nothing is sent from here, the person starts it in the
 * form, and the run started meanwhile is linked to the test.
 */
import * as vscode from 'vscode';
import { buildFixPrompt, type FailedTest } from '../run/common/fixPrompt';
import type { Deps } from '../run/deps';
import type { TestRunLinks } from './links';
import type { FailureDescribers } from '../run/failureDescribers';
import { testKey, testName } from './testKey';

const DEFAULT_MAX = 20_000;

function maxChars(uri: vscode.Uri | undefined): number {
  const value = vscode.workspace.getConfiguration('agentRuns', uri).get<unknown>('selection.maxCharacters');
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(200_000, Math.max(1000, Math.round(value))) : DEFAULT_MAX;
}

function messageText(m: string | vscode.MarkdownString): string {
  return typeof m === 'string' ? m : m.value;
}

function frameLine(f: vscode.TestMessageStackFrame): string {
  const where = f.uri ? ` (${vscode.workspace.asRelativePath(f.uri)}${f.position ? `:${f.position.line + 1}:${f.position.character + 1}` : ''})` : '';
  return `at ${f.label}${where}`;
}

async function source(item: vscode.TestItem, limit: number): Promise<{ text?: string; languageId?: string }> {
  if (!item.uri || !item.range) return {};
  try {
    const doc = await vscode.workspace.openTextDocument(item.uri);
    const range = new vscode.Range(item.range.start.line, 0, item.range.end.line, Number.MAX_SAFE_INTEGER);
    return { text: doc.getText(doc.validateRange(range)).slice(0, limit), languageId: doc.languageId };
  } catch {
    return {};
  }
}

export async function failedTest(item: vscode.TestItem, message: vscode.TestMessage, limit: number): Promise<FailedTest> {
  const src = await source(item, limit);
  const line = item.range ? `:${item.range.start.line + 1}` : '';
  return {
    name: testName(item),
    location: item.uri ? `${vscode.workspace.asRelativePath(item.uri)}${line}` : undefined,
    message: messageText(message.message),
    expected: message.expectedOutput,
    actual: message.actualOutput,
    stack: message.stackTrace?.map(frameLine),
    source: src.text,
    languageId: src.languageId,
  };
}

function isMessageArg(v: unknown): v is { test: vscode.TestItem; message: vscode.TestMessage } {
  if (typeof v !== 'object' || v === null) return false;
  const a = v as { test?: unknown; message?: { message?: unknown } };
  return typeof a.test === 'object' && a.test !== null && typeof a.message === 'object' && a.message !== null && a.message.message !== undefined;
}

export async function askToFix(deps: Deps, links: TestRunLinks, arg: unknown, describers?: FailureDescribers): Promise<void> {
  if (!isMessageArg(arg)) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Right-click a failed test\'s message in the test results to ask an agent to fix it.'));
    return;
  }
  const limit = maxChars(arg.test.uri);
  // A test another feature knows better (a service test: its failed steps and comments).
  const described = [...describers ?? []].map((d) => d(arg.test)).find((d) => d !== undefined);
  const linkTo = described?.linkTo ?? arg.test;
  const prompt = buildFixPrompt(described?.failed ?? await failedTest(arg.test, arg.message, limit), limit, vscode.l10n);
  const appId = vscode.workspace.getConfiguration('agentRuns').get<unknown>('appId');
  const before = new Set(deps.ledger().all().map((r) => r.agentId));
  // Resolves when the form is done: started (the run is in the list by then) or cancelled.
  await deps.startRunPrefilled({ prompt, ...(typeof appId === 'string' && appId.trim() !== '' ? { appId: appId.trim() } : {}) });
  const started = deps.ledger().all().filter((r) => !before.has(r.agentId) && r.source === 'started')
    .sort((a, b) => b.addedAt - a.addedAt)[0];
  if (!started) return;
  await links.set(testKey(linkTo), started.agentId);
  deps.log.info(`Run ${started.agentId} linked to test ${testName(linkTo)}.`);
}
