/**
 * The run panel's webview in headless Chromium: the production bundle (dist/webview/main.js)
 * and media/panel.css under the exact HTML and Content Security Policy the panel serves
 * (src/panel/common/html.ts), VS Code's `acquireVsCodeApi` stubbed. The messages are made by the
 * extension side's own model (Transcript + PanelSession from src/base/common/panel), so `init` and
 * `update` are what a panel really posts.
 *
 * First render: the posts a panel makes for the run (`forPosting`: an `init` with the newest
 * messages, then older chunks, back to back as the host posts them), from the first post
 * (structured clone and dispatch included) to the first frame painted after `init` was handled
 * (requestAnimationFrame, then a task), and to the frame after the last chunk was handled (the
 * page then holds every message as data; only rows near the viewport are in the DOM).
 * Append: one `update` with one new message dispatched to a page at the end of its history;
 * timed to the end of the handler plus a forced style/layout, after `WARMUP_APPENDS` not timed;
 * node identity proves that no article that stayed mounted was replaced. Jumps (50,000): the
 * page is scrolled to random points; the longest frame (requestAnimationFrame to
 * requestAnimationFrame) while the rows there are mounted, and for a few frames after the last
 * jump. Heap: the page's JS heap after a garbage collection (CDP). The page-side steps are in
 * webviewSteps.ts.
 *
 * Baselines: for the sizes with time budgets (5,000 and 50,000), every page load alternates
 * with one of a page holding `BASELINE_MESSAGES` taking the same steps (A B, B A, …); each
 * time figure is printed with the baseline's and judged on it too (`RATIO_BUDGETS`, verdict.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import type { Agent } from '../src/api/types';
import { PanelSession, RunObserver } from '../src/panel/common/panelModel';
import { forPosting, STRING_KEYS, type InitMessage, type UpdateMessage, type WebviewStrings } from '../src/panel/common/protocol';
import { Transcript } from '../src/run/common/transcript/transcript';
import { sharedBrowser } from '../test/support/browser';
import { registerCleanup } from '../test/support/processes';
import { runOf } from '../test/support/runOf';
import { serveWebview, type WebviewServer } from '../test/support/webviewPage';
import type { Build } from './build';
import { benchMessage, benchMessages } from './fixtures';
import type { Baseline, Report } from './report';
import { median, spread } from './stats';
import { appends, firstRender, heapMb, jumps, openPage } from './webviewSteps';

export const FIRST_RENDER_BUDGET_MS = 300;
export const APPEND_BUDGET_MS = 10;
export const LONG_FIRST_PAINT_BUDGET_MS = 100;
export const LONG_APPEND_BUDGET_MS = 3;
export const JUMP_FRAME_BUDGET_MS = 50;
export const HEAP_BUDGET_MB = 60;
const LONG = 50_000;
const SIZES = [100, 1_000, 5_000, LONG] as const;
type Size = (typeof SIZES)[number];
const REPETITIONS: Record<Size, number> = { 100: 5, 1_000: 5, 5_000: 5, [LONG]: 3 };
const APPENDS = 20;
/**
 * Appends made before the timed ones, not timed: the code an append runs is then warmed up on
 * every page alike (a 500-message page's first appends ran colder code than a 50,000-message
 * page's, whose 25 posts of older history went through much of it: ~2 × slower for 20 appends).
 */
const WARMUP_APPENDS = 20;
const JUMPS = 12;
/** The baseline of the time budgets: the same steps on a page holding this many messages, in the same run. */
export const BASELINE_MESSAGES = 500;

interface RatioBudgets {
  readonly firstPaint: number;
  readonly append: number;
  readonly jumpFrame?: number;
}

/**
 * Each time budget again as a ratio to its baseline (the same steps on a page of
 * `BASELINE_MESSAGES`): what the history's length may cost on top of what any page costs.
 * First paint: at most twice (a long run's `init` carries its newest 1,000 messages, the
 * baseline's all 500). Append: at most half again (it touches only the end). Jump: at most
 * three times the baseline's longest frame (50 ms is three frames; a quiet machine's baseline
 * is one). See verdict.ts for how a figure is judged with both.
 */
export const RATIO_BUDGETS: Partial<Record<Size, RatioBudgets>> = {
  5_000: { firstPaint: 2, append: 1.5 },
  [LONG]: { firstPaint: 2, append: 1.5, jumpFrame: 3 },
};

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
  const run = runOf(agent);
  const getRun = () => ({ run });
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


