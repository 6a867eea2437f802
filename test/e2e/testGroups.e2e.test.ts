// Test files → test groups, as a person does it: right-click a test file in the editor, and
// two files selected in the Explorer; drop an ID in the quick pick; name the group; the
// emulator's admin API then says exactly which ordered test IDs were stored.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator } from 'playwright-core';
import { paths } from '../support/paths';
import { waitUntil } from '../support/processes';
import { UI_TIMEOUT_MS, clearNotifications, clickNotificationButton, notificationButtons, useWorkbench, type Workbench } from './harness';
import { waitForStep } from './createSteps';

interface StoredGroup {
  groupId: string;
  appId: string;
  name: string;
  description: string | null;
  testIds: string[];
}

const FIXTURES = path.join(paths.repoRoot, 'test', 'fixtures', 'testfiles');
const fixture = (name: string): string => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

async function storedGroups(wb: Workbench): Promise<StoredGroup[]> {
  const res = await fetch(`${wb.emulator.adminUrl}/test-groups`);
  assert.equal(res.status, 200);
  return ((await res.json()) as { testGroups: StoredGroup[] }).testGroups;
}

async function waitForNewGroup(wb: Workbench, count: number): Promise<StoredGroup> {
  let groups: StoredGroup[] = [];
  await waitUntil(async () => (groups = await storedGroups(wb)).length > count, UI_TIMEOUT_MS, 'the emulator to store a new test group');
  assert.equal(groups.length, count + 1, 'exactly one group was created');
  const last = groups[groups.length - 1];
  assert.ok(last);
  return last;
}

/** Quick Open (Ctrl+P) a workspace file by name. */
async function openFile(wb: Workbench, name: string): Promise<void> {
  await wb.page.keyboard.press('Control+P');
  const input = wb.page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible' });
  await input.fill(name);
  // Enter only once the list shows this file first (not an earlier filter's result).
  const first = wb.page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: name }).first();
  await first.waitFor({ state: 'visible' });
  await input.press('Enter');
  await wb.page.locator(`.tabs-container .tab.active[aria-label^="${name}"]`).first().waitFor({ state: 'visible' });
  // The editor has focus and its text is drawn.
  await wb.page.locator('.editor-instance .monaco-editor .view-lines').first().waitFor({ state: 'visible' });
}

/** The items of the editor's context menu, then Escape. */
async function editorMenuItems(wb: Workbench): Promise<string[]> {
  await wb.page.locator('.editor-instance .monaco-editor .view-lines').first().click({ button: 'right', position: { x: 200, y: 40 } });
  const menu = wb.page.locator('.context-view .monaco-menu');
  await menu.waitFor({ state: 'visible' });
  const items = await menu.locator('.action-label').allInnerTexts();
  return items.map((t) => t.trim()).filter(Boolean);
}

async function chooseMenuItem(wb: Workbench, itemText: string): Promise<void> {
  await wb.chooseInOpenMenu(itemText);
}

function quickPickRow(wb: Workbench, label: string): Locator {
  return wb.page
    .locator('.quick-input-widget .monaco-list-row')
    .filter({ has: wb.page.locator('.label-name', { hasText: new RegExp(`^${label}$`) }) })
    .first();
}

/** Enter in the open quick input (accepts a multi-select pick too). */
async function pressEnterInQuickInput(wb: Workbench): Promise<void> {
  await wb.page.locator('.quick-input-widget .quick-input-box input').press('Enter');
}

