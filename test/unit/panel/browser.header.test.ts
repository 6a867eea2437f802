/**
 * The run panel's header in a real Chromium under the panel's own HTML, CSP and CSS (issue 33
 * §5): a one-line bar (status, turn, model, lifecycle) stays at the top of the view at every
 * scroll position down a long transcript, opens its details from the keyboard without moving
 * the history, and says the status the extension posted.
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { STRING_KEYS, format, forPosting, toWireMessage, type WebviewStrings, type WireMessage } from '../../../src/panel/common/protocol';
import { initWith } from '../fixtures/webviewInit';
import { frames, postToPage, webviewSuite } from '../fixtures/webviewSuite';

interface PageElement {
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { top: number; bottom: number; left: number; right: number };
  contains(other: PageElement | null): boolean;
}
declare const document: {
  scrollingElement: { scrollHeight: number; scrollTop: number; clientHeight: number } | null;
  querySelector(sel: string): PageElement | null;
  querySelectorAll(sel: string): ArrayLike<PageElement>;
  elementFromPoint(x: number, y: number): PageElement | null;
  activeElement: PageElement | null;
};
declare const window: { __violations: string[]; scrollTo(x: number, y: number): void };

const strings = {
  ...(Object.fromEntries(STRING_KEYS.map((k) => [k, `«${k}» {0}`])) as WebviewStrings),
  laneNow: '{0}: {1}',
  laneConversation: 'Conversation',
  laneSandbox: 'Sandbox',
};
const COUNT = 400;
/** Every tenth message is a prompt: 40 turns. */
const PROMPTS = COUNT / 10;
const VIEWPORT = { width: 700, height: 800 };

function message(i: number): WireMessage {
  const base = { id: String(i), sequence: i, createdAt: 1_700_000_000_000 + i * 1_000 };
  if (i % 10 === 0) {
    return toWireMessage(`id:${i}`, i, { ...base, role: 'user', content: `Prompt ${i}: change the checkout page.` });
  }
  if (i % 10 === 3) {
    return toWireMessage(`id:${i}`, i, { ...base, role: 'tool', toolName: 'edit_element', toolParameters: { page: 'checkout', element: `Button ${i}` } });
  }
  return toWireMessage(`id:${i}`, i, { ...base, role: 'assistant', content: `Step ${i}.\n\n${'The workflow now sets the state. '.repeat(1 + (i % 4) * 6)}` });
}

interface Bar {
  top: number;
  bottom: number;
  /** The element the badge's centre hits is the badge (nothing lies over it). */
  badgeOnTop: boolean;
  badge: string;
  badgeClass: string;
  turn: string;
  model: string;
  lifecycle: string;
  scrollTop: number;
  scrollHeight: number;
  atEnd: boolean;
}

