/**
 * Closing find keeps the reading position, in a real Chromium under the panel's own HTML and
 * CSS (where the page is scrolled needs a real layout): at the live end the view stays there and
 * follows the next messages; elsewhere what was being read stays where it was on screen. Find
 * itself (Enter, Shift+Enter, the count) and the focus going back to the history are as before.
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { STRING_KEYS, forPosting, toWireMessage, type WebviewStrings, type WireMessage } from '../../../src/panel/common/protocol';
import { initWith } from '../fixtures/webviewInit';
import { webviewSuite } from '../fixtures/webviewSuite';

// The functions given to page.evaluate run in the page; this node build has no DOM lib, so
// these module-local declarations type the little they use.
interface PageElement {
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { top: number };
  closest(sel: string): PageElement | null;
}
declare const document: {
  scrollingElement: { scrollHeight: number; scrollTop: number; clientHeight: number } | null;
  activeElement: { classList: { contains(c: string): boolean } } | null;
  querySelector(sel: string): PageElement | null;
  elementFromPoint(x: number, y: number): PageElement | null;
};
declare const window: { dispatchEvent(e: unknown): boolean; innerHeight: number };
declare const MessageEvent: new (type: string, init: { data: unknown }) => unknown;
declare function requestAnimationFrame(fn: () => void): number;

const strings = { ...Object.fromEntries(STRING_KEYS.map((k) => [k, `«${k}» {0}`])), findCount: '{0} of {1}' } as WebviewStrings;
/** Messages at first; every 50th has the word find looks for (12 in all). */
const COUNT = 600;
/** A batch of new messages, arriving after find was closed. */
const BATCH = 300;

function message(i: number): WireMessage {
  return toWireMessage(`id:${i}`, i, {
    id: String(i),
    sequence: i,
    role: i % 3 === 0 ? 'user' : 'assistant',
    createdAt: 1_700_000_000_000 + i * 1_000,
    content: `Message ${i} with **bold** and \`code\`.\n\n- one\n- two${i % 50 === 7 ? ' needle' : ''}`,
  });
}

