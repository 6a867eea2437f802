// The run panel's webview exactly as served (panel HTML + CSP + the webview bundle + CSS) in
// Debian's Chromium (test/support/webviewPage.ts), with a stand-in for VS Code's webview host
// that records what the page posts, and a trap origin that records any request hostile content
// manages to make.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { STRING_KEYS, type WebviewStrings } from '../../../src/panel/common/protocol';
import {
  buildWebviewBundle, launchChromium, openWebviewPage, pageErrors, readPanelState, serveWebview, type PanelState, type WebviewServer,
} from '../../support/webviewPage';

declare const window: { postMessage(m: unknown, origin: string): void };
type LongTaskObserver = new (cb: (list: { getEntries(): { duration: number }[] }) => void) => { observe(o: { type: string; buffered: boolean }): void };

/** Plain English-ish strings for the page (the real ones come from vscode.l10n). */
export const STRINGS = Object.fromEntries(STRING_KEYS.map((k) => [k, `${k} {0}`])) as WebviewStrings;

export interface PageState extends PanelState {
  /** Uncaught errors in the page. */
  errors: string[];
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export class PanelLab {
  private constructor(
    private readonly browser: Browser,
    private readonly panelServer: WebviewServer,
    private readonly trapServer: http.Server,
    readonly trapOrigin: string,
    /** Requests that neither the panel's HTML nor its script and style: what content made. */
    readonly trapHits: string[],
  ) {}

  get panelOrigin(): string {
    return this.panelServer.origin;
  }

  static async start(): Promise<PanelLab> {
    const hits: string[] = [];
    const panelServer = await serveWebview({
      script: await buildWebviewBundle(),
      loadingText: 'Loading…',
      // Same origin as the bundle, but not something the page itself ever asks for (the
      // browser's own favicon probe aside).
      onOtherRequest: (req) => {
        if (req.url !== '/favicon.ico') {
          hits.push(`panel origin ${req.method} ${req.url}`);
        }
      },
    });
    const trapServer = http.createServer((req, res) => {
      hits.push(`trap ${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('trapped');
    });
    const trapOrigin = await listen(trapServer);
    const browser = await launchChromium();
    return new PanelLab(browser, panelServer, trapServer, trapOrigin, hits);
  }

  /** A fresh page with the panel loaded and its `ready` sent; long tasks are measured. */
  async open(): Promise<Page> {
    return openWebviewPage(this.browser, this.panelServer.url, {
      viewport: { width: 1000, height: 800 },
      init: () => {
        const longTasks: number[] = [];
        (window as unknown as Record<string, unknown>).__longTasks = longTasks;
        try {
          const Observer = (globalThis as unknown as { PerformanceObserver: LongTaskObserver }).PerformanceObserver;
          new Observer((list) => {
            for (const entry of list.getEntries()) {
              longTasks.push(entry.duration);
            }
          }).observe({ type: 'longtask', buffered: true });
        } catch {
          // No long-task timing in this browser: responsiveness is measured by round trips only.
        }
      },
    });
  }

  /** Posts a message the way VS Code delivers one from the extension. */
  async post(page: Page, message: unknown): Promise<void> {
    await page.evaluate((m) => window.postMessage(m, '*'), message);
  }

  async state(page: Page): Promise<PageState> {
    const errors = [...pageErrors(page)];
    return { ...(await readPanelState(page)), errors };
  }

  async longTasks(page: Page): Promise<number[]> {
    return page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks.slice());
  }

  async close(): Promise<void> {
    await this.browser.close();
    await this.panelServer.close();
    await new Promise<void>((r) => this.trapServer.close(() => r()));
  }
}

export const strings = STRINGS;
