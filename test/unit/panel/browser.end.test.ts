/**
 * End reaches the end and stays there, in a real Chromium under the panel's own HTML and CSS:
 * the rows a jump lands on have estimated heights until they are mounted and measured (shown
 * tool parameters, attachment chips, folded thinking), and measuring them moves the end. The
 * view that reached the end must still be at it once the rows are measured.
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { STRING_KEYS, forPosting, toWireMessage, type WebviewStrings, type WireMessage } from '../../../src/panel/common/protocol';
import { initWith } from '../fixtures/webviewInit';
import { frames, postToPage, webviewSuite } from '../fixtures/webviewSuite';

declare const document: {
  scrollingElement: { scrollHeight: number; scrollTop: number; clientHeight: number } | null;
};

const strings = Object.fromEntries(STRING_KEYS.map((k) => [k, `«${k}» {0}`])) as WebviewStrings;
const COUNT = 600;

/** The deployed service's mix: tool calls with short object parameters (shown, not folded), attachments, thinking. */
function message(i: number): WireMessage {
  const base = { id: String(i), sequence: i, createdAt: 1_700_000_000_000 + i * 1_000 };
  if (i % 3 === 1) {
    return toWireMessage(`id:${i}`, i, { ...base, role: 'tool', toolName: 'read_file', toolParameters: { path: `src/module-${i}.ts`, range: [1, 40], recursive: false, depth: 2 } });
  }
  if (i % 3 === 2) {
    return toWireMessage(`id:${i}`, i, { ...base, role: 'thinking', content: `Weighing option ${i}.\n\n${'More reasoning. '.repeat(40)}` });
  }
  return toWireMessage(`id:${i}`, i, {
    ...base,
    role: 'assistant',
    content: `Message ${i}.`,
    attachments: [{ type: 'file', name: `report-${i}.html`, url: 'https://files.example.test/r.html' }, { identifier: `ENG-${i}`, title: 'An issue' }],
  });
}

describe('webview in Chromium: End reaches the end and stays there', function () {
  this.timeout(120_000);
  const suite = webviewSuite();

  const settle = (page: Page) => frames(page, 12);

  function fromEnd(page: Page): Promise<number> {
    return page.evaluate(() => {
      const se = document.scrollingElement!;
      return se.scrollHeight - (se.scrollTop + se.clientHeight);
    });
  }

  it('from the top of a long run whose rows were never measured, End leaves the view at the end', async () => {
    const page = await suite.open({ viewport: { width: 900, height: 700 } });
    const messages = Array.from({ length: COUNT }, (_, i) => message(i));
    await postToPage(page, forPosting(initWith(strings, messages)));
    await settle(page);
    // To the top, then into the history, as a person reading from the start would.
    await page.evaluate(() => {
      document.scrollingElement!.scrollTop = 0;
    });
    await settle(page);
    await page.locator('.log').focus();
    await page.keyboard.press('End');
    await settle(page);
    assert.ok((await fromEnd(page)) <= 1, `End leaves the view at the end (${await fromEnd(page)} px above it)`);
    assert.equal(await page.locator('.log > article').last().getAttribute('data-key'), `id:${COUNT - 1}`, 'the newest message is mounted');
    await page.close();
  });
});
