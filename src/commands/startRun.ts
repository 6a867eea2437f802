/**
 * "Start Agent Run", "Start Agent Run with Selection" and "Clone Run". The flow itself lives
 * in `src/launch/`; this file only turns command invocations into calls on the one
 * `LaunchController` of the extension.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RunRecord } from '../core/ledger';
import type { Deps } from '../deps';
import { prefillFromArg, type LaunchPrefill } from '../launch/form';
import { LaunchController } from '../launch/launchController';
import { buildSelectionAttachment, DEFAULT_MAX_SELECTION_CHARS, type SelectedRange } from '../launch/selection';

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

/** Runs a command body; an unexpected failure is logged and shown once instead of VS Code's bare "command failed". */
function guarded(deps: Deps, name: string, body: (...args: unknown[]) => Promise<void>): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    try {
      await body(...args);
    } catch (err) {
      deps.log.error(`${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      const showLogs = vscode.l10n.t('Show Logs');
      const pick = await vscode.window.showErrorMessage(vscode.l10n.t('{0} failed unexpectedly. Your input was kept; run the command again to continue.', name), showLogs);
      if (pick === showLogs) deps.log.show(true);
    }
  };
}

export function registerStartRun(context: vscode.ExtensionContext, deps: Deps): void {
  const controller = controllerFor(deps);
  context.subscriptions.push(
    // An argument with prompt/appId/... (e.g. from "Start Agent Run for These Tests") pre-fills the form.
    vscode.commands.registerCommand('agentRuns.startRun', guarded(deps, vscode.l10n.t('Start Agent Run'), (arg) => {
      const prefill = prefillFromArg(arg);
      return prefill ? controller.clone(prefill) : controller.start();
    })),
    vscode.commands.registerCommand('agentRuns.startRunWithSelection', guarded(deps, vscode.l10n.t('Start Agent Run with Selection'), () => startWithSelection(controller))),
    vscode.commands.registerCommand('agentRuns.cloneRun', guarded(deps, vscode.l10n.t('Clone Run'), (arg) => cloneRun(deps, controller, arg))),
  );
}

/**
 * Opens the launch form pre-filled from a run record (the panel's and the tree's "Clone Run")
 * or from any subset of its fields (e.g. a prompt about some tests). The form opens at its
 * review step, or at the first field still missing; every field can be changed there.
 */
export function startRunPrefilled(deps: Deps, prefill: RunRecord | LaunchPrefill): Promise<void> {
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
  record: RunRecord;
}

async function cloneRun(deps: Deps, controller: LaunchController, arg: unknown): Promise<void> {
  const ledger = deps.ledger();
  const id = agentIdOf(arg);
  let record = id ? ledger.get(id) : undefined;
  if (id && !record) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Run {0} is not in the run list, so there is nothing to clone.', id));
    return;
  }
  if (!record) {
    const items: RunPick[] = ledger.all().map((r) => ({
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

async function startWithSelection(controller: LaunchController): Promise<void> {
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
