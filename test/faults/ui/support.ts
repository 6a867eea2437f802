// Helpers for the fault scenarios in the real workbench (code-server in Chromium, through
// test/e2e/harness.ts): the workbench reloaded with the output channel at trace level, runs
// made and held through the emulator, the run panel's frames, a trap origin for hostile
// content, the browser-side storage (globalState and workspaceState live in IndexedDB in the
// web workbench), and the crash check.
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { panelHasFocus, UI_TIMEOUT_MS, Workbench, type WorkbenchOptions } from '../../e2e/harness';
import { startRunOnService } from '../../e2e/service';
import { extensionHostPids, logFiles, type CodeServer } from '../../support/codeServer';
import { paths } from '../../support/paths';
import { waitUntil } from '../../support/processes';
import { registerEmulatorTokens, TRACE_LOG_LEVEL, type Scenario } from '../registry';
import { adminOk } from '../../emulator/testing';

export { UI_TIMEOUT_MS, type Workbench };

/** Records every request hostile content manages to make. */
export class Trap {
  hits: string[] = [];
  private constructor(private readonly server: http.Server, readonly origin: string) {}
  static async start(): Promise<Trap> {
    const hits: string[] = [];
    const server = http.createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('trapped');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const trap = new Trap(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    trap.hits = hits;
    return trap;
  }
  close(): Promise<void> {
    return new Promise((r) => {
      this.server.close(() => r());
      this.server.closeAllConnections();
    });
  }
}

/** Headless Chromium reports the page unfocused; a person at the keyboard has it focused. */
export async function emulateFocus(wb: Workbench): Promise<void> {
  const cdp = await wb.page.context().newCDPSession(wb.page);
  await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: true });
  await wb.page.evaluate("window.dispatchEvent(new FocusEvent('focus'))");
}

/** How many times the extension host has started activating the extension so far. */
export function activations(wb: Workbench): number {
  const id = wb.session.extension.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return (wb.extensionHostLog().match(new RegExp(`_doActivateExtension ${id}\\b`, 'gi')) ?? []).length;
}

/** (Re)opens the workbench with the extension's output channel at trace level; waits for activation. */
export async function openWithTrace(wb: Workbench): Promise<void> {
  const before = activations(wb);
  const url = new URL(wb.session.workbenchUrl());
  url.searchParams.set('payload', JSON.stringify([['logLevel', TRACE_LOG_LEVEL]]));
  await wb.page.goto(url.toString(), { waitUntil: 'domcontentloaded' });
  await wb.page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
  await emulateFocus(wb);
  await waitUntil(() => activations(wb) > before, 60_000, 'the extension to activate again');
  await wb.openActivityBarView('Agent Runs');
  // Activation sets the context keys the palette's entries depend on (Track Run by ID shows once
  // a base URL is configured) a moment later, in the window; a person starts once the Runs view
  // shows the runs or its "No runs yet" welcome, and so does a scenario.
  const runsPane = wb.page.locator('.part.sidebar .pane', { has: wb.page.locator('.pane-header', { hasText: 'Runs' }) }).first();
  await waitUntil(async () => (await runsPane.locator('.monaco-list-row').count()) > 0 || (await runsPane.getByText('No runs yet').isVisible()),
    60_000, 'the Runs view to show the runs or its welcome');
}

function settingsFile(wb: Workbench): string {
  return path.join(wb.session.profile.userDataDir, 'User', 'settings.json');
}

/** The user settings as a value (the workbench rewrites the file in its own layout); undefined when unreadable. */
function readSettings(wb: Workbench): unknown {
  try {
    return JSON.parse(fs.readFileSync(settingsFile(wb), 'utf8'));
  } catch {
    return undefined;
  }
}

/** The settings each workbench of the fault tier started with, as the runner wrote them. */
const startSettings = new WeakMap<Workbench, string>();

function settingsChanged(wb: Workbench): boolean {
  const start = startSettings.get(wb);
  return start === undefined || JSON.stringify(readSettings(wb)) !== JSON.stringify(JSON.parse(start));
}

/**
 * Puts back the user settings the workbench started with (the emulator's base URL among them)
 * by writing the file the runner made, not through the palette, so it works whether or not the
 * workbench answers. code-server does not notice a change made to that file behind its back
 * (not within 20 s on a quiet machine), but reads it when the window loads: the window is loaded
 * again, and the extension's first words at trace level say which base URL it started on.
 * Throws when that is not the emulator's.
 */
