// The run panel's webview as VS Code serves it, in headless Chromium: the panel's own HTML and
// CSP (src/panel/common/html.ts) from a local origin, with the webview bundle and media/panel.css,
// and a stand-in for VS Code's webview host in the page. Used by the browser unit tests
// (test/unit/webview.browser*.test.ts, through fixtures/webviewSuite.ts), the fault suite
// (test/faults/support/panelPage.ts) and the bench (bench/webview.ts).
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { webviewHtml } from '../../src/panel/common/html';
import { CHROMIUM_ARGS } from './browser';
import { paths } from './paths';

// The functions given to page.addInitScript and page.evaluate run in the page; this Node build
// has no DOM library, so these module-local declarations type the little they use.
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
declare const window: unknown;

/** AGENT_RUNS_CHROMIUM (as for the workbench tiers), else CHROMIUM_PATH, else Debian's. */
export const WEBVIEW_CHROMIUM = process.env.AGENT_RUNS_CHROMIUM ?? process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const NONCE = 'd2Vidmlldy1wYWdlLW5vbmNlLTEyMzQ1Ng==';

/** The webview bundle built from src/panel/page now (a development build, as the tests want it). */
export async function buildWebviewBundle(): Promise<string> {
  const built = await esbuild.build({
    entryPoints: [path.join(paths.repoRoot, 'src', 'panel', 'page', 'main.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return built.outputFiles[0].text;
}

export interface WebviewServerOptions {
  /** The webview bundle: `buildWebviewBundle()`, or a packaged dist/webview/main.js. */
  readonly script: string | Buffer;
  /** The panel's text until `init` arrives. */
  readonly loadingText: string;
  /** Called for any request but the page, its script and its style (answered 404). */
  readonly onOtherRequest?: (request: http.IncomingMessage) => void;
}

export interface WebviewServer {
  /** `http://127.0.0.1:<port>`: the page's origin, also its CSP source. */
  readonly origin: string;
  /** The page: `origin` + `/`. */
  readonly url: string;
  /** Stops the server; again is a no-op. */
  close(): Promise<void>;
}

/** Serves the panel's HTML (CSP and nonce included), the bundle and panel.css on 127.0.0.1. */
export async function serveWebview(options: WebviewServerOptions): Promise<WebviewServer> {
  const css = fs.readFileSync(path.join(paths.repoRoot, 'media', 'panel.css'), 'utf8');
  let origin = '';
  const server = http.createServer((req, res) => {
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(webviewHtml({
        cspSource: origin,
        nonce: NONCE,
        scriptUri: `${origin}/main.js`,
        styleUri: `${origin}/panel.css`,
        lang: 'en',
        title: 'Run',
        loadingText: options.loadingText,
      }));
    } else if (req.url === '/main.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(options.script);
    } else if (req.url === '/panel.css') {
      res.writeHead(200, { 'content-type': 'text/css' });
      res.end(css);
    } else {
      options.onOtherRequest?.(req);
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closed: Promise<void> | undefined;
  return {
    origin,
    url: `${origin}/`,
    close: () => (closed ??= new Promise<void>((resolve) => server.close(() => resolve()))),
  };
}

/** A Chromium of the caller's own (not the shared one of browser.ts): the caller closes it. */
export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(WEBVIEW_CHROMIUM)) {
    throw new Error(`No Chromium at ${WEBVIEW_CHROMIUM}: run \`npm run test:setup\` or set AGENT_RUNS_CHROMIUM (or CHROMIUM_PATH).`);
  }
  return chromium.launch({ executablePath: WEBVIEW_CHROMIUM, args: CHROMIUM_ARGS });
}

export interface WebviewPageOptions {
  readonly viewport: { readonly width: number; readonly height: number };
  /** Runs in the page after the host stand-in and before the page's own scripts. */
  readonly init?: () => void;
}

const errorsByPage = new WeakMap<Page, string[]>();

/** The uncaught errors of a page `openWebviewPage` opened. */
export function pageErrors(page: Page): string[] {
  return errorsByPage.get(page) ?? [];
}

/**
 * A fresh page with the panel loaded and its `ready` posted. The stand-in for VS Code's webview
 * host in it: `acquireVsCodeApi` works once (as VS Code enforces; `__acquireAttempts` counts the
 * calls), every post is recorded (`__posted`, as the extension would receive it), and so are
 * CSP violations (`__violations`) and console warnings (`__warnings`).
 */
export async function openWebviewPage(browser: Browser, url: string, options: WebviewPageOptions): Promise<Page> {
  const page = await browser.newPage({ viewport: options.viewport });
  const errors: string[] = [];
  errorsByPage.set(page, errors);
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(() => {
    const w = window as Record<string, unknown>;
    const posted: unknown[] = [];
    const violations: string[] = [];
    const warnings: string[] = [];
    w.__posted = posted;
    w.__violations = violations;
    w.__warnings = warnings;
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
  });
  if (options.init) {
    await page.addInitScript(options.init);
  }
  await page.goto(url);
  await page.waitForFunction(() => (window as { __posted: { type?: unknown }[] }).__posted.some((m) => m.type === 'ready'));
  return page;
}

/** What the page shows and did, as far as the sanitising and CSP checks read it. */
export interface PanelState {
  /** Set only if injected code ran (hostile content assigns `window.__pwned`). */
  pwned: unknown;
  violations: string[];
  /** Every message the page posted, oldest first (the app's each have a `type`). */
  posted: { type: string }[];
  acquireAttempts: number;
  consoleWarnings: string[];
  /** Elements or attributes in #app that sanitising should have removed. */
  bad: string[];
  /** The links' targets (`data-href`: links never navigate, they post `openLink`). */
  hrefs: string[];
  text: string;
  html: string;
  articles: number;
}

export async function readPanelState(page: Page): Promise<PanelState> {
  return page.evaluate(() => {
    const w = window as {
      __pwned?: unknown; __violations: string[]; __posted: { type: string }[]; __acquireAttempts: number; __warnings: string[];
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
        // Lane segments and the history's spacers get their size through CSSOM (allowed by the CSP); no style attribute
        // comes from content.
        const own = a.name === 'style' && (el.classList.contains('seg') || el.classList.contains('log-spacer'));
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
}
