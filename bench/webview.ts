/**
 * The run panel's webview in headless Chromium: the production bundle (dist/webview/main.js)
 * and media/panel.css under the exact HTML and Content Security Policy the panel serves
 * (src/core/panel/html.ts), VS Code's `acquireVsCodeApi` stubbed. The messages are made by the
 * extension side's own model (Transcript + PanelSession from src/core/panel), so `init` and
 * `update` are what a panel really posts.
 *
 * First render: the posts a panel makes for the run (`forPosting`: an `init` with the newest
 * messages, then older chunks, back to back as the host posts them), from the first post
 * (structured clone and dispatch included) to the first frame painted after `init` was handled
 * (requestAnimationFrame, then a task), and to the frame after the last chunk was handled (the
 * page then holds every message as data; only rows near the viewport are in the DOM).
 * Append: one `update` with one new message dispatched to a page at the end of its history;
 * timed to the end of the handler plus a forced style/layout; node identity proves that no
 * article that stayed mounted was replaced. Jumps (50,000): the page is scrolled to random
 * points; the longest frame (requestAnimationFrame to requestAnimationFrame) while the rows
 * there are mounted. Heap: the page's JS heap after a garbage collection (CDP).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Agent } from '../src/api/types';
import { PanelSession, RunObserver } from '../src/core/panel/panelModel';
import { forPosting, STRING_KEYS, type ExtensionToWebviewMessage, type InitMessage, type UpdateMessage, type WebviewStrings } from '../src/core/panel/protocol';
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
export const LONG_FIRST_PAINT_BUDGET_MS = 100;
export const LONG_APPEND_BUDGET_MS = 3;
export const JUMP_FRAME_BUDGET_MS = 50;
export const HEAP_BUDGET_MB = 60;
const LONG = 50_000;
const SIZES = [100, 1_000, 5_000, LONG] as const;
const REPETITIONS: Record<(typeof SIZES)[number], number> = { 100: 5, 1_000: 5, 5_000: 5, [LONG]: 3 };
const APPENDS = 20;
const JUMPS = 12;
const VIEWPORT = { width: 1000, height: 800 } as const;

// ---------------------------------------------------------------- page side
// The functions given to page.evaluate run in the page; this Node build has no DOM library,
// so these module-local declarations type the little they use.
interface PageNode {
  readonly nodeName: string;
}
interface PageElement extends PageNode {
  readonly isConnected: boolean;
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
}
interface BenchWindow {
  __messageAt: number;
  __init?: unknown;
  __parts?: unknown[];
  innerHeight: number;
  __updates?: unknown[];
  postMessage(message: unknown, targetOrigin: string): void;
  addEventListener(type: 'message', listener: () => void, options?: { once: boolean }): void;
  dispatchEvent(event: unknown): boolean;
  setTimeout(fn: () => void, ms: number): number;
}
declare const window: BenchWindow;
declare const document: {
  scrollingElement: { scrollTop: number; scrollHeight: number; clientHeight: number } | null;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
  body: { readonly offsetHeight: number };
  visibilityState: string;
};
declare const MessageEvent: new (type: string, init: { data: unknown }) => unknown;
declare function requestAnimationFrame(fn: (time: number) => void): number;

interface RenderTiming {
  /** From postMessage to the app's handler starting (structured clone, queueing). */
  deliveredMs: number;
  handledMs: number;
  firstPaintMs: number;
  allMs: number;
  articlesAtFirstPaint: number;
  articlesAtEnd: number;
  visible: string;
}

interface JumpTiming {
  longestFrameMs: number;
  framesOver50: number;
  mountedMax: number;
  reachedKeys: number;
}