describe('webview in Chromium: closing find keeps the reading position', function () {
  this.timeout(120_000);
  const suite = webviewSuite();

  /** The panel with COUNT messages, opened at the end, the focus in the history (a click on the newest message). */
  async function openAtEnd(): Promise<Page> {
    const page = await suite.open({ viewport: { width: 900, height: 700 } });
    const messages = Array.from({ length: COUNT }, (_, i) => message(i));
    await post(page, forPosting(initWith(strings, messages)));
    assert.equal(await fromEnd(page), 0, 'the panel opens at the end');
    await page.locator('.log > article').last().click();
    assert.equal(await fromEnd(page), 0, 'a click in the newest message leaves the view at the end');
    return page;
  }

  /** Posts messages as the extension does, then waits for the page's frame work (following the end, mounting). */
  async function post(page: Page, data: readonly unknown[]): Promise<void> {
    await page.evaluate((parts) => {
      for (const d of parts) {
        window.dispatchEvent(new MessageEvent('message', { data: d }));
      }
    }, data as unknown[]);
    await settle(page);
  }

  function settle(page: Page): Promise<void> {
    return page.evaluate(async () => {
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      }
    });
  }

  /** How far above the end of the page the view is (px). */
  async function fromEnd(page: Page): Promise<number> {
    return page.evaluate(() => {
      const se = document.scrollingElement!;
      return se.scrollHeight - (se.scrollTop + se.clientHeight);
    });
  }

  function logHasFocus(page: Page): Promise<boolean> {
    return page.evaluate(() => document.activeElement?.classList.contains('log') ?? false);
  }

  /** A batch of new messages arrives; the view must then be at the (new) end. */
  async function followsNextBatch(page: Page): Promise<void> {
    const batch = Array.from({ length: BATCH }, (_, i) => message(COUNT + i));
    await post(page, [{ type: 'update', messages: batch }]);
    assert.equal(await page.locator('.log > article').last().getAttribute('data-key'), `id:${COUNT + BATCH - 1}`, 'the newest message is mounted');
    assert.ok((await fromEnd(page)) <= 1, `the next batch is followed (${await fromEnd(page)} px above the end)`);
  }

  it('at the live end, Ctrl+F then Escape leaves the view at the end, and the next messages are followed', async () => {
    const page = await openAtEnd();
    await page.keyboard.press('Control+f');
    await page.locator('.find-input').waitFor({ state: 'visible' });
    await settle(page);
    assert.ok((await fromEnd(page)) <= 1, `still at the end with find open (${await fromEnd(page)} px above it)`);
    await page.keyboard.press('Escape');
    await page.locator('.find-input').waitFor({ state: 'hidden' });
    await settle(page);
    assert.ok(await logHasFocus(page), 'Escape gives the focus back to the history');
    assert.ok((await fromEnd(page)) <= 1, `closing find keeps the view at the end (${await fromEnd(page)} px above it)`);
    await followsNextBatch(page);
    await page.close();
  });

  it("at the live end, the find bar's close button leaves the view at the end, and the next messages are followed", async () => {
    const page = await openAtEnd();
    await page.keyboard.press('Control+f');
    // A search that finds nothing moves nothing: the view is still at the end when the bar closes.
    await page.keyboard.type('nowhere to be found');
    await page.keyboard.press('Enter');
    assert.equal(((await page.textContent('.find-count')) ?? '').trim(), '«findNone» {0}');
    await settle(page);
    await page.click('[data-ui="find-close"]');
    await page.locator('.find-input').waitFor({ state: 'hidden' });
    await settle(page);
    assert.ok(await logHasFocus(page), 'the close button gives the focus back to the history');
    assert.ok((await fromEnd(page)) <= 1, `closing find keeps the view at the end (${await fromEnd(page)} px above it)`);
    await followsNextBatch(page);
    await page.close();
  });

  it('elsewhere, Enter and Shift+Enter go through the matches, and Escape leaves the current one where it is on screen', async () => {
    const page = await openAtEnd();
    await page.keyboard.press('Control+f');
    await page.keyboard.type('needle');
    await page.keyboard.press('Enter');
    const count = page.locator('.find-count');
    const current = page.locator('mark.find-current >> xpath=ancestor::article');
    assert.equal(((await count.textContent()) ?? '').trim(), '1 of 12');
    assert.equal(await current.getAttribute('data-key'), 'id:7');
    await page.keyboard.press('Enter');
    assert.equal(((await count.textContent()) ?? '').trim(), '2 of 12');
    assert.equal(await current.getAttribute('data-key'), 'id:57');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.press('Shift+Enter');
    assert.equal(((await count.textContent()) ?? '').trim(), '12 of 12', 'Shift+Enter from the first match wraps to the last');
    assert.equal(await current.getAttribute('data-key'), 'id:557');
    assert.equal(await page.locator('mark.find-match').count() > 0, true);
    await settle(page);
    const before = await page.evaluate(() => document.querySelector('[data-key="id:557"]')!.getBoundingClientRect().top);
    assert.ok((await fromEnd(page)) > 1_000, `the match is far from the end (${await fromEnd(page)} px above it)`);
    await page.keyboard.press('Escape');
    await page.locator('.find-input').waitFor({ state: 'hidden' });
    await settle(page);
    assert.ok(await logHasFocus(page), 'Escape gives the focus back to the history');
    assert.equal(await page.locator('mark').count(), 0, 'the highlights go with the find bar');
    const after = await page.evaluate(() => document.querySelector('[data-key="id:557"]')?.getBoundingClientRect().top);
    assert.ok(after !== undefined && Math.abs(after - before) <= 1, `the message read stays where it was on screen (${before} px, then ${after} px)`);
    await page.close();
  });

  it('elsewhere, opening and closing find leaves the message being read where it is on screen', async () => {
    const page = await openAtEnd();
    await page.evaluate(() => {
      const se = document.scrollingElement!;
      se.scrollTop = Math.round(se.scrollHeight / 2);
    });
    await settle(page);
    const read = async () =>
      page.evaluate(() => {
        const a = document.elementFromPoint(450, Math.round(window.innerHeight / 2))?.closest('article');
        return a ? { key: a.getAttribute('data-key'), top: a.getBoundingClientRect().top } : undefined;
      });
    const before = await read();
    assert.ok(before?.key, 'a message in the middle of the view');
    await page.click(`[data-key="${before.key}"]`, { position: { x: 4, y: 4 } });
    await page.keyboard.press('Control+f');
    await page.locator('.find-input').waitFor({ state: 'visible' });
    await settle(page);
    await page.keyboard.press('Escape');
    await page.locator('.find-input').waitFor({ state: 'hidden' });
    await settle(page);
    assert.ok(await logHasFocus(page), 'Escape gives the focus back to the history');
    const top = await page.evaluate((key) => document.querySelector(`[data-key="${key}"]`)?.getBoundingClientRect().top, before.key);
    assert.ok(top !== undefined && Math.abs(top - before.top) <= 1, `the message read stays where it was on screen (${before.top} px, then ${top} px)`);
    await page.close();
  });
});
