// Hostile content from the service, end to end up to the pixels: injected into the emulator
// (admin API and response faults), read with the real client, merged into the transcript,
// turned into the panel's messages by the real PanelSession, and rendered by the real webview
// bundle under the panel's HTML and CSP in Chromium. Nothing may run (a trap flag, a trap
// origin, the posted-message log), links stay inert or http/https/mailto, the panel stays
// responsive, and forged messages are refused on both sides.
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createClient } from '../../../src/api/client';
import type { AgentRunsApi } from '../../../src/api/contract';
import type { Agent } from '../../../src/api/types';
import { PanelSession, RunObserver } from '../../../src/panel/common/panelModel';
import { isSafeLinkUrl, parseWebviewMessage, type InitMessage, type UpdateMessage } from '../../../src/panel/common/protocol';
import { TranscriptStore } from '../../../src/run/common/transcript/store';
import type { Emulator } from '../../emulator/index';
import { reportCrash, scenario, type Scenario } from '../registry';
import { admin, agentPath, startRun, useEmulator } from '../support/emulatorFixture';
import { HOSTILE_SHORT, HOSTILE_TEXTS, hostileToolParameters, megabyteLine, withTrap } from '../support/hostile';
import { PanelLab, STRINGS, type PageState } from '../support/panelPage';
import { runOf } from '../../support/runOf';

declare const document: {
  querySelectorAll(sel: string): ArrayLike<{ click(): void; getAttribute(n: string): string | null }> & { forEach(fn: (el: { getAttribute(n: string): string | null }) => void): void };
  querySelector(sel: string): { getAttribute(n: string): string | null } | null;
  scrollingElement: { scrollTop: number } | null;
  getElementById(id: string): { textContent: string | null } | null;
  createElement(tag: string): { setAttribute(n: string, v: string): void; textContent: string | null };
  body: { appendChild(n: unknown): void; insertAdjacentHTML(where: string, html: string): void };
};
declare const window: { dispatchEvent(e: unknown): boolean; postMessage(m: unknown, o: string): void };
declare const MessageEvent: new (type: string, init: { data: unknown }) => unknown;
declare function requestAnimationFrame(fn: () => void): number;

/** Resolves once the panel holds `total` messages (the feed's set size; only some are mounted). */
async function historyHeld(page: Page, total: number, timeout = 20_000): Promise<void> {
  await page.waitForFunction((n) => document.querySelector('#app .log > article')?.getAttribute('aria-setsize') === String(n), total, { timeout });
}

/**
 * The history is virtualised: this scrolls it from top to bottom through a tall viewport so
 * that every message has been rendered (sanitised, in the DOM) at least once.
 */
async function renderEveryMessage(page: Page, total: number): Promise<void> {
  if (total === 0) {
    return;
  }
  await historyHeld(page, total);
  const size = page.viewportSize();
  await page.setViewportSize({ width: size?.width ?? 1_000, height: 6_000 });
  const seen = await page.evaluate(async () => {
    const se = document.scrollingElement!;
    const frame = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const keys = new Set<string>();
    const collect = () => document.querySelectorAll('#app .log > article').forEach((a) => keys.add(a.getAttribute('data-key') ?? ''));
    se.scrollTop = 0;
    await frame();
    await frame();
    collect();
    for (;;) {
      const before = se.scrollTop;
      se.scrollTop = before + 5_000;
      await frame();
      await frame();
      collect();
      if (se.scrollTop === before) {
        return keys.size;
      }
    }
  });
  assert.equal(seen, total, 'every message was rendered once');
  if (size) {
    await page.setViewportSize(size);
  }
}

/** Messages the page may post on its own (no click): anything else means content acted. */
const UNPROMPTED = new Set(['ready', 'markSeen', 'draftChanged']);