/** Samples of the pages of one size (or of their baseline pages). */
interface PageSamples {
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

function emptySamples(): PageSamples {
  return {
    handled: [], delivered: [], firstPaint: [], all: [], appendLayout: [], appendScript: [], appendPaint: [],
    mountedAtFirstPaint: Infinity, mountedAtEnd: 0, replaced: 0, identityNote: '', longestFrame: [], framesOver50: 0, jumpNote: '', heap: [], posts: 0,
  };
}

interface Steps {
  readonly appends: boolean;
  readonly jumps: boolean;
  readonly heap: boolean;
}

/** One page holding `count` messages: first render, then the steps asked for. */
async function measurePage(browser: Browser, url: string, count: number, steps: Steps, r: PageSamples): Promise<void> {
  const { init, updates } = conversation(count, steps.appends ? WARMUP_APPENDS + APPENDS : 0);
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
      const warm = await appends(page, updates.slice(0, WARMUP_APPENDS));
      r.replaced += warm.replaced;
      const a = await appends(page, updates.slice(WARMUP_APPENDS));
      r.appendLayout.push(...a.layoutMs);
      r.appendScript.push(...a.scriptMs);
      r.appendPaint.push(...a.paintMs);
      r.replaced += a.replaced + (a.kept === 0 ? 1 : 0);
      r.identityNote = `${a.articlesBefore} articles mounted before the appends, ${a.articlesAfter} after; over the appends, ${a.kept} articles stayed mounted and kept their element, ${a.replaced} were replaced`;
    }
    if (steps.jumps) {
      const j = await jumps(page, JUMPS);
      r.longestFrame.push(j.longestFrameMs);
      r.framesOver50 += j.framesOver50;
      r.jumpNote = `${JUMPS} jumps per page (both ends included), ${j.reachedKeys} distinct places reached, at most ${j.mountedMax} articles mounted`;
    }
    if (steps.heap) {
      r.heap.push(await heapMb(page));
    }
  } finally {
    await page.close();
  }
}

interface SizeSamples {
  readonly pages: PageSamples;
  /** The same steps on pages of `BASELINE_MESSAGES`, for the sizes with time budgets. */
  readonly base?: PageSamples;
}

async function measureSize(browser: Browser, url: string, size: Size): Promise<SizeSamples> {
  const steps: Steps = { appends: size >= 5_000, jumps: size === LONG, heap: size === LONG };
  const pages = emptySamples();
  const base = RATIO_BUDGETS[size] ? emptySamples() : undefined;
  for (let rep = 0; rep < REPETITIONS[size]; rep++) {
    // Baseline and measured pages alternate (A B, B A, …) so that a change of load hits both.
    const baseFirst = rep % 2 === 0;
    if (base && baseFirst) {
      await measurePage(browser, url, BASELINE_MESSAGES, { ...steps, heap: false }, base);
    }
    await measurePage(browser, url, size, steps, pages);
    if (base && !baseFirst) {
      await measurePage(browser, url, BASELINE_MESSAGES, { ...steps, heap: false }, base);
    }
  }
  return base ? { pages, base } : { pages };
}

/** The baseline of one figure, or none. */
function baselineOf(samples: readonly number[] | undefined, value: (xs: readonly number[]) => number, maxRatio: number | undefined): Baseline | undefined {
  if (!samples || samples.length === 0 || maxRatio === undefined) {
    return undefined;
  }
  return { label: `${BASELINE_MESSAGES} messages`, value: value(samples), maxRatio, samples };
}

const worst = (xs: readonly number[]): number => Math.max(...xs);

