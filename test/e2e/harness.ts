// UI tests: a person's clicks in the real VS Code workbench (code-server) in Chromium, with
// the packaged extension installed and pointed at the service emulator.
//
// One Workbench per describe block, never per test; all of them windows of one code-server
// (a new window, folder, emulator and browser context each). Typical use:
//
//   describe('Runs view', () => {
//     const workbench = useWorkbench({ name: 'runs-view' });
//     it('shows a run', async () => {
//       const wb = workbench();
//       await wb.openActivityBarView('Agent Runs');
//       await wb.waitForTreeRow('Fix the login bug');
//       await wb.screenshot('runs-view');
//     });
//   });
//
// Helpers wait for conditions (never fixed sleeps) and fail with a message that says what
// they waited for. A failed test leaves a screenshot in test-results/screenshots/. The page
// has focus emulation on (a person at the keyboard), also after a reload. More in
// test/support/README.md.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import { openWorkbench, type WorkbenchPage } from '../support/browser';
import { logFiles } from '../support/codeServer';
import type { Emulator } from '../support/emulator';
import { paths } from '../support/paths';
import { waitUntil } from '../support/processes';
import { focusSettled } from './focus';
import { START_TIMEOUT_MS, UI_TIMEOUT_MS } from './timeouts';
import { startSession, startSharedSession, type Session, type SessionOptions, type SharedSessionOptions } from '../support/session';

export interface WorkbenchOptions {
  /** Names the temp folder and the screenshots of failed tests. */
  readonly name: string;
  /** Start signed in (the emulator's `default` token, or the named one); default true. */
  readonly signedIn?: boolean | string;
  /** Emulator step length in ms; default 30. */
  readonly stepMs?: number;
  readonly settings?: SessionOptions['settings'];
  readonly workspaceFiles?: SessionOptions['workspaceFiles'];
  readonly env?: SessionOptions['env'];
  readonly workspaceTrust?: SessionOptions['workspaceTrust'];
  /** The emulator's preset (`reference` by default; `deployed` for the deployed service's endpoints). */
  readonly preset?: SessionOptions['preset'];
}

export { UI_TIMEOUT_MS } from './timeouts';
export { panelHasFocus } from './focus';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A file-name-safe version of a test title. */
function fileSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 120) || 'screenshot';
}

export class Workbench {
  private constructor(
    readonly name: string,
    readonly session: Session,
    private readonly opened: WorkbenchPage,
  ) {}

  /**
   * Emulator + settings + workspace folder + a window of code-server (with the packaged .vsix) in a
   * fresh Chromium context. The code-server is the one this process shares (`startSharedSession`:
   * the window is as isolated as on a server of its own); only a workbench with its own `env`
   * starts its own code-server.
   */
  static async start(options: WorkbenchOptions): Promise<Workbench> {
    const sessionOptions: SharedSessionOptions = {
      label: `e2e-${fileSafe(options.name)}`,
      stepMs: options.stepMs ?? 30,
      signedIn: options.signedIn ?? true,
      ...(options.settings ? { settings: options.settings } : {}),
      ...(options.workspaceFiles ? { workspaceFiles: options.workspaceFiles } : {}),
      ...(options.workspaceTrust ? { workspaceTrust: true } : {}),
      ...(options.preset ? { preset: options.preset } : {}),
    };
    const session = options.env ? await startSession({ ...sessionOptions, env: options.env }) : await startSharedSession(sessionOptions);
    try {
      const opened = await openWorkbench(session.workbenchUrl());
      const workbench = new Workbench(options.name, session, opened);
      await workbench.waitForExtensionsLoaded();
      return workbench;
    } catch (error) {
      await session.close();
      throw error;
    }
  }

  get page(): Page {
    return this.opened.page;
  }

  /**
   * The emulator this workbench's extension talks to: script scenarios with its admin API
   * (`inject`, `reset`, `requests`, ...).
   */
  get emulator(): Emulator {
    return this.session.emulator;
  }

  /** What the page logged to its console (for debugging a failure). */
  get consoleLines(): readonly string[] {
    return this.opened.consoleLines;
  }