export async function restoreStartSettings(wb: Workbench): Promise<void> {
  const start = startSettings.get(wb);
  if (start === undefined) {
    throw new Error('the settings this workbench started with are not known');
  }
  if (!settingsChanged(wb)) {
    return;
  }
  const from = wb.readOutputLog('Agent Runs').length;
  fs.writeFileSync(settingsFile(wb), start);
  await openWithTrace(wb);
  // The output channel reaches its file a moment after the extension wrote it (later on a busy machine).
  const said = (): string => wb.readOutputLog('Agent Runs').slice(from);
  await waitUntil(() => / ms on \S+ \(/.test(said()), 30_000, 'the extension\'s activation line (at trace level) after the reload');
  const on = [...said().matchAll(/activated in [\d.]+ ms on (\S+) |Base URL is now (\S+)\./g)].map((m) => m[1] ?? m[2]).pop();
  if (on !== wb.emulator.baseUrl || settingsChanged(wb)) {
    throw new Error(`the settings were restored, but the extension says it is on ${on ?? 'no base URL it named'}, not ${wb.emulator.baseUrl}`);
  }
}

/**
 * One workbench for the scenarios of a file, in order (useWorkbench's start, screenshot and
 * close, plus trace logging, focus, the Agent Runs view and the tokens as secrets), every
 * scenario starting from the same premises: the settings the session started with (the
 * emulator's base URL, and so the emulator's default token) and no dialog or quick input open
 * (uiChecked closes them). A scenario that changes the settings puts them back in its `finally`
 * with restoreStartSettings, which needs nothing from the workbench. A scenario that failed may
 * have left anything (a base URL, a token in the browser's secret storage, an editor, a request
 * the emulator still holds, a workbench too slow to answer), and most of that cannot be checked
 * from outside: the next scenario gets a fresh workbench (a new window of the shared code-server
 * with its user data emptied, a new browser context, a new emulator: see `startSharedSession`), as
 * it does when the settings still differ from those the workbench started with.
 */
export function useFaultWorkbench(options: WorkbenchOptions): () => Workbench {
  let workbench: Workbench | undefined;
  /** Why the next scenario cannot start on this workbench. */
  let spoilt: string | undefined;
  const start = async (): Promise<void> => {
    const wb = await Workbench.start(options);
    workbench = wb;
    startSettings.set(wb, fs.readFileSync(settingsFile(wb), 'utf8'));
    registerEmulatorTokens(wb.emulator.tokens, wb.emulator.baseUrl);
    await openWithTrace(wb);
  };
  before(async function () {
    this.timeout(300_000);
    await start();
  });
  beforeEach(async function () {
    if (workbench && spoilt === undefined && settingsChanged(workbench)) {
      spoilt = 'the user settings differ from those the workbench started with';
    }
    if (spoilt === undefined) {
      return;
    }
    this.timeout(300_000);
    process.stderr.write(`      a fresh workbench: ${spoilt}\n`);
    const old = workbench;
    workbench = undefined;
    spoilt = undefined;
    await old?.close();
    await start();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && workbench) {
      spoilt = `the scenario before failed ("${this.currentTest.title.slice(0, 80)}")`;
      const file = await workbench.screenshot(`FAILED-${options.name}-${this.currentTest.title}`).catch(() => undefined);
      if (file) {
        process.stderr.write(`      screenshot: ${path.relative(process.cwd(), file)}\n`);
      }
    }
  });
  after(async function () {
    this.timeout(60_000);
    await workbench?.close();
    workbench = undefined;
  });
  return () => {
    if (!workbench) {
      throw new Error(`The workbench "${options.name}" is not running (did its before hook fail?)`);
    }
    return workbench;
  };
}

export function admin(wb: Workbench, method: string, route: string, body?: unknown): Promise<unknown> {
  return adminOk(wb.emulator.adminUrl, method, route, body);
}

/** A run started elsewhere, given time to produce `messages` messages, then held running. */
export async function startHeldRun(wb: Workbench, prompt: string, messages = 3): Promise<string> {
  const id = await startRunOnService(wb, prompt);
  await waitUntil(async () => ((await admin(wb, 'GET', `/agents/${id}`)) as { history: unknown[] }).history.length >= messages, UI_TIMEOUT_MS, 'the run to produce messages');
  await admin(wb, 'PATCH', `/agents/${id}`, { status: 'running' });
  return id;
}

/** Runs a palette command (the harness waits for a webview taking the focus before it presses F1). */
export async function command(wb: Workbench, title: string): Promise<void> {
  await wb.runCommand(title, 10_000);
}

/** "Track Run by ID…" from the palette; the run's panel opens. */
export async function trackRun(wb: Workbench, agentId: string): Promise<void> {
  await command(wb, 'Agent Runs: Track Run by ID…');
  await wb.typeInInput(agentId, { prompt: /agent ID/i });
  // The panel opens once the run has been read, and takes the focus when its page is up. A
  // person waits for it; a palette opened before that closes as the panel takes the focus.
  const shown = `(() => { const e = document.querySelector('#app code.agent-id'); return e ? e.textContent : null; })()`;
  const frame = await wb.webviewFrame(async (f) => (await f.evaluate(shown)) === agentId, 30_000);
  await panelHasFocus(frame);
}

