/**
 * The steps the webview bench takes inside the page (headless Chromium, the production bundle):
 * opening it as a panel does, posting a first render, appending, jumping, reading the heap. Each
 * returns raw timings; bench/webview.ts turns them into figures. How each is timed is described
 * in bench/webview.ts and the README's Performance section.
 */
import type { Browser, Page } from 'playwright-core';
import type { ExtensionToWebviewMessage, UpdateMessage } from '../src/panel/common/protocol';
import { openWebviewPage } from '../test/support/webviewPage';

export const VIEWPORT = { width: 1000, height: 800 } as const;
/** Frames the jumps go on being timed after the last one: the rows mounted around it when idle count too. */
const FRAMES_AFTER_JUMPS = 12;

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

export interface RenderTiming {
  /** From postMessage to the app's handler starting (structured clone, queueing). */
  deliveredMs: number;
  handledMs: number;
  firstPaintMs: number;
  allMs: number;
  articlesAtFirstPaint: number;
  articlesAtEnd: number;
  visible: string;
}

export interface JumpTiming {
  longestFrameMs: number;
  framesOver50: number;
  mountedMax: number;
  reachedKeys: number;
}

export interface AppendTiming {
  scriptMs: number[];
  layoutMs: number[];
  paintMs: number[];
  articlesBefore: number;
  articlesAfter: number;
  /** Articles mounted both before and after the appends whose element was replaced. */
  replaced: number;
  kept: number;
}
export async function openPage(browser: Browser, url: string): Promise<Page> {
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

export async function firstRender(page: Page, parts: readonly ExtensionToWebviewMessage[], messages: number): Promise<RenderTiming> {
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

export async function appends(page: Page, updates: readonly UpdateMessage[]): Promise<AppendTiming> {
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

/**
 * Scrolls to random points of the whole history, two frames apart; the longest frame while the
 * rows there mount, up to `FRAMES_AFTER_JUMPS` frames after the last jump.
 */
export async function jumps(page: Page, count: number): Promise<JumpTiming> {
  return page.evaluate(async ([n, after]: readonly [number, number]): Promise<JumpTiming> => {
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
    for (let i = 0; i < after; i++) {
      await frame();
    }
    running = false;
    mountedMax = Math.max(mountedMax, document.querySelectorAll('.log > article').length);
    await frame();
    return { longestFrameMs: Math.max(...frames), framesOver50: frames.filter((f) => f > 50).length, mountedMax, reachedKeys: reached.size };
  }, [count, FRAMES_AFTER_JUMPS] as const);
}

/** The page's JS heap after a full garbage collection, in MB. */
export async function heapMb(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    const usage = await cdp.send('Runtime.getHeapUsage');
    return usage.usedSize / 1024 / 1024;
  } finally {
    await cdp.detach();
  }
}