  async close(): Promise<void> {
    try {
      await this.opened.context.close();
    } finally {
      await this.session.close();
    }
  }

  // --- Command palette and quick input -------------------------------------------------

  private get quickInput(): Locator {
    return this.page.locator('.quick-input-widget');
  }

  private get quickInputBox(): Locator {
    return this.quickInput.locator('.quick-input-box input');
  }

  /**
   * Runs a command the way a person does: F1, type the title, pick the entry. `title` is
   * what the palette shows, with or without its category: 'Agent Runs: Refresh' or
   * 'Refresh' (the latter matches any category; be specific when titles repeat).
   */
  async runCommand(title: string, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    const row = await this.findCommandPaletteEntry(title, timeoutMs);
    await row.click();
    // The command may open its own quick input: wait for the palette, not the widget, to go.
    await waitUntil(async () => !(await this.paletteIsOpen()), timeoutMs, `the command palette to close after choosing "${title}"`);
  }

  /**
   * Opens the palette, types `title` and returns its entry, leaving the palette open
   * (Escape closes it). Fails when no entry reads `title` (optionally after a category).
   * The palette lists the commands whose `when` held as it opened: a command an extension
   * enables a moment later (a context key set at the end of its activation, which on a busy
   * machine came seconds after the activation began) shows only in a palette opened after
   * that, as a person who does not find it closes the palette and opens it again.
   */
  async findCommandPaletteEntry(title: string, timeoutMs = UI_TIMEOUT_MS): Promise<Locator> {
    const label = new RegExp(`^(?:[^:]+: )?${escapeRegExp(title)}$`);
    const row = this.quickInput
      .locator('.monaco-list-row')
      .filter({ has: this.page.locator('.label-name', { hasText: label }) })
      .first();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.openCommandPalette(timeoutMs);
      await this.quickInputBox.fill(`>${title}`);
      const left = deadline - Date.now();
      if (await row.waitFor({ state: 'visible', timeout: Math.max(1, Math.min(left, 2_000)) }).then(() => true, () => false)) {
        return row;
      }
      if (Date.now() >= deadline) {
        const shown = await this.quickInput.locator('.monaco-list-row .label-name').allInnerTexts().catch(() => []);
        throw new Error(`The command palette has no entry "${title}" after ${timeoutMs} ms (it shows: ${shown.join(' | ') || 'nothing'})`);
      }
      await this.closeQuickInput(timeoutMs);
    }
  }

  /**
   * Opens the command palette (F1) and waits until it takes input. F1 waits while the workbench
   * is still handing the focus to a webview (a panel just opened or brought back): a key pressed
   * in its loading frame is lost, and a palette opened before the page takes the focus closes
   * when it does. A person waits for the panel to be drawn; so does this.
   */
  async openCommandPalette(timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    if (!(await this.paletteIsOpen())) {
      await focusSettled(this.page, timeoutMs);
      await this.page.keyboard.press('F1');
    }
    await waitUntil(() => this.paletteIsOpen(), timeoutMs, 'the command palette to open');
  }

  /** Closes whatever quick input is open (palette, input box, quick pick). */
  async closeQuickInput(timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    if (await this.quickInput.isVisible()) {
      await this.page.keyboard.press('Escape');
      await this.quickInput.waitFor({ state: 'hidden', timeout: timeoutMs });
    }
  }

  private async paletteIsOpen(): Promise<boolean> {
    if (!(await this.quickInput.isVisible())) {
      return false;
    }
    const value = await this.quickInputBox.inputValue().catch(() => '');
    return value.startsWith('>');
  }

  /**
   * Types into the open quick input (an input box such as "Set API Token", or a quick
   * pick's filter) and presses Enter unless `submit` is false. `prompt` waits until the
   * input shows that placeholder or message first, so text goes to the right box.
   */
  async typeInInput(text: string, options: { submit?: boolean; prompt?: string | RegExp; timeoutMs?: number } = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? UI_TIMEOUT_MS;
    await this.quickInputBox.waitFor({ state: 'visible', timeout: timeoutMs });
    if (options.prompt !== undefined) {
      const prompt = options.prompt;
      await waitUntil(async () => {
        const placeholder = (await this.quickInputBox.getAttribute('placeholder')) ?? '';
        const message = (await this.quickInput.locator('.quick-input-message').innerText().catch(() => '')) ?? '';
        const title = (await this.quickInput.locator('.quick-input-title').innerText().catch(() => '')) ?? '';
        const all = `${placeholder}\n${message}\n${title}`;
        return typeof prompt === 'string' ? all.includes(prompt) : prompt.test(all);
      }, timeoutMs, `a quick input showing ${String(prompt)}`);
    }
    await this.quickInputBox.fill(text);
    if (options.submit !== false) {
      await this.quickInputBox.press('Enter');
    }
  }

  /** Picks the quick pick entry whose label is (or, for a RegExp, matches) `item`. */
  async quickPickSelect(item: string | RegExp, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    const label = typeof item === 'string' ? new RegExp(`^${escapeRegExp(item)}$`) : item;
    const row = this.quickInput
      .locator('.monaco-list-row')
      .filter({ has: this.page.locator('.label-name', { hasText: label }) })
      .first();
    await row.waitFor({ state: 'visible', timeout: timeoutMs }).catch((error: unknown) => {
      throw new Error(`The quick pick has no entry ${String(item)}: ${String(error)}`);
    });
    await row.click();
  }

  // --- Views -----------------------------------------------------------------------------

  /**
   * Shows the activity-bar view container whose label starts with `label` (e.g.
   * 'Agent Runs', 'Explorer'). Never clicks an already selected icon: that toggles the side
   * bar, and right after a start or reload the side bar may still be on its way back. So it
   * first waits until the workbench has restored the side bar (see `waitForSideBarRestored`),
   * then decides. A selected container whose side bar stays hidden is shown with the
   * idempotent palette command "View: Show <label>" instead.
   */
  async openActivityBarView(label: string, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    const item = this.page.locator(`.part.activitybar .action-item:has(.action-label[aria-label^="${label.replace(/"/g, '\\"')}"])`).first();
    await item.waitFor({ state: 'visible', timeout: timeoutMs }).catch((error: unknown) => {
      throw new Error(`No activity bar item "${label}": ${String(error)}`);
    });
    await this.waitForSideBarRestored(timeoutMs);
    const selected = async () => ((await item.getAttribute('class')) ?? '').split(/\s+/).includes('checked');
    const sideBarVisible = () => this.page.locator('.part.sidebar').isVisible();
    const shown = async () => (await selected()) && (await sideBarVisible());
    if (await shown()) {
      return;
    }
    if (!(await selected())) {
      // The item, not its icon: a badge (count, progress) covers the icon and would take the click.
      await item.click();
    } else {
      const restored = await waitUntil(shown, 2_000, 'the side bar to come back').then(() => true, () => false);
      if (!restored) {
        await this.runCommand(`View: Show ${label}`, timeoutMs);
      }
    }
    await waitUntil(shown, timeoutMs, `the "${label}" view container to show`);
  }

  /**
   * Widens the side bar by `by` pixels the way a person does: drags the sash on its edge. The
   * sash is found, not assumed at the side bar's last pixel: newer workbenches (1.139) leave a
   * gap between the parts, with the sash in it.
   */
  async widenSideBar(by: number, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    const side = await this.page.locator('.part.sidebar').boundingBox();
    if (!side) throw new Error('The side bar is not shown');
    const edge = side.x + side.width;
    const sashes: Array<{ x: number; top: number; height: number }> = [];
    for (const l of await this.page.locator('.monaco-sash.vertical').all()) {
      const r = await l.boundingBox();
      if (r) sashes.push({ x: r.x + r.width / 2, top: r.y, height: r.height });
    }
    const sash = sashes
      .filter((b) => b.height > side.height / 2 && Math.abs(b.x - edge) <= 12)
      .sort((a, b) => Math.abs(a.x - edge) - Math.abs(b.x - edge))[0];
    if (!sash) throw new Error(`No sash by the side bar's edge (x ${edge}) among ${JSON.stringify(sashes)}`);
    const y = Math.max(sash.top, side.y) + Math.min(sash.height, side.height) / 2;
    await this.page.mouse.move(sash.x, y);
    await this.page.mouse.down();
    await this.page.mouse.move(sash.x + by, y, { steps: 5 });
    await this.page.mouse.up();
    await waitUntil(async () => ((await this.page.locator('.part.sidebar').boundingBox())?.width ?? 0) > side.width + by * 0.75, timeoutMs, 'the side bar to widen');
  }

  /**
   * Waits until the workbench has restored the side bar's view container after a start or a
   * reload. An extension's container is restored only once the extension host has registered
   * the extension (seconds after the page shows): until then the side bar is up with no icon
   * selected, and a click on the icon races the restore. When the restore lands first, the
   * click finds its container already open and toggles the side bar closed. Read from VS
   * Code's own startup marks: `code/willRestoreViewlet` … `code/didRestoreViewlet`, the
   * former set (when there is a container to restore) before `code/didStartWorkbench`.
   */
  async waitForSideBarRestored(timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    // A string, not a function: this file is compiled without the DOM library.
    const restored = `(() => {
      const has = (name) => performance.getEntriesByName(name, 'mark').length > 0;
      return has('code/didStartWorkbench') && (!has('code/willRestoreViewlet') || has('code/didRestoreViewlet'));
    })()`;
    await this.page.waitForFunction(restored, undefined, { timeout: timeoutMs, polling: 100 }).catch((error: unknown) => {
      throw new Error(`The workbench did not finish restoring its side bar: ${String(error)}`);
    });
  }

  /**
   * Reloads the window as a person does in VS Code, with "Developer: Reload Window", and waits
   * for the new workbench. Not `page.reload()` (the browser's F5): VS Code in a browser saves
   * its state (open editors, extensions' globalState) asynchronously, and a page the browser
   * unloads cannot wait for that, so after `page.reload()` it may come back with an older
   * state (e.g. a run panel closed seconds before is open again). The command saves first.
   */
  async reloadWindow(timeoutMs = START_TIMEOUT_MS): Promise<void> {
    const row = await this.findCommandPaletteEntry('Developer: Reload Window');
    const loaded = this.page.waitForEvent('load', { timeout: timeoutMs });
    await row.click();
    await loaded;
    await this.page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: timeoutMs });
    await this.waitForExtensionsLoaded(timeoutMs);
  }

  /**
   * Waits until the workbench has registered the extensions (VS Code's startup mark
   * `code/didLoadExtensions`): only then does an extension's activity-bar container, view or
   * command exist. The page is drawn before that; with a busy machine VS Code 1.139 took
   * 17 s more (1.100: about a second), longer than a helper's wait for one element.
   */
  async waitForExtensionsLoaded(timeoutMs = START_TIMEOUT_MS): Promise<void> {
    await this.page.waitForFunction("performance.getEntriesByName('code/didLoadExtensions', 'mark').length > 0", undefined, { timeout: timeoutMs, polling: 100 })
      .catch((error: unknown) => {
        throw new Error(`The workbench did not load its extensions: ${String(error)}`);
      });
  }

  /** A row of any visible tree or list whose text contains (or matches) `text`. */
  treeRow(text: string | RegExp): Locator {
    return this.page.locator('.monaco-list-row', { hasText: text }).first();
  }

  async waitForTreeRow(text: string | RegExp, timeoutMs = UI_TIMEOUT_MS): Promise<Locator> {
    const row = this.treeRow(text);
    await row.waitFor({ state: 'visible', timeout: timeoutMs }).catch((error: unknown) => {
      throw new Error(`No visible tree row with ${String(text)}: ${String(error)}`);
    });
    return row;
  }

  /** Label and description of a tree row, read separately (innerText runs them together). */
  async treeRowParts(row: Locator): Promise<{ label: string; description: string }> {
    const label = await row.locator('.label-name').first().innerText().catch(() => '');
    const description = await row.locator('.label-description').first().innerText().catch(() => '');
    return { label: label.trim(), description: description.trim() };
  }

  /** Right-clicks the tree row with `rowText` and chooses `itemText` in its context menu. */
  async contextMenu(rowText: string | RegExp, itemText: string, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    const row = await this.waitForTreeRow(rowText, timeoutMs);
    await row.click({ button: 'right' });
    await this.chooseInOpenMenu(itemText, timeoutMs);
  }

  /** Clicks the button `actionLabel` that a tree row shows under the pointer (its inline action). */
  async treeInlineAction(rowText: string | RegExp, actionLabel: string, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    const row = await this.waitForTreeRow(rowText, timeoutMs);
    await row.hover();
    const button = row.locator(`.actions .action-label[aria-label^="${actionLabel.replace(/"/g, '\\"')}"]`).first();
    await button.waitFor({ state: 'visible', timeout: timeoutMs }).catch((error: unknown) => {
      throw new Error(`The tree row ${String(rowText)} shows no button "${actionLabel}": ${String(error)}`);
    });
    await button.click();
  }

  /**
   * Chooses `itemText` in the context menu that is open (or opening), with the keyboard: the
   * pointer over the item focuses it, Enter runs it. Not a click: a menu ignores clicks for a
   * moment after it is drawn, and after a click nothing tells an ignored click from a slow
   * close, so a fallback would press Enter into whatever the command opened.
   */
  async chooseInOpenMenu(itemText: string, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    const menu = this.page.locator('.context-view .monaco-menu');
    await menu.waitFor({ state: 'visible', timeout: timeoutMs });
    const item = menu.locator(`.action-item:has(.action-label[aria-label="${itemText.replace(/"/g, '\\"')}"])`).first();
    await item.waitFor({ state: 'visible', timeout: timeoutMs }).catch(async (error: unknown) => {
      const items = await menu.locator('.action-label').allInnerTexts();
      await this.page.keyboard.press('Escape');
      throw new Error(`The context menu has no "${itemText}" (it has: ${items.filter(Boolean).join(', ')}): ${String(error)}`);
    });
    await item.hover();
    await waitUntil(async () => ((await item.getAttribute('class')) ?? '').split(/\s+/).includes('focused'), timeoutMs, `"${itemText}" to be focused in the menu`);
    await this.page.keyboard.press('Enter');
    await menu.waitFor({ state: 'hidden', timeout: timeoutMs });
  }

  /** A visible notification toast containing `text`. */
  async waitForNotification(text: string | RegExp, timeoutMs = UI_TIMEOUT_MS): Promise<Locator> {
    const toast = this.page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
    await toast.waitFor({ state: 'visible', timeout: timeoutMs }).catch((error: unknown) => {
      throw new Error(`No notification with ${String(text)}: ${String(error)}`);
    });
    return toast;
  }

  // --- Webviews ----------------------------------------------------------------------------

  /**
   * The first frame (webview content lives two iframes deep) for which `predicate` holds,
   * e.g. `(f) => f.locator('#transcript').count().then((n) => n > 0)`.
   */
  async webviewFrame(predicate: (frame: Frame) => Promise<boolean>, timeoutMs = UI_TIMEOUT_MS): Promise<Frame> {
    let found: Frame | undefined;
    await waitUntil(async () => {
      for (const frame of this.page.frames()) {
        if (frame === this.page.mainFrame() || frame.isDetached()) {
          continue;
        }
        if (await predicate(frame).catch(() => false)) {
          found = frame;
          return true;
        }
      }
      return false;
    }, timeoutMs, 'a webview frame matching the predicate', 100);
    return found!;
  }

  /** The webview frame that contains `selector`. */
  webviewFrameWith(selector: string, timeoutMs = UI_TIMEOUT_MS): Promise<Frame> {
    return this.webviewFrame(async (frame) => (await frame.locator(selector).count()) > 0, timeoutMs);
  }

  // --- Evidence ------------------------------------------------------------------------------

  /** Saves a PNG of the whole workbench to test-results/screenshots/<name>.png; returns its path. */
  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(paths.screenshots, { recursive: true });
    const file = path.join(paths.screenshots, `${fileSafe(name)}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  /**
   * The text of an output channel, read from the log file the extension host writes for
   * it under the server's logs folder ('' while it does not exist yet).
   */
  readOutputLog(channelName: string): string {
    const plain = new RegExp(`^(?:\\d+-)?${escapeRegExp(channelName)}\\.log$`);
    const files = logFiles(this.session.profile).filter((file) => plain.test(path.basename(file)));
    return files.map((file) => fs.readFileSync(file, 'utf8')).join('');
  }

  /** Waits until the output channel's log contains (or matches) `expected`; returns the log. */
  async waitForOutputLog(channelName: string, expected: string | RegExp, timeoutMs = UI_TIMEOUT_MS): Promise<string> {
    let text = '';
    await waitUntil(() => {
      text = this.readOutputLog(channelName);
      return typeof expected === 'string' ? text.includes(expected) : expected.test(text);
    }, timeoutMs, `output channel "${channelName}" to show ${String(expected)}`, 100);
    return text;
  }

  /**
   * Waits until the extension host has activated the extension under test (it must have
   * an activation event that fires, e.g. onStartupFinished) and fails if activate() threw.
   * The host logs when activation starts; a throwing activate() is logged ~70 ms later and
   * success is never logged, so the log is watched for a failure a moment longer.
   */
  async waitForExtensionActivation(timeoutMs = 30_000): Promise<void> {
    const id = escapeRegExp(this.session.extension.id);
    const started = new RegExp(`_doActivateExtension ${id}\\b`, 'i');
    const failed = new RegExp(`Activating extension ${id} failed[^\\n]*(?:\\n(?!\\d{4}-)[^\\n]*)*`, 'i');
    await waitUntil(() => started.test(this.extensionHostLog()), timeoutMs, `the extension host to activate ${this.session.extension.id}`, 100);
    const failure = await waitUntil(() => failed.test(this.extensionHostLog()), 1_000, 'an activation failure').then(
      () => failed.exec(this.extensionHostLog())?.[0],
      () => undefined,
    );
    if (failure) {
      throw new Error(`activate() failed:\n${failure}`);
    }
  }

  /** The extension host's own log (activation errors land here). */
  extensionHostLog(): string {
    return logFiles(this.session.profile)
      .filter((file) => /exthost\.log$/i.test(file))
      .map((file) => fs.readFileSync(file, 'utf8'))
      .join('');
  }
}

/** How many workbenches this process started and the time their starts took (for the run's summary). */
export const workbenchStarts = { count: 0, ms: 0 };

/**
 * Mocha hooks for one workbench shared by the tests of a describe block: started in
 * `before`, a screenshot after each failed test, closed in `after`. Returns a getter.
 */
export function useWorkbench(options: WorkbenchOptions): () => Workbench {
  let workbench: Workbench | undefined;
  before(async function () {
    this.timeout(180_000);
    const started = Date.now();
    workbench = await Workbench.start(options);
    workbenchStarts.count++;
    workbenchStarts.ms += Date.now() - started;
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && workbench) {
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

// --- Notifications ---------------------------------------------------------------------------

/** The labels of a toast's buttons, in order. */
export async function notificationButtons(toast: Locator): Promise<string[]> {
  return (await toast.locator('.monaco-button').allInnerTexts()).map((t) => t.trim()).filter(Boolean);
}

/** Clicks the toast's button labelled exactly `label`. */
export async function clickNotificationButton(toast: Locator, label: string): Promise<void> {
  const button = toast.locator('.monaco-button', { hasText: new RegExp(`^${label}$`) }).first();
  await button.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  await button.click();
}

/**
 * Clears every toast, so the next wait finds a new one drawn in full. Hygiene only: a toast that
 * arrives meanwhile (a run finishing) is cleared by the next attempt, and no wait depends on the
 * toast area being empty.
 */
export async function clearNotifications(wb: Workbench): Promise<void> {
  const visible = wb.page.locator('.notifications-toasts .notification-toast:visible');
  for (let attempt = 0; attempt < 3; attempt++) {
    await wb.runCommand('Notifications: Clear All Notifications').catch(() => undefined);
    if (await waitUntil(async () => (await visible.count()) === 0, 3_000, 'the notifications to clear').then(() => true, () => false)) {
      return;
    }
  }
}
