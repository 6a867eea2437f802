/**
 * One step of a multi-step input (QuickPick or InputBox). Each call resolves exactly once, also
 * when the input is hidden by Escape or by another quick input.
 */
import * as vscode from 'vscode';

export interface StepButton extends vscode.QuickInputButton {
  id: string;
}

/** `typed`: what an input box held when it was left without Enter (kept so nothing typed is lost). */
export type StepResult<T> =
  | { kind: 'accept'; value: T }
  | { kind: 'back'; typed?: string }
  | { kind: 'button'; id: string; typed?: string }
  | { kind: 'cancel'; typed?: string };

interface CommonOptions {
  title: string;
  step: number;
  totalSteps: number;
  canGoBack: boolean;
  buttons?: StepButton[];
}

export interface PickUpdate<T extends vscode.QuickPickItem> {
  items: readonly T[];
  active?: T;
  placeholder?: string;
}

export interface PickOptions<T extends vscode.QuickPickItem> extends CommonOptions {
  placeholder: string;
  items: readonly T[];
  active?: T;
  /** Offers typed text that matches no item as an item of its own (undefined: not acceptable). */
  typedItem?: (value: string) => T | undefined;
  /**
   * Why the typed text (also none) cannot be used, and the row that says so: shown while typed
   * text matches nothing, and on an Enter that has nothing to pick, so Enter never does nothing
   * silently. Accepting that row changes nothing.
   */
  problem?: { check: (value: string) => string | undefined; item: (message: string) => T };
  matchOnDescription?: boolean;
  matchOnDetail?: boolean;
  /** Shown busy until this settles, then the items are replaced (e.g. the live model list). */
  update?: Promise<PickUpdate<T> | undefined>;
}

function withBack(canGoBack: boolean, buttons: readonly StepButton[] = []): vscode.QuickInputButton[] {
  return canGoBack ? [vscode.QuickInputButtons.Back, ...buttons] : [...buttons];
}

function buttonId(button: vscode.QuickInputButton, buttons: readonly StepButton[] = []): string | undefined {
  if (button === vscode.QuickInputButtons.Back) return 'back';
  return buttons.find((b) => b === button)?.id;
}

export function showPick<T extends vscode.QuickPickItem>(options: PickOptions<T>): Promise<StepResult<T>> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<T>();
    const subscriptions: vscode.Disposable[] = [];
    let settled = false;
    let baseItems: readonly T[] = options.items;
    const finish = (result: StepResult<T>): void => {
      if (settled) return;
      settled = true;
      for (const s of subscriptions) s.dispose();
      qp.dispose();
      resolve(result);
    };
    let problemRow: T | undefined;
    /** `force`: say why even when nothing was typed (Enter on an empty box). */
    const render = (active?: T, force = false): void => {
      const value = qp.value.trim();
      const typed = options.typedItem && value !== '' && !baseItems.some((i) => i.label === value)
        ? options.typedItem(value)
        : undefined;
      const message = options.problem && !typed && (force || (value !== '' && !baseItems.some((i) => i.label === value)))
        ? options.problem.check(qp.value)
        : undefined;
      problemRow = message !== undefined && options.problem ? options.problem.item(message) : undefined;
      const lead = typed ?? problemRow;
      qp.items = lead ? [lead, ...baseItems] : [...baseItems];
      if (active && qp.items.includes(active)) qp.activeItems = [active];
      else if (force && problemRow) qp.activeItems = [problemRow];
    };
    qp.title = options.title;
    qp.step = options.step;
    qp.totalSteps = options.totalSteps;
    qp.placeholder = options.placeholder;
    qp.ignoreFocusOut = true;
    qp.matchOnDescription = options.matchOnDescription ?? false;
    qp.matchOnDetail = options.matchOnDetail ?? false;
    qp.buttons = withBack(options.canGoBack, options.buttons);
    render(options.active);
    subscriptions.push(
      qp.onDidChangeValue(() => render()),
      qp.onDidTriggerButton((b) => {
        const id = buttonId(b, options.buttons);
        if (id === 'back') finish({ kind: 'back' });
        else if (id !== undefined) finish({ kind: 'button', id });
      }),
      qp.onDidAccept(() => {
        // Typed text accepted before the list caught up (paste and Enter) still counts.
        const typed = options.typedItem && qp.value.trim() !== '' ? options.typedItem(qp.value.trim()) : undefined;
        const picked = qp.selectedItems[0] ?? qp.activeItems[0] ?? typed;
        if (picked && picked !== problemRow) finish({ kind: 'accept', value: picked });
        else if (options.problem) render(undefined, true);
      }),
      qp.onDidHide(() => finish({ kind: 'cancel' })),
    );
    if (options.update) {
      qp.busy = true;
      options.update.then(
        (u) => {
          if (settled) return;
          qp.busy = false;
          if (!u) return;
          baseItems = u.items;
          if (u.placeholder !== undefined) qp.placeholder = u.placeholder;
          const keep = qp.activeItems[0];
          render(u.active ?? baseItems.find((i) => i.label === keep?.label));
        },
        () => {
          if (!settled) qp.busy = false;
        },
      );
    }
    qp.show();
  });
}

export interface InputOptions extends CommonOptions {
  value: string;
  prompt: string;
  placeholder?: string;
  /** A problem with the value (shown under the box, blocks Enter), or undefined. */
  validate: (value: string) => string | undefined;
}

export function showInput(options: InputOptions): Promise<StepResult<string>> {
  return new Promise((resolve) => {
    const box = vscode.window.createInputBox();
    const subscriptions: vscode.Disposable[] = [];
    let settled = false;
    const finish = (result: StepResult<string>): void => {
      if (settled) return;
      settled = true;
      for (const s of subscriptions) s.dispose();
      box.dispose();
      resolve(result);
    };
    box.title = options.title;
    box.step = options.step;
    box.totalSteps = options.totalSteps;
    box.value = options.value;
    box.prompt = options.prompt;
    box.placeholder = options.placeholder;
    box.ignoreFocusOut = true;
    box.buttons = withBack(options.canGoBack, options.buttons);
    let touched = false;
    subscriptions.push(
      box.onDidChangeValue((v) => {
        touched = true;
        box.validationMessage = options.validate(v);
      }),
      box.onDidTriggerButton((b) => {
        const id = buttonId(b, options.buttons);
        if (id === 'back') finish({ kind: 'back', typed: box.value });
        else if (id !== undefined) finish({ kind: 'button', id, typed: box.value });
      }),
      box.onDidAccept(() => {
        const problem = options.validate(box.value);
        if (problem !== undefined) {
          box.validationMessage = problem;
          return;
        }
        finish({ kind: 'accept', value: box.value });
      }),
      box.onDidHide(() => finish({ kind: 'cancel', typed: box.value })),
    );
    // A pre-filled value with a problem shows it at once; an empty new field does not nag.
    if (!touched && options.value !== '') box.validationMessage = options.validate(options.value);
    box.show();
  });
}
