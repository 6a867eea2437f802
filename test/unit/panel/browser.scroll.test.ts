/**
 * Scrolling a live run's history from the top to the end, in a real Chromium under the panel's
 * own HTML and CSS: bursts of messages arrive between polls (and polls that bring none), rows
 * of varied heights (object tool parameters, attachment chips, folded thinking, long text) are
 * measured as they are mounted, and the page is scrolled step by step, by the wheel and by
 * script. Every message must be reached, and the message a step brings to the viewport's top
 * must move on screen by the step and nothing else: the page never puts the position back.
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { JsonValue } from '../../../src/api/types';
import { STRING_KEYS, forPosting, toWireMessage, type WebviewStrings, type WireMessage } from '../../../src/panel/common/protocol';
import { initWith } from '../fixtures/webviewInit';
import { webviewSuite } from '../fixtures/webviewSuite';

// The functions given to page.evaluate run in the page; this node build has no DOM lib, so
// these module-local declarations type the little they use.
interface PageElement {
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { top: number; bottom: number };
}
declare const document: {
  scrollingElement: { scrollHeight: number; scrollTop: number; clientHeight: number } | null;
  querySelectorAll(sel: string): ArrayLike<PageElement>;
  querySelector(sel: string): PageElement | null;
};
declare const window: { dispatchEvent(e: unknown): boolean };
declare const MessageEvent: new (type: string, init: { data: unknown }) => unknown;
declare const CSS: { escape(s: string): string };
declare function requestAnimationFrame(fn: () => void): number;

const strings = Object.fromEntries(STRING_KEYS.map((k) => [k, `«${k}» {0}`])) as WebviewStrings;
/** Two bursts of this many arrive between polls, after the run's first message (801 in all, as reported). */
const BURST = 400;
const TOTAL = 1 + 2 * BURST;
/** The steps, taken in turn: a wheel's delta, then a script's (px); both less than the viewport (900 px). */
const STEPS = [{ by: 'wheel', px: 800 }, { by: 'script', px: 850 }] as const;
/** The step at which the second burst arrives (the rest of the way goes over all 801). */
const SECOND_BURST_AT = 4;
/** How far the message a step brings to the top may be from where the step put it (px; layout works in 1/64 px). */
const TOLERANCE_PX = 0.5;

/** The deployed service's mix, each kind in several sizes: text, tool calls with object parameters, thinking, chips. */
function message(i: number): WireMessage {
  const base = { id: String(i), sequence: i, createdAt: 1_700_000_000_000 + i * 1_000 };
  const size = 1 + ((i * 7) % 5);
  switch (i % 6) {
    case 0:
      return toWireMessage(`id:${i}`, i, { ...base, role: i === 0 ? 'user' : 'assistant', content: `Message ${i}.\n\n${'Some words of the answer. '.repeat(size * 9)}` });
    case 1:
      return toWireMessage(`id:${i}`, i, {
        ...base,
        role: 'tool',
        toolName: 'read_file',
        toolParameters: { path: `src/module-${i}.ts`, range: [1, 40 * size], options: Object.fromEntries(Array.from({ length: size * 2 }, (_, k) => [`flag${k}`, k % 2 === 0])) },
      });
    case 2:
      return toWireMessage(`id:${i}`, i, { ...base, role: 'thinking', content: `Weighing option ${i}.\n\n${'More reasoning. '.repeat(20 * size)}` });
    case 3:
      return toWireMessage(`id:${i}`, i, {
        ...base,
        role: 'assistant',
        content: `Message ${i}, with files.`,
        attachments: Array.from({ length: size }, (_, k): JsonValue => (k % 2 === 0
          ? { type: 'file', name: `report-${i}-${k}.html`, url: 'https://files.example.test/r.html' }
          : { identifier: `ENG-${i}-${k}`, title: 'An issue with a longer title that may wrap in a narrow panel' })),
      });
    case 4:
      return toWireMessage(`id:${i}`, i, {
        ...base,
        role: 'tool',
        toolName: 'run_command',
        toolParameters: { command: 'npm test', cwd: `/work/pkg-${i}`, env: Object.fromEntries(Array.from({ length: size * 4 }, (_, k) => [`VAR_${k}`, `value-${k}`])) },
        content: size > 3 ? `Output:\n\n\`\`\`\n${'line of output\n'.repeat(size * 3)}\`\`\`` : undefined,
      });
    default:
      return toWireMessage(`id:${i}`, i, { ...base, role: 'assistant', content: `Short ${i}.` });
  }
}

/** A burst of new messages from `from` on, as one poll brings them. */
function burst(from: number): unknown {
  return { type: 'update', messages: Array.from({ length: BURST }, (_, i) => message(from + i)), activity: { stallAfterMs: 600_000, lastActivityAt: 1_700_001_000_000 + from } };
}

/** A poll that brought no messages: only the run's activity changed. */
function poll(n: number): unknown {
  return { type: 'update', activity: { stallAfterMs: 600_000, lastActivityAt: 1_700_002_000_000 + n } };
}

