/**
 * One step of a multi-step input: a QuickPick or an InputBox with the step counter, a Back
 * button when there is somewhere to go back to, and extra title-bar buttons. Each call
 * resolves exactly once, whether the person accepts, goes back, presses a button, or the
 * input is hidden (Escape, or another quick input taking its place).
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
    const render = (active?: T): void => {
      const typed = options.typedItem && qp.value.trim() !== '' && !baseItems.some((i) => i.label === qp.value.trim())
        ? options.typedItem(qp.value.trim())
        : undefined;
      qp.items = typed ? [typed, ...baseItems] : [...baseItems];
      if (active && qp.items.includes(active)) qp.activeItems = [active];
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
        if (picked) finish({ kind: 'accept', value: picked });
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
