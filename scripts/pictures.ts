// Retakes the README's pictures (docs/screenshots/) from the demo's content: one workbench on
// the emulator's deployed profile, driven through the UI harness's public methods the way a
// person clicks. A run started from the form (its model step pictured), its panel in a dark and
// a light theme, a code review's panel, and the app's tests after a run in the Testing view.
//
//   npm run pictures [-- --vscode minimum]
//     --vscode minimum: VS Code 1.100 (the tests' install) instead of today's (the README shows today's)
//
// Each picture is saved in test-results/screenshots/ and copied over its docs/screenshots/ file.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { testAdmin } from '../test/emulator/testing';
import { escapeRegExp } from '../test/e2e/dialog';
import { atStep, enter, pick, quickInput } from '../test/e2e/formSteps';
import { clearNotifications, clickNotificationButton, UI_TIMEOUT_MS, Workbench } from '../test/e2e/harness';
import { launcherLog, runLauncher } from '../test/support/launcher';
import { paths, takeVsCodeFlag, VSCODE_FLAVOUR_ENV } from '../test/support/paths';
import { waitUntil } from '../test/support/processes';

const APP = 'app_todo';
const PROMPT = 'Add a dark mode toggle to the Settings page';
const BRANCH = 'feature/dark-mode';
/** A review and a test run take a few dozen of the emulator's steps. */
const SERVICE_TIMEOUT_MS = 120_000;
const DOCS = path.join(paths.repoRoot, 'docs', 'screenshots');

const log = launcherLog('pictures');

/** A row's label exactly, its icon aside. */
function exactly(label: string): RegExp {
  return new RegExp(`^\\s*${escapeRegExp(label)}\\s*$`);
}

/** A picture of the whole window, no toast and no hover on it, copied to docs/screenshots/<name>.png. */
async function picture(wb: Workbench, name: string): Promise<void> {
  await wb.page.mouse.move(700, 895);
  await wb.page.locator('.monaco-hover:visible, .workbench-hover:visible').first().waitFor({ state: 'hidden', timeout: 3_000 }).catch(() => undefined);
  // A fade (the quick input's, a toast's leaving) drawn half-way would show dimmed text. A
  // string, not a function: this file is compiled without the DOM library.
  const still = `document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity)`;
  await wb.page.waitForFunction(still, undefined, { timeout: UI_TIMEOUT_MS, polling: 100 });
  const shot = await wb.screenshot(name);
  fs.copyFileSync(shot, path.join(DOCS, `${name}.png`));
  log(`docs/screenshots/${name}.png`);
}

/** The form as a person fills it: the app offered, the prompt, a model (its step pictured), edits allowed on one branch. */
async function startRun(wb: Workbench): Promise<void> {
  const step = (label: string) => new RegExp(`Start Agent Run(?: \\([^)]*\\))?: ${label}\\b`);
  await wb.runCommand('Agent Runs: Start Agent Run…');
  await enter(wb, step('App ID'));
  await atStep(wb, step('Prompt'));
  await wb.typeInInput(PROMPT);
  await atStep(wb, step('Model'));
  const placeholder = () => quickInput(wb).locator('.quick-input-box input').getAttribute('placeholder').then((p) => p ?? '');
  await waitUntil(async () => (await placeholder()).includes('offered by the service'), UI_TIMEOUT_MS, 'the models the service offers');
  await picture(wb, 'launch-3-model');
  await pick(wb, step('Model'), /^\s*hosted\/balanced\b/);
  await pick(wb, step('Review'), exactly('Permission'));
  await pick(wb, step('Permission'), exactly('allow_edits'));
  await pick(wb, step('Review'), exactly('Permitted branches'));
  await atStep(wb, step('Permitted branches'));
  await wb.typeInInput(BRANCH);
  await pick(wb, step('Review'), exactly('Start Agent Run'));
  const dialog = wb.page.locator('.monaco-dialog-box');
  await dialog.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  await dialog.locator('.monaco-button', { hasText: 'Allow Edits and Start' }).click();
}

/** The run's panel, opened from the toast, once the agent's turn has ended. */
async function runPanel(wb: Workbench): Promise<void> {
  const toast = await wb.waitForNotification(/Agent run started on app_todo/);
  await clickNotificationButton(toast, 'Open');
  const frame = await wb.webviewFrameWith('.run-bar');
  await frame.locator('.status-badge', { hasText: 'Completed' }).waitFor({ state: 'visible', timeout: SERVICE_TIMEOUT_MS });
  await wb.waitForTreeRow(PROMPT);
  await clearNotifications(wb);
  await picture(wb, 'run-panel');
  await toggleTheme(wb, 'light');
  await picture(wb, 'run-panel-light');
  await toggleTheme(wb, 'dark');
}

/** Switches between the preferred dark and light themes (Default Dark/Light Modern) with VS Code's own command. */
async function toggleTheme(wb: Workbench, to: 'dark' | 'light'): Promise<void> {
  await wb.runCommand('Preferences: Toggle between Light/Dark Themes');
  const dark = async () => ((await wb.page.locator('.monaco-workbench').first().getAttribute('class')) ?? '').split(/\s+/).includes('vs-dark');
  await waitUntil(async () => (await dark()) === (to === 'dark'), UI_TIMEOUT_MS, `the ${to} theme`);
  // The webviews repaint with the theme's colours a moment after the workbench.
  const themed = `document.body.classList.contains('vscode-${to}')`;
  await wb.webviewFrame(async (f) => (await f.locator('.run-bar').count()) > 0 && (await f.evaluate(themed)) === true);
}

