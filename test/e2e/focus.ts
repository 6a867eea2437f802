// Where the keyboard focus is in the workbench, for the waits that must not press a key (or open
// a quick input) while the focus is on its way into a webview.
//
// The workbench hands a webview the focus asynchronously. A webview is two frames deep: the
// workbench's frame for it (one deep) holds the page (two deep). When the page is up, the page
// gets the focus; when it is not yet, VS Code leaves the focus on the webview's own frame, and
// there it stays. Both forward keys to the workbench. While the focus is in transit (that frame
// still loading, or handing the focus to a page still loading), a key is lost, and a quick pick
// opened meanwhile closes when the focus lands (VS Code's webview code names this race,
// microsoft/vscode#75209).
import type { Frame, Page } from 'playwright-core';
import { waitUntil } from '../support/processes';
import { UI_TIMEOUT_MS } from './timeouts';

/** A loaded document that holds the focus itself, not one handing it on to a frame inside it. */
const HOLDS_FOCUS = "document.hasFocus() && document.readyState === 'complete' && !(document.activeElement && document.activeElement.tagName === 'IFRAME')";

async function holdsFocus(frame: Frame | null): Promise<boolean> {
  return frame !== null && (await frame.evaluate(HOLDS_FOCUS).catch(() => false)) === true;
}

/** Waits until the focus is outside any webview, or settled inside one; a timeout says where it is. */
export async function focusSettled(page: Page, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
  const settled = async (): Promise<boolean> => {
    const inWebview = await page.evaluate("!!document.activeElement && document.activeElement.tagName === 'IFRAME' && document.activeElement.classList.contains('webview')");
    if (!inWebview) {
      return true;
    }
    for (const frame of page.frames()) {
      if (frame.parentFrame() !== null && (await holdsFocus(frame))) {
        return true;
      }
    }
    return false;
  };
  await waitUntil(settled, timeoutMs, 'the webview that has the focus to finish loading and take it').catch(async (e: unknown) => {
    throw new Error(`${e instanceof Error ? e.message : String(e)}\n${await focusReport(page)}`);
  });
}

/**
 * Waits until the run panel whose page is `frame` (just opened or shown again) holds the focus:
 * its page, or its webview's own frame when the page was not up as the focus came. A person
 * starts the next thing once the panel is there; so does a test.
 */
export async function panelHasFocus(frame: Frame, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
  await waitUntil(async () => (await holdsFocus(frame)) || (await holdsFocus(frame.parentFrame())), timeoutMs, 'the run panel to take the focus').catch(async (e: unknown) => {
    throw new Error(`${e instanceof Error ? e.message : String(e)}\n${await focusReport(frame.page())}`);
  });
}

/** Where the focus is, frame by frame: for a failure message. */
async function focusReport(page: Page): Promise<string> {
  const lines: string[] = [];
  for (const frame of page.frames()) {
    const depth = frame.parentFrame() ? (frame.parentFrame()?.parentFrame() ? 2 : 1) : 0;
    const state = await frame.evaluate("JSON.stringify({ hasFocus: document.hasFocus(), readyState: document.readyState, active: document.activeElement ? document.activeElement.tagName + '.' + String(document.activeElement.className).slice(0, 60) : null })")
      .catch((e: unknown) => `(not readable: ${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
    lines.push(`  depth ${depth} ${frame.url().slice(0, 100)} ${String(state)}`);
  }
  return `frames:\n${lines.join('\n')}`;
}