/** The run panel's content frame (the one with the transcript), once it shows `minArticles`. */
export async function panelFrame(wb: Workbench, minMessages = 1, timeoutMs = 30_000): Promise<Frame> {
  // The history is windowed: only rows near the viewport are in the DOM, and each says how many
  // messages the history holds (aria-setsize).
  return wb.webviewFrame(async (f) => {
    const first = f.locator('#app .log > article').first();
    return (await first.count()) > 0 && Number(await first.getAttribute('aria-setsize')) >= minMessages;
  }, timeoutMs);
}

/** The frame VS Code puts around a webview's content (it holds the channel to the extension). */
export async function webviewHostFrame(wb: Workbench): Promise<Frame> {
  return wb.webviewFrame(async (f) => (await f.evaluate("typeof window.__vscode_post_message__ === 'function'")) === true);
}

/** POSTs of one kind the emulator received, e.g. `/agents/<id>/messages`. */
export function posts(wb: Workbench, pathEnd: string): { status?: number; body: string }[] {
  return wb.emulator.requests.filter((r) => r.method === 'POST' && r.path.split('?')[0].endsWith(pathEnd)).map((r) => ({ status: r.status, body: r.body }));
}

export function goodReadsSince(wb: Workbench, index: number, agentId: string): number {
  return wb.emulator.requests.slice(index).filter((r) => r.method === 'GET' && r.path.includes(agentId) && r.status === 200).length;
}

export { clearNotifications, notificationButtons as toastButtons, panelHasFocus } from '../../e2e/harness';

/** Text and markup of every frame of the workbench (the webviews too). */
export async function allFramesHtml(wb: Workbench): Promise<string> {
  const parts: string[] = [];
  for (const frame of wb.page.frames()) {
    if (frame.isDetached()) {
      continue;
    }
    parts.push(await frame.evaluate('document.documentElement ? document.documentElement.outerHTML : ""').then(String, () => ''));
  }
  return parts.join('\n');
}

/** Every IndexedDB database of the workbench's origin (globalState, workspaceState, logs) as text. */
export async function browserStorage(wb: Workbench): Promise<string> {
  return String(await wb.page.evaluate(`(async () => {
    const out = [];
    for (const d of await indexedDB.databases()) {
      const db = await new Promise((res, rej) => { const r = indexedDB.open(d.name); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
      for (const store of Array.from(db.objectStoreNames)) {
        const tx = db.transaction(store, 'readonly');
        const keys = await new Promise((res) => { const q = tx.objectStore(store).getAllKeys(); q.onsuccess = () => res(q.result); });
        const values = await new Promise((res) => { const q = tx.objectStore(store).getAll(); q.onsuccess = () => res(q.result); });
        keys.forEach((k, i) => {
          const v = values[i];
          let text;
          if (typeof v === 'string') text = v;
          else if (v instanceof Uint8Array || v instanceof ArrayBuffer) text = new TextDecoder().decode(v);
          else text = JSON.stringify(v);
          out.push(d.name + ' ' + store + ' ' + String(k) + ' = ' + text);
        });
      }
      db.close();
    }
    return out.join('\\n');
  })()`));
}

/** Every file under the profile's user-data folder, as text. */
export function userDataFiles(wb: Workbench): { file: string; text: string }[] {
  const root = wb.session.profile.userDataDir;
  const out: { file: string; text: string }[] = [];
  for (const name of fs.readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(root, name);
    try {
      const stat = fs.statSync(file);
      if (stat.isFile() && stat.size < 50_000_000) {
        out.push({ file: name, text: fs.readFileSync(file).toString('latin1') });
      }
    } catch {
      // Gone meanwhile (a rotated log).
    }
  }
  return out;
}

/** The transcript cache files the extension wrote under its global storage. */
export function transcriptFiles(wb: Workbench): string[] {
  const dir = path.join(wb.session.profile.userDataDir, 'User', 'globalStorage', wb.session.extension.id.toLowerCase(), 'transcripts');
  if (!fs.existsSync(dir)) {
    return [];
  }
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.jsonl?$/.test(f)).map((f) => path.join(dir, f));
}

export interface Mark {
  hostLog: number;
  output: number;
  pageErrors: number;
}

/** Page errors of the workbench and its webviews, collected from the start. */
const pageErrors = new WeakMap<Workbench, string[]>();