describe('Test groups from test files (UI) [both versions]', function () {
  this.timeout(120_000);
  const workbench = useWorkbench({
    name: 'test-groups',
    settings: { 'agentRuns.appId': 'app_todo', 'workbench.startupEditor': 'none' },
    workspaceFiles: {
      'checkout.test.js': fixture('checkout.test.js'),
      'login.spec.yaml': fixture('login.spec.yaml'),
      'cart.test.json': fixture('cart.test.json'),
      'no-ids.test.js': fixture('no-ids.test.js'),
      'src/app.js': '// Not a test file: @testId APP-1 would be found, but the menu is not offered here.\n',
    },
  });

  before(async function () {
    this.timeout(60_000);
    // Menus contributed by the extension are there once the extension host has read it.
    await workbench().waitForExtensionActivation();
  });

  it('right-click a test file in the editor, drop one ID, create the group', async () => {
    const wb = workbench();
    const before = (await storedGroups(wb)).length;

    // Before any group: the view explains how to make one.
    await wb.openActivityBarView('Agent Runs');
    await wb.page.locator('.welcome-view-content', { hasText: 'No test groups yet' }).first().waitFor({ state: 'visible' });
    await wb.screenshot('test-groups-empty-view');
    await wb.openActivityBarView('Explorer');

    // Not offered on a file that is not a test file.
    await openFile(wb, 'app.js');
    const plain = await editorMenuItems(wb);
    assert.ok(!plain.includes('Create Test Group from File(s)'), `offered on src/app.js: ${plain.join(', ')}`);
    await wb.page.keyboard.press('Escape');

    await openFile(wb, 'checkout.test.js');
    const items = await editorMenuItems(wb);
    assert.ok(items.includes('Create Test Group from File(s)'), `not in the editor menu: ${items.join(', ')}`);
    assert.ok(items.includes('Start Agent Run for These Tests'));
    await wb.screenshot('test-groups-editor-menu');
    await chooseMenuItem(wb, 'Create Test Group from File(s)');

    await waitForStep(wb, 1);
    for (const id of ['CHK-001', 'CHK-002', 'CHK-003', 'CHK-004']) await quickPickRow(wb, id).waitFor({ state: 'visible' });
    await wb.screenshot('test-groups-pick-ids');
    // Uncheck CHK-002: clicking a row of a multi-select pick toggles it.
    await quickPickRow(wb, 'CHK-002').locator('.monaco-checkbox, input[type=checkbox]').first().click();
    await waitUntil(async () => {
      const checked = await quickPickRow(wb, 'CHK-002').getAttribute('aria-checked');
      return checked === 'false';
    }, UI_TIMEOUT_MS, 'CHK-002 to be unchecked');
    await pressEnterInQuickInput(wb);

    await waitForStep(wb, 2);
    assert.equal(await wb.page.locator('.quick-input-widget .quick-input-box input').inputValue(), 'checkout');
    await wb.typeInInput('Checkout smoke');
    await waitForStep(wb, 3);
    await pressEnterInQuickInput(wb);
    await waitForStep(wb, 4);
    await quickPickRow(wb, 'app_todo').waitFor({ state: 'visible' });
    await wb.screenshot('test-groups-app-id');
    await pressEnterInQuickInput(wb);

    const stored = await waitForNewGroup(wb, before);
    assert.deepEqual(stored.testIds, ['CHK-001', 'CHK-003', 'CHK-004']);
    assert.equal(stored.name, 'Checkout smoke');
    assert.equal(stored.description, null);
    assert.equal(stored.appId, 'app_todo');
    const toast = await wb.waitForNotification(stored.groupId);
    assert.ok((await toast.innerText()).includes('Copy ID'));
    await wb.screenshot('test-groups-created');
  });

  it('select two files in the Explorer, right-click, create the group in the order selected', async () => {
    const wb = workbench();
    const before = (await storedGroups(wb)).length;
    await wb.page.keyboard.press('Escape');
    await wb.openActivityBarView('Explorer');
    const explorerRow = (name: string): Locator =>
      wb.page.locator('.explorer-folders-view .monaco-list-row', { has: wb.page.locator('.label-name', { hasText: new RegExp(`^${name.replace(/\./g, '\\.')}$`) }) }).first();
    // login.spec.yaml first, then cart.test.json (which comes first in the tree).
    await explorerRow('login.spec.yaml').click();
    // The click opens a preview editor, whose reveal in the Explorer resets the selection:
    // let it land before extending the selection.
    await wb.page.locator('.tabs-container .tab.active[aria-label^="login.spec.yaml"]').first().waitFor({ state: 'visible' });
    await wb.page.waitForTimeout(300);
    await explorerRow('cart.test.json').click({ modifiers: ['Control'] });
    await waitUntil(async () => (await wb.page.locator('.explorer-folders-view .monaco-list-row.selected').count()) === 2, UI_TIMEOUT_MS, 'two selected Explorer rows');
    await wb.page.waitForTimeout(300);
    assert.equal(await wb.page.locator('.explorer-folders-view .monaco-list-row.selected').count(), 2, 'the selection held');
    await explorerRow('cart.test.json').click({ button: 'right' });
    const menu = wb.page.locator('.context-view .monaco-menu');
    await menu.waitFor({ state: 'visible' });
    await wb.screenshot('test-groups-explorer-menu');
    await chooseMenuItem(wb, 'Create Test Group from File(s)');

    await waitForStep(wb, 1);
    await quickPickRow(wb, 'LOGIN-001').waitFor({ state: 'visible' });
    await quickPickRow(wb, 'CART-003').waitFor({ state: 'visible' });
    await wb.screenshot('test-groups-explorer-pick');
    await pressEnterInQuickInput(wb);
    await waitForStep(wb, 2);
    const defaultName = await wb.page.locator('.quick-input-widget .quick-input-box input').inputValue();
    await pressEnterInQuickInput(wb);
    await waitForStep(wb, 3);
    await wb.typeInInput('Login and cart, from the Explorer');
    await waitForStep(wb, 4);
    await pressEnterInQuickInput(wb);

    const stored = await waitForNewGroup(wb, before);
    // The order of the files is the order the editor hands the selection over.
    const login = ['LOGIN-001', 'LOGIN-002', 'LOGIN-003'];
    const cart = ['CART-001', 'CART-002', 'CART-003'];
    assert.ok(
      JSON.stringify(stored.testIds) === JSON.stringify([...login, ...cart]),
      `stored ${JSON.stringify(stored.testIds)} (default name "${defaultName}")`,
    );
    assert.equal(stored.name, defaultName);
    assert.equal(stored.description, 'Login and cart, from the Explorer');
    await wb.waitForNotification(stored.groupId);
  });

  it('Start Agent Run for These Tests opens the launch form with the files and their IDs', async () => {
    const wb = workbench();
    await wb.page.keyboard.press('Escape');
    await wb.openActivityBarView('Explorer');
    await wb.contextMenu(/^checkout\.test\.js/, 'Start Agent Run for These Tests');
    const widget = wb.page.locator('.quick-input-widget');
    await widget.waitFor({ state: 'visible' });
    await wb.page.waitForTimeout(500);
    await wb.screenshot('test-groups-start-run');
    const shown = await widget.innerText();
    assert.match(shown, /Start Agent Run/i, `the launch form did not open: ${shown}`);
    // Back to the prompt step: it holds the file and its IDs.
    let prompt = '';
    await waitUntil(async () => {
      const value = await widget.locator('.quick-input-box input, .quick-input-box textarea').first().inputValue().catch(() => '');
      if (value.includes('checkout.test.js')) {
        prompt = value;
        return true;
      }
      await widget.locator('.codicon-quick-input-back, .codicon-arrow-left').first().click().catch(() => undefined);
      await wb.page.waitForTimeout(200);
      return false;
    }, UI_TIMEOUT_MS, 'the prompt step of the launch form');
    await wb.screenshot('test-groups-start-run-prompt');
    await wb.closeQuickInput();
    assert.match(prompt, /checkout\.test\.js[\s\S]*CHK-001, CHK-002, CHK-003, CHK-004/);
  });

  it('is not offered in the Explorer on a file that is not a test file', async () => {
    const wb = workbench();
    await wb.page.keyboard.press('Escape');
    const appRow = wb.page.locator('.explorer-folders-view .monaco-list-row', { has: wb.page.locator('.label-name', { hasText: /^app\.js$/ }) }).first();
    if (!(await appRow.isVisible())) {
      // Expand src/ (opening app.js earlier may already have revealed it).
      await wb.page.locator('.explorer-folders-view .monaco-list-row', { has: wb.page.locator('.label-name', { hasText: /^src$/ }) }).first().click();
    }
    await appRow.waitFor({ state: 'visible' });
    await appRow.click();
    await appRow.click({ button: 'right' });
    const menu = wb.page.locator('.context-view .monaco-menu');
    await menu.waitFor({ state: 'visible' });
    const items = (await menu.locator('.action-label').allInnerTexts()).map((t) => t.trim());
    await wb.page.keyboard.press('Escape');
    assert.ok(!items.includes('Create Test Group from File(s)'), `offered on src/app.js: ${items.join(', ')}`);
  });

  it('says which file has no test IDs and sends nothing', async () => {
    const wb = workbench();
    const before = (await storedGroups(wb)).length;
    await openFile(wb, 'no-ids.test.js');
    await editorMenuItems(wb);
    await chooseMenuItem(wb, 'Create Test Group from File(s)');
    const toast = await wb.waitForNotification('No test IDs found in no-ids.test.js');
    await wb.screenshot('test-groups-no-ids');
    await toast.locator('.codicon-notifications-clear, .codicon-close').first().click().catch(() => undefined);
    assert.equal((await storedGroups(wb)).length, before);
  });

  it('a failed POST is not retried on its own; Retry sends the same group once more', async () => {
    const wb = workbench();
    const before = (await storedGroups(wb)).length;
    await clearNotifications(wb);
    wb.emulator.inject({ method: 'POST', path: '^/test-groups$', status: 503, body: '{"error":"Service unavailable"}', times: 1 });
    const postsBefore = wb.emulator.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/test-groups')).length;
    await openFile(wb, 'cart.test.json');
    await editorMenuItems(wb);
    await chooseMenuItem(wb, 'Create Test Group from File(s)');
    await waitForStep(wb, 1);
    await pressEnterInQuickInput(wb);
    await waitForStep(wb, 2);
    await wb.typeInInput('Cart after an outage');
    await waitForStep(wb, 3);
    await pressEnterInQuickInput(wb);
    await waitForStep(wb, 4);
    await pressEnterInQuickInput(wb);
    const toast = await wb.waitForNotification(/Test group “Cart after an outage” was not created\..*(503|unavailable)/i);
    await toast.locator('.monaco-button', { hasText: /^Retry$/ }).waitFor({ state: 'visible' });
    await wb.page.waitForTimeout(300);
    await wb.screenshot('test-groups-post-failed');
    const posts = (): number => wb.emulator.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/test-groups')).length - postsBefore;
    assert.equal(posts(), 1);
    assert.equal((await storedGroups(wb)).length, before);
    await toast.locator('.monaco-button', { hasText: /^Retry$/ }).click();
    const stored = await waitForNewGroup(wb, before);
    assert.equal(posts(), 2);
    assert.equal(stored.name, 'Cart after an outage');
    assert.deepEqual(stored.testIds, ['CART-001', 'CART-002', 'CART-003']);
  });

  it('a refused app ID: Edit reopens the steps with every input kept', async () => {
    const wb = workbench();
    const before = (await storedGroups(wb)).length;
    await clearNotifications(wb);
    await openFile(wb, 'login.spec.yaml');
    await editorMenuItems(wb);
    await chooseMenuItem(wb, 'Create Test Group from File(s)');
    await waitForStep(wb, 1);
    await pressEnterInQuickInput(wb);
    await waitForStep(wb, 2);
    await wb.typeInInput('Login on the draft app');
    await waitForStep(wb, 3);
    await wb.typeInInput('Kept after Edit');
    await waitForStep(wb, 4);
    // app_draft is in the workspace but not verified: the service refuses it.
    await wb.typeInInput('app_draft');
    const toast = await wb.waitForNotification('Test group “Login on the draft app” was not created.');
    await toast.locator('.monaco-button', { hasText: /^Edit$/ }).waitFor({ state: 'visible' });
    await wb.page.waitForTimeout(300);
    await wb.screenshot('test-groups-refused-app');
    assert.equal((await storedGroups(wb)).length, before);
    await toast.locator('.monaco-button', { hasText: /^Edit$/ }).click();
    // Every step comes back with what was typed.
    await waitForStep(wb, 1);
    await pressEnterInQuickInput(wb);
    await waitForStep(wb, 2);
    assert.equal(await wb.page.locator('.quick-input-widget .quick-input-box input').inputValue(), 'Login on the draft app');
    await pressEnterInQuickInput(wb);
    await waitForStep(wb, 3);
    assert.equal(await wb.page.locator('.quick-input-widget .quick-input-box input').inputValue(), 'Kept after Edit');
    await pressEnterInQuickInput(wb);
    await waitForStep(wb, 4);
    assert.equal(await wb.page.locator('.quick-input-widget .quick-input-box input').inputValue(), 'app_draft');
    await wb.typeInInput('app_shop');
    const stored = await waitForNewGroup(wb, before);
    assert.equal(stored.appId, 'app_shop');
    assert.equal(stored.name, 'Login on the draft app');
    assert.equal(stored.description, 'Kept after Edit');
    assert.deepEqual(stored.testIds, ['LOGIN-001', 'LOGIN-002', 'LOGIN-003']);
  });

  it('lists the created groups in the Test Groups view with Copy ID', async () => {
    const wb = workbench();
    await wb.openActivityBarView('Agent Runs');
    const row = await wb.waitForTreeRow('Checkout smoke');
    const parts = await wb.treeRowParts(row);
    assert.equal(parts.label, 'Checkout smoke');
    assert.match(parts.description, /^app_todo · 3 tests · tg/);
    await wb.waitForTreeRow('Cart after an outage');
    await wb.screenshot('test-groups-view');
    await wb.contextMenu('Checkout smoke', 'Copy ID');
    await wb.page.locator('.statusbar', { hasText: 'Copied test group ID' }).waitFor({ state: 'visible' });
  });
});

