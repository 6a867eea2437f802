// The app's tests in the Test Explorer as a person uses them (issue 22 §1), against the
// emulator's deployed profile: the Testing view lists app_todo's tests under "Agent Runs: App
// Tests"; the row's Run button asks for the branch once (Enter takes the first of the app's
// branches), one POST /test-runs starts it, and the step results are read in the Testing view:
// the untaken branch of the condition skipped, the warning step passed with its words beside it.
// Against the reference profile the Testing view shows nothing of it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { waitUntil } from '../support/processes';
import { paths } from '../support/paths';
import { UI_TIMEOUT_MS, useWorkbench, type Workbench } from './harness';

const RUN_TIMEOUT_MS = 120_000;

async function expand(wb: Workbench, text: string | RegExp): Promise<void> {
  const row = await wb.waitForTreeRow(text);
  if ((await row.getAttribute('aria-expanded')) === 'false') await row.locator('.monaco-tl-twistie').click();
}

describe('UI: the app\'s tests in the Test Explorer (deployed profile)', function () {
  this.timeout(300_000);
  const workbench = useWorkbench({ name: 'service-tests', preset: 'deployed', settings: { 'agentRuns.appId': 'app_todo' } });

  it('runs a service test from the Testing view and reads its step results there', async () => {
    const wb = workbench();
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
    await widget.locator('.quick-input-box input').press('Enter');

    const test = await wb.waitForTreeRow('Filter completed todos');
    await waitUntil(async () => (await test.locator('.codicon-testing-passed-icon').count()) > 0, RUN_TIMEOUT_MS, 'the test to pass (with warnings)');
    assert.equal(wb.emulator.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/test-runs')).length, 1, 'one POST /test-runs');
    await expand(wb, 'Filter completed todos');
    await expand(wb, /^If: /);
    await expand(wb, 'if not met');
    await expand(wb, 'if met');
    // The step's row carries its words as the row's description; the narrow view may cut them off
    // (an ellipsis, no width left), so the row is found by what it holds, not by what is painted.
    const warned = wb.page.locator('.monaco-list-row', { has: wb.page.locator('.label-description', { hasText: /^warning: / }) }).first();
    await waitUntil(async () => (await warned.count()) > 0, UI_TIMEOUT_MS, 'the warning step\'s row with its words');
    assert.ok(await warned.locator('.codicon-testing-passed-icon').count() > 0, 'the warning step passed, its words beside it');
    const skipped = wb.page.locator('.monaco-list-row .codicon-testing-skipped-icon');
    assert.ok(await skipped.count() > 0, 'the untaken branch is skipped');
    const shot = await wb.screenshot('service-test-run');
    fs.copyFileSync(shot, path.join(paths.repoRoot, 'docs', 'screenshots', 'service-test-run.png'));

    // Nothing read once the run ended.
    const before = wb.emulator.requests.length;
    await new Promise((r) => setTimeout(r, 3_000));
    assert.deepEqual(wb.emulator.requests.slice(before).filter((r) => /test-runs/.test(r.path)), []);
  });
});

describe('UI: the app\'s tests in the Test Explorer (reference profile)', function () {
  this.timeout(180_000);
  const workbench = useWorkbench({ name: 'service-tests-reference', settings: { 'agentRuns.appId': 'app_todo' } });

  it('shows nothing of them', async () => {
    const wb = workbench();
    await wb.waitForExtensionActivation(90_000);
    await wb.openActivityBarView('Agent Runs');
    await wb.waitForOutputLog('Agent Runs', /./);
    await new Promise((r) => setTimeout(r, 3_000));
    // With no test controller at all (this workbench has no other test extension) VS Code shows no
    // Testing view; if one is there, it holds no row of the app's tests.
    if (await wb.page.locator('.part.activitybar .action-item:has(.action-label[aria-label^="Testing"])').count() > 0) {
      await wb.openActivityBarView('Testing');
      await new Promise((r) => setTimeout(r, 3_000));
    }
    assert.equal(await wb.page.locator('.monaco-list-row', { hasText: 'app_todo' }).count(), 0, 'no app row in the Testing view');
    assert.equal(await wb.page.locator('.monaco-list-row', { hasText: 'Components' }).count(), 0, 'no Components row');
    assert.equal(wb.emulator.requests.filter((r) => r.path.includes('/tests') || r.path.includes('/test-runs')).length, 0, 'nothing asked of the tests');
  });
});
