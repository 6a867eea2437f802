// The service's test groups and automations as a person uses them in the real workbench (issue
// 22 §2, §3). Against the emulator's deployed profile: the Test Groups view lists the app's
// groups with their counts and opens one to its members; Rename, Edit Tests and Delete from a
// group's context menu each send one request and the row follows; under the app's row in the
// Runs view, "Automations" opens to the app's automations, and Run Now on one that runs by hand
// (confirmed) sends one POST, says "queued", and the row later shows the new last run. Against
// the reference profile none of it shows, and nothing of it is asked of the service.
import * as assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { waitUntil } from '../support/processes';
import { answerDialog, escapeRegExp } from './dialog';
import { startRunOnService } from './service';
import { UI_TIMEOUT_MS, useWorkbench, type Workbench } from './harness';

const SMOKE = 'tg_todo_smoke';
const REGRESSION = 'tg_todo_regression';
const T = { add: 'tst_todo_add', filter: 'tst_todo_filter', remove: 'tst_todo_delete', component: 'cmp_todo_sign_in' };
const RELEASE_NOTES = 'aut_todo_release_notes';


/** The view pane (Runs, Test Groups) whose header reads `title`. */
function pane(wb: Workbench, title: string): Locator {
  return wb.page.locator('.pane').filter({ has: wb.page.locator('.pane-header .title', { hasText: new RegExp(`^${escapeRegExp(title)}$`, 'i') }) });
}

/** The row of `view` labelled exactly `label` (not one that merely contains it). */
function row(wb: Workbench, view: string, label: string): Locator {
  return pane(wb, view).locator('.monaco-list-row').filter({ has: wb.page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(label)}$`) }) });
}

async function visibleRow(wb: Workbench, view: string, label: string, timeoutMs = UI_TIMEOUT_MS): Promise<Locator> {
  const r = row(wb, view, label).first();
  await r.waitFor({ state: 'visible', timeout: timeoutMs }).catch((error: unknown) => {
    throw new Error(`No row "${label}" in the ${view} view: ${String(error)}`);
  });
  return r;
}

async function description(r: Locator): Promise<string> {
  return (await r.locator('.label-description').first().innerText().catch(() => '')).trim();
}

async function waitForDescription(wb: Workbench, view: string, label: string, expected: RegExp, timeoutMs = UI_TIMEOUT_MS): Promise<string> {
  let last = '';
  await waitUntil(async () => expected.test(last = await description(row(wb, view, label).first())), timeoutMs,
    `the ${view} row "${label}" to read ${String(expected)} (it reads "${last}")`);
  return last;
}

/** Right-clicks the view's row and chooses `item` in its context menu. */
async function rowMenu(wb: Workbench, view: string, label: string, item: string): Promise<void> {
  await (await visibleRow(wb, view, label)).click({ button: 'right' });
  await wb.chooseInOpenMenu(item);
}


function pickRow(wb: Workbench, label: string): Locator {
  return wb.page.locator('.quick-input-widget .monaco-list-row').filter({ has: wb.page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(label)}$`) }) }).first();
}

function sent(wb: Workbench, method: string, path: RegExp): Array<{ body: unknown; status?: number }> {
  return wb.emulator.requests
    .filter((r) => r.method === method && path.test(r.path.split('?')[0] ?? ''))
    .map((r) => ({ body: r.body === '' ? undefined : (JSON.parse(r.body) as unknown), ...(r.status === undefined ? {} : { status: r.status }) }));
}

async function waitForSent(wb: Workbench, method: string, path: RegExp, count: number): Promise<Array<{ body: unknown; status?: number }>> {
  await waitUntil(() => sent(wb, method, path).every((r) => r.status !== undefined) && sent(wb, method, path).length >= count,
    UI_TIMEOUT_MS, `${count} answered ${method} ${String(path)}`);
  return sent(wb, method, path);
}