class View {
  readonly store = new TranscriptStore(50);
  readonly observer: RunObserver;
  readonly session: PanelSession;
  constructor(public agent: Agent, readonly agentId: string) {
    const getRun = () => ({ run: runOf(this.agent) });
    this.observer = new RunObserver({ getRun, transcript: (id) => this.store.get(id), now: () => Date.now() });
    this.session = new PanelSession(agentId, {
      getRun,
      transcript: (id) => this.store.get(id),
      observer: this.observer,
      stallAfterMs: 600_000,
      locale: 'en',
      isMac: false,
      strings: () => STRINGS,
      draft: () => '',
    });
    // What the extension does with each read: one merge into the shared store, then observe.
    this.store.get(agentId).merge(agent.history);
    this.observer.observe(agentId);
  }
  init(): InitMessage {
    return this.session.init();
  }
  update(agent: Agent): UpdateMessage | InitMessage | undefined {
    this.agent = agent;
    this.store.get(this.agentId).merge(agent.history);
    this.observer.observe(this.agentId);
    return this.session.update();
  }
}

function checkInert(s: Scenario, lab: PanelLab, st: PageState, what: string, clicked = false): void {
  for (const e of st.errors) {
    s.crash(`page error in the webview (${what}): ${e}`);
  }
  assert.equal(st.pwned, undefined, `injected code ran (${what}): __pwned = ${String(st.pwned)}`);
  assert.deepEqual(lab.trapHits, [], `hostile content made requests (${what})`);
  assert.deepEqual(st.bad, [], `elements or attributes that should have been removed (${what})`);
  assert.deepEqual(st.violations, [], `the CSP had to block something the sanitiser let through (${what})`);
  assert.equal(st.acquireAttempts, 1, 'something else tried to acquire the VS Code API');
  for (const m of st.posted) {
    const parsed = parseWebviewMessage(m);
    assert.ok(parsed.ok, `the page posted an invalid message: ${JSON.stringify(m).slice(0, 200)}`);
    // After the test clicked every link, openLink messages are expected (checked by clickLinks).
    const allowed = clicked && parsed.message.type === 'openLink';
    assert.ok(allowed || UNPROMPTED.has(parsed.message.type), `content made the page post "${parsed.message.type}" without a click`);
  }
  for (const h of st.hrefs) {
    assert.ok(isSafeLinkUrl(h) && /^(https?:\/\/|mailto:)/i.test(h), `an unsafe link target survived: ${h.slice(0, 100)}`);
  }
  s.sink('webview DOM', st.html);
  s.sink('messages posted by the webview', JSON.stringify(st.posted));
}

/** Clicks every link: each posts openLink with a safe URL, nothing navigates, no window opens. */
async function clickLinks(page: Page, lab: PanelLab, s: Scenario): Promise<number> {
  const before = ((await lab.state(page)).posted).length;
  const url = page.url();
  let popups = 0;
  page.context().on('page', () => popups++);
  const count = await page.locator('#app .md-link').count();
  const n = Math.min(count, 40);
  for (let i = 0; i < n; i++) {
    await page.locator('#app .md-link').nth(i).click({ timeout: 5_000 });
  }
  const st = await lab.state(page);
  const links = st.posted.slice(before).map((m) => parseWebviewMessage(m));
  assert.equal(links.length, n, 'a link click did not post exactly one message');
  for (const l of links) {
    assert.ok(l.ok && l.message.type === 'openLink' && isSafeLinkUrl(l.message.url), `a link click posted ${JSON.stringify(l).slice(0, 200)}`);
  }
  assert.equal(page.url(), url, 'a click navigated the webview');
  assert.equal(popups, 0, 'a click opened a window');
  s.sink('webview DOM after clicks', st.html);
  return n;
}

async function render(lab: PanelLab, message: InitMessage): Promise<Page> {
  const page = await lab.open();
  await lab.post(page, message);
  // Every message rendered once (the history is windowed), then back at the end.
  await renderEveryMessage(page, message.messages.length);
  return page;
}