interface Placed {
  /** Where the message the step started from is on screen now (px), if it is still mounted. */
  top: number | undefined;
  scrollTop: number;
  scrollHeight: number;
  atEnd: boolean;
  /** `aria-posinset` of every mounted message. */
  positions: number[];
}

describe('webview in Chromium: scrolling a live run from the top to the end', function () {
  this.timeout(240_000);
  const suite = webviewSuite();

  async function post(page: Page, data: readonly unknown[]): Promise<void> {
    await page.evaluate((parts) => {
      for (const d of parts) {
        window.dispatchEvent(new MessageEvent('message', { data: d }));
      }
    }, data as unknown[]);
  }

  /** Frames until the scroll position has stayed put for three of them (a wheel scroll animates), then one idle turn. */
  function settle(page: Page): Promise<void> {
    return page.evaluate(async () => {
      const frame = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      let last = -1;
      let still = 0;
      for (let i = 0; i < 120 && still < 3; i++) {
        await frame();
        const y = document.scrollingElement!.scrollTop;
        still = y === last ? still + 1 : 0;
        last = y;
      }
      await new Promise<void>((r) => setTimeout(r, 20));
      await frame();
    });
  }

  /** The message `below` px under the viewport's top (the one a step of that much brings to the top) and where it is on screen. */
  function rowAt(page: Page, below: number): Promise<{ key: string; top: number }> {
    return page.evaluate((y) => {
      const rows = Array.from(document.querySelectorAll('.log > article'));
      const row = rows.find((r) => r.getBoundingClientRect().bottom > y + 1) ?? rows[rows.length - 1];
      return { key: row.getAttribute('data-key')!, top: row.getBoundingClientRect().top };
    }, below);
  }

  function placed(page: Page, key: string): Promise<Placed> {
    return page.evaluate((k) => {
      const se = document.scrollingElement!;
      const el = document.querySelector(`.log > article[data-key="${CSS.escape(k)}"]`);
      return {
        top: el ? el.getBoundingClientRect().top : undefined,
        scrollTop: se.scrollTop,
        scrollHeight: se.scrollHeight,
        atEnd: se.scrollHeight - (se.scrollTop + se.clientHeight) <= 1,
        positions: Array.from(document.querySelectorAll('.log > article[aria-posinset]')).map((a) => Number(a.getAttribute('aria-posinset'))),
      };
    }, key);
  }

  /**
   * A panel on the run's first message, at the live end, where the first burst is followed;
   * then to the top and down to the end a step at a time, a poll now and then, the second
   * burst arriving on the way: each step moves the message it brings to the top by the step.
   */
  it('while two bursts arrive between polls, every message is reached and the view moves only by the steps', async () => {
    const page = await suite.open({ viewport: { width: 700, height: 900 } });
    await post(page, forPosting(initWith(strings, [message(0)])));
    await settle(page);
    await post(page, [burst(1)]);
    await settle(page);
    await post(page, [poll(0)]);
    await settle(page);
    await page.mouse.move(350, 300);
    await page.evaluate(() => {
      document.scrollingElement!.scrollTop = 0;
    });
    await settle(page);
    const reached = new Set<number>();
    let last: Placed | undefined;
    let endSteps = 0;
    for (let n = 0; n < 1_000 && endSteps < 2; n++) {
      if (n === SECOND_BURST_AT) {
        await post(page, [burst(1 + BURST)]);
      } else if (n % 5 === 2) {
        await post(page, [poll(n)]);
      }
      const step = STEPS[n % STEPS.length];
      const from = await rowAt(page, step.px);
      if (step.by === 'wheel') {
        await page.mouse.wheel(0, step.px);
      } else {
        await page.evaluate((d) => {
          document.scrollingElement!.scrollTop += d;
        }, step.px);
      }
      await settle(page);
      const now = await placed(page, from.key);
      now.positions.forEach((p) => reached.add(p));
      // Short of the end the whole step is taken; at the end, what was left of it.
      const moved = now.top === undefined ? undefined : from.top - now.top;
      const whole = moved !== undefined && Math.abs(moved - step.px) <= TOLERANCE_PX;
      const clipped = moved !== undefined && now.atEnd && moved >= -TOLERANCE_PX && moved <= step.px + TOLERANCE_PX;
      assert.ok(whole || clipped, `step ${n} (${step.by}, ${step.px} px) from ${last?.scrollTop ?? 0} to ${now.scrollTop} of ${now.scrollHeight} px:`
        + ` ${from.key} moved ${moved === undefined ? 'out of the mounted rows' : `${moved} px`} on screen (${reached.size} of ${TOTAL} messages reached so far)`);
      if (now.atEnd && n > SECOND_BURST_AT) {
        endSteps++;
      }
      last = now;
    }
    assert.ok(last?.atEnd, `the end is reached (${last?.scrollTop} of ${last?.scrollHeight} px)`);
    const missing = Array.from({ length: TOTAL }, (_, i) => i + 1).filter((p) => !reached.has(p));
    assert.deepEqual(missing.slice(0, 20), [], `every message is reached (${missing.length} of ${TOTAL} never mounted)`);
    await page.close();
  });
});