function reportSize(report: Report, size: Size, { pages: r, base }: SizeSamples): void {
  const label = size.toLocaleString('en-US');
  const ratios = RATIO_BUDGETS[size];
  const firstPaintBudget = size === 5_000 ? FIRST_RENDER_BUDGET_MS : size === LONG ? LONG_FIRST_PAINT_BUDGET_MS : undefined;
  const paintBase = baselineOf(base?.firstPaint, median, ratios?.firstPaint);
  report.add('webview', {
    name: `First render, ${label} messages: first paint`,
    value: median(r.firstPaint),
    unit: 'ms',
    ...(firstPaintBudget !== undefined ? { budget: { op: '<' as const, limit: firstPaintBudget } } : {}),
    ...(paintBase ? { baseline: paintBase } : {}),
    samples: r.firstPaint,
    note: `median of ${r.firstPaint.length} page loads (${spread(r.firstPaint, 'ms')}); init delivered to the page after ${median(r.delivered).toFixed(1)} ms and handled after ${median(r.handled).toFixed(1)} ms (medians); ≥ ${r.mountedAtFirstPaint} newest messages mounted at first paint${baseNote(paintBase, 'page loads', 'median')}`,
  });
  report.add('webview', {
    name: `First render, ${label} messages: whole history held`,
    value: median(r.all),
    unit: 'ms',
    samples: r.all,
    note: `median of ${r.all.length} (${spread(r.all, 'ms')}); until the frame after the last post (${r.posts} posts) was handled; ${r.mountedAtEnd} articles in the DOM then`,
  });
  if (r.appendLayout.length > 0) {
    const appendBase = baselineOf(base?.appendLayout, median, ratios?.append);
    report.add('webview', {
      name: `Append one message to ${label} (handler + style/layout)`,
      value: median(r.appendLayout),
      unit: 'ms',
      budget: { op: '<', limit: size === LONG ? LONG_APPEND_BUDGET_MS : APPEND_BUDGET_MS },
      ...(appendBase ? { baseline: appendBase } : {}),
      samples: r.appendLayout,
      note: `median of ${r.appendLayout.length} appends (${APPENDS} on each of ${REPETITIONS[size]} pages, after ${WARMUP_APPENDS} not timed; ${spread(r.appendLayout, 'ms', 2)}); handler alone ${median(r.appendScript).toFixed(2)} ms; to the next painted frame ${median(r.appendPaint).toFixed(1)} ms (includes waiting for the frame)${baseNote(appendBase, 'appends', 'median', 2)}`,
    });
    report.add('webview', {
      name: `Mounted messages re-rendered by the appends to ${label}`,
      value: r.replaced + (base?.replaced ?? 0),
      unit: '',
      budget: { op: '==', limit: 0 },
      note: `node identity of the articles mounted before and after each append, last page: ${r.identityNote}${base ? ` (the ${BASELINE_MESSAGES}-message pages counted too: ${base.replaced})` : ''}`,
    });
  }
  if (size === LONG) {
    const jumpBase = baselineOf(base?.longestFrame, worst, ratios?.jumpFrame);
    report.add('webview', {
      name: `Jump to any point of ${label}: longest frame`,
      value: worst(r.longestFrame),
      unit: 'ms',
      budget: { op: '<', limit: JUMP_FRAME_BUDGET_MS },
      ...(jumpBase ? { baseline: jumpBase } : {}),
      samples: r.longestFrame,
      note: `worst of ${r.longestFrame.length} pages (${r.framesOver50} frames over 50 ms in all); ${r.jumpNote}${baseNote(jumpBase, 'pages', 'worst')}`,
    });
    report.add('webview', {
      name: `Webview JS heap holding ${label} messages`,
      value: worst(r.heap),
      unit: 'MB',
      budget: { op: '<', limit: HEAP_BUDGET_MB },
      samples: r.heap,
      note: `largest of ${r.heap.length} pages, after a garbage collection (CDP Runtime.getHeapUsage), after the appends and jumps`,
    });
  }
}

/** "; baseline: median of 3 page loads of 500 messages (…), interleaved". */
function baseNote(b: Baseline | undefined, what: string, how: string, digits = 1): string {
  if (!b?.samples) {
    return '';
  }
  return `; baseline: ${how} of ${b.samples.length} ${what} of ${b.label} (${spread(b.samples, 'ms', digits)}), pages interleaved with these`;
}

/** How the time budgets are judged, printed under the table. */
export const BASELINE_RULE =
  `Webview times carry a baseline: the same steps on a page of ${BASELINE_MESSAGES} messages, its pages interleaved with the measured ones ` +
  '(A B, B A, …). A figure passes when it meets its absolute budget ("by absolute"), or else ("PASS by ratio") when its ratio to the baseline ' +
  'meets the ratio budget; "FAIL on both" missed both. A busy machine stretches both alike, and what grows with the history still fails.';

/** Returns Chromium's version. */
export async function measureWebview(report: Report, build: Build): Promise<string> {
  const server = await serve(build);
  const browser = await sharedBrowser();
  try {
    for (const size of SIZES) {
      reportSize(report, size, await measureSize(browser, server.url, size));
    }
    report.notes.push(BASELINE_RULE);
    return browser.version();
  } finally {
    await server.close();
  }
}