/** A feature branch reviewed against main, as reviews.e2e.test.ts starts one; its panel on the Changes tab. */
async function reviewPanel(wb: Workbench): Promise<void> {
  await wb.runCommand('View: Close All Editors');
  await wb.runCommand('Start Code Review…');
  await enter(wb, /: App ID\b/);
  for (const [side, branch, entry] of [
    ['Source', 'feature/request-timeouts', /^\s*(Request timeouts \()?feature\/request-timeouts\)?\s*$/],
    ['Target', 'main', /^\s*(Main \()?main\)?\s*$/],
  ] as const) {
    await atStep(wb, new RegExp(`: ${side} branch\\b`));
    await wb.typeInInput(branch, { submit: false });
    await wb.quickPickSelect(exactly(branch));
    await pick(wb, new RegExp(`: ${side}(?! branch)\\b`), entry);
  }
  for (const step of [/: Title\b/, /: Description\b/, /: Focus areas\b/, /: Model\b/, /: Review\b/]) await enter(wb, step);
  await wb.waitForNotification(/Code review started on app_todo/);
  const frame = await wb.webviewFrameWith('.review-tab', SERVICE_TIMEOUT_MS);
  const count = async (tab: string) => Number(/\((\d+)\)/.exec((await frame.locator(`.review-tab[data-tab="${tab}"]`).textContent().catch(() => '')) ?? '')?.[1] ?? -1);
  await waitUntil(async () => (await count('changes')) > 0 && (await count('tests')) > 0 && (await count('thread')) > 0, SERVICE_TIMEOUT_MS, 'changes, tests and a thread in the review');
  await frame.locator('.review-tab[data-tab="changes"]').click();
  await waitUntil(async () => (await frame.locator('.review-tab[aria-selected="true"]').getAttribute('data-tab')) === 'changes', UI_TIMEOUT_MS, 'the Changes tab');
  await clearNotifications(wb);
  await picture(wb, 'review-panel');
}

/** The row of the Testing view expanded (its twistie), if it is not. */
async function expand(wb: Workbench, text: string | RegExp): Promise<void> {
  const row = await wb.waitForTreeRow(text);
  if ((await row.getAttribute('aria-expanded')) === 'false') await row.locator('.monaco-tl-twistie').click();
}

/** One of the app's tests run from its row in the Testing view on main, its steps' results expanded (as serviceTests.e2e.test.ts). */
async function serviceTestRun(wb: Workbench): Promise<void> {
  await wb.runCommand('View: Close All Editors');
  await testAdmin(wb.emulator.adminUrl).setWider('B');
  await wb.openActivityBarView('Testing');
  // The tests' rows say who they sign in as: wide enough to read them whole.
  await wb.widenSideBar(220);
  await expand(wb, APP);
  const row = await wb.waitForTreeRow('Filter completed todos');
  await row.hover();
  await row.locator('.codicon-testing-run-icon').first().click({ timeout: UI_TIMEOUT_MS });
  const w = quickInput(wb);
  await waitUntil(async () => (await w.locator('.quick-input-list .monaco-list-row.focused').count()) > 0, UI_TIMEOUT_MS, 'a branch to pick');
  await w.locator('.quick-input-box input').fill('main');
  await waitUntil(async () => (await w.locator('.quick-input-list .monaco-list-row.focused').innerText()).startsWith('main'), UI_TIMEOUT_MS, 'main to be offered first');
  await w.locator('.quick-input-box input').press('Enter');
  await waitUntil(async () => (await row.locator('.codicon-testing-passed-icon').count()) > 0, SERVICE_TIMEOUT_MS, 'the test to pass');
  for (const step of ['Filter completed todos', /^If: /, 'if not met', 'if met']) await expand(wb, step);
  await clearNotifications(wb);
  await picture(wb, 'service-test-run');
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  // Today's VS Code unless asked otherwise, as the demo.
  if (!argv.includes('--vscode') && process.env[VSCODE_FLAVOUR_ENV] === undefined) {
    process.env[VSCODE_FLAVOUR_ENV] = 'latest';
  }
  log(`VS Code ${takeVsCodeFlag(argv)}`);
  const wb = await Workbench.start({
    name: 'pictures',
    preset: 'deployed',
    // Slow enough that the panel follows the run as it goes, quick enough for a review.
    stepMs: 300,
    settings: {
      'agentRuns.appId': APP,
      'agentRuns.notifications': 'off',
      'workbench.colorTheme': 'Default Dark Modern',
      'workbench.preferredDarkColorTheme': 'Default Dark Modern',
      'workbench.preferredLightColorTheme': 'Default Light Modern',
      'workbench.startupEditor': 'none',
      // The Testing view holds the results; the Test Results panel, opened on a run, would wrap
      // its text mid-word beside the widened view.
      'testing.openTesting': 'neverOpen',
      // VS Code's own chat stays closed: the pictures are about this extension.
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
    },
    workspaceFiles: {
      'README.md': '# Agent Runs demo\n\nOpen the Agent Runs view in the activity bar to start and follow runs.\n',
    },
  });
  try {
    await wb.waitForExtensionActivation(90_000);
    await wb.openActivityBarView('Agent Runs');
    // Wide enough for the run's title in the Runs view.
    await wb.widenSideBar(130);
    await startRun(wb);
    await runPanel(wb);
    await reviewPanel(wb);
    await serviceTestRun(wb);
  } catch (error) {
    await wb.screenshot('FAILED-pictures').catch(() => undefined);
    throw error;
  } finally {
    await wb.close();
  }
  return 0;
}

runLauncher(log, main);