describe('faults: hostile content in the run panel (Chromium, real bundle and CSP)', function () {
  this.timeout(120_000);
  const emu = useEmulator();
  let lab: PanelLab;
  let client: AgentRunsApi;

  before(async () => {
    lab = await PanelLab.start();
  });
  beforeEach(() => {
    lab.trapHits.length = 0;
    client = createClient({ baseUrl: emu().baseUrl, token: emu().tokens.default });
  });
  afterEach(async () => {
    await client.dispose();
  });
  after(async () => {
    await lab?.close();
  });

  async function hostileRun(e: Emulator, setup: (agentId: string) => Promise<void>): Promise<{ agentId: string; agent: Agent }> {
    const agentId = await startRun(e, 'Render me safely');
    await setup(agentId);
    return { agentId, agent: await client.getAgent(agentId) };
  }

  async function inertRun(s: Scenario, setup: (agentId: string) => Promise<void>, expectText: string[]): Promise<void> {
    const { agentId, agent } = await hostileRun(emu(), setup);
    const page = await render(lab, new View(agent, agentId).init());
    try {
      // Anything that could fire (onerror, onload, ontoggle, a refresh) gets its chance first.
      await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
      const st = await lab.state(page);
      checkInert(s, lab, st, 'after rendering');
      for (const t of expectText) {
        assert.ok(st.text.includes(t), `hostile text was not shown as text: ${t.slice(0, 80)}`);
      }
      await clickLinks(page, lab, s);
      checkInert(s, lab, await lab.state(page), 'after clicking every link', true);
    } finally {
      await page.close();
    }
  }

  scenario('hostile', 'message content: scripts, handlers, SVG, mXSS, CSS, forms, Markdown link tricks, bidi and controls', (s) => inertRun(s, async (id) => {
    for (const text of HOSTILE_TEXTS) {
      await admin(emu(), 'POST', `/agents/${id}/messages`, { role: 'assistant', content: withTrap(text, lab.trapOrigin) });
    }
  }, ['<script>window.__pwned = "script"', '<img src="x" onerror=', '⟦U+202E⟧']));

  scenario('hostile', 'tool names and tool parameters trying to break out of their code block', (s) => inertRun(s, async (id) => {
    for (const name of HOSTILE_SHORT) {
      await admin(emu(), 'POST', `/agents/${id}/messages`, { role: 'tool', toolName: withTrap(name, lab.trapOrigin), toolParameters: hostileToolParameters(lab.trapOrigin), content: 'ran' });
    }
  }, []));

  scenario('hostile', 'attachments: javascript:, data:, command:, trap URLs, bidi file names', (s) => inertRun(s, async (id) => {
    await admin(emu(), 'POST', `/agents/${id}/messages`, { role: 'assistant', content: 'see files', attachments: HOSTILE_SHORT.map((a) => withTrap(a, lab.trapOrigin)) });
  }, ['javascript:window.__pwned=1']));

  scenario('hostile', 'lastError and projectName with markup, links and control characters', (s) => inertRun(s, async (id) => {
    await admin(emu(), 'PATCH', `/agents/${id}`, {
      lastError: withTrap(`${HOSTILE_TEXTS[1]} ${HOSTILE_TEXTS[14]} \u202Eoops`, lab.trapOrigin),
      projectName: '<svg onload=window.__pwned="project">\u202Eevil',
    });
  }, ['<svg onload=window.__pwned="project">']));

  scenario('hostile', 'roles, message IDs and sequence values from a hostile service', (s) => inertRun(s, (id) => {
    const history = HOSTILE_SHORT.map((v, i) => ({ id: withTrap(v, lab.trapOrigin), sequence: i === 3 ? -1e308 : i, role: withTrap(v, lab.trapOrigin), content: `message ${i}`, createdAt: i === 2 ? 8.64e15 + 1 : 1_767_225_600_000 + i }));
    emu().inject({ method: 'GET', path: agentPath(id), extraFields: { history }, times: 1 });
    return Promise.resolve();
  }, ['message 0', 'message 8']));

  scenario('hostile', 'a hostile agent ID, kind, model and status in the header', async (s) => {
    const e = emu();
    const realId = await startRun(e, 'header');
    const hostileId = '<img src=x onerror=window.__pwned="id">\u202Eagt';
    e.inject({ method: 'GET', path: agentPath(realId), extraFields: { kind: HOSTILE_SHORT[1], model: HOSTILE_SHORT[0], status: '<b onmouseover=window.__pwned=1>running</b>', reasoningEffort: 'javascript:x', permission: '"><script>x</script>', permittedBranches: HOSTILE_SHORT }, times: 1 });
    const agent = await client.getAgent(realId);
    const page = await render(lab, new View({ ...agent, agentId: hostileId }, hostileId).init());
    try {
      await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
      const st = await lab.state(page);
      checkInert(s, lab, st, 'header');
      assert.ok(st.text.includes('<img src=x onerror=window.__pwned="id">'), 'the agent ID is not shown as text');
      // Copy the agent ID (in the header's details): the exact (hostile) text goes to the extension, as data.
      await page.locator('.run-bar button[aria-controls="run-details"]').click();
      await page.locator('[data-ui="copy-agent-id"]').first().click();
      const copied = (await lab.state(page)).posted.map((m) => parseWebviewMessage(m)).filter((m) => m.ok && m.message.type === 'copy');
      assert.equal(copied.length, 1);
    } finally {
      await page.close();
    }
  });

  scenario('hostile', 'hostile content arriving later in updates renders as inertly as in init', async (s) => {
    const e = emu();
    const agentId = await startRun(e, 'updates');
    const view = new View(await client.getAgent(agentId), agentId);
    const page = await render(lab, view.init());
    try {
      for (const [i, text] of HOSTILE_TEXTS.entries()) {
        await admin(e, 'POST', `/agents/${agentId}/messages`, { role: i % 2 === 0 ? 'assistant' : 'tool', content: withTrap(text, lab.trapOrigin), toolParameters: hostileToolParameters(lab.trapOrigin) });
        if (i % 5 === 4 || i === HOSTILE_TEXTS.length - 1) {
          const update = view.update(await client.getAgent(agentId));
          assert.ok(update, 'no update for new messages');
          await lab.post(page, update);
        }
      }
      await e.advance(1_000);
      await admin(e, 'PATCH', `/agents/${agentId}`, { lastError: HOSTILE_TEXTS[0], status: 'error' });
      const last = view.update(await client.getAgent(agentId));
      if (last) {
        await lab.post(page, last);
      }
      const total = view.store.get(agentId).snapshot().entries.length;
      await renderEveryMessage(page, total);
      await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
      checkInert(s, lab, await lab.state(page), 'after updates');
    } finally {
      await page.close();
    }
  });

  scenario('hostile', 'a 1 MB single line with payloads at start, middle and end: cut, inert, the panel stays responsive', async (s) => {
    const e = emu();
    const agentId = await startRun(e, 'big');
    // Through a response fault: the admin API takes at most 1 MiB per request.
    const big = megabyteLine();
    e.inject({ method: 'GET', path: agentPath(agentId), times: 1, extraFields: { history: [
      { id: 'big-1', sequence: 1, role: 'assistant', content: big, toolName: 'dump', toolParameters: big.slice(0, 400_000), createdAt: 1_767_225_600_000 },
      { id: 'big-2', sequence: 2, role: 'user', content: 'after the big one', createdAt: 1_767_225_601_000 },
    ] } });
    const agent = await client.getAgent(agentId);
    assert.ok((agent.history ?? []).some((m) => (m.content?.length ?? 0) >= 1_000_000), 'the 1 MB line did not arrive whole');
    const init = new View(agent, agentId).init();
    const page = await lab.open();
    try {
      // Timed from when the page has the message (moving 1 MB into the page is the test's cost).
      await lab.post(page, init);
      const started = Date.now();
      await page.waitForFunction((n) => document.querySelectorAll('#app .log > article').length >= n, init.messages.length, { timeout: 20_000 });
      const renderMs = Date.now() - started;
      const typed = Date.now();
      await page.locator('textarea').fill('still responsive');
      const typeMs = Date.now() - typed;
      const longest = Math.max(0, ...(await lab.longTasks(page)));
      s.note(`1 MB line: rendered in ${renderMs} ms, typing answered in ${typeMs} ms, longest task ${Math.round(longest)} ms`);
      assert.ok(renderMs < 5_000, `rendering took ${renderMs} ms`);
      assert.ok(typeMs < 2_000, `typing took ${typeMs} ms`);
      assert.ok(longest < 2_000, `the page was frozen for ${longest} ms`);
      await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
      checkInert(s, lab, await lab.state(page), '1 MB line');
    } finally {
      await page.close();
    }
  });

  scenario('hostile', 'a 10,000-message history (with hostile messages in it): windowed, every message rendered once while scrolling through, responsive throughout', async (s) => {
    const e = emu();
    const agentId = await startRun(e, 'long');
    const history = Array.from({ length: 10_000 }, (_, i) => ({
      id: `m${i}`, sequence: i, role: i % 3 === 0 ? 'user' : i % 7 === 0 ? 'tool' : 'assistant', createdAt: 1_767_225_600_000 + i * 1_000,
      content: i % 500 === 7 ? withTrap(HOSTILE_TEXTS[i % HOSTILE_TEXTS.length], lab.trapOrigin) : `Message ${i} with **bold**, \`code\` and a [link](https://ok.example/${i}).`,
      ...(i % 7 === 0 ? { toolName: 'shell', toolParameters: `{"cmd":"npm test","n":${i}}` } : {}),
    }));
    e.inject({ method: 'GET', path: agentPath(agentId), extraFields: { history }, times: 1 });
    const agent = await client.getAgent(agentId);
    assert.equal(agent.history?.length, 10_000);
    const init = new View(agent, agentId).init();
    assert.equal(init.messages.length, 10_000);
    const page = await lab.open();
    try {
      // Timed from when the page has the message (moving 10,000 messages into it is the test's cost).
      await lab.post(page, init);
      const started = Date.now();
      // Responsive while rendering: a round trip into the page and typing are answered quickly.
      const probes: number[] = [];
      let rendered = 0;
      let firstPaintMs: number | undefined;
      let typeMs: number | undefined;
      while (rendered < 10_000) {
        const t = Date.now();
        rendered = await page.evaluate(() => Number(document.querySelector('#app .log > article')?.getAttribute('aria-setsize') ?? 0));
        probes.push(Date.now() - t);
        if (rendered > 0 && firstPaintMs === undefined) {
          firstPaintMs = Date.now() - started;
        }
        if (rendered > 0 && typeMs === undefined) {
          // Typing right after the history arrived.
          const typed = Date.now();
          await page.locator('textarea').fill('typed during a long history');
          typeMs = Date.now() - typed;
        }
        if (Date.now() - started > 120_000) {
          throw new Error(`only ${rendered} of 10,000 messages after 120 s`);
        }
      }
      const allMs = Date.now() - started;
      // Every message through the window once: the hostile ones among them are rendered too.
      await renderEveryMessage(page, 10_000);
      const longest = Math.max(0, ...(await lab.longTasks(page)));
      s.note(`10,000 messages: newest shown after ${firstPaintMs ?? -1} ms, all held in ${allMs} ms; slowest round trip while rendering ${Math.max(...probes)} ms; typing ${typeMs ?? -1} ms; longest task ${Math.round(longest)} ms`);
      assert.ok((firstPaintMs ?? Infinity) < 3_000, `the newest messages took ${firstPaintMs} ms to show`);
      assert.ok(Math.max(...probes) < 3_000, `the page did not answer for ${Math.max(...probes)} ms while rendering`);
      // Bounds that mean "frozen", not "a busy 2-core machine": a person notices 2 s.
      assert.ok((typeMs ?? Infinity) < 2_000, `typing took ${typeMs} ms while rendering`);
      assert.ok(longest < 2_000, `the page was frozen for ${longest} ms`);
      await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
      checkInert(s, lab, await lab.state(page), '10,000 messages');
    } finally {
      await page.close();
    }
  });

  scenario('hostile', 'defence in depth: markup that skips the sanitiser is still stopped by the CSP (inline handlers, scripts, remote loads)', async (s) => {
    const page = await lab.open();
    try {
      await page.evaluate((trap) => {
        // What a sanitiser bug would let through, written straight into the DOM.
        document.body.insertAdjacentHTML('beforeend', `<img src="${trap}/csp-onerror.png" onerror="window.__pwned='csp-img'"><div onclick="window.__pwned='csp-click'" id="clickme">x</div><img src="${trap}/csp.png"><iframe src="${trap}/frame"></iframe>`);
        const script = document.createElement('script');
        script.textContent = 'window.__pwned = "csp-script"';
        document.body.appendChild(script);
      }, lab.trapOrigin);
      await page.locator('#clickme').click();
      await page.waitForFunction(() => ((window as unknown as { __violations: string[] }).__violations).length >= 4, undefined, { timeout: 5_000 });
      const st = await lab.state(page);
      s.note(`CSP blocked: ${st.violations.join('; ')}`);
      assert.equal(st.pwned, undefined, 'the CSP let injected code run');
      assert.ok(st.violations.some((v) => v.startsWith('script-src') && v.includes('inline')), 'no inline script/handler was reported blocked');
      assert.ok(st.violations.some((v) => v.startsWith('img-src')), 'a remote image was not blocked');
      assert.deepEqual(lab.trapHits, [], 'the trap origin was reached');
    } finally {
      await page.close();
    }
  });

  scenario('messages', 'a hostile script in the page cannot get the VS Code API, and forged extension messages are ignored and logged', async (s) => {
    const page = await lab.open();
    try {
      const e = emu();
      const agentId = await startRun(e, 'forged');
      await lab.post(page, new View(await client.getAgent(agentId), agentId).init());
      await page.waitForFunction(() => document.querySelectorAll('#app .log > article').length > 0);
      const attempt = await page.evaluate(() => {
        try {
          (window as unknown as { acquireVsCodeApi(): unknown }).acquireVsCodeApi();
          return 'acquired';
        } catch (err) {
          return String(err);
        }
      });
      assert.match(attempt, /already been acquired/);
      const forged: unknown[] = [
        null, 42, 'init', [], { type: 'eval', code: 'window.__pwned=1' }, { type: 'init' }, { type: 'init', protocol: 99 },
        { type: 'update', messages: [{ key: 1 }] }, { type: 'update', messages: [{ key: 'k', arrival: 0, content: 'x'.repeat(30_000) }] },
        { type: 'update', header: { agentId: '<img src=x onerror=window.__pwned=1>', status: { toString: 1 } } },
        { type: 'followUpResult', requestId: -1, ok: true }, { type: 'draft', text: 5 }, { type: '__proto__' }, { type: 'constructor' },
      ];
      for (const m of forged) {
        await page.evaluate((d) => window.dispatchEvent(new MessageEvent('message', { data: d })), m);
      }
      await page.evaluate(() => new Promise((r) => setTimeout(r, 200)));
      const st = await lab.state(page);
      const ignored = st.consoleWarnings.filter((w) => /ignored a message/.test(w)).length;
      s.note(`${ignored} of ${forged.length} forged messages logged as ignored`);
      assert.equal(ignored, forged.length, 'a forged message was acted on, or ignored without a log line');
      assert.equal(st.acquireAttempts, 2);
      for (const e2 of st.errors) {
        reportCrash(`page error after forged messages: ${e2}`);
      }
      assert.equal(st.pwned, undefined);
      assert.ok(st.posted.every((m) => parseWebviewMessage(m).ok));
      s.sink('webview DOM', st.html);
    } finally {
      await page.close();
    }
  });

  scenario('messages', 'forged webview messages are refused by the extension-side validator (unknown types, extra fields, unsafe links, oversize)', () => {
    const refused: unknown[] = [
      undefined, null, 'ready', { type: 'ready', extra: 1 }, { type: 'runCommand', command: 'agentRuns.clearToken' },
      { type: 'sendFollowUp', requestId: 1, prompt: '   ' }, { type: 'sendFollowUp', requestId: 1, prompt: 'x', permission: 'root' },
      { type: 'sendFollowUp', requestId: -1, prompt: 'x' }, { type: 'sendFollowUp', requestId: 1, prompt: 'x'.repeat(1_000_001) },
      { type: 'openLink', url: 'x'.repeat(9_000) }, { type: 'export', format: 'exe' }, { type: 'copy', text: 7 },
      { type: 'openInEditor', messageKey: {} }, { type: 'draftChanged' },
    ];
    for (const m of refused) {
      assert.equal(parseWebviewMessage(m).ok, false, `accepted: ${JSON.stringify(m)?.slice(0, 100)}`);
    }
    // Well-formed but unsafe link targets pass the schema and are refused by the link check the
    // panel applies before acting (panel.ts: isSafeLinkUrl), whatever the webview claims.
    for (const url of ['command:workbench.action.terminal.new', 'javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'data:text/html,x', 'file:///etc/passwd', 'vscode://x', ' https://ok.example', 'https://ok.example/\u202E', '//evil.example']) {
      const parsed = parseWebviewMessage({ type: 'openLink', url });
      assert.ok(!parsed.ok || !isSafeLinkUrl(url), `an unsafe link would be opened: ${url}`);
    }
    return Promise.resolve();
  });
});