interface AppendTiming {
  scriptMs: number[];
  layoutMs: number[];
  paintMs: number[];
  articlesBefore: number;
  articlesAfter: number;
  /** Articles mounted both before and after the appends whose element was replaced. */
  replaced: number;
  kept: number;
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
  const transcript = new Transcript({ maxMessages: count + appends + 1, maxTotalChars: Number.MAX_SAFE_INTEGER });
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
    // As RunSync does on each read: the history is merged once, then the panel observes.
    transcript.merge(history);
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
      // The first message only (a long run's history comes in several).
      window.addEventListener('message', () => {
        window.__messageAt ||= performance.now();
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

async function firstRender(page: Page, parts: readonly ExtensionToWebviewMessage[], messages: number): Promise<RenderTiming> {
  await page.evaluate((list) => {
    window.__parts = list;
  }, parts as unknown[]);
  return page.evaluate(async (count: number): Promise<RenderTiming> => {
    const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => window.setTimeout(resolve, 0)));
    const articles = () => document.querySelectorAll('.log > article').length;
    const parts = window.__parts ?? [];
    let handled = 0;
    let handledAt = 0;
    let firstPaintAt = 0;
    let atFirstPaint = 0;
    // Added after the app's own listener, so each runs right after the app handled a post.
    const painted = new Promise<void>((resolve) => {
      window.addEventListener('message', function onMessage() {
        handled++;
        if (handled === 1) {
          handledAt = performance.now();
          requestAnimationFrame(() => window.setTimeout(() => {
            firstPaintAt = performance.now();
            atFirstPaint = articles();
            resolve();
          }, 0));
        }
      });
    });
    const t0 = performance.now();
    // Back to back, as the extension host posts them, each arriving as its own task (a loop of
    // postMessage here would clone them all in one task before the first is handled).
    const post = (i: number) => {
      if (i < parts.length) {
        window.postMessage(parts[i], '*');
        window.setTimeout(() => post(i + 1), 0);
      }
    };
    post(0);
    await painted;
    // Until the page holds every message (the feed's set size), not just until they arrived.
    const total = String(count);
    while (handled < parts.length || document.querySelector('.log > article')?.getAttribute('aria-setsize') !== total) {
      await frame();
    }
    await frame();
    const allAt = performance.now();
    return {
      deliveredMs: window.__messageAt - t0,
      handledMs: handledAt - t0,
      firstPaintMs: firstPaintAt - t0,
      allMs: allAt - t0,
      articlesAtFirstPaint: atFirstPaint,
      articlesAtEnd: articles(),
      visible: document.visibilityState,
    };
  }, messages);
}

async function appends(page: Page, updates: readonly UpdateMessage[]): Promise<AppendTiming> {
  await page.evaluate((list) => {
    window.__updates = list;
  }, updates as unknown[]);
  return page.evaluate(async (): Promise<AppendTiming> => {
    const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => window.setTimeout(resolve, 0)));
    const mounted = () => new Map(Array.from(document.querySelectorAll('.log > article')).map((el) => [el.getAttribute('data-key') ?? '', el]));
    const first = mounted();
    const scriptMs: number[] = [];
    const layoutMs: number[] = [];
    const paintMs: number[] = [];
    let replaced = 0;
    let kept = 0;
    for (const update of window.__updates ?? []) {
      await frame();
      const before = mounted();
      const t0 = performance.now();
      window.dispatchEvent(new MessageEvent('message', { data: update }));
      const t1 = performance.now();
      void document.body.offsetHeight; // style and layout now, inside the measurement
      const t2 = performance.now();
      // Each append: the articles that stay mounted keep their element.
      for (const [key, el] of mounted()) {
        const was = before.get(key);
        if (was) {
          if (was === el) {
            kept++;
          } else {
            replaced++;
          }
        }
      }
      await frame();
      const t3 = performance.now();
      scriptMs.push(t1 - t0);
      layoutMs.push(t2 - t0);
      paintMs.push(t3 - t0);
    }
    const after = mounted();
    const before = first;
    return { scriptMs, layoutMs, paintMs, articlesBefore: before.size, articlesAfter: after.size, replaced, kept };
  });
}

