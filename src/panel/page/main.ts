/**
 * Entry of the webview bundle (dist/webview/main.js). Sends `ready` first, then waits for
 * `init`; every incoming message is validated with the shared protocol before use.
 */
import { parseExtensionMessage, type WebviewToExtensionMessage } from '../common/protocol';
import { formatDuration, formatExactTime, formatNumber, formatRelativeTime, renderMarkdown } from '../common/render';
import { App } from './app';
import type { Viewport } from './history';
import { parsePersistedState, type PersistedState } from './page';
import { createSanitizer, type Sanitizer } from './sanitize';

interface VsCodeApi {
  postMessage(message: WebviewToExtensionMessage): void;
  getState(): unknown;
  setState(state: PersistedState): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const BOTTOM_TOLERANCE_PX = 48;
/** Frames a scroll to the end keeps following the end (see `scrollToBottom`). */
const FOLLOW_FRAMES = 4;
/** Background work waits for an idle period at most this long, then runs anyway. */
const IDLE_TIMEOUT_MS = 200;

/**
 * Runs `fn` when the browser is idle after the next paint, behind the frame and the tasks
 * already queued (input first). A background slice (24 ms at most) may outlast the idle period.
 */
function whenIdle(fn: () => void): void {
  if (typeof window.requestIdleCallback === 'function') {
    window.requestIdleCallback(() => fn(), { timeout: IDLE_TIMEOUT_MS });
  } else {
    requestAnimationFrame(() => window.setTimeout(fn, 0));
  }
}

/**
 * Set-up the first render needs anyway (Intl formatters, tens of ms in a fresh page; Markdown;
 * the sanitizer), done while the page waits for `init`. Skipped once `init` came.
 */
function warmUp(locale: string, sanitize: Sanitizer): void {
  const now = Date.now();
  formatRelativeTime(now - 90_000, now, locale);
  formatExactTime(now, locale);
  formatNumber(1_000, locale);
  formatDuration(61_000, locale);
  sanitize(`<article class="msg">${renderMarkdown('*a* `b` [c](https://example.invalid/)\n\n- d\n\n| e |\n|---|\n| f |')}</article>`);
}

/** The document's scroll position as the app sees it (see `Viewport`). */
function createViewport(): Viewport {
  const scroller = () => document.scrollingElement ?? document.documentElement;
  // Scrolling to the end waits for the next animation frame: reading scrollHeight in a message
  // handler would lay out 5,000 articles there and then. Until that frame the view counts as at
  // the end, which is followed for a few frames while estimated heights turn into real ones.
  let pinPending = false;
  let followFrames = 0;
  let frameQueued = false;
  const follow = () => {
    frameQueued = false;
    const s = scroller();
    if (s.scrollHeight - (s.scrollTop + s.clientHeight) > 1) {
      s.scrollTop = s.scrollHeight;
    }
    pinPending = false;
    if (--followFrames > 0) {
      frameQueued = true;
      requestAnimationFrame(follow);
    }
  };
  return {
    isAtBottom() {
      if (pinPending) {
        return true;
      }
      const s = scroller();
      return s.scrollHeight - (s.scrollTop + s.clientHeight) <= BOTTOM_TOLERANCE_PX;
    },
    scrollToBottom() {
      pinPending = true;
      followFrames = FOLLOW_FRAMES;
      if (!frameQueued) {
        frameQueued = true;
        requestAnimationFrame(follow);
      }
    },
    scrollIntoView(el: Element) {
      requestAnimationFrame(() => {
        if (el.isConnected) {
          el.scrollIntoView({ block: 'start' });
        }
      });
    },
    height: () => window.innerHeight,
    anchorsItself: typeof CSS !== 'undefined' && CSS.supports('overflow-anchor', 'auto'),
    offsetWithin: (el) => -el.getBoundingClientRect().top,
    scrollWithin(el, y) {
      // An explicit position wins over following the end.
      pinPending = false;
      followFrames = 0;
      const s = scroller();
      s.scrollTop = s.scrollTop + (y + el.getBoundingClientRect().top);
    },
    topOf: (el, within) => el.getBoundingClientRect().top - within.getBoundingClientRect().top,
  };
}

/**
 * Messages from the extension, validated, to the app. What follows an `init` waits for the first
 * frame, then goes one per task, so the history's end paints first; order is kept (new ones queue).
 */
function pumpMessages(app: App, log: (msg: string) => void): () => boolean {
  let received = false;
  const queue: unknown[] = [];
  let holding = false;
  const handle = (data: unknown) => {
    const parsed = parseExtensionMessage(data);
    if (!parsed.ok) {
      log(`ignored a message: ${parsed.reason}`);
      return;
    }
    app.handle(parsed.message);
    if (parsed.message.type === 'init') {
      holding = true;
      requestAnimationFrame(() => window.setTimeout(drain, 0));
    }
  };
  const drain = () => {
    holding = false;
    const next = queue.shift();
    if (next !== undefined) {
      handle(next);
      if (!holding && queue.length > 0) {
        holding = true;
        window.setTimeout(drain, 0);
      }
    }
  };
  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    received = true;
    if (holding || queue.length > 0) {
      queue.push(event.data);
      return;
    }
    handle(event.data);
  });
  return () => received;
}

/** Scrolling, a new size or theme, visibility and leaving the page, each at most once a frame. */
function listenToLayout(app: App): void {
  const onceAFrame = (fn: () => void) => {
    let queued = false;
    return () => {
      if (!queued) {
        queued = true;
        requestAnimationFrame(() => {
          queued = false;
          fn();
        });
      }
    };
  };
  const onScroll = onceAFrame(() => app.onScroll());
  // A theme change (body class) or a new width changes the messages' heights.
  const layoutChanged = onceAFrame(() => app.onLayoutChange());
  window.addEventListener('scroll', onScroll, { passive: true });
  document.addEventListener('visibilitychange', () => app.onVisibilityChange());
  let width = window.innerWidth;
  window.addEventListener('resize', () => {
    if (window.innerWidth !== width) {
      width = window.innerWidth;
      layoutChanged();
    }
    // A taller panel shows more of the history: the window of mounted rows follows.
    onScroll();
  });
  const themeObserver = new MutationObserver(layoutChanged);
  themeObserver.observe(document.body, { attributes: true, attributeFilter: ['class'] });
  themeObserver.observe(document.documentElement, { attributes: true, attributeFilter: ['style'] });
  window.addEventListener('pagehide', () => app.flushDraft());
}

function main(): void {
  const vscode = acquireVsCodeApi();
  const root = document.getElementById('app');
  if (!root) {
    return;
  }
  const log = (msg: string) => console.warn(`[agent-runs webview] ${msg}`);
  let current: PersistedState | undefined = parsePersistedState(vscode.getState());
  const sanitize = createSanitizer(window, log);
  const app = new App({
    document,
    root,
    post: (m) => vscode.postMessage(m),
    getState: () => current,
    setState: (s) => {
      current = s;
      vscode.setState(s);
    },
    sanitize,
    viewport: createViewport(),
    now: () => Date.now(),
    clock: () => performance.now(),
    setTimeout: (fn, ms) => window.setTimeout(fn, ms),
    clearTimeout: (handle) => window.clearTimeout(handle as number),
    whenIdle,
    isVisible: () => document.visibilityState === 'visible',
    log,
  });
  const received = pumpMessages(app, log);
  listenToLayout(app);

  vscode.postMessage({ type: 'ready' });
  whenIdle(() => {
    if (!received()) {
      try {
        warmUp(document.documentElement.lang || navigator.language || 'en', sanitize);
      } catch (error) {
        log(`warm-up failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  });
}

main();
