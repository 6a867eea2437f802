// The app's tests in the Test Explorer as a person uses them (issue 22 §1). Against the
// emulator's deployed profile the Testing view lists app_todo's tests under "Agent Runs: App
// Tests"; the row's Run button asks for the branch once (Enter takes the first of the app's
// branches), one POST /test-runs starts it, and the step results are read in the Testing view:
// the untaken branch of the condition skipped, the warning step passed with its words beside it;
// a test whose user for branches is disabled says so on its row and asks before a run.
// Against the reference profile the workbench shows nothing of them.
import * as assert from 'node:assert/strict';
import { waitUntil } from '../support/processes';
import { testAdmin } from '../emulator/testing';
import { answerDialog } from './dialog';
import { UI_TIMEOUT_MS, useWorkbench, type Workbench } from './harness';

const RUN_TIMEOUT_MS = 120_000;

async function expand(wb: Workbench, text: string | RegExp): Promise<void> {
  const row = await wb.waitForTreeRow(text);
  if ((await row.getAttribute('aria-expanded')) === 'false') await row.locator('.monaco-tl-twistie').click();
}

const schemaReads = (wb: Workbench): number => wb.emulator.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/openapi.json')).length;

describe('UI: the app\'s tests in the Test Explorer (deployed profile)', function () {
  this.timeout(300_000);
  const workbench = useWorkbench({ name: 'service-tests', preset: 'deployed', settings: { 'agentRuns.appId': 'app_todo' } });

  it('runs a service test from the Testing view and reads its step results there', async () => {
    const wb = workbench();
    // Version B's tests (a condition with its two branches, a group list); C's test users are the last test's.
    await testAdmin(wb.emulator.adminUrl).setWider('B');
    await wb.waitForExtensionActivation(90_000);
    // The Runs view visible with a token: the service's schema is read, the key turns on.
    await wb.openActivityBarView('Agent Runs');
    await wb.openActivityBarView('Testing');
    await expand(wb, 'app_todo');
    await wb.waitForTreeRow('Components');
    // The Testing view's own row button (its icon, not an aria label the harness knows).
    const row = await wb.waitForTreeRow('Filter completed todos');
    await row.hover();
    await row.locator('.codicon-testing-run-icon').first().click({ timeout: UI_TIMEOUT_MS });
    const widget = wb.page.locator('.quick-input-widget');
    await widget.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await waitUntil(async () => (await widget.locator('.quick-input-list .monaco-list-row.focused').count()) > 0, UI_TIMEOUT_MS, 'a branch to pick');
    // The branch typed, as a person who knows it does (the service lists no branches).
    await widget.locator('.quick-input-box input').fill('main');
    await waitUntil(async () => (await widget.locator('.quick-input-list .monaco-list-row.focused').innerText()).startsWith('main'), UI_TIMEOUT_MS, 'main to be offered first');
    await widget.locator('.quick-input-box input').press('Enter');

    const test = await wb.waitForTreeRow('Filter completed todos');
    await waitUntil(async () => (await test.locator('.codicon-testing-passed-icon').count()) > 0, RUN_TIMEOUT_MS, 'the test to pass (with warnings)');
    assert.equal(wb.emulator.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/test-runs')).length, 1, 'one POST /test-runs');
    await expand(wb, 'Filter completed todos');
    await expand(wb, /^If: /);
    await expand(wb, 'if not met');
    await expand(wb, 'if met');
    // The Testing view draws an item's description as `.test-label-description` inside the
    // label (not the `.label-description` of other trees); the narrow view may cut it off, so
    // the row is found by what it holds, not by what is painted.
    const warned = wb.page.locator('.monaco-list-row', { has: wb.page.locator('.test-label-description', { hasText: /^warning: / }) }).first();
    await waitUntil(async () => (await warned.count()) > 0, UI_TIMEOUT_MS, 'the warning step\'s row with its words');
    assert.ok(await warned.locator('.codicon-testing-passed-icon').count() > 0, 'the warning step passed, its words beside it');
    const skipped = wb.page.locator('.monaco-list-row .codicon-testing-skipped-icon');
    assert.ok(await skipped.count() > 0, 'the untaken branch is skipped');
    await wb.screenshot('service-test-run');

    // Nothing read once the run ended: the emulator's log past a few of the fast cadence's periods.
    const before = wb.emulator.requests.length;
    const anyRead = (): boolean => wb.emulator.requests.slice(before).some((r) => /test-runs/.test(r.path));
    await waitUntil(() => Promise.resolve(anyRead()), 3_000, 'no read').then(() => assert.fail('the ended run was read again'), () => undefined);
  });

  it('runs one of the service\'s groups from its row and reads its members\' results there', async () => {
    const wb = workbench();
    await wb.openActivityBarView('Testing');
    // The branch picked for the app above is remembered: no question this time.
    const row = await wb.waitForTreeRow('Group: Smoke');
    await row.hover();
    await row.locator('.codicon-testing-run-icon').first().click({ timeout: UI_TIMEOUT_MS });
    await waitUntil(async () => (await row.locator('.codicon-testing-passed-icon').count()) > 0, RUN_TIMEOUT_MS, 'the group to pass');
    assert.equal(wb.emulator.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/test-group-runs')).length, 1, 'one POST /test-group-runs');
    assert.equal(await wb.page.locator('.quick-input-widget:visible').count(), 0, 'no branch asked again');
    await expand(wb, 'Group: Smoke');
    // Its members as the group run lists them, each with its own result (the tests' rows above
    // hold the same names: the members are the rows after the group's).
    const rows = wb.page.locator('.monaco-list-row');
    await waitUntil(async () => {
      const labels = await rows.allInnerTexts();
      const at = labels.findIndex((l) => l.startsWith('Group: Smoke'));
      return at >= 0 && labels.slice(at + 1).some((l) => l.startsWith('Add a todo'));
    }, UI_TIMEOUT_MS, 'the group\'s members under it');
    const member = rows.filter({ hasText: 'Add a todo' }).last();
    assert.ok(await member.locator('.codicon-testing-passed-icon').count() > 0, 'the member passed');
    await wb.screenshot('service-test-group-run');
  });
  it('a test whose user for branches is disabled: its row says so, and the person is asked before a run that would fail (Cancel sends nothing, Run Anyway sends it)', async () => {
    const wb = workbench();
    // Version C, as published: test users listed as { testUsers }, a run without a user logs nobody in.
    await testAdmin(wb.emulator.adminUrl).setWider('C');
    await wb.openActivityBarView('Testing');
    const row = await wb.waitForTreeRow('Share a list');
    // Who it signs in as, by environment: the disabled user on branches, no login live.
    await waitUntil(async () => /branch: .+ \(disabled\) · live: no login/.test(await row.innerText()), UI_TIMEOUT_MS, 'the row to say who the test signs in as');
    const posts = (): number => wb.emulator.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/test-runs')).length;
    const before = posts();
    const why = /This run will fail before it starts[\s\S]*“Share a list”: its test user for branches, .+, is disabled\./;
    await row.hover();
    await row.locator('.codicon-testing-run-icon').first().click({ timeout: UI_TIMEOUT_MS });
    await answerDialog(wb, why, 'Cancel');
    await wb.screenshot('service-test-disabled-user');
    await waitUntil(() => Promise.resolve(posts() > before), 2_000, 'a POST').then(() => assert.fail('Cancel sent the run'), () => undefined);

    await row.hover();
    await row.locator('.codicon-testing-run-icon').first().click({ timeout: UI_TIMEOUT_MS });
    await answerDialog(wb, why, 'Run Anyway');
    await waitUntil(() => Promise.resolve(posts() === before + 1), UI_TIMEOUT_MS, 'one POST /test-runs after Run Anyway');
    // The service fails it before its first step, as the dialog said.
    const test = await wb.waitForTreeRow('Share a list');
    await waitUntil(async () => (await test.locator('.codicon-testing-failed-icon, .codicon-testing-error-icon').count()) > 0, RUN_TIMEOUT_MS, 'the run to fail');
  });
});

describe('UI: the app\'s tests in the Test Explorer (reference profile)', function () {
  this.timeout(180_000);
  const workbench = useWorkbench({ name: 'service-tests-reference', settings: { 'agentRuns.appId': 'app_todo' } });

  it('shows nothing of them', async () => {
    const wb = workbench();
    await wb.waitForExtensionActivation(90_000);
    // The Runs view visible with a token: the schema is read once to learn what the service offers.
    await wb.openActivityBarView('Agent Runs');
    await waitUntil(() => Promise.resolve(schemaReads(wb) > 0), UI_TIMEOUT_MS, 'the service\'s schema to be read');
    // With no test controller at all (this workbench has no other test extension) VS Code shows no
    // Testing view; a controller made after the schema read would bring it within moments.
    const testingView = wb.page.locator('.part.activitybar .action-item:has(.action-label[aria-label^="Testing"])');
    await waitUntil(async () => (await testingView.count()) > 0, 3_000, 'a Testing view').catch(() => undefined);
    if (await testingView.count() > 0) {
      // If one is there, it holds no row of the app's tests.
      await wb.openActivityBarView('Testing');
    }
    assert.equal(await wb.page.locator('.monaco-list-row', { hasText: 'app_todo' }).count(), 0, 'no app row in the Testing view');
    assert.equal(await wb.page.locator('.monaco-list-row', { hasText: 'Components' }).count(), 0, 'no Components row');
    assert.equal(wb.emulator.requests.filter((r) => r.path.includes('/tests') || r.path.includes('/test-runs')).length, 0, 'nothing asked of the tests');
  });
});