/** Scrolls to random points of the whole history; the longest frame while the rows there mount. */
async function jumps(page: Page, count: number): Promise<JumpTiming> {
  return page.evaluate(async (n: number): Promise<JumpTiming> => {
    const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => window.setTimeout(resolve, 0)));
    const se = document.scrollingElement!;
    const frames: number[] = [];
    let last = performance.now();
    let running = true;
    const tick = (t: number) => {
      frames.push(t - last);
      last = t;
      if (running) {
        requestAnimationFrame(tick);
      }
    };
    requestAnimationFrame((t) => {
      last = t;
      requestAnimationFrame(tick);
    });
    await frame();
    let mountedMax = 0;
    const reached = new Set<string>();
    // Deterministic "random" points, the ends included.
    let seed = 7;
    for (let i = 0; i < n; i++) {
      seed = (seed * 48_271) % 2_147_483_647;
      const fraction = i === 0 ? 0 : i === 1 ? 1 : seed / 2_147_483_647;
      se.scrollTop = Math.round((se.scrollHeight - se.clientHeight) * fraction);
      await frame();
      await frame();
      const arts = document.querySelectorAll('.log > article');
      mountedMax = Math.max(mountedMax, arts.length);
      reached.add(arts.length > 0 ? arts[0].getAttribute('data-key') ?? '' : '');
    }
    running = false;
    await frame();
    return { longestFrameMs: Math.max(...frames), framesOver50: frames.filter((f) => f > 50).length, mountedMax, reachedKeys: reached.size };
  }, count);
}

/** The page's JS heap after a full garbage collection, in MB. */
async function heapMb(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    const usage = await cdp.send('Runtime.getHeapUsage');
    return usage.usedSize / 1024 / 1024;
  } finally {
    await cdp.detach();
  }
}

interface SizeSamples {
  handled: number[];
  delivered: number[];
  firstPaint: number[];
  all: number[];
  appendLayout: number[];
  appendScript: number[];
  appendPaint: number[];
  mountedAtFirstPaint: number;
  mountedAtEnd: number;
  replaced: number;
  identityNote: string;
  longestFrame: number[];
  framesOver50: number;
  jumpNote: string;
  heap: number[];
  posts: number;
}

async function measureSize(browser: Browser, url: string, size: (typeof SIZES)[number]): Promise<SizeSamples> {
  const r: SizeSamples = {
    handled: [], delivered: [], firstPaint: [], all: [], appendLayout: [], appendScript: [], appendPaint: [],
    mountedAtFirstPaint: Infinity, mountedAtEnd: 0, replaced: 0, identityNote: '', longestFrame: [], framesOver50: 0, jumpNote: '', heap: [], posts: 0,
  };
  for (let rep = 0; rep < REPETITIONS[size]; rep++) {
    const { init, updates } = conversation(size, size >= 5_000 ? APPENDS : 0);
    const page = await openPage(browser, url);
    try {
      const parts = forPosting(init);
      r.posts = parts.length;
      const t = await firstRender(page, parts, init.messages.length);
      if (t.visible !== 'visible') {
        throw new Error(`the page is ${t.visible}: background rendering would be throttled`);
      }
      r.handled.push(t.handledMs);
      r.delivered.push(t.deliveredMs);
      r.firstPaint.push(t.firstPaintMs);
      r.all.push(t.allMs);
      r.mountedAtFirstPaint = Math.min(r.mountedAtFirstPaint, t.articlesAtFirstPaint);
      r.mountedAtEnd = Math.max(r.mountedAtEnd, t.articlesAtEnd);
      if (updates.length > 0) {
        const a = await appends(page, updates);
        r.appendLayout.push(...a.layoutMs);
        r.appendScript.push(...a.scriptMs);
        r.appendPaint.push(...a.paintMs);
        r.replaced += a.replaced + (a.kept === 0 ? 1 : 0);
        r.identityNote = `${a.articlesBefore} articles mounted before the appends, ${a.articlesAfter} after; over the appends, ${a.kept} articles stayed mounted and kept their element, ${a.replaced} were replaced`;
      }
      if (size === LONG) {
        const j = await jumps(page, JUMPS);
        r.longestFrame.push(j.longestFrameMs);
        r.framesOver50 += j.framesOver50;
        r.jumpNote = `${JUMPS} jumps per page (both ends included), ${j.reachedKeys} distinct places reached, at most ${j.mountedMax} articles mounted`;
        r.heap.push(await heapMb(page));
      }
    } finally {
      await page.close();
    }
  }
  return r;
}

