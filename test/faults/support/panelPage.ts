// The run panel's webview exactly as served (panel HTML + CSP + the webview bundle + CSS) in
// Debian's Chromium, with a stand-in for VS Code's webview host that records what the page
// posts, and a trap origin that records any request hostile content manages to make.
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as esbuild from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { webviewHtml } from '../../../src/webview/html';
import { STRING_KEYS, type WebviewStrings } from '../../../src/webview/protocol';

// The functions given to page.evaluate run in the page; this Node build has no DOM library,
// so these module-local declarations type the little they use.
interface PageElement {
  tagName: string;
  namespaceURI: string | null;
  attributes: ArrayLike<{ name: string; value: string }>;
  classList: { contains(c: string): boolean };
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelectorAll(sel: string): ArrayLike<PageElement>;
}
declare const document: {
  getElementById(id: string): PageElement | null;
  addEventListener(type: 'securitypolicyviolation', fn: (e: { violatedDirective: string; blockedURI: string }) => void): void;
  documentElement: { outerHTML: string };
};
declare const window: { postMessage(m: unknown, origin: string): void };
type LongTaskObserver = new (cb: (list: { getEntries(): { duration: number }[] }) => void) => { observe(o: { type: string; buffered: boolean }): void };

const CHROMIUM = process.env.AGENT_RUNS_CHROMIUM ?? process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const NONCE = 'ZmF1bHRzLXN1aXRlLW5vbmNlLTEyMzQ1Ng==';

/** Plain English-ish strings for the page (the real ones come from vscode.l10n). */
export const STRINGS = Object.fromEntries(STRING_KEYS.map((k) => [k, `${k} {0}`])) as WebviewStrings;

