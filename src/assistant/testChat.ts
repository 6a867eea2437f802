/**
 * `@agent-runs /tests` and `/automations` where the service offers them (issue 22 §4), as inert
 * Markdown. With test files attached, or with no tests served, `/tests` stays the files' test-group
 * flow; Run Now runs the Runs view's own confirmed command.
 */
import * as vscode from 'vscode';
import type { Deps } from '../run/deps';
import { escapeMarkdown } from './common/format';
import { blocksAsMarkdown, type TextBlock } from './common/reviewText';
import { DEFAULT_TEST_TEXT_BOUNDS, automationListBlocks, fitTestBlocks, groupRunBlocks, testListBlocks, testRunBlocks } from './common/testText';
import { oneLine } from '../api/sanitize';
import { clientOrRefuse, setting, signalOf } from './common';
import type { AgentRunsApi } from '../api/contract';
import { capabilityOffText } from './testTools';

/** The Runs view's Run Now (w-tgroups): a modal confirmation, then the sender. */
export const RUN_AUTOMATION_NOW = 'agentRuns.automations.runNow';
const SHOW_TEST_EXPLORER = 'workbench.view.testing.focus';
/** Run Now buttons at most. */
const MAX_BUTTONS = 5;

function write(stream: vscode.ChatResponseStream, blocks: readonly TextBlock[]): void {
  for (const part of blocksAsMarkdown(fitTestBlocks(blocks, DEFAULT_TEST_TEXT_BOUNDS, vscode.l10n))) stream.markdown(`${part}\n\n`);
}

function say(stream: vscode.ChatResponseStream, text: string): void {
  stream.markdown(escapeMarkdown(text));
}

function isNotFound(deps: Deps, e: unknown): boolean {
  const api = deps.api();
  return api.isApiError(e) && e.status === 404;
}

async function readRun(deps: Deps, client: AgentRunsApi, id: string, stream: vscode.ChatResponseStream, signal: AbortSignal): Promise<void> {
  try {
    write(stream, testRunBlocks(await client.getTestRun(id, { signal }), DEFAULT_TEST_TEXT_BOUNDS, vscode.l10n));
  } catch (e) {
    // Not a test run: a group run's ID, where the service runs groups.
    if (!isNotFound(deps, e) || !deps.capabilities.has('serviceTestGroupRuns')) throw e;
    let group;
    try {
      group = await client.getTestGroupRun(id, { signal });
    } catch {
      throw e;
    }
    write(stream, groupRunBlocks(group, DEFAULT_TEST_TEXT_BOUNDS, vscode.l10n));
  }
  stream.button({ command: SHOW_TEST_EXPLORER, title: vscode.l10n.t('Show Test Explorer') });
}

/**
 * `/tests` of the service; false when it is not for the service (files attached, or no tests
 * served and none named), so the caller takes the files' test-group flow.
 */
export async function serviceTests(deps: Deps, request: vscode.ChatRequest, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<boolean> {
  if (request.references.length > 0) return false;
  const [named = ''] = request.prompt.trim().split(/\s+/);
  if (!deps.capabilities.has('serviceTests')) {
    if (named === '') return false;
    say(stream, vscode.l10n.t('Not done: {0}', capabilityOffText('serviceTests')));
    return true;
  }
  const appId = setting('appId');
  if (named === '' && appId === '') {
    say(stream, vscode.l10n.t('Set agentRuns.appId to list its tests here, or read a test run: /tests <run ID>.'));
    return true;
  }
  const abort = signalOf(token);
  try {
    const client = await clientOrRefuse(deps);
    if (named !== '') {
      await readRun(deps, client, named.slice(0, 200), stream, abort.signal);
      return true;
    }
    write(stream, testListBlocks(appId, await client.listTests(appId, { signal: abort.signal }), DEFAULT_TEST_TEXT_BOUNDS, vscode.l10n).blocks);
    say(stream, vscode.l10n.t('Run them from the Test Explorer; read a run here with /tests <run ID>; attach test files (#file) to create a test group from them.'));
    stream.button({ command: SHOW_TEST_EXPLORER, title: vscode.l10n.t('Show Test Explorer') });
    return true;
  } finally {
    abort.dispose();
  }
}

/** `/automations`: the default app's automations; Run Now for those that run on demand. */
export async function automations(deps: Deps, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<void> {
  if (!deps.capabilities.has('automations')) {
    say(stream, vscode.l10n.t('Not done: {0}', capabilityOffText('automations')));
    return;
  }
  const appId = setting('appId');
  if (appId === '') {
    say(stream, vscode.l10n.t('Set agentRuns.appId to list its automations here.'));
    return;
  }
  const abort = signalOf(token);
  try {
    const client = await clientOrRefuse(deps);
    const { blocks, shown } = automationListBlocks(appId, await client.listAutomations(appId, { signal: abort.signal }), DEFAULT_TEST_TEXT_BOUNDS, vscode.l10n);
    write(stream, blocks);
    const runnable = deps.capabilities.has('automationRuns') ? shown.filter((a) => a.canRunManually) : [];
    if (runnable.length === 0) return;
    say(stream, vscode.l10n.t('Run one now (you confirm it first):'));
    for (const a of runnable.slice(0, MAX_BUTTONS)) {
      const name = a.name !== undefined && oneLine(a.name, 60) !== '' ? oneLine(a.name, 60) : a.id;
      stream.button({ command: RUN_AUTOMATION_NOW, arguments: [{ automationId: a.id, appId, name }], title: vscode.l10n.t('Run “{0}” Now', name) });
    }
  } finally {
    abort.dispose();
  }
}
