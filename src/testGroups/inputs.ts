/**
 * The steps of "Create Test Group from File(s)": pick IDs, name, description, app ID.
 * Each step resolves to a value, `BACK` or `undefined` (cancelled), so the flow can go back
 * and "Edit" after a failure can reopen it with every input kept.
 */
import * as vscode from 'vscode';
import type { FileScan, ScanOutcome } from './scan';
import { duplicatesNote, truncationNote } from './notes';

export const BACK = Symbol('back');
export type StepResult<T> = T | typeof BACK | undefined;

export interface StepFrame {
  step: number;
  total: number;
  title: string;
}

/** Shows one step; it resolves once (to `finish`'s value, `BACK`, or undefined when hidden), then disposes the input. */
function runStep<T, I extends vscode.QuickPickItem = vscode.QuickPickItem>(
  input: vscode.QuickPick<I> | vscode.InputBox,
  frame: StepFrame,
  wire: (finish: (value: StepResult<T>) => void) => void,
): Promise<StepResult<T>> {
  input.title = frame.title;
  input.step = frame.step;
  input.totalSteps = frame.total;
  input.ignoreFocusOut = true;
  return new Promise((resolve) => {
    let done = false;
    const finish = (value: StepResult<T>): void => {
      if (done) return;
      done = true;
      resolve(value);
      input.dispose();
    };
    wire(finish);
    input.onDidTriggerButton((b) => {
      if (b === vscode.QuickInputButtons.Back) finish(BACK);
    });
    input.onDidHide(() => finish(undefined));
    input.show();
  });
}

interface IdItem extends vscode.QuickPickItem {
  id?: string;
}

/**
 * A multi-select pick of every ID, all checked (or the ones `checked` names), grouped by file
 * with a separator carrying that file's notes. Resolves to the checked IDs in document order.
 */
export function pickTestIds(outcome: ScanOutcome, frame: StepFrame, checked: readonly string[] | undefined): Promise<StepResult<string[]>> {
  const items: IdItem[] = [];
  const byFile = new Map<string, { id: string; line: number }[]>();
  for (const f of outcome.files) {
    const lines = new Map<string, number>();
    for (const o of f.result?.occurrences ?? []) if (!lines.has(o.id)) lines.set(o.id, o.line);
    byFile.set(f.label, []);
    for (const { id, file } of outcome.merged.ids) {
      if (file === f.label && lines.has(id)) byFile.get(f.label)?.push({ id, line: lines.get(id) ?? 0 });
    }
  }
  const multi = outcome.files.length > 1;
  const alsoIn = new Map(outcome.merged.crossFileDuplicates.map((d) => [d.id, d.files.slice(1)]));
  for (const f of outcome.files) {
    const entries = byFile.get(f.label) ?? [];
    const notes = fileNotes(f);
    if (multi || notes.length > 0) {
      const count = vscode.l10n.t('{0} IDs', entries.length);
      items.push({ label: [f.label, count, ...notes].join(' · '), kind: vscode.QuickPickItemKind.Separator });
    }
    for (const e of entries) {
      const others = alsoIn.get(e.id);
      items.push({
        label: e.id,
        description: others
          ? vscode.l10n.t('line {0}, also in {1}', e.line + 1, others.join(', '))
          : vscode.l10n.t('line {0}', e.line + 1),
        id: e.id,
      });
    }
  }

  const qp = vscode.window.createQuickPick<IdItem>();
  qp.canSelectMany = true;
  qp.matchOnDescription = true;
  qp.items = items;
  const wanted = checked ? new Set(checked) : undefined;
  qp.selectedItems = items.filter((i) => i.id !== undefined && (!wanted || wanted.has(i.id)));
  const basePlaceholder = summaryLine(outcome);
  qp.placeholder = basePlaceholder;

  return runStep<string[], IdItem>(qp, frame, (finish) => {
    qp.onDidAccept(() => {
      const chosen = new Set(qp.selectedItems.map((i) => i.id));
      // The order is the file order, never the order of clicks.
      const ids = outcome.merged.ids.map((x) => x.id).filter((id) => chosen.has(id));
      if (ids.length === 0) {
        qp.placeholder = vscode.l10n.t('Check at least one test ID. {0}', basePlaceholder);
        return;
      }
      finish(ids);
    });
  });
}