describe('webview in Chromium: the header stays in view', function () {
  this.timeout(120_000);
  const suite = webviewSuite();

  const post = postToPage;
  const settle = (page: Page) => frames(page, 8);

  function bar(page: Page): Promise<Bar> {
    return page.evaluate(() => {
      const header = document.querySelector('.run-header')!.getBoundingClientRect();
      const badge = document.querySelector('.status-badge')!;
      const b = badge.getBoundingClientRect();
      const hit = document.elementFromPoint((b.left + b.right) / 2, (b.top + b.bottom) / 2);
      const text = (sel: string) => {
        const el = document.querySelector(sel) as (PageElement & { textContent: string | null; hasAttribute(n: string): boolean }) | null;
        return el && !el.hasAttribute('hidden') ? (el.textContent ?? '') : '';
      };
      const se = document.scrollingElement!;
      return {
        top: header.top,
        bottom: header.bottom,
        badgeOnTop: badge.contains(hit),
        badge: text('.status-badge'),
        badgeClass: badge.getAttribute('class') ?? '',
        turn: text('.run-bar .bar-turn'),
        model: text('.run-bar .bar-model'),
        lifecycle: text('.run-bar .bar-lifecycle'),
        scrollTop: se.scrollTop,
        scrollHeight: se.scrollHeight,
        atEnd: se.scrollHeight - (se.scrollTop + se.clientHeight) <= 1,
      };
    });
  }

  /**
   * Which message is the first below the bar and where it is on screen. (Not scrollTop: rows
   * above that are measured in idle time change it, and the view is anchored to stay put.)
   */
  function reading(page: Page): Promise<{ key: string | null; top: number }> {
    return page.evaluate(() => {
      const rows = Array.from(document.querySelectorAll('.log > article'));
      const row = rows.find((r) => r.getBoundingClientRect().top > 100) ?? rows[0];
      return { key: row.getAttribute('data-key'), top: Math.round(row.getBoundingClientRect().top) };
    });
  }

  async function open(): Promise<Page> {
    const page = await suite.open({ viewport: VIEWPORT });
    const init = initWith(strings, Array.from({ length: COUNT }, (_, i) => message(i)));
    init.header = { ...init.header, appId: 'app_shop', model: 'hosted/balanced' };
    init.lifecycle = {
      conversation: { current: 'thinking', currentSince: Date.now() - 5_000, segments: [{ state: 'thinking', totalMs: 0 }] },
      sandbox: { current: 'online', currentSince: Date.now() - 9_000, segments: [{ state: 'online', totalMs: 0 }] },
    };
    await post(page, forPosting(init));
    await settle(page);
    return page;
  }

  it('at every scroll position down a long transcript: status, turn, model and lifecycle on one line at the top', async () => {
    const page = await open();
    const expected = {
      badge: format(strings.statusRunning),
      turn: format(strings.turnNumber, PROMPTS),
      model: 'hosted/balanced',
      lifecycle: 'Conversation: thinking · Sandbox: online',
    };
    const check = (b: Bar, where: string) => {
      assert.ok(Math.abs(b.top) <= 0.5, `${where}: the bar is at the viewport's top (${b.top} px)`);
      assert.ok(b.bottom - b.top < 60, `${where}: the bar is one line (${b.bottom - b.top} px)`);
      assert.ok(b.badgeOnTop, `${where}: nothing covers the status`);
      assert.deepEqual({ badge: b.badge, turn: b.turn, model: b.model, lifecycle: b.lifecycle }, expected, where);
    };
    const opened = await bar(page);
    assert.ok(opened.atEnd, 'the panel opens at the end of the history');
    check(opened, 'opened at the end');

    await page.evaluate(() => {
      document.scrollingElement!.scrollTop = 0;
    });
    await settle(page);
    let b = await bar(page);
    for (let n = 0; n < 500 && !b.atEnd; n++) {
      check(b, `at ${b.scrollTop} of ${b.scrollHeight} px`);
      await page.mouse.move(350, 400);
      await page.mouse.wheel(0, 600);
      await settle(page);
      b = await bar(page);
    }
    assert.ok(b.atEnd, `the end is reached (${b.scrollTop} of ${b.scrollHeight} px)`);
    check(b, 'at the end');

    // End, pressed on the bar's button a third of the way down, still reaches the end.
    await page.evaluate(() => window.scrollTo(0, document.scrollingElement!.scrollHeight / 3));
    await page.locator('.run-bar .bar-toggle').focus();
    await settle(page);
    await page.keyboard.press('End');
    await settle(page);
    b = await bar(page);
    assert.ok(b.atEnd, 'End reaches the end');
    check(b, 'after End');
    assert.deepEqual(await page.evaluate(() => window.__violations), [], 'no CSP violation');
    await page.close();
  });

  it('the details open and close from the keyboard, over the history: nothing in it moves', async () => {
    const page = await open();
    await page.evaluate(() => {
      document.scrollingElement!.scrollTop = Math.round(document.scrollingElement!.scrollHeight / 2);
    });
    await settle(page);
    const before = await reading(page);
    const toggle = page.locator('.run-bar button[aria-controls="run-details"]');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.locator('#run-details').isVisible(), false, 'closed at first');

    // Reached with Tab from the top of the page (after the skip link).
    await page.evaluate(() => (document.activeElement as unknown as { blur(): void } | null)?.blur());
    let tabs = 0;
    while (tabs < 5 && !(await toggle.evaluate((el) => el === (document.activeElement as unknown)))) {
      await page.keyboard.press('Tab');
      tabs++;
    }
    assert.ok(tabs < 5, 'the details button is reached with Tab');
    await page.keyboard.press('Enter');
    await settle(page);
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    assert.ok(await page.locator('#run-details').isVisible(), 'Enter opens the details');
    assert.equal((await page.locator('#run-details .fact-model dd').textContent())?.trim(), 'hosted/balanced');
    assert.equal((await page.locator('#run-details .fact-app dd').textContent())?.trim(), 'app_shop');
    assert.ok(await page.locator('#run-details .lifecycle .lane-state', { hasText: 'thinking' }).isVisible(), 'the lifecycle lanes are in the details');
    assert.deepEqual(await reading(page), before, 'opening the details moves nothing in the history');

    await page.keyboard.press('Space');
    await settle(page);
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.locator('#run-details').isVisible(), false, 'Space closes them');
    await page.keyboard.press('Enter');
    await settle(page);
    await page.locator('#run-details [data-ui="copy-agent-id"]').focus();
    await page.keyboard.press('Escape');
    await settle(page);
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false', 'Escape closes them');
    assert.ok(await toggle.evaluate((el) => el === (document.activeElement as unknown)), 'and gives the focus back to the button');
    assert.deepEqual(await reading(page), before, 'the history is where it was');
    await page.close();
  });

  it('says the status the extension posts, as each update brings it', async () => {
    const page = await open();
    const cases: [string, string, string][] = [
      ['queued', format(strings.statusQueued), 'status-queued'],
      ['running', format(strings.statusRunning), 'status-running'],
      ['completed', format(strings.statusCompleted), 'status-completed'],
      ['error', format(strings.statusError), 'status-error'],
      ['cancelled', 'cancelled', 'status-unknown'],
    ];
    for (const [status, label, cls] of cases) {
      await post(page, [{ type: 'update', header: { agentId: 'agent-1', status, appId: 'app_shop', model: 'hosted/balanced' } }]);
      await settle(page);
      const b = await bar(page);
      assert.equal(b.badge, label, status);
      assert.match(b.badgeClass, new RegExp(`\\b${cls}\\b`), status);
      assert.ok(b.badgeOnTop && Math.abs(b.top) <= 0.5, `${status}: in view`);
    }
    await page.close();
  });
});
