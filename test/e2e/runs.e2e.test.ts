// A person's first session with Agent Runs: signed out, the welcome view, the token through
// the palette's password box, a run tracked by ID, its row going to completed, the
// completion notification, and the run still there after a reload; a run left unfinished at a
// reload followed without the view.
import * as assert from 'node:assert/strict';
import { UI_TIMEOUT_MS, clickNotificationButton, useWorkbench, type Workbench } from './harness';
import { startRunOnService } from './service';
import { adminOk } from '../emulator/testing';


/**
 * Headless Chromium reports the page as unfocused, so the editor (rightly) polls at the slow
 * "window not focused" cadence. A person at the keyboard has the window focused: emulate it.
 */
async function emulateFocus(wb: Workbench): Promise<void> {
  const cdp = await wb.page.context().newCDPSession(wb.page);
  await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: true });
  // Strings, not functions: this file is compiled without the DOM library.
  await wb.page.evaluate("window.dispatchEvent(new FocusEvent('focus'))");
  assert.equal(await wb.page.evaluate('document.hasFocus()'), true, 'focus emulation did not take');
}

/** The editor tabs of run panels. */
function runPanelTabs(wb: Workbench) {
  return wb.page.locator('.tabs-container .tab', { hasText: /^Run: / });
}

/** Closes the run panels' editor tabs with their close buttons, as a person would. */
async function closeRunPanels(wb: Workbench): Promise<void> {
  const tabs = runPanelTabs(wb);
  while ((await tabs.count()) > 0) {
    const tab = tabs.first();
    await tab.hover();
    await tab.locator('.tab-actions .action-label').first().click();
    await wb.page.waitForTimeout(200);
  }
}

/** A run row's status as a person meets it: its icon's codicon, and the words a screen reader reads. */
async function rowStatus(wb: Workbench, rowText: string): Promise<string> {
  const row = wb.treeRow(rowText);
  const icon = (await row.locator('.custom-view-tree-node-item-icon').first().getAttribute('class').catch(() => null)) ?? '';
  const aria = (await row.getAttribute('aria-label').catch(() => null)) ?? '';
  return `${/codicon-[a-z-]+/.exec(icon)?.[0] ?? 'no-icon'} | ${aria}`;
}