function fileNotes(f: FileScan): string[] {
  const notes: string[] = [];
  if (f.result?.limitedToSelection && f.target.lines) notes.push(vscode.l10n.t('lines {0}–{1}', f.target.lines.from, f.target.lines.to));
  const dup = duplicatesNote(f);
  if (dup) notes.push(dup);
  const cut = truncationNote(f);
  if (cut) notes.push(`⚠ ${cut}`);
  if (f.problem === 'binary') notes.push(vscode.l10n.t('not a text file'));
  if (f.problem === 'unreadable') notes.push(vscode.l10n.t('could not be read'));
  return notes;
}

/** One line for the placeholder: what is shown and what was removed or cut. */
export function summaryLine(outcome: ScanOutcome): string {
  const total = outcome.merged.ids.length;
  const parts = [vscode.l10n.t('Uncheck the tests to leave out; the order is kept.')];
  const dups = outcome.files.reduce((n, f) => n + (f.result?.duplicates.length ?? 0), 0);
  if (dups > 0) parts.push(vscode.l10n.t('{0} duplicate(s) removed.', dups));
  if (outcome.merged.crossFileDuplicates.length > 0) {
    parts.push(vscode.l10n.t('{0} ID(s) found in several files are listed once.', outcome.merged.crossFileDuplicates.length));
  }
  if (outcome.merged.filesWithoutIds.length > 0) parts.push(vscode.l10n.t('No IDs in: {0}.', outcome.merged.filesWithoutIds.join(', ')));
  const cut = outcome.files.filter((f) => truncationNote(f) !== undefined).map((f) => f.label);
  if (cut.length > 0) parts.push(vscode.l10n.t('⚠ Not scanned to the end: {0}.', cut.join(', ')));
  return `${vscode.l10n.t('{0} test IDs.', total)} ${parts.join(' ')}`;
}

export interface TextStepOptions {
  frame: StepFrame;
  value: string;
  prompt: string;
  placeholder?: string;
  validate?: (value: string) => string | undefined;
}

/** An input box with a Back button (from step 2 on). */
export function inputText(options: TextStepOptions): Promise<StepResult<string>> {
  const box = vscode.window.createInputBox();
  box.value = options.value;
  box.valueSelection = [0, options.value.length];
  box.prompt = options.prompt;
  box.placeholder = options.placeholder;
  if (options.frame.step > 1) box.buttons = [vscode.QuickInputButtons.Back];
  return runStep<string>(box, options.frame, (finish) => {
    box.onDidChangeValue((v) => {
      box.validationMessage = options.validate?.(v);
    });
    box.onDidAccept(() => {
      const problem = options.validate?.(box.value);
      if (problem) {
        box.validationMessage = problem;
        return;
      }
      finish(box.value);
    });
  });
}

export function checkAppId(value: string): string | undefined {
  const v = value.trim();
  if (v === '') return vscode.l10n.t('Enter the App ID of the workspace project the group belongs to.');
  if (/\s/.test(v)) return vscode.l10n.t('An App ID has no spaces.');
  return undefined;
}

interface AppItem extends vscode.QuickPickItem {
  appId: string;
}

/**
 * The app ID: typed, or picked from the setting's default and recent values. Typing shows the
 * typed value first; Enter on it takes it.
 */
export function pickAppId(frame: StepFrame, value: string, known: readonly { appId: string; detail: string }[]): Promise<StepResult<string>> {
  const qp = vscode.window.createQuickPick<AppItem>();
  qp.placeholder = vscode.l10n.t('App ID of the workspace project (type one, or pick a recent one)');
  qp.buttons = [vscode.QuickInputButtons.Back];
  const knownItems: AppItem[] = known.map((k) => ({ label: k.appId, description: k.detail, appId: k.appId }));
  const refresh = (typed: string): void => {
    const t = typed.trim();
    const typedItem: AppItem[] = t !== '' && !knownItems.some((k) => k.appId === t)
      ? [{ label: t, description: vscode.l10n.t('typed'), appId: t, alwaysShow: true }]
      : [];
    qp.items = [...typedItem, ...knownItems];
    const first = qp.items.find((i) => i.appId === t) ?? qp.items[0];
    if (first) qp.activeItems = [first];
  };
  qp.value = value;
  refresh(value);
  return runStep<string, AppItem>(qp, frame, (finish) => {
    qp.onDidChangeValue((v) => {
      refresh(v);
      qp.title = frame.title;
    });
    qp.onDidAccept(() => {
      const picked = qp.activeItems[0]?.appId ?? qp.value;
      const problem = checkAppId(picked);
      if (problem) {
        qp.title = `${frame.title} — ${problem}`;
        return;
      }
      finish(picked.trim());
    });
  });
}