describe('Create a test group with a revoked token: the shared 401 gate (UI)', function () {
  this.timeout(180_000);
  const workbench = useWorkbench({
    name: 'test-groups-revoked',
    signedIn: 'revoked',
    settings: { 'agentRuns.appId': 'app_todo', 'workbench.startupEditor': 'none' },
    workspaceFiles: { 'checkout.test.js': fixture('checkout.test.js') },
  });

  before(async function () {
    this.timeout(60_000);
    await workbench().waitForExtensionActivation();
  });

  it('one prompt (the command\'s own), polling paused; after Set API Token, Retry sends the same group once more with the new token', async () => {
    const wb = workbench();
    const before = (await storedGroups(wb)).length;
    const posts = (): { body: unknown; status?: number; authorization?: string }[] => wb.emulator.requests
      .filter((r) => r.method === 'POST' && r.path.endsWith('/test-groups'))
      .map((r) => ({ body: JSON.parse(r.body) as unknown, status: r.status, authorization: r.headers.authorization }));
    const rejectedItem = wb.page.locator('.statusbar-item', { hasText: 'Agent Runs: token rejected' });
    const gatePrompt = wb.page.locator('.notifications-toasts .notification-toast', { hasText: /rejected the API token: it may have been revoked/ });
    const refusedText = /Test group “Checkout, revoked token” was not created: the service refused the API token \(401\)/;

    await openFile(wb, 'checkout.test.js');
    await editorMenuItems(wb);
    await chooseMenuItem(wb, 'Create Test Group from File(s)');
    await waitForStep(wb, 1);
    await pressEnterInQuickInput(wb);
    await waitForStep(wb, 2);
    await wb.typeInInput('Checkout, revoked token');
    await waitForStep(wb, 3);
    await wb.typeInInput('Sent again after Set API Token');
    await waitForStep(wb, 4);
    await pressEnterInQuickInput(wb);

    const refused = await wb.waitForNotification(refusedText);
    assert.deepEqual(await notificationButtons(refused), ['Set API Token', 'Retry', 'Edit']);
    // The gate knows: the status bar says so (polling is paused) ...
    await rejectedItem.first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    // ... and it shows no prompt of its own: one message, not two.
    await wb.page.waitForTimeout(2_000);
    assert.equal(await gatePrompt.count(), 0, 'the gate prompted too');
    assert.equal(await wb.page.locator('.notifications-toasts .notification-toast', { hasText: refusedText }).count(), 1);
    // Sent once, not again on its own.
    assert.deepEqual(posts().map((p) => [p.status, p.authorization]), [[401, `Bearer ${wb.emulator.tokens.revoked}`]]);
    assert.equal((await storedGroups(wb)).length, before);
    await wb.page.mouse.move(5, 600);
    await wb.screenshot('test-groups-revoked-401');

    await clickNotificationButton(refused, 'Set API Token');
    await wb.typeInInput(wb.emulator.tokens.default, { prompt: /API token/ });
    const resume = await wb.waitForNotification(/Create test group “Checkout, revoked token” now\? Your inputs are kept\./);
    assert.deepEqual(await notificationButtons(resume), ['Retry', 'Edit']);
    await rejectedItem.first().waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
    // Setting the token sent nothing.
    assert.equal(posts().length, 1);
    await clickNotificationButton(resume, 'Retry');

    const stored = await waitForNewGroup(wb, before);
    assert.equal(stored.name, 'Checkout, revoked token');
    assert.equal(stored.description, 'Sent again after Set API Token');
    assert.equal(stored.appId, 'app_todo');
    assert.deepEqual(stored.testIds, ['CHK-001', 'CHK-002', 'CHK-003', 'CHK-004']);
    await wb.waitForNotification(stored.groupId);
    const sent = posts();
    assert.equal(sent.length, 2, 'exactly one more POST');
    assert.deepEqual(sent.map((p) => p.status), [401, 201]);
    assert.deepEqual(sent[1]?.body, sent[0]?.body, 'Retry sends the same inputs');
    assert.deepEqual(sent.map((p) => p.authorization), [`Bearer ${wb.emulator.tokens.revoked}`, `Bearer ${wb.emulator.tokens.default}`], 'the retry used the new token');
    assert.equal(await gatePrompt.count(), 0, 'the gate prompted');
  });
});