/** Waits until the row's icon and its accessible label both match (e.g. `codicon-pass`, `completed`). */
async function waitForStatus(wb: Workbench, rowText: string, icon: RegExp, words: RegExp, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  let last = '';
  while (Date.now() - started < timeoutMs) {
    last = await rowStatus(wb, rowText);
    const [iconPart, aria] = last.split(' | ');
    if (icon.test(iconPart) && words.test(aria)) {
      return;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`The row "${rowText}" never showed ${String(icon)} and ${String(words)} (last: "${last}")`);
}

/** The welcome text of the Runs view (viewsWelcome renders into .welcome-view-content). */
function welcome(wb: Workbench) {
  return wb.page.locator('.pane-body .welcome-view-content').first();
}

describe('Runs view: sign in, follow a run, reload', function () {
  this.timeout(120_000);
  const workbench = useWorkbench({
    name: 'runs',
    signedIn: false,
    // Slow enough to watch: a [[slow]] run takes about 31 steps.
    stepMs: 400,
    settings: { 'agentRuns.polling.backgroundSeconds': 5, 'agentRuns.notifications': 'all', 'workbench.colorTheme': 'Default Dark Modern' },
  });
  const prompt = 'Add input validation to the signup form [[slow]]';
  const label = 'Add input validation to the signup form [[slow]]';

  it('shows welcome content with a Set API Token link when signed out', async () => {
    const wb = workbench();
    await emulateFocus(wb);
    await wb.openActivityBarView('Agent Runs');
    await welcome(wb).waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await wb.page.locator('.welcome-view-content a, .welcome-view-content .monaco-button', { hasText: 'Set API Token' }).first().waitFor({ state: 'visible' });
    assert.match(await welcome(wb).innerText(), /API token/i);
    await wb.screenshot('runs-signed-out-welcome');
  });

  it('takes the token through the palette in a password box, refusing whitespace', async () => {
    const wb = workbench();
    await wb.runCommand('Agent Runs: Set API Token');
    const input = wb.page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible' });
    assert.equal(await input.getAttribute('type'), 'password');
    await wb.typeInInput('agr_abc def', { submit: false });
    await wb.page.locator('.quick-input-widget .quick-input-message', { hasText: /spaces/ }).waitFor({ state: 'visible' });
    await wb.screenshot('runs-token-input-invalid');
    await wb.typeInInput(wb.emulator.tokens.default);
    await wb.waitForNotification(/API token saved/);
    // Signed in, no runs yet: the next welcome offers to start or track one.
    await wb.page.locator('.welcome-view-content', { hasText: /No runs yet/ }).first().waitFor({ state: 'visible' });
    await wb.screenshot('runs-signed-in-empty');
    const log = wb.readOutputLog('Agent Runs');
    assert.ok(!log.includes(wb.emulator.tokens.default), 'the token reached the log');
  });

  it('tracks a run by ID and shows it going to completed, with a notification', async () => {
    const wb = workbench();
    const agentId = await startRunOnService(wb, prompt, { model: 'hosted/balanced', reasoningEffort: 'high' });
    await wb.runCommand('Agent Runs: Track Run by ID…');
    await wb.typeInInput(agentId, { prompt: /agent ID/i });
    const row = await wb.waitForTreeRow(label);
    const first = await wb.treeRowParts(row);
    // The title has the row; the description is the age: status is the icon, the model in the tooltip.
    assert.equal(first.label, label);
    assert.match(first.description, /^(now|\d+ s|\d+ min)$/);
    await waitForStatus(wb, label, /codicon-(clock|loading)/, /, (queued|running), /);
    await wb.screenshot('runs-tracked-running');
    // Look away from the panel, so the completion is announced: close its tab. Track Run
    // opens the panel after it revealed the row, so the tab may not be there yet.
    await runPanelTabs(wb).first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await closeRunPanels(wb);
    const toast = await wb.waitForNotification(/Agent run completed/, 60_000);
    await waitForStatus(wb, label, /codicon-pass/, /, completed, /);
    await wb.screenshot('runs-completed-notification');
    // Its Open shows the run's panel; closed again, so the next completion is announced too.
    await clickNotificationButton(toast, 'Open');
    await runPanelTabs(wb).first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await closeRunPanels(wb);
    // The tooltip: untrusted markdown with the run's facts.
    await wb.treeRow(label).locator('.label-name').hover();
    const hover = wb.page.locator('.monaco-hover .hover-contents, .workbench-hover .hover-contents').first();
    await hover.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const tip = await hover.innerText();
    assert.match(tip, /Model:\shosted\/balanced/);
    assert.match(tip, /Reasoning\seffort:\shigh/);
    await wb.screenshot('runs-tooltip');
    await wb.page.mouse.move(700, 500);
    // The app group and the tooltip's facts.
    await wb.waitForTreeRow('app_todo');
  });

  it('keeps the run after a window reload', async () => {
    const wb = workbench();
    await wb.reloadWindow(30_000);
    await emulateFocus(wb);
    await wb.openActivityBarView('Agent Runs');
    await wb.waitForTreeRow(label, 30_000);
    await waitForStatus(wb, label, /codicon-pass/, /, completed, /, 1_000);
    await wb.screenshot('runs-after-reload');
  });

  it('sends a follow-up from the row and follows the run again', async () => {
    const wb = workbench();
    await wb.contextMenu(label, 'Send Follow-up…');
    await wb.typeInInput('Now add tests for the validation', { prompt: /Follow-up for/ });
    await waitForStatus(wb, label, /codicon-(clock|loading)/, /, (queued|running), /);
    await wb.waitForNotification(/Agent run completed/, 60_000);
    await waitForStatus(wb, label, /codicon-pass/, /, completed, /);
    await wb.screenshot('runs-after-follow-up');
  });

  it('removes the run from the list through its context menu', async () => {
    const wb = workbench();
    await wb.contextMenu(label, 'Remove from List');
    await wb.page.locator('.welcome-view-content', { hasText: /No runs yet/ }).first().waitFor({ state: 'visible' });
  });

  // The run model is built on first need, not at activation: a run unfinished at a reload is
  // followed all the same, with nothing of Agent Runs on screen.
  it('follows a run left unfinished at a reload without the Runs view being opened', async () => {
    const wb = workbench();
    const agentId = await startRunOnService(wb, 'Rename the settings page');
    // Halted before its first message, the run is listed by its ID.
    const unfinished = agentId;
    // Halted at running until the test says otherwise (the emulator's admin API).
    await patchRunOnService(wb, agentId, { status: 'running' });
    await wb.runCommand('Agent Runs: Track Run by ID…');
    await wb.typeInInput(agentId, { prompt: /agent ID/i });
    await waitForStatus(wb, unfinished, /codicon-(clock|loading)/, /, running, /);
    await runPanelTabs(wb).first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await closeRunPanels(wb);
    await wb.openActivityBarView('Explorer');
    await wb.reloadWindow(30_000);
    await emulateFocus(wb);
    await patchRunOnService(wb, agentId, { status: 'completed', completedAt: 'now', updatedAt: 'now' });
    await wb.waitForNotification(/Agent run completed/, 60_000);
    await wb.openActivityBarView('Agent Runs');
    await waitForStatus(wb, unfinished, /codicon-pass/, /, completed, /);
  });
});

/** Forces a run's fields on the emulator (`PATCH /__admin/agents/:id`): a `status` halts the run there. */
async function patchRunOnService(wb: Workbench, agentId: string, fields: Readonly<Record<string, unknown>>): Promise<void> {
  await adminOk(wb.emulator.adminUrl, 'PATCH', `/agents/${agentId}`, fields);
}
