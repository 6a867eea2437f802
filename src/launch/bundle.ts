/**
 * The launch flow's lazy bundle (dist/launch.js), loaded by the first start-run command. It keeps no
 * copy of an activation-time object: everything live comes through `deps` (one controller per `deps`).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LaunchPrefill, LedgerEntry } from '../run/common/ledger/ledger';
import { runState } from '../run/common/ledger/runState';
import type { Deps } from '../run/deps';
import { prefillFromArg } from './common/form';
import { LaunchController } from './launchController';
import { buildSelectionAttachment, DEFAULT_MAX_SELECTION_CHARS, type SelectedRange } from './common/selection';

const controllers = new WeakMap<Deps, LaunchController>();

function controllerFor(deps: Deps): LaunchController {
  let c = controllers.get(deps);
  if (!c) {
    c = new LaunchController(deps);
    controllers.set(deps, c);
    deps.context.subscriptions.push(c);
  }
  return c;
}

/** "Start Agent Run". An argument with prompt/appId/... (e.g. from "Start Agent Run for These Tests") pre-fills the form. */
export function startRun(deps: Deps, arg: unknown): Promise<void> {
  const controller = controllerFor(deps);
  const prefill = prefillFromArg(arg);
  return prefill ? controller.clone(prefill) : controller.start();
}

/**
 * Opens the launch form pre-filled from a run record (the panel's and the tree's "Clone Run")
 * or from any subset of its fields (e.g. a prompt about some tests). The form opens at its
 * review step, or at the first field still missing; every field can be changed there.
 */
export function startRunPrefilled(deps: Deps, prefill: LedgerEntry | LaunchPrefill): Promise<void> {
  return controllerFor(deps).clone(prefill);
}

function agentIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg.trim() === '' ? undefined : arg.trim();
  if (typeof arg === 'object' && arg !== null) {
    const direct = (arg as { agentId?: unknown }).agentId;
    if (typeof direct === 'string' && direct !== '') return direct;
    const record = (arg as { record?: { agentId?: unknown } }).record;
    if (record && typeof record.agentId === 'string' && record.agentId !== '') return record.agentId;
  }
  return undefined;
}

interface RunPick extends vscode.QuickPickItem {
  record: LedgerEntry;
}

/** "Clone Run": the run given (tree node, agent ID), else one picked from the list. */
export async function cloneRun(deps: Deps, arg: unknown): Promise<void> {
  const controller = controllerFor(deps);
  const ledger = deps.ledger();
  const id = agentIdOf(arg);
  let record = id ? ledger.get(id) : undefined;
  if (id && !record) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Run {0} is not in the run list, so there is nothing to clone.', id));
    return;
  }
  if (record && runState(record).codeReview) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Run {0} is a code review\'s conversation: it is started as a review, not from a prompt, so there is nothing to clone. Use "Start Code Review…" for a new one.', record.agentId));
    return;
  }
  if (!record) {
    const items: RunPick[] = ledger.all().filter((r) => !runState(r).codeReview).map((r) => ({
      label: (r.prompt ?? '').split(/\r?\n/).find((l) => l.trim() !== '')?.trim() ?? r.agentId,
      description: [r.appId, r.model].filter((s): s is string => !!s).join(' · '),
      detail: r.agentId,
      record: r,
    }));
    if (items.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('There are no runs in the list to clone yet.'));
      return;
    }
    const pick = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Clone Run'), placeHolder: vscode.l10n.t('Pick the run whose settings and prompt to reuse'), matchOnDescription: true, matchOnDetail: true });
    record = pick?.record;
  }
  if (record) await controller.clone(record);
}

/** "Start Agent Run with Selection": the selected code (or the whole file) attached below the prompt. */
export async function startRunWithSelection(deps: Deps): Promise<void> {
  const controller = controllerFor(deps);
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Open a file and select the code the run is about, then try again.'));
    return;
  }
  const doc = editor.document;
  const ranges: SelectedRange[] = [...editor.selections]
    .filter((s) => !s.isEmpty)
    .sort((a, b) => a.start.compareTo(b.start))
    .map((s) => ({
      startLine: s.start.line + 1,
      // A selection that ends at the start of a line does not include that line.
      endLine: s.end.character === 0 && s.end.line > s.start.line ? s.end.line : s.end.line + 1,
      text: doc.getText(s),
    }));
  const wholeFile = ranges.length === 0;
  if (wholeFile) ranges.push({ startLine: 1, endLine: doc.lineCount, text: doc.getText() });
  const multiRoot = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
  const filePath = doc.isUntitled ? path.basename(doc.uri.path) : vscode.workspace.asRelativePath(doc.uri, multiRoot);
  const maxChars = vscode.workspace.getConfiguration('agentRuns').get<number>('selection.maxCharacters', DEFAULT_MAX_SELECTION_CHARS);
  const attachment = buildSelectionAttachment({ path: filePath, languageId: doc.languageId, ranges, wholeFile }, vscode.l10n, { maxChars });
  if (!attachment) {
    void vscode.window.showInformationMessage(vscode.l10n.t('The selection is empty. Select the code the run is about, then try again.'));
    return;
  }
  await controller.open({ attachment });
}

/** The parts of this bundle the code review start flow uses (see src/run/reviewParts.ts). */
export * as reviewParts from '../run/reviewParts';
