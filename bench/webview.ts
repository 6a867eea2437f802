/**
 * The run panel's webview in headless Chromium: the production bundle (dist/webview/main.js)
 * and media/panel.css under the exact HTML and Content Security Policy the panel serves
 * (src/core/panel/html.ts), VS Code's `acquireVsCodeApi` stubbed. The messages are made by the
 * extension side's own model (Transcript + PanelSession from src/core/panel), so `init` and
 * `update` are what a panel really posts.
 *
 * First render: from posting `init` (structured clone and message dispatch included) to the
 * first frame painted after it was handled (requestAnimationFrame, then a task), and to the
 * moment every message is an <article> in the DOM (older ones are rendered in background
 * chunks). Append: one `update` with one new message dispatched to a page holding 5,000;
 * timed to the end of the handler plus a forced style/layout; a MutationObserver and node
 * identity prove that no existing article was replaced.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Agent } from '../src/api/types';
import { PanelSession, RunObserver } from '../src/core/panel/panelModel';
import { STRING_KEYS, type InitMessage, type UpdateMessage, type WebviewStrings } from '../src/core/panel/protocol';
import { Transcript } from '../src/core/transcript/transcript';
import { sharedBrowser } from '../test/support/browser';
import { registerCleanup } from '../test/support/processes';
import { openWebviewPage, serveWebview, type WebviewServer } from '../test/support/webviewPage';
import type { Build } from './build';
import { benchMessage, benchMessages } from './fixtures';
import type { Report } from './report';
import { median, spread } from './stats';

export const FIRST_RENDER_BUDGET_MS = 300;
export const APPEND_BUDGET_MS = 10;
const SIZES = [100, 1_000, 5_000] as const;
const REPETITIONS: Record<(typeof SIZES)[number], number> = { 100: 5, 1_000: 5, 5_000: 5 };
const APPENDS = 20;
const VIEWPORT = { width: 1000, height: 800 } as const;

// ---------------------------------------------------------------- page side
// The functions given to page.evaluate run in the page; this Node build has no DOM library,
// so these module-local declarations type the little they use.
interface PageNode {
  readonly nodeName: string;
}
interface PageElement extends PageNode {
  readonly isConnected: boolean;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
}
interface PageMutationRecord {
  readonly addedNodes: ArrayLike<PageNode>;
  readonly removedNodes: ArrayLike<PageNode>;
}
interface PageMutationObserver {
  observe(target: PageElement, options: { childList: boolean }): void;
  takeRecords(): PageMutationRecord[];
  disconnect(): void;
}
interface BenchWindow {
  __messageAt: number;
  __init?: unknown;
  __updates?: unknown[];
  postMessage(message: unknown, targetOrigin: string): void;
  addEventListener(type: 'message', listener: () => void, options?: { once: boolean }): void;
  dispatchEvent(event: unknown): boolean;
  setTimeout(fn: () => void, ms: number): number;
}
declare const window: BenchWindow;
declare const document: {
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
  body: { readonly offsetHeight: number };
  visibilityState: string;
};
declare const MessageEvent: new (type: string, init: { data: unknown }) => unknown;
declare const MutationObserver: new (callback: (records: PageMutationRecord[]) => void) => PageMutationObserver;
declare function requestAnimationFrame(fn: () => void): number;

interface RenderTiming {
  /** From postMessage to the app's handler starting (structured clone, queueing). */
  deliveredMs: number;
  handledMs: number;
  firstPaintMs: number;
  allMs: number;
  articlesAtFirstPaint: number;
  visible: string;
}

interface AppendTiming {
  scriptMs: number[];
  layoutMs: number[];
  paintMs: number[];
  articlesBefore: number;
  articlesAfter: number;
  addedArticles: number;
  removedArticles: number;
  kept: boolean;
}

// ---------------------------------------------------------------- node side

const strings = Object.fromEntries(STRING_KEYS.map((k) => [k, k === 'loading' ? 'Loading run…' : `${k} {0}`])) as WebviewStrings;

interface Conversation {
  readonly init: InitMessage;
  readonly updates: UpdateMessage[];
}

