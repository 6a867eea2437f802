// Debian's Chromium driven by playwright-core (not `playwright`, whose install downloads
// browsers). One browser per process, shared; each workbench gets its own context.
import * as fs from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { registerCleanup } from './processes';

export const CHROMIUM_PATH = process.env.AGENT_RUNS_CHROMIUM ?? '/usr/bin/chromium';

/** Flags that keep Chromium off the network (this machine has none) and quiet. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
];

let shared: Promise<Browser> | undefined;

/** The process-wide browser, launched on first use and closed at cleanup. */
export function sharedBrowser(): Promise<Browser> {
  shared ??= (async () => {
    if (!fs.existsSync(CHROMIUM_PATH)) {
      throw new Error(`${CHROMIUM_PATH} is missing: run npm run test:setup (or set AGENT_RUNS_CHROMIUM)`);
    }
    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: process.env.AGENT_RUNS_HEADED !== '1',
      args: CHROMIUM_ARGS,
      // Signals are handled by test/support/processes.ts, which closes the browser.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    registerCleanup('close the browser', async () => {
      shared = undefined;
      await browser.close();
    });
    return browser;
  })();
  return shared;
}

export interface WorkbenchPage {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Everything the page logged to its console, for failure reports. */
  readonly consoleLines: string[];
}

export const VIEWPORT = { width: 1400, height: 900 } as const;

/** Opens `url` in a fresh context and waits until the workbench is drawn. */
export async function openWorkbench(url: string, timeoutMs = 60_000): Promise<WorkbenchPage> {
  const browser = await sharedBrowser();
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  const consoleLines: string[] = [];
  page.on('console', (message) => {
    consoleLines.push(`[${message.type()}] ${message.text()}`);
    if (consoleLines.length > 2000) {
      consoleLines.splice(0, consoleLines.length - 2000);
    }
  });
  page.on('pageerror', (error) => consoleLines.push(`[pageerror] ${error.message}`));
  try {
    // A person at the keyboard has the window focused; a headless page is not, and the
    // workbench (and the extension's window.state.focused) would behave as if unattended.
    // The emulation holds across reloads of this page.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: true });
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: timeoutMs });
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: timeoutMs });
  } catch (error) {
    await context.close();
    throw error;
  }
  return { context, page, consoleLines };
}
