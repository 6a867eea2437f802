/**
 * The webview bundle in a real Chromium, under the exact HTML and CSP the panel serves:
 * DOMPurify (which needs a real browser) on hostile content, CSP compliance, the ready/init
 * handshake, link clicks, and a 50,000-message history: windowed, jumps, find (timings printed, not asserted).
 * Fails, saying how to get one, where no Chromium is installed (AGENT_RUNS_CHROMIUM or
 * CHROMIUM_PATH name another).
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { AgentMessage } from '../../../src/api/types';
import { MAX_WIRE_CONTENT_CHARS, PROTOCOL_VERSION, STRING_KEYS, forPosting, toWireMessage, type InitMessage, type WebviewStrings, type WireMessage } from '../../../src/panel/common/protocol';
import { readPanelState } from '../../support/webviewPage';
import { webviewSuite } from '../fixtures/webviewSuite';

// The functions given to page.evaluate run in the page; this node build has no DOM lib, so
// these module-local declarations type the little they use.
declare const document: {
  querySelectorAll(sel: string): ArrayLike<unknown>;
  scrollingElement: { scrollHeight: number; scrollTop: number; clientHeight: number } | null;
};
declare const window: { postMessage(m: unknown, origin: string): void; dispatchEvent(e: unknown): boolean };
declare const MessageEvent: new (type: string, init: { data: unknown }) => unknown;
declare function requestAnimationFrame(fn: () => void): number;

const strings = Object.fromEntries(STRING_KEYS.map((k) => [k, `«${k}» {0}`])) as WebviewStrings;

const HOSTILE = [
  '<script>window.__pwned = "script"</script>',
  '<img src="x" onerror="window.__pwned = \'img\'">',
  '<svg onload="window.__pwned = \'svg\'"><circle r="1"/></svg>',
  '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
  '<style>body { display: none }</style><div style="position:fixed;inset:0">cover</div>',
  '[js](javascript:window.__pwned=1) [data](data:text/html,<script>x</script>) [cmd](command:workbench.action.reloadWindow) [vs](vscode:extension/x)',
  '[ref][r]\n\n[r]: javascript:window.__pwned=1',
  '<javascript:window.__pwned=1> <https://ok.example/auto>',
  '![pixel](https://evil.example/pixel.png)',
  'a\u202Eevil\u202C b \u0007\u001b[31mred\u001b[0m',
  '<details open ontoggle="window.__pwned=1">x</details>',
];

describe('webview in Chromium (real DOM, DOMPurify, CSP)', function () {
  this.timeout(180_000);
  const suite = webviewSuite();

  function open(): Promise<Page> {
    return suite.open({ viewport: { width: 900, height: 700 } });
  }

  function initWith(messages: WireMessage[]): InitMessage {
    return {
      type: 'init',
      protocol: PROTOCOL_VERSION,
      agentId: 'agent-1',
      locale: 'en',
      isMac: false,
      strings,
      header: { agentId: 'agent-1', status: 'running', appId: 'app<script>x</script>', lastError: '<img src=x onerror="window.__pwned=1">' },
      lifecycle: { conversation: { current: 'working', currentSince: Date.now() - 5_000, segments: [{ state: 'working', totalMs: 0 }] }, sandbox: { segments: [] } },
      activity: { stallAfterMs: 600_000 },
      freshness: { state: 'live' },
      transcript: { earlierMessagesUnavailable: false, missingMessageCount: 0, droppedMessageCount: 0 },
      messages,
      draft: '',
      maxContentChars: MAX_WIRE_CONTENT_CHARS,
    };
  }

  it('renders hostile content inertly under the panel CSP, after ready', async () => {
    const page = await open();
    const messages = HOSTILE.map((content, i) =>
      toWireMessage(`id:${i}`, i, { id: String(i), sequence: i, role: i === 0 ? 'ro<b>le</b>\u202E' : 'assistant', content, toolName: '<svg onload=alert(1)>', toolParameters: '{"x":"</code><script>window.__pwned=2</script>"}', attachments: ['javascript:alert(1)', 'https://ok.example/file'] }),
    );
    await page.evaluate((m) => window.postMessage(m, '*'), initWith(messages) as unknown);
    await page.waitForFunction((n) => document.querySelectorAll('.log > article').length === n, messages.length);
    // Give anything that could fire (onerror, onload, ontoggle) a chance to.
    await page.waitForTimeout(300);
    const r = await readPanelState(page);
    assert.equal(r.posted[0]?.type, 'ready', 'ready is the first message');
    assert.equal(r.pwned, undefined, 'no injected code ran');
    assert.deepEqual(r.bad, []);
    assert.deepEqual(r.violations, [], 'nothing the CSP had to block');
    assert.ok(r.hrefs.length > 0 && r.hrefs.every((h) => /^(https?:\/\/|mailto:)/.test(h)), r.hrefs.join(' '));
    for (const snippet of ['<script>window.__pwned = "script"</script>', 'app<script>x</script>', '⟦U+202E⟧', 'ro<b>le</b>', 'red']) {
      assert.ok(r.text.includes(snippet), `text kept: ${snippet}`);
    }
    // Links post openLink and never navigate.
    await page.click('.md-link');
    const after = await readPanelState(page);
    assert.equal(page.url(), suite.url());
    assert.ok(after.posted.some((m) => m.type === 'openLink'));
    await page.close();
  });

  it('shows the deployed service\'s shapes: chips, parameters, six roles, thinking opened from the keyboard, borders in high contrast', async () => {
    const page = await open();
    const long = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`key${i}`, { value: i }]));
    const deployed: AgentMessage[] = [
      {
        role: 'user',
        content: 'fix the checkout',
        attachments: [
          { type: 'file', name: 'report.pdf', url: 'https://files.example/r.pdf', mimeType: 'application/pdf' },
          { identifier: 'ENG-42', title: 'Checkout fails', url: 'https://linear.example/ENG-42' },
          { weird: { deep: [1, 2] } },
          { name: 'trap', url: 'javascript:window.__pwned=1' },
        ],
      },
      { role: 'thinking', content: 'First the **tests**.' },
      { role: 'tool', toolName: 'read_file', toolParameters: { path: 'src/a.ts', range: [1, 20] } },
      { role: 'system', content: 'Sandbox restarted.' },
      { role: 'error', content: 'The tool failed.' },
      { role: 'critic', content: 'unknown role' },
      { role: 'tool', toolName: 'bulk', toolParameters: long },
    ];
    const messages = deployed.map((m, i) => toWireMessage(`id:${i + 1}`, i, { id: String(i + 1), sequence: i + 1, ...m }));
    await page.evaluate((m) => window.postMessage(m, '*'), initWith(messages) as unknown);
    await page.waitForFunction((n) => document.querySelectorAll('.log > article').length === n, messages.length);
    const r = await readPanelState(page);
    assert.deepEqual([r.pwned, r.bad, r.violations], [undefined, [], []]);
    assert.deepEqual(r.hrefs, ['https://files.example/r.pdf', 'https://linear.example/ENG-42'], 'only the http(s) attachments are links');
    const count = (sel: string): Promise<number> => page.locator(sel).count();
    assert.equal(await count('.msg-empty'), 0, 'a tool call without content is no empty message');
    assert.deepEqual(await page.locator('[data-key="id:1"] .chip').allTextContents(), [
      'report.pdf file', 'ENG-42 Checkout fails', '{"weird":{"deep":[1,2]}}', 'trap',
    ]);
    assert.equal(await page.textContent('[data-key="id:3"] pre'), JSON.stringify({ path: 'src/a.ts', range: [1, 20] }, null, 2));
    assert.equal(await count('[data-key="id:3"] details'), 0, 'short parameters shown');
    assert.equal(await count('[data-key="id:7"] details.tool:not([open])'), 1, 'long parameters folded');
    for (const [key, cls] of [['id:2', 'role-thinking'], ['id:3', 'role-tool'], ['id:4', 'role-system'], ['id:5', 'role-error'], ['id:6', 'role-other']]) {
      assert.match((await page.getAttribute(`[data-key="${key}"]`, 'class')) ?? '', new RegExp(`\\b${cls}\\b`), key);
    }
    assert.match((await page.textContent('[data-key="id:6"] .msg-role')) ?? '', /critic/);
    // Thinking is folded; its summary takes the focus and opens it with Enter.
    assert.equal(await count('[data-key="id:2"] details.thinking:not([open])'), 1);
    assert.equal(await page.locator('[data-key="id:2"] .thinking .msg-body').isVisible(), false);
    await page.focus('[data-key="id:2"] details.thinking > summary');
    await page.keyboard.press('Enter');
    assert.equal(await count('[data-key="id:2"] details.thinking[open]'), 1, 'opened from the keyboard');
    assert.equal(await page.locator('[data-key="id:2"] .thinking strong').textContent(), 'tests');
    // Error and system notes are told apart by their borders, not only by colour, in high contrast too.
    const borders = (): Promise<unknown> =>
      page.evaluate(`['id:4', 'id:5', 'id:3'].map((k) => { const s = getComputedStyle(document.querySelector('[data-key="' + k + '"]')); return s.borderLeftStyle + ' ' + s.borderLeftWidth; })`);
    assert.deepEqual(await borders(), ['dashed 3px', 'solid 3px', 'none 0px']);
    await page.evaluate('document.body.classList.add("vscode-high-contrast")');
    assert.deepEqual(await borders(), ['dashed 3px', 'solid 4px', 'none 0px']);
    // An attachment link opens the way every link does: a message to the extension.
    await page.click('[data-key="id:1"] .chip .md-link >> text=ENG-42');
    const opened = (await readPanelState(page)).posted.filter((m) => m.type === 'openLink') as unknown as { url: string }[];
    assert.deepEqual(opened.map((m) => m.url), ['https://linear.example/ENG-42']);
    assert.equal(page.url(), suite.url());
    await page.close();
  });

  it('renders 50,000 messages as the panel posts them, only near the viewport, and jumps anywhere (timings printed)', async () => {
    const page = await open();
    const now = Date.now();
    const messages: WireMessage[] = [];
    for (let i = 0; i < 50_000; i++) {
      messages.push(
        toWireMessage(`id:${i}`, i, {
          id: String(i),
          sequence: i,
          role: i % 3 === 0 ? 'user' : 'assistant',
          createdAt: now - (50_000 - i) * 1_000,
          content: `Message ${i} with **bold**, \`code\` and a [link](https://ok.example/${i}).\n\n- one\n- two${i === 7 ? ' needle' : ''}`,
          ...(i % 10 === 0 ? { toolName: 'shell', toolParameters: `{"cmd":"npm test","n":${i}}` } : {}),
        }),
      );
    }
    const t = await page.evaluate(async (parts) => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const t0 = performance.now();
      for (const data of parts) {
        window.dispatchEvent(new MessageEvent('message', { data }));
      }
      const sync = performance.now() - t0;
      await frame();
      const firstPaint = performance.now() - t0;
      const articles = document.querySelectorAll('.log > article').length;
      // The older chunks are taken in after the first paint, one per task.
      const held = () => (document.querySelectorAll('.log > article')[0] as { getAttribute(n: string): string | null } | undefined)?.getAttribute('aria-setsize');
      while (held() !== '50000') {
        await frame();
      }
      const msg = { key: 'id:new', arrival: 50_000, sequence: 50_000, role: 'assistant', content: 'new **message**', createdAt: Date.now() };
      const t1 = performance.now();
      window.dispatchEvent(new MessageEvent('message', { data: { type: 'update', messages: [msg] } }));
      const append = performance.now() - t1;
      await frame();
      await frame();
      const se = document.scrollingElement!;
      const fromBottom = se.scrollHeight - (se.scrollTop + se.clientHeight);
      // Jump to the middle, then to the top: the rows there are mounted within a frame or two.
      let worstJump = 0;
      for (const fraction of [0.5, 0.1, 0.9, 0]) {
        const j0 = performance.now();
        se.scrollTop = Math.round(se.scrollHeight * fraction);
        await frame();
        worstJump = Math.max(worstJump, performance.now() - j0);
      }
      await frame();
      const top = Array.from(document.querySelectorAll('.log > article') as ArrayLike<{ getAttribute(n: string): string | null }>).map((a) => a.getAttribute('data-key'));
      return { sync, firstPaint, articles, append, fromBottom, worstJump, top: top.slice(0, 3) };
    }, forPosting(initWith(messages)) as unknown[]);
    console.log(
      `      Chromium: 50,000 handled in ${t.sync.toFixed(0)} ms, first paint ${t.firstPaint.toFixed(0)} ms (${t.articles} rows mounted), one append ${t.append.toFixed(1)} ms, slowest jump ${t.worstJump.toFixed(0)} ms`,
    );
    assert.ok(t.articles > 0 && t.articles < 150, `${t.articles} articles mounted`);
    assert.ok(t.fromBottom <= 48, `followed the end (${t.fromBottom}px from the bottom)`);
    assert.deepEqual(t.top[0], 'id:0', 'the top of the history is reachable by scrolling');
    const r = await readPanelState(page);
    assert.deepEqual(r.violations, []);
    assert.deepEqual(r.bad, []);
    // Ctrl+F finds a message far from the end, which was not in the DOM.
    await page.focus('.log');
    await page.keyboard.press('End');
    // End scrolls with an animation; a person finds after it ended.
    await page.waitForTimeout(1_000);
    await page.keyboard.press('Control+f');
    await page.fill('.find-input', 'needle');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelectorAll('mark.find-current').length === 1, undefined, { timeout: 5_000 }).catch(async (e: unknown) => {
      throw new Error(`${String(e)}: ${await page.evaluate(() => JSON.stringify({ count: (document as unknown as { querySelector(s: string): { textContent: string } | null }).querySelector('.find-count')?.textContent, keys: Array.from(document.querySelectorAll('.log > article') as ArrayLike<{ getAttribute(n: string): string | null }>).map((a) => a.getAttribute('data-key')).slice(0, 4) }))}`);
    });
    assert.match((await page.textContent('.find-count')) ?? '', /1/);
    assert.equal(await page.getAttribute('mark.find-current >> xpath=ancestor::article', 'data-key'), 'id:7');
    // Ctrl+Enter sends.
    await page.fill('textarea', 'follow up');
    await page.press('textarea', 'Control+Enter');
    const sent = (await readPanelState(page)).posted.filter((m) => m.type === 'sendFollowUp');
    assert.equal(sent.length, 1);
    await page.close();
  });
});