export function watchPageErrors(wb: Workbench): void {
  if (pageErrors.has(wb)) {
    return;
  }
  const list: string[] = [];
  pageErrors.set(wb, list);
  wb.page.on('pageerror', (e) => list.push(e.message));
  wb.page.on('console', (m) => {
    // The run panel's own script logs as "[agent-runs webview]"; an error there is ours.
    if (m.type() === 'error' && /agent-runs-team\.agent-runs|agent-runs webview|webview\/main\.js/.test(`${m.text()} ${m.location().url}`)) {
      list.push(m.text());
    }
  });
}

export function mark(wb: Workbench): Mark {
  watchPageErrors(wb);
  return { hostLog: wb.extensionHostLog().length, output: wb.readOutputLog('Agent Runs').length, pageErrors: pageErrors.get(wb)?.length ?? 0 };
}

const EXTENSION_ID = /agent-runs-team\.agent-runs/i;

/**
 * Crashes since `from`: extension host errors naming the extension, its own error lines, page
 * errors of its webview. `expected` skips what the scenario caused on purpose (a killed host).
 */
export function crashCheck(wb: Workbench, s: Scenario, from: Mark, expected?: RegExp): void {
  const unexpected = (line: string): boolean => expected === undefined || !expected.test(line);
  for (const line of wb.extensionHostLog().slice(from.hostLog).split('\n')) {
    if (/\[error\]/i.test(line) && EXTENSION_ID.test(line) && unexpected(line)) {
      s.crash(`extension host: ${line.trim()}`);
    }
  }
  for (const line of wb.readOutputLog('Agent Runs').slice(from.output).split('\n')) {
    if (/\[error\]|listener failed| threw: |Poller bug|failed unexpectedly/i.test(line)) {
      s.crash(`output channel: ${line.trim()}`);
    }
  }
  for (const e of (pageErrors.get(wb) ?? []).slice(from.pageErrors)) {
    if (/agent-runs webview|__pwned|webview\/main\.js/i.test(e) || (EXTENSION_ID.test(e) && unexpected(e))) {
      s.crash(`page: ${e}`);
    }
  }
}

/** Closes what a failed scenario may have left open (a modal dialog, a quick input), so the next one starts clean. */
async function dismissLeftovers(wb: Workbench): Promise<void> {
  const dialog = wb.page.locator('.monaco-dialog-box');
  for (let i = 0; i < 3 && (await dialog.isVisible().catch(() => false)); i++) {
    const cancel = dialog.locator('.monaco-button', { hasText: /^Cancel$/ }).first();
    if (await cancel.isVisible().catch(() => false)) {
      await cancel.click().catch(() => undefined);
    } else {
      await wb.page.keyboard.press('Escape');
    }
    await dialog.waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => undefined);
  }
  await wb.closeQuickInput(2_000).catch(() => undefined);
}

/** A scenario body with crash checks, the output channel sink and the workbench's DOM as sinks. */
export async function uiChecked(wb: Workbench, s: Scenario, body: () => Promise<void>, expectedErrors?: RegExp): Promise<void> {
  const from = mark(wb);
  try {
    await body();
  } catch (error) {
    // Keep what explains the failure next to the harness's screenshot.
    const dir = path.join(paths.testResults, 'faults-ui');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${Date.now()}-output.log`), wb.readOutputLog('Agent Runs'));
    throw error;
  } finally {
    wb.emulator.clearFaults();
    await dismissLeftovers(wb);
    crashCheck(wb, s, from, expectedErrors);
    // What this scenario added (the whole log is searched by the dedicated sinks scenario).
    s.sink('output channel (trace level)', wb.readOutputLog('Agent Runs').slice(from.output));
    s.sink('workbench and webview DOM (notifications, tree, panels)', await allFramesHtml(wb).catch(() => ''));
  }
}

/** Back to a reachable service with a fresh read ("Refresh", as a person would), so one scenario's outage does not leak into the next. */
export async function backOnline(wb: Workbench): Promise<void> {
  wb.emulator.clearFaults();
  const offline = wb.page.locator('.statusbar-item', { hasText: /Agent Runs: offline/ });
  if (await offline.count() > 0) {
    await command(wb, 'Agent Runs: Refresh');
    await offline.first().waitFor({ state: 'detached', timeout: 30_000 }).catch(() => undefined);
  }
}

/** Observes that something does NOT happen for `ms` (a negative can only be watched for a while). */
export function observe(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * The PID of the window's extension host (for the crash scenario). After a reload code-server
 * keeps the previous host alive for a while in case the window reconnects, so the newest one is
 * the window's.
 */
export function extensionHostPid(server: CodeServer): number | undefined {
  return extensionHostPids(server).at(-1);
}

export { logFiles };
