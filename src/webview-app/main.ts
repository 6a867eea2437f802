/**
 * Entry of the webview bundle (dist/webview/main.js). Sends `ready` first, then waits for
 * `init`; every incoming message is validated with the shared protocol before use.
 */
import { parseExtensionMessage, type WebviewToExtensionMessage } from '../webview/protocol';
import { App, type PersistedState } from './app';
import { createSanitizer } from './sanitize';
import type { Viewport } from './timeline';

interface VsCodeApi {
  postMessage(message: WebviewToExtensionMessage): void;
  getState(): unknown;
  setState(state: PersistedState): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const BOTTOM_TOLERANCE_PX = 48;

function main(): void {
  const vscode = acquireVsCodeApi();
  const root = document.getElementById('app');
  if (!root) {
    return;
  }
  const scroller = () => document.scrollingElement ?? document.documentElement;
  const viewport: Viewport = {
    isAtBottom() {
      const s = scroller();
      return s.scrollHeight - (s.scrollTop + s.clientHeight) <= BOTTOM_TOLERANCE_PX;
    },
    scrollToBottom() {
      const s = scroller();
      s.scrollTop = s.scrollHeight;
      // Messages coming into view swap their estimated height (content-visibility) for the
      // real one during the next frames, which moves the end: follow it for a few frames.
      let frames = 0;
      const again = () => {
        const t = scroller();
        if (t.scrollHeight - (t.scrollTop + t.clientHeight) > 1) {
          t.scrollTop = t.scrollHeight;
        }
        if (++frames < 3) {
          requestAnimationFrame(again);
        }
      };
      requestAnimationFrame(again);
    },
    scrollIntoView(el) {
      el.scrollIntoView({ block: 'start' });
    },
  };
  const log = (msg: string) => console.warn(`[agent-runs webview] ${msg}`);
  const saved = vscode.getState();
  // Only the draft is read back; the state is data this page wrote, but still checked.
  const savedDraft: unknown = saved !== null && typeof saved === 'object' ? (saved as { draft?: unknown }).draft : undefined;
  let current: PersistedState | undefined = typeof savedDraft === 'string' ? { draft: savedDraft } : undefined;
  const app = new App({
    document,
    root,
    post: (m) => vscode.postMessage(m),
    getState: () => current,
    setState: (s) => {
      current = s;
      vscode.setState(s);
    },
    sanitize: createSanitizer(window, log),
    viewport,
    now: () => Date.now(),
    clock: () => performance.now(),
    setTimeout: (fn, ms) => window.setTimeout(fn, ms),
    clearTimeout: (handle) => window.clearTimeout(handle as number),
    // A frame, then a task: the browser paints between background chunks.
    afterPaint: (fn) => {
      requestAnimationFrame(() => window.setTimeout(fn, 0));
    },
    isVisible: () => document.visibilityState === 'visible',
    log,
  });

  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    const parsed = parseExtensionMessage(event.data);
    if (!parsed.ok) {
      log(`ignored a message: ${parsed.reason}`);
      return;
    }
    app.handle(parsed.message);
  });

  let scrollQueued = false;
  window.addEventListener(
    'scroll',
    () => {
      if (!scrollQueued) {
        scrollQueued = true;
        requestAnimationFrame(() => {
          scrollQueued = false;
          app.onScroll();
        });
      }
    },
    { passive: true },
  );
  document.addEventListener('visibilitychange', () => app.onVisibilityChange());
  window.addEventListener('pagehide', () => app.flushDraft());

  vscode.postMessage({ type: 'ready' });
}

main();