/** `init` for a run with `count` messages, and `appends` updates of one new message each, from the panel's own model. */
export function conversation(count: number, appends: number): Conversation {
  const agentId = `agt_bench_${count}`;
  const now = Date.now();
  const history = benchMessages(count, now - 60_000);
  const agent: Agent = {
    agentId,
    status: 'running',
    kind: 'agent',
    appId: 'app_todo',
    projectName: 'Todo App',
    model: 'hosted/auto',
    permission: 'read_only',
    createdAt: now - count * 1_000 - 60_000,
    updatedAt: now,
    history,
    lifecycle: { conversationState: 'running_tool', sandboxState: 'ready', queuedTurnCount: 0, lastLifecycleEventAt: now },
  };
  const transcript = new Transcript();
  transcript.merge(history);
  const getRun = () => ({ agent });
  const observer = new RunObserver({ getRun, transcript: () => transcript, now: () => Date.now() });
  observer.observe(agentId);
  const session = new PanelSession(agentId, {
    getRun,
    transcript: () => transcript,
    observer,
    stallAfterMs: 600_000,
    locale: 'en',
    isMac: false,
    strings: () => strings,
    draft: () => '',
  });
  const init = session.init();
  const updates: UpdateMessage[] = [];
  for (let i = 1; i <= appends; i++) {
    const message = benchMessage(count + i, now + i * 1_000);
    history.push(message);
    agent.updatedAt = message.createdAt;
    observer.observe(agentId);
    const update = session.update();
    if (!update || update.type !== 'update' || update.messages?.length !== 1) {
      throw new Error(`the panel model did not produce a one-message update for append ${i}`);
    }
    updates.push(update);
  }
  return { init, updates };
}

async function serve(build: Build): Promise<WebviewServer> {
  const server = await serveWebview({ script: fs.readFileSync(path.join(build.dist, 'webview', 'main.js')), loadingText: 'Loading run…' });
  registerCleanup('stop the webview page server', () => server.close());
  return server;
}

async function openPage(browser: Browser, url: string): Promise<Page> {
  const page = await openWebviewPage(browser, url, {
    viewport: VIEWPORT,
    // Registered before the app's listener: when a message starts being handled.
    init: () => {
      window.addEventListener('message', () => {
        window.__messageAt = performance.now();
      });
    },
  });
  // Like a real panel, whose init comes back from the extension host after `ready`: the page
  // has drawn its loading state by then.
  await page.evaluate(async () => {
    for (let i = 0; i < 2; i++) {
      await new Promise<void>((resolve) => requestAnimationFrame(() => window.setTimeout(resolve, 0)));
    }
  });
  return page;
}

async function firstRender(page: Page, init: InitMessage): Promise<RenderTiming> {
  await page.evaluate((message) => {
    window.__init = message;
  }, init as unknown);
  return page.evaluate(async (count: number): Promise<RenderTiming> => {
    const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => window.setTimeout(resolve, 0)));
    const articles = () => document.querySelectorAll('.log > article').length;
    let t0 = 0;
    let handledAt = 0;
    // Added after the app's own listener, so it runs right after the app handled `init`.
    const handled = new Promise<void>((resolve) => {
      window.addEventListener('message', () => {
        handledAt = performance.now();
        resolve();
      }, { once: true });
    });
    t0 = performance.now();
    window.postMessage(window.__init, '*');
    await handled;
    await frame();
    const firstPaintAt = performance.now();
    const atFirstPaint = articles();
    while (articles() < count) {
      await frame();
    }
    const allAt = performance.now();
    return { deliveredMs: window.__messageAt - t0, handledMs: handledAt - t0, firstPaintMs: firstPaintAt - t0, allMs: allAt - t0, articlesAtFirstPaint: atFirstPaint, visible: document.visibilityState };
  }, init.messages.length);
}

async function appends(page: Page, updates: readonly UpdateMessage[]): Promise<AppendTiming> {
  await page.evaluate((list) => {
    window.__updates = list;
  }, updates as unknown[]);
  return page.evaluate(async (): Promise<AppendTiming> => {
    const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => window.setTimeout(resolve, 0)));
    const log = document.querySelector('.log');
    if (!log) {
      throw new Error('no .log element');
    }
    const before = Array.from(log.querySelectorAll(':scope > article'));
    let added = 0;
    let removed = 0;
    const count = (records: PageMutationRecord[]) => {
      for (const r of records) {
        added += Array.from(r.addedNodes).filter((n) => n.nodeName === 'ARTICLE').length;
        removed += Array.from(r.removedNodes).filter((n) => n.nodeName === 'ARTICLE').length;
      }
    };
    const observer = new MutationObserver(count);
    observer.observe(log, { childList: true });
    const scriptMs: number[] = [];
    const layoutMs: number[] = [];
    const paintMs: number[] = [];
    for (const update of window.__updates ?? []) {
      await frame();
      const t0 = performance.now();
      window.dispatchEvent(new MessageEvent('message', { data: update }));
      const t1 = performance.now();
      void document.body.offsetHeight; // style and layout now, inside the measurement
      const t2 = performance.now();
      await frame();
      const t3 = performance.now();
      scriptMs.push(t1 - t0);
      layoutMs.push(t2 - t0);
      paintMs.push(t3 - t0);
    }
    count(observer.takeRecords());
    observer.disconnect();
    const after = Array.from(log.querySelectorAll(':scope > article'));
    const kept = before.every((el, i) => el.isConnected && after[i] === el);
    return { scriptMs, layoutMs, paintMs, articlesBefore: before.length, articlesAfter: after.length, addedArticles: added, removedArticles: removed, kept };
  });
}