function reportSize(report: Report, size: (typeof SIZES)[number], r: SizeSamples): void {
  const label = size.toLocaleString('en-US');
  const firstPaintBudget = size === 5_000 ? FIRST_RENDER_BUDGET_MS : size === LONG ? LONG_FIRST_PAINT_BUDGET_MS : undefined;
  report.add('webview', {
    name: `First render, ${label} messages: first paint`,
    value: median(r.firstPaint),
    unit: 'ms',
    ...(firstPaintBudget !== undefined ? { budget: { op: '<' as const, limit: firstPaintBudget } } : {}),
    samples: r.firstPaint,
    note: `median of ${r.firstPaint.length} page loads (${spread(r.firstPaint, 'ms')}); init delivered to the page after ${median(r.delivered).toFixed(1)} ms and handled after ${median(r.handled).toFixed(1)} ms (medians); ≥ ${r.mountedAtFirstPaint} newest messages mounted at first paint`,
  });
  report.add('webview', {
    name: `First render, ${label} messages: whole history held`,
    value: median(r.all),
    unit: 'ms',
    samples: r.all,
    note: `median of ${r.all.length} (${spread(r.all, 'ms')}); until the frame after the last post (${r.posts} posts) was handled; ${r.mountedAtEnd} articles in the DOM then`,
  });
  if (r.appendLayout.length > 0) {
    report.add('webview', {
      name: `Append one message to ${label} (handler + style/layout)`,
      value: median(r.appendLayout),
      unit: 'ms',
      budget: { op: '<', limit: size === LONG ? LONG_APPEND_BUDGET_MS : APPEND_BUDGET_MS },
      samples: r.appendLayout,
      note: `median of ${r.appendLayout.length} appends (${APPENDS} on each of ${REPETITIONS[size]} pages; ${spread(r.appendLayout, 'ms', 2)}); handler alone ${median(r.appendScript).toFixed(2)} ms; to the next painted frame ${median(r.appendPaint).toFixed(1)} ms (includes waiting for the frame)`,
    });
    report.add('webview', {
      name: `Mounted messages re-rendered by the appends to ${label}`,
      value: r.replaced,
      unit: '',
      budget: { op: '==', limit: 0 },
      note: `node identity of the articles mounted before and after each append, last page: ${r.identityNote}`,
    });
  }
  if (size === LONG) {
    report.add('webview', {
      name: `Jump to any point of ${label}: longest frame`,
      value: Math.max(...r.longestFrame),
      unit: 'ms',
      budget: { op: '<', limit: JUMP_FRAME_BUDGET_MS },
      samples: r.longestFrame,
      note: `worst of ${r.longestFrame.length} pages (${r.framesOver50} frames over 50 ms in all); ${r.jumpNote}`,
    });
    report.add('webview', {
      name: `Webview JS heap holding ${label} messages`,
      value: Math.max(...r.heap),
      unit: 'MB',
      budget: { op: '<', limit: HEAP_BUDGET_MB },
      samples: r.heap,
      note: `largest of ${r.heap.length} pages, after a garbage collection (CDP Runtime.getHeapUsage), after the appends and jumps`,
    });
  }
}

/** Returns Chromium's version. */
export async function measureWebview(report: Report, build: Build): Promise<string> {
  const server = await serve(build);
  const browser = await sharedBrowser();
  try {
    for (const size of SIZES) {
      reportSize(report, size, await measureSize(browser, server.url, size));
    }
    return browser.version();
  } finally {
    await server.close();
  }
}
