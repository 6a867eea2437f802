// The Test Explorer as a person uses it: a test extension (a small fixture extension standing in
// for Jest, pytest..., test/fixtures/test-controller-extension, packaged and installed into
// this profile) lists the tests of checkout.test.js in the Testing view; right-click a test →
// "Create Test Group from These Tests"; the emulator says which test IDs were stored.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { installVsix } from '../support/codeServer';
import { paths, vscodeFlavour } from '../support/paths';
import { makeTempDir, runToCompletion, waitUntil } from '../support/processes';
import { waitForStep } from './createSteps';
import { UI_TIMEOUT_MS, useWorkbench, type Workbench } from './harness';

interface StoredGroup {
  groupId: string;
  testIds: string[];
}

const FIXTURE_EXTENSION = path.join(paths.repoRoot, 'test', 'fixtures', 'test-controller-extension');

async function storedGroups(wb: Workbench): Promise<StoredGroup[]> {
  const res = await fetch(`${wb.emulator.adminUrl}/test-groups`);
  return ((await res.json()) as { testGroups: StoredGroup[] }).testGroups;
}

/** Packages the fixture test extension with the project's vsce (a copy: vsce writes next to it). */
async function packageFixtureExtension(): Promise<string> {
  const dir = makeTempDir('fixture-test-ext');
  for (const name of fs.readdirSync(FIXTURE_EXTENSION)) fs.copyFileSync(path.join(FIXTURE_EXTENSION, name), path.join(dir, name));
  const vsix = path.join(dir, 'fixture.vsix');
  await runToCompletion(process.execPath, [path.join(paths.repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--allow-missing-repository', '--skip-license', '-o', vsix],
    { label: 'vsce package (fixture test extension)', timeoutMs: 60_000, cwd: dir });
  return vsix;
}

describe('Test Explorer (UI) [both versions]', function () {
  this.timeout(180_000);
  const workbench = useWorkbench({
    name: 'testing',
    settings: { 'agentRuns.appId': 'app_todo', 'agentRuns.defaultModel': 'hosted/auto', 'workbench.startupEditor': 'none' },
    workspaceFiles: { 'checkout.test.js': fs.readFileSync(path.join(paths.repoRoot, 'test', 'fixtures', 'testfiles', 'checkout.test.js'), 'utf8') },
  });

  before(async function () {
    this.timeout(120_000);
    const wb = workbench();
    await installVsix(wb.session.profile, await packageFixtureExtension(), 'agent-runs-tests.fixture-test-controller');
    await wb.reloadWindow();
    await wb.waitForExtensionActivation();
  });

  it('right-click a test in the Testing view → Create Test Group from These Tests', async () => {
    const wb = workbench();
    const before = (await storedGroups(wb)).length;
    await wb.openActivityBarView('Testing');
    const suite = await wb.waitForTreeRow('checkout', 30_000);
    // Expand the suite (a collapsed row shows its children after a click on its twistie).
    if ((await suite.getAttribute('aria-expanded')) === 'false') await suite.locator('.monaco-tl-twistie').click();
    await wb.waitForTreeRow('applies a discount code');
    await wb.screenshot('testing-explorer-tests');

    const row = await wb.waitForTreeRow('applies a discount code');
    await row.click({ button: 'right' });
    const menu = wb.page.locator('.context-view .monaco-menu');
    await menu.waitFor({ state: 'visible' });
    await wb.page.locator('.context-view .monaco-menu .action-label[aria-label="Create Test Group from These Tests"]').waitFor({ state: 'visible' });
    await wb.screenshot('testing-explorer-menu');
    await wb.chooseInOpenMenu('Create Test Group from These Tests');

    // The create flow of the file menus: the IDs of that test's lines (its @testId comment above `it(`).
    const pick = wb.page.locator('.quick-input-widget .monaco-list-row .label-name', { hasText: /^CHK-002$/ }).first();
    await pick.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const labels = await wb.page.locator('.quick-input-widget .monaco-list-row .label-name').allInnerTexts();
    assert.deepEqual(labels.map((l) => l.trim()).filter((l) => /^CHK-/.test(l)), ['CHK-002']);
    await wb.screenshot('testing-explorer-pick-ids');
    // Enter takes each step's default (the IDs checked, a name, no description, the app ID), once
    // that step is shown: an Enter pressed while the next step is being drawn is lost.
    const input = wb.page.locator('.quick-input-widget .quick-input-box input');
    for (let step = 1; step <= 4; step++) {
      await waitForStep(wb, step);
      await input.press('Enter');
    }
    await waitUntil(async () => (await storedGroups(wb)).length > before, UI_TIMEOUT_MS, 'the emulator to store the group');
    const groups = await storedGroups(wb);
    assert.deepEqual(groups[groups.length - 1]?.testIds, ['CHK-002']);
  });

  it('another extension\'s assistant calls the start tool: the editor asks first, with app, model and allow_edits', async () => {
    const wb = workbench();
    const posts = (): number => wb.emulator.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/agents')).length;
    const before = posts();
    await wb.runCommand('Fixture Assistant: Delegate to a Hosted Agent');
    const dialog = wb.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const text = await dialog.innerText();
    assert.match(text, /Start an agent run that may edit app_todo\?/);
    assert.match(text, /app_todo/);
    assert.match(text, /hosted\/auto/);
    assert.match(text, /allow_edits — the agent may change the project's code, on: main/);
    await wb.screenshot('assistant-tool-confirmation');
    assert.equal(posts(), before, 'nothing is sent before the person confirms');
    const buttons = await dialog.locator('.monaco-button').allInnerTexts();
    const yes = buttons.map((b) => b.trim()).find((b) => /^(Yes|OK|Continue|Allow)$/i.test(b));
    assert.ok(yes, `no confirm button in ${buttons.join(', ')}`);
    await dialog.locator('.monaco-button', { hasText: yes }).first().click();
    await wb.waitForNotification(/Fixture assistant: Started agent run \S+ on app_todo with model hosted\/auto, permission allow_edits/);
    assert.equal(posts(), before + 1);
    // Listed like any other run.
    await wb.openActivityBarView('Agent Runs');
    await wb.waitForTreeRow('Make the checkout discount test pass');
    await wb.screenshot('assistant-tool-run-listed');
  });

  it('a failed test\'s message → Ask Agent to Fix: the launch form pre-filled; the run is linked to the test', async () => {
    const wb = workbench();
    const posts = (): { body: unknown }[] => wb.emulator.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/agents'));
    const before = posts().length;
    await wb.runCommand('Test: Run All Tests');
    await wb.runCommand('Test Results: Focus on Test Results View');
    const failed = await wb.waitForTreeRow('applies a discount code');
    // The row is drawn while the test runs; its message (children) and then its failed state
    // come after. Read its shape only once it shows the failure: read earlier, a row without
    // children yet was taken for 1.100's single-row shape (seen on 1.139).
    await waitUntil(async () => (await failed.locator('.codicon-testing-failed-icon').count()) > 0, UI_TIMEOUT_MS, 'the test\'s row to show its failure');
    assert.match(await failed.innerText(), /Expected the discount to be applied/, 'the row shows the test and its one message');
    // VS Code 1.100 gives that row (the test and its one message, drawn as one) the message's
    // menu; 1.139 gives it the test's menu. On both, opening the row shows the message in the
    // view with its actions as buttons (`testing/message/content`).
    if (vscodeFlavour() === 'minimum') {
      await failed.click({ button: 'right' });
      await wb.page.locator('.context-view .monaco-menu .action-label[aria-label="Ask Agent to Fix"]').waitFor({ state: 'visible' });
      await wb.screenshot('testing-ask-agent-to-fix-menu');
      await wb.page.keyboard.press('Escape');
    }
    await failed.click();
    // The workbench draws it as a floating click widget over the message (not a .monaco-button).
    const button = wb.page.locator('.test-output-peek-message-container .floating-click-widget', { hasText: /^Ask Agent to Fix$/ }).first();
    await button.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await wb.screenshot('testing-ask-agent-to-fix-button');
    await button.click();
    // The launch form's review (app and model come from the settings).
    const review = wb.page.locator('.quick-input-widget .quick-input-title');
    await waitUntil(async () => /review|Start Agent Run/i.test(await review.innerText().catch(() => '')), UI_TIMEOUT_MS, 'the launch form');
    await wb.screenshot('testing-ask-agent-to-fix-review');
    await wb.page.locator('.quick-input-widget .quick-input-box input').press('Enter');
    await waitUntil(() => Promise.resolve(posts().length > before), UI_TIMEOUT_MS, 'the run to be started');
    const body = posts()[posts().length - 1]?.body as { prompt?: string } | string | undefined;
    const prompt = typeof body === 'string' ? (JSON.parse(body) as { prompt?: string }).prompt ?? '' : body?.prompt ?? '';
    assert.match(prompt, /^The test “checkout › applies a discount code” fails\./);
    assert.ok(prompt.includes('Expected:\n```\n90\n```') && prompt.includes('Actual:\n```\n100\n```'), prompt);

    // The POST is seen before the launch flow has returned and the link is written: wait for the link.
    await wb.waitForOutputLog('Agent Runs', /linked to test checkout › applies a discount code/);
    await wb.openActivityBarView('Testing');
    await wb.contextMenu('applies a discount code', 'Show Agent Run for This Test');
    // The linked run's panel, showing its prompt.
    await wb.webviewFrame(async (f) => (await f.locator('text=applies a discount code').count()) > 0);
    await wb.screenshot('testing-show-agent-run');
  });
});