describe('UI: the service\'s test groups and automations (deployed profile)', function () {
  this.timeout(120_000);
  const workbench = useWorkbench({ name: 'service-groups', preset: 'deployed', settings: { 'agentRuns.appId': 'app_todo', 'workbench.startupEditor': 'none' } });

  it('lists the app\'s groups with their counts and opens one to its members', async () => {
    const wb = workbench();
    await wb.waitForExtensionActivation();
    await wb.openActivityBarView('Agent Runs');
    // The Runs view shows: the extension reads /openapi.json and learns the groups are served.
    const smoke = await visibleRow(wb, 'Test Groups', 'Smoke', 30_000);
    assert.match(await description(smoke), /^app_todo · 2 tests$/);
    const regression = await visibleRow(wb, 'Test Groups', 'Regression');
    assert.match(await description(regression), /^app_todo · 4 tests$/);
    await regression.click();
    for (const name of ['Add a todo', 'Filter completed todos', 'Delete a todo']) await visibleRow(wb, 'Test Groups', name);
    assert.equal(await description(await visibleRow(wb, 'Test Groups', 'Sign in')), `component · ${T.component}`);
    await wb.screenshot('service-groups-1-listed');
  });

  it('renames a group from its context menu: one PUT with the new name, the row shows it', async () => {
    const wb = workbench();
    await rowMenu(wb, 'Test Groups', 'Smoke', 'Rename Test Group…');
    const input = wb.page.locator('.quick-input-widget .quick-input-box input');
    await waitUntil(async () => (await input.inputValue().catch(() => '')) === 'Smoke', UI_TIMEOUT_MS, 'the input box to offer the current name');
    await wb.typeInInput('Release smoke', { prompt: 'New name of the test group “Smoke”' });
    const puts = await waitForSent(wb, 'PUT', new RegExp(`/test-groups/${SMOKE}$`), 1);
    assert.deepEqual(puts, [{ body: { name: 'Release smoke', testIds: [T.add, T.filter], description: 'Quick checks before a release.' }, status: 200 }]);
    await wb.waitForNotification('Test group “Smoke” renamed to “Release smoke”.');
    await visibleRow(wb, 'Test Groups', 'Release smoke');
    await waitUntil(async () => (await row(wb, 'Test Groups', 'Smoke').count()) === 0, UI_TIMEOUT_MS, 'the old name to go');
    await wb.screenshot('service-groups-2-renamed');
  });

  it('edits a group\'s tests in the multi-pick (one unchecked): one PUT with the members, the count follows', async () => {
    const wb = workbench();
    await rowMenu(wb, 'Test Groups', 'Regression', 'Edit Tests…');
    await wb.page.locator('.quick-input-widget .quick-input-title', { hasText: 'Edit Tests of “Regression”' }).waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const checked = async (label: string): Promise<string | null> => pickRow(wb, label).getAttribute('aria-checked');
    // The app's tests, the group's checked; its component is not offered.
    for (const [label, state] of [['Add a todo', 'true'], ['Filter completed todos', 'true'], ['Delete a todo', 'true'], ['Share a list', 'false']] as const) {
      await pickRow(wb, label).waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      assert.equal(await checked(label), state, `${label} checked=${state}`);
    }
    assert.equal(await pickRow(wb, 'Sign in').count(), 0, 'the component is not offered');
    await pickRow(wb, 'Delete a todo').locator('.monaco-checkbox, input[type=checkbox]').first().click();
    await waitUntil(async () => (await checked('Delete a todo')) === 'false', UI_TIMEOUT_MS, '"Delete a todo" to be unchecked');
    await wb.screenshot('service-groups-3-edit-tests');
    await wb.page.locator('.quick-input-widget .quick-input-box input').press('Enter');
    const puts = await waitForSent(wb, 'PUT', new RegExp(`/test-groups/${REGRESSION}$`), 1);
    assert.deepEqual(puts, [{ body: { name: 'Regression', testIds: [T.add, T.filter, T.component] }, status: 200 }]);
    assert.equal(sent(wb, 'PUT', /\/test-groups\//).length, 2, 'one PUT for the rename, one for the edit');
    await wb.waitForNotification('Test group “Regression” now has 3 tests.');
    await waitForDescription(wb, 'Test Groups', 'Regression', /^app_todo · 3 tests$/);
    // Its members as the service has them now (the group is still open).
    await waitUntil(async () => (await row(wb, 'Test Groups', 'Delete a todo').count()) === 0, UI_TIMEOUT_MS, '"Delete a todo" to leave the group\'s rows');
    await visibleRow(wb, 'Test Groups', 'Sign in');
  });

  it('deletes a group after the confirmation: one DELETE, the row is gone', async () => {
    const wb = workbench();
    await rowMenu(wb, 'Test Groups', 'Release smoke', 'Delete Test Group…');
    await answerDialog(wb, /Delete the test group “Release smoke” from the service\?[\s\S]*tg_todo_smoke/, 'Delete');
    const deletes = await waitForSent(wb, 'DELETE', /\/test-groups\//, 1);
    assert.deepEqual(deletes, [{ body: undefined, status: 200 }]);
    assert.equal(sent(wb, 'DELETE', new RegExp(`/test-groups/${SMOKE}$`)).length, 1, 'the DELETE names the group');
    await wb.waitForNotification('Test group “Release smoke” deleted.');
    await waitUntil(async () => (await row(wb, 'Test Groups', 'Release smoke').count()) === 0, UI_TIMEOUT_MS, 'the deleted group\'s row to go');
    await visibleRow(wb, 'Test Groups', 'Regression');
    await wb.screenshot('service-groups-4-deleted');
  });

  it('runs an automation that runs by hand from under the app\'s row: confirmed, one POST, "queued", then its new last run', async () => {
    const wb = workbench();
    const automations = await visibleRow(wb, 'Runs', 'Automations');
    await automations.click();
    const names = ['Run smoke tests', 'Send release notes', 'Nightly regression', 'Review merged branches'];
    for (const name of names) await visibleRow(wb, 'Runs', name);
    assert.match(await description(await visibleRow(wb, 'Runs', 'Send release notes')), /^manual · never run$/);
    assert.match(await description(await visibleRow(wb, 'Runs', 'Review merged branches')), /^disabled · /);
    await rowMenu(wb, 'Runs', 'Send release notes', 'Run Now');
    await answerDialog(wb, /Run the automation “Send release notes” now\?[\s\S]*send message → send webhook/, 'Run Now');
    const posts = await waitForSent(wb, 'POST', /\/automations\/[^/]+\/run$/, 1);
    assert.deepEqual(posts, [{ body: undefined, status: 202 }]);
    assert.equal(sent(wb, 'POST', new RegExp(`/automations/${RELEASE_NOTES}/run$`)).length, 1, 'the POST names the automation');
    await wb.waitForNotification(/The automation “Send release notes” is queued/);
    // The service runs it; the list read again a few seconds later shows its last run (and its error).
    await waitForDescription(wb, 'Runs', 'Send release notes', /^manual · last run /, 30_000);
    assert.equal(sent(wb, 'POST', /\/automations\//).length, 1, 'nothing sent again');
    // Widen the side bar (drag its edge) so the rows' descriptions read in full in the screenshot.
    await wb.widenSideBar(260);
    await wb.page.mouse.move(900, 500);
    await wb.screenshot('service-groups-5-automation-run');
  });
});

describe('UI: the service\'s test groups and automations (reference profile)', function () {
  this.timeout(120_000);
  const workbench = useWorkbench({ name: 'service-groups-reference', settings: { 'agentRuns.appId': 'app_todo', 'workbench.startupEditor': 'none' } });

  it('shows no Automations row under the app and no service group rows, and asks nothing of them', async () => {
    const wb = workbench();
    await wb.waitForExtensionActivation();
    await wb.openActivityBarView('Agent Runs');
    // The Runs view shows: the schema is read (the reference lists none of these operations).
    await waitUntil(() => wb.emulator.requests.some((r) => r.method === 'GET' && /\/openapi\.json$/.test(r.path.split('?')[0] ?? '') && r.status === 200),
      UI_TIMEOUT_MS, 'the extension to read /openapi.json');
    // A run of the app, so the app's row is drawn with its children.
    const prompt = 'Reference profile: the app row without automations';
    const agentId = await startRunOnService(wb, prompt);
    await wb.runCommand('Agent Runs: Track Run by ID…');
    await wb.typeInInput(agentId, { prompt: /agent ID/i });
    // The app's row ("Todo App", app_todo · 1 run), expanded to its run.
    await pane(wb, 'Runs').locator('.monaco-list-row', { hasText: /app_todo · 1 run/ }).first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await pane(wb, 'Runs').locator('.monaco-list-row', { hasText: prompt.slice(0, 30) }).first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await pane(wb, 'Test Groups').locator('.welcome-view-content', { hasText: /No test groups yet/ }).waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    assert.equal(await row(wb, 'Runs', 'Automations').count(), 0, 'no Automations row');
    assert.equal(await row(wb, 'Runs', 'Code reviews').count(), 0, 'no Code reviews row');
    for (const name of ['Smoke', 'Regression']) assert.equal(await pane(wb, 'Test Groups').locator('.monaco-list-row', { hasText: name }).count(), 0, `no ${name} row`);
    assert.deepEqual(wb.emulator.requests.filter((r) => /\/(automations|test-groups)/.test(r.path)).map((r) => `${r.method} ${r.path}`), [], 'nothing asked of groups or automations');
    await wb.screenshot('service-groups-reference');
  });
});