export interface PageState {
  pwned: unknown;
  violations: string[];
  posted: unknown[];
  acquireAttempts: number;
  errors: string[];
  consoleWarnings: string[];
  /** Elements or attributes in #app that sanitising should have removed. */
  bad: string[];
  hrefs: string[];
  text: string;
  html: string;
  articles: number;
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export class PanelLab {
  private constructor(
    private readonly browser: Browser,
    private readonly panelServer: http.Server,
    private readonly trapServer: http.Server,
    readonly panelOrigin: string,
    readonly trapOrigin: string,
    /** Requests that neither the panel's HTML nor its script and style: what content made. */
    readonly trapHits: string[],
  ) {}

  static async start(): Promise<PanelLab> {
    const built = await esbuild.build({
      entryPoints: ['src/webview-app/main.ts'],
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    const script = built.outputFiles[0].text;
    const css = readFileSync('media/panel.css', 'utf8');
    let origin = '';
    const panelServer = http.createServer((req, res) => {
      if (req.url === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(webviewHtml({ cspSource: origin, nonce: NONCE, scriptUri: `${origin}/main.js`, styleUri: `${origin}/panel.css`, lang: 'en', title: 'Run', loadingText: 'Loading…' }));
      } else if (req.url === '/main.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end(script);
      } else if (req.url === '/panel.css') {
        res.writeHead(200, { 'content-type': 'text/css' });
        res.end(css);
      } else {
        // Same origin as the bundle, but not something the page itself ever asks for (the
        // browser's own favicon probe aside).
        if (req.url !== '/favicon.ico') {
          hits.push(`panel origin ${req.method} ${req.url}`);
        }
        res.writeHead(404).end();
      }
    });
    origin = await listen(panelServer);
    const hits: string[] = [];
    const trapServer = http.createServer((req, res) => {
      hits.push(`trap ${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('trapped');
    });
    const trapOrigin = await listen(trapServer);
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', '--disable-dev-shm-usage'],
    });
    return new PanelLab(browser, panelServer, trapServer, origin, trapOrigin, hits);
  }

  /** A fresh page with the panel loaded and its `ready` sent. */
  async open(): Promise<Page> {
    const page = await this.browser.newPage({ viewport: { width: 1000, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    (page as Page & { __errors?: string[] }).__errors = errors;
    // Stands in for VS Code's webview host: one acquisition only (as VS Code enforces), every
    // post recorded, every CSP violation recorded, and long tasks measured.
    await page.addInitScript(() => {
      const w = window as unknown as Record<string, unknown>;
      const posted: unknown[] = [];
      const violations: string[] = [];
      const warnings: string[] = [];
      const longTasks: number[] = [];
      w.__posted = posted;
      w.__violations = violations;
      w.__warnings = warnings;
      w.__longTasks = longTasks;
      w.__acquireAttempts = 0;
      let acquired = false;
      w.acquireVsCodeApi = () => {
        w.__acquireAttempts = (w.__acquireAttempts as number) + 1;
        if (acquired) {
          throw new Error('An instance of the VS Code API has already been acquired');
        }
        acquired = true;
        return Object.freeze({
          postMessage: (m: unknown) => posted.push(JSON.parse(JSON.stringify(m)) as unknown),
          getState: () => undefined,
          setState: () => undefined,
        });
      };
      document.addEventListener('securitypolicyviolation', (e) => violations.push(`${e.violatedDirective} ${e.blockedURI}`));
      const warn = console.warn.bind(console);
      console.warn = (...args: unknown[]) => {
        warnings.push(args.map(String).join(' '));
        warn(...args);
      };
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
    });
    await page.goto(`${this.panelOrigin}/`);
    await page.waitForFunction(() => ((window as unknown as { __posted: unknown[] }).__posted).length > 0);
    return page;
  }

  /** Posts a message the way VS Code delivers one from the extension. */
  async post(page: Page, message: unknown): Promise<void> {
    await page.evaluate((m) => window.postMessage(m, '*'), message);
  }

  async state(page: Page): Promise<PageState> {
    const errors = (page as Page & { __errors?: string[] }).__errors ?? [];
    const s = await page.evaluate(() => {
      const w = window as unknown as {
        __pwned?: unknown; __violations: string[]; __posted: unknown[]; __acquireAttempts: number; __warnings: string[];
      };
      const app = document.getElementById('app')!;
      const bad: string[] = [];
      for (const el of Array.from(app.querySelectorAll('*'))) {
        // The page's own composer is the one form the app builds; content never makes one.
        const ownForm = el.tagName === 'FORM' && el.classList.contains('composer');
        if ((!ownForm && ['SCRIPT', 'STYLE', 'IMG', 'IFRAME', 'OBJECT', 'EMBED', 'LINK', 'META', 'BASE', 'FORM', 'VIDEO', 'AUDIO', 'SOURCE', 'SVG', 'MATH'].includes(el.tagName.toUpperCase()))
          || el.namespaceURI !== 'http://www.w3.org/1999/xhtml') {
          bad.push(el.tagName);
        }
        for (const a of Array.from(el.attributes)) {
          const own = a.name === 'style' && el.classList.contains('seg');
          if (a.name.startsWith('on') || a.name === 'href' || a.name === 'src' || a.name === 'srcdoc' || a.name === 'action' || a.name === 'formaction' || (a.name === 'style' && !own)) {
            bad.push(`${el.tagName}[${a.name}=${a.value.slice(0, 60)}]`);
          }
        }
      }
      return {
        pwned: w.__pwned,
        violations: w.__violations,
        posted: w.__posted,
        acquireAttempts: w.__acquireAttempts,
        consoleWarnings: w.__warnings,
        bad,
        hrefs: Array.from(app.querySelectorAll('[data-href]')).map((e) => e.getAttribute('data-href') ?? ''),
        text: app.textContent ?? '',
        html: document.documentElement.outerHTML,
        articles: app.querySelectorAll('.log > article').length,
      };
    });
    return { ...s, errors: [...errors] };
  }

  async longTasks(page: Page): Promise<number[]> {
    return page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks.slice());
  }

  async close(): Promise<void> {
    await this.browser.close();
    await new Promise<void>((r) => this.panelServer.close(() => r()));
    await new Promise<void>((r) => this.trapServer.close(() => r()));
  }
}

export const strings = STRINGS;
export { NONCE };
