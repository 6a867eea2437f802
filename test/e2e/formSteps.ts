// A multi-step quick input form (Start Code Review…, Start Agent Run…) walked as a person does:
// wait for a step by its title, Enter on its active entry, or pick an entry by its label.
import { waitUntil } from '../support/processes';
import { UI_TIMEOUT_MS, type Workbench } from './harness';

export const quickInput = (wb: Workbench) => wb.page.locator('.quick-input-widget');

/** Waits until the form shows the step whose title matches. */
export async function atStep(wb: Workbench, title: RegExp): Promise<void> {
  await waitUntil(async () => title.test((await quickInput(wb).locator('.quick-input-title').innerText().catch(() => '')) ?? ''),
    UI_TIMEOUT_MS, `the step ${String(title)}`);
}

/** Enter on the step's active entry once its list has one (lists load from the service), or on an input box. */
export async function enter(wb: Workbench, title: RegExp): Promise<void> {
  await atStep(wb, title);
  const w = quickInput(wb);
  await waitUntil(async () => !(await w.locator('.quick-input-list').isVisible()) || (await w.locator('.quick-input-list .monaco-list-row.focused').count()) > 0,
    UI_TIMEOUT_MS, `an active entry in ${String(title)}`);
  await w.locator('.quick-input-box input').press('Enter');
  await waitUntil(async () => !(await w.isVisible()) || !title.test((await w.locator('.quick-input-title').innerText().catch(() => '')) ?? ''),
    UI_TIMEOUT_MS, `the form to move on from ${String(title)}`);
}

/** Picks the entry of the step whose label matches (its icon aside). */
export async function pick(wb: Workbench, title: RegExp, label: RegExp): Promise<void> {
  await atStep(wb, title);
  await wb.quickPickSelect(label);
}