/** Returns Chromium's version. */
export async function measureWebview(report: Report, build: Build): Promise<string> {
  const server = await serve(build);
  const browser = await sharedBrowser();
  try {
    for (const size of SIZES) {
      const handled: number[] = [];
      const delivered: number[] = [];
      const firstPaint: number[] = [];
      const all: number[] = [];
      const appendLayout: number[] = [];
      const appendScript: number[] = [];
      const appendPaint: number[] = [];
      let visibleAtFirstPaint = Infinity;
      let replaced = 0;
      let identityNote = '';
      for (let rep = 0; rep < REPETITIONS[size]; rep++) {
        const { init, updates } = conversation(size, size === 5_000 ? APPENDS : 0);
        const page = await openPage(browser, server.url);
        try {
          const t = await firstRender(page, init);
          if (t.visible !== 'visible') {
            throw new Error(`the page is ${t.visible}: background rendering would be throttled`);
          }
          handled.push(t.handledMs);
          delivered.push(t.deliveredMs);
          firstPaint.push(t.firstPaintMs);
          all.push(t.allMs);
          visibleAtFirstPaint = Math.min(visibleAtFirstPaint, t.articlesAtFirstPaint);
          if (updates.length > 0) {
            const a = await appends(page, updates);
            appendLayout.push(...a.layoutMs);
            appendScript.push(...a.scriptMs);
            appendPaint.push(...a.paintMs);
            const lost = a.removedArticles + (a.kept ? 0 : 1) + Math.abs(a.addedArticles - updates.length) + Math.abs(a.articlesAfter - a.articlesBefore - updates.length);
            replaced += lost;
            identityNote = `${a.articlesBefore} articles before, ${a.articlesAfter} after; ${a.addedArticles} added, ${a.removedArticles} removed; existing nodes kept: ${a.kept}`;
          }
        } finally {
          await page.close();
        }
      }
      const label = size.toLocaleString('en-US');
      report.add('webview', {
        name: `First render, ${label} messages: first paint`,
        value: median(firstPaint),
        unit: 'ms',
        ...(size === 5_000 ? { budget: { op: '<' as const, limit: FIRST_RENDER_BUDGET_MS } } : {}),
        samples: firstPaint,
        note: `median of ${firstPaint.length} page loads (${spread(firstPaint, 'ms')}); init delivered to the page after ${median(delivered).toFixed(1)} ms and handled after ${median(handled).toFixed(1)} ms (medians); ≥ ${visibleAtFirstPaint} newest messages in the DOM at first paint`,
      });
      report.add('webview', {
        name: `First render, ${label} messages: all in the DOM`,
        value: median(all),
        unit: 'ms',
        samples: all,
        note: `median of ${all.length} (${spread(all, 'ms')}); older messages render in background chunks between frames`,
      });
      if (size === 5_000) {
        report.add('webview', {
          name: 'Append one message to 5,000 (handler + style/layout)',
          value: median(appendLayout),
          unit: 'ms',
          budget: { op: '<', limit: APPEND_BUDGET_MS },
          samples: appendLayout,
          note: `median of ${appendLayout.length} appends (${APPENDS} on each of ${REPETITIONS[5_000]} pages; ${spread(appendLayout, 'ms', 2)}); handler alone ${median(appendScript).toFixed(2)} ms; to the next painted frame ${median(appendPaint).toFixed(1)} ms (includes waiting for the frame)`,
        });
        report.add('webview', {
          name: 'Existing messages re-rendered by the appends',
          value: replaced,
          unit: '',
          budget: { op: '==', limit: 0 },
          note: `MutationObserver on the log and node identity, last page: ${identityNote}`,
        });
      }
    }
    return browser.version();
  } finally {
    await server.close();
  }
}
