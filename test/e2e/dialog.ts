// The editor's modal dialogs in the workbench, as a person answers them (the UI tests').
import * as assert from 'node:assert/strict';
import { UI_TIMEOUT_MS, type Workbench } from './harness';

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Answers the editor's modal dialog with `button`; returns the dialog's text. */
export async function answerDialog(wb: Workbench, expected: RegExp, button: string): Promise<string> {
  const dialog = wb.page.locator('.monaco-dialog-box');
  await dialog.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  const text = await dialog.innerText();
  assert.match(text, expected);
  await dialog.locator('.monaco-button', { hasText: new RegExp(`^${escapeRegExp(button)}$`) }).first().click();
  await dialog.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
  return text;
}
