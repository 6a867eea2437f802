// Starting agent runs as a person does: the palette, the multi-step form (with Back), the
// editor's "with Selection" menu, and every documented refusal of the service shown with a
// message that says what to do, the typed prompt kept. The emulator's request log shows
// exactly what was sent, and how often.
import * as assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import type { Emulator } from '../support/emulator';
import { waitUntil } from '../support/processes';
import { UI_TIMEOUT_MS, clearNotifications, clickNotificationButton, notificationButtons, useWorkbench, type Workbench } from './harness';

const QUICK_INPUT = '.quick-input-widget';

interface SentStart {
  appId: string;
  prompt: string;
  model: string;
  reasoningEffort?: string;
  permission?: string;
  permittedBranches?: string[];
  completionWebhookUrl?: string;
  userEmail?: string;
}

/** The `POST /agents` requests the emulator received, oldest first. */
interface SentRequest {
  body: SentStart;
  /** Absent while pending, or when a fault broke the connection. */
  status?: number;
  fault?: string;
}

function starts(emulator: Emulator): SentRequest[] {
  return emulator.requests
    .filter((r) => r.method === 'POST' && /\/agents(?:\?|$)/.test(r.path))
    .map((r) => ({ body: JSON.parse(r.body) as SentStart, status: r.status, fault: r.fault }));
}

/** Waits until `count` starts were received and answered (or broken by a fault). */
async function waitForStarts(emulator: Emulator, count: number): Promise<SentRequest[]> {
  const settled = (s: SentRequest): boolean => s.status !== undefined || s.fault !== undefined;
  await waitUntil(() => starts(emulator).length >= count && starts(emulator).every(settled), UI_TIMEOUT_MS, `${count} POST /agents request(s)`);
  return starts(emulator);
}

async function quickTitle(wb: Workbench): Promise<string> {
  return wb.page.locator(`${QUICK_INPUT} .quick-input-title`).innerText().catch(() => '');
}

/** Waits for the launch form's step whose title ends with `label`, e.g. "Prompt" (and the counter, if given). */
async function waitForStep(wb: Workbench, label: string, counter?: string): Promise<void> {
  await waitUntil(async () => {
    if (!(await wb.page.locator(QUICK_INPUT).isVisible())) return false;
    const title = await quickTitle(wb);
    if (!new RegExp(`Start Agent Run(?: \\([^)]*\\))?: ${label}\\b`).test(title)) return false;
    if (counter === undefined) return true;
    const steps = await wb.page.locator(`${QUICK_INPUT} .quick-input-count, ${QUICK_INPUT} .quick-input-step`).allInnerTexts().catch(() => []);
    return title.includes(counter) || steps.some((s) => s.includes(counter));
  }, UI_TIMEOUT_MS, `the "${label}" step${counter ? ` (${counter})` : ''} of the launch form (title now: "${await quickTitle(wb)}")`);
}

function inputBox(wb: Workbench): Locator {
  return wb.page.locator(`${QUICK_INPUT} .quick-input-box input`);
}

/** Text under the quick input box: an InputBox's prompt or validation message. */
async function quickMessage(wb: Workbench): Promise<string> {
  return wb.page.locator(`${QUICK_INPUT} .quick-input-message`).innerText().catch(() => '');
}

async function placeholder(wb: Workbench): Promise<string> {
  return (await inputBox(wb).getAttribute('placeholder')) ?? '';
}

/** Moves the pointer off the quick input, so no stale hover covers it in a screenshot. */
async function shoot(wb: Workbench, name: string): Promise<void> {
  await wb.page.mouse.move(5, 600);
  await wb.screenshot(name);
}

async function enter(wb: Workbench): Promise<void> {
  await inputBox(wb).press('Enter');
}

/** The title-bar button of the quick input with this tooltip (e.g. "Back"). */
async function clickTitleButton(wb: Workbench, tooltip: string | RegExp): Promise<void> {
  // A hover left over from an earlier step can lie on top of the buttons.
  await wb.page.mouse.move(5, 600);
  await wb.page.locator('.monaco-hover, .workbench-hover').first().waitFor({ state: 'hidden', timeout: 3_000 }).catch(() => undefined);
  const buttons = wb.page.locator(`${QUICK_INPUT} .quick-input-titlebar .action-label, ${QUICK_INPUT} .quick-input-header .action-label`);
  await waitUntil(async () => {
    for (const b of await buttons.all()) {
      const label = `${(await b.getAttribute('aria-label')) ?? ''} ${(await b.getAttribute('title')) ?? ''}`;
      if (typeof tooltip === 'string' ? label.includes(tooltip) : tooltip.test(label)) {
        await b.click();
        return true;
      }
    }
    return false;
  }, UI_TIMEOUT_MS, `a quick input button "${String(tooltip)}"`);
}

/** Picks a quick pick row by its label (the icon is not part of the text). */
async function pick(wb: Workbench, label: string): Promise<void> {
  await wb.quickPickSelect(new RegExp(`^\\s*${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`));
}

/** The description shown next to a review row, e.g. the prompt's first line. */
async function reviewValue(wb: Workbench, label: string): Promise<string> {
  const row = wb.page
    .locator(`${QUICK_INPUT} .monaco-list-row`)
    .filter({ has: wb.page.locator('.label-name', { hasText: new RegExp(`^\\s*${label}\\s*$`) }) })
    .first();
  await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  return (await row.locator('.label-description').first().innerText().catch(() => '')).trim();
}

/** App ID → prompt → model, leaving the form at the review step. */
async function fillForm(wb: Workbench, values: { appId: string; prompt: string; model: string }): Promise<void> {
  await waitForStep(wb, 'App ID');
  await wb.typeInInput(values.appId);
  await waitForStep(wb, 'Prompt');
  await wb.typeInInput(values.prompt);
  await waitForStep(wb, 'Model');
  await waitUntil(async () => (await placeholder(wb)).includes('offered by the service'), UI_TIMEOUT_MS, 'the live model list');
  await wb.typeInInput(values.model);
  await waitForStep(wb, 'Review');
}

/**
 * Opens the launch form from the palette. Unless `keepDraft`, a draft left by an earlier test
 * (a form cancelled mid-way) is discarded first, so each test starts from the defaults.
 */
async function startFromPalette(wb: Workbench, options: { keepDraft?: boolean } = {}): Promise<void> {
  try {
    await wb.runCommand('Agent Runs: Start Agent Run…');
  } catch {
    // The palette can show a result list computed before the extension's commands were
    // known, and it does not refresh for the same text: close it and ask again once.
    await wb.closeQuickInput();
    await wb.runCommand('Agent Runs: Start Agent Run…');
  }
  if (options.keepDraft) return;
  await waitForStep(wb, 'App ID');
  if (/restored unsent prompt/.test(await quickTitle(wb))) {
    await clickTitleButton(wb, 'Discard the restored prompt');
    await waitUntil(async () => !/restored/.test(await quickTitle(wb)), UI_TIMEOUT_MS, 'the restored draft to be discarded');
  }
}

/** Mocha hook: the extension is active before the first command is looked for. */
function waitForActivation(workbench: () => Workbench): void {
  before(async function () {
    this.timeout(60_000);
    await workbench().waitForExtensionActivation();
  });
}

describe('Start an agent run (UI)', function () {
  this.timeout(180_000);
  const workbench = useWorkbench({
    name: 'launch',
    settings: {
      'agentRuns.appId': 'app_todo',
      'agentRuns.notifications': 'off',
      'workbench.startupEditor': 'none',
    },
    workspaceFiles: {
      'src/app.ts': [
        'export function login(user: string, password: string): boolean {',
        '  // TODO: the check is inverted',
        '  return user === "" || password === "";',
        '}',
        '',
      ].join('\n'),
    },
  });
  waitForActivation(workbench);

  it('from the palette through every step, with options, and the run appears in the Runs view', async () => {
    const wb = workbench();
    await startFromPalette(wb);

    await waitForStep(wb, 'App ID', '1/4');
    await wb.page.locator(`${QUICK_INPUT} .monaco-list-row`, { hasText: 'app_todo' }).first().waitFor({ state: 'visible' });
    await shoot(wb, 'launch-1-app-id');
    await enter(wb);

    await waitForStep(wb, 'Prompt', '2/4');
    await inputBox(wb).fill('Fix the login bug');
    assert.match(await quickMessage(wb), /What should the agent do\?/);
    await shoot(wb, 'launch-2-prompt');
    await enter(wb);

    await waitForStep(wb, 'Model', '3/4');
    await waitUntil(async () => (await placeholder(wb)).includes('10 offered by the service'), UI_TIMEOUT_MS, 'the 10 models of the served schema');
    const models = await wb.page.locator(`${QUICK_INPUT} .monaco-list-row .label-name`).allInnerTexts();
    assert.ok(models.some((m) => m.includes('hosted/balanced')) && models.some((m) => m.includes('openai/gpt-5')), models.join(', '));
    await shoot(wb, 'launch-3-model');
    await wb.typeInInput('hosted/balanced');

    await waitForStep(wb, 'Review', '4/4');
    assert.equal(await reviewValue(wb, 'App ID'), 'app_todo');
    assert.equal(await reviewValue(wb, 'Prompt'), 'Fix the login bug');
    assert.equal(await reviewValue(wb, 'Reasoning effort'), 'medium (default)');
    assert.equal(await reviewValue(wb, 'Permission'), 'read_only (default)');
    await shoot(wb, 'launch-4-review');

    await pick(wb, 'Reasoning effort');
    await waitForStep(wb, 'Reasoning effort');
    await pick(wb, 'high');
    await waitForStep(wb, 'Review');
    await pick(wb, 'Permitted branches');
    await waitForStep(wb, 'Permitted branches');
    await inputBox(wb).fill('main, bad branch');
    await waitUntil(async () => (await quickMessage(wb)).includes('not a valid branch name'), UI_TIMEOUT_MS, 'the branch name check');
    await shoot(wb, 'launch-option-branches-invalid');
    await wb.typeInInput('main, dev');
    await waitForStep(wb, 'Review');
    assert.equal(await reviewValue(wb, 'Reasoning effort'), 'high');
    assert.equal(await reviewValue(wb, 'Permitted branches'), 'main, dev');
    await pick(wb, 'Start Agent Run');

    const toast = await wb.waitForNotification(/Agent run started on app_todo/);
    assert.ok((await notificationButtons(toast)).includes('Open'));
    await shoot(wb, 'launch-started');
    const [sent] = await waitForStarts(wb.emulator, 1);
    assert.deepEqual(sent.body, {
      appId: 'app_todo', prompt: 'Fix the login bug', model: 'hosted/balanced', reasoningEffort: 'high', permission: 'read_only', permittedBranches: ['main', 'dev'],
    });
    // Through the palette: the activity bar icon's unread badge can take the click.
    await wb.runCommand('Agent Runs: Focus on Runs View');
    await wb.waitForTreeRow('Fix the login bug');
    await shoot(wb, 'launch-in-runs-view');
    await clearNotifications(wb);
  });

  it('Back keeps every value; Escape keeps the prompt as a draft offered next time (and it can be discarded)', async () => {
    const wb = workbench();
    await startFromPalette(wb);
    await waitForStep(wb, 'App ID');
    await wb.typeInInput('app_crm');
    await waitForStep(wb, 'Prompt');
    await wb.typeInInput('Keep this text');
    await waitForStep(wb, 'Model');
    await clickTitleButton(wb, 'Back');
    await waitForStep(wb, 'Prompt', '2/4');
    assert.equal(await inputBox(wb).inputValue(), 'Keep this text');
    await clickTitleButton(wb, 'Back');
    await waitForStep(wb, 'App ID', '1/4');
    await wb.page.locator(`${QUICK_INPUT} .monaco-list-row`, { hasText: 'app_crm' }).first().waitFor({ state: 'visible' });
    await wb.closeQuickInput();

    await startFromPalette(wb, { keepDraft: true });
    await waitForStep(wb, 'App ID');
    assert.match(await quickTitle(wb), /restored unsent prompt/);
    await enter(wb);
    await waitForStep(wb, 'Prompt');
    assert.equal(await inputBox(wb).inputValue(), 'Keep this text');
    await shoot(wb, 'launch-restored-draft');
    await clickTitleButton(wb, 'Discard the restored prompt');
    await waitForStep(wb, 'App ID', '1/4');
    assert.doesNotMatch(await quickTitle(wb), /restored/);
    await enter(wb);
    await waitForStep(wb, 'Prompt');
    assert.equal(await inputBox(wb).inputValue(), '');
    await wb.closeQuickInput();
    await startFromPalette(wb, { keepDraft: true });
    await waitForStep(wb, 'App ID');
    assert.doesNotMatch(await quickTitle(wb), /restored/, 'a discarded draft does not come back');
    await wb.closeQuickInput();
  });

  it('a connected-provider model without userEmail: asks once (prefilled) and sends again with the same inputs', async () => {
    const wb = workbench();
    const before = starts(wb.emulator).length;
    await startFromPalette(wb);
    await fillForm(wb, { appId: 'app_todo', prompt: 'Summarize the open issues', model: 'openai/gpt-5' });
    await pick(wb, 'Start Agent Run');
    await waitUntil(async () => (await quickMessage(wb)).includes('needs the email'), UI_TIMEOUT_MS, 'the user email question');
    await shoot(wb, 'launch-user-email-required');
    await wb.typeInInput('dev@example.com');
    await wb.waitForNotification(/Agent run started on app_todo/);
    const sent = (await waitForStarts(wb.emulator, before + 2)).slice(before);
    assert.equal(sent.length, 2);
    assert.equal(sent[0].status, 400);
    assert.equal(sent[0].body.userEmail, undefined);
    assert.deepEqual(sent[1].body, { ...sent[0].body, userEmail: 'dev@example.com' });
    await clearNotifications(wb);
  });

  it('403s name the email and the provider; Edit re-opens the form with everything kept', async () => {
    const wb = workbench();
    await startFromPalette(wb);
    await fillForm(wb, { appId: 'app_todo', prompt: 'Check the CRM for stale leads', model: 'anthropic/claude-sonnet-4-5' });
    await pick(wb, 'User email');
    await waitForStep(wb, 'User email');
    await wb.typeInInput('stranger@example.org');
    await waitForStep(wb, 'Review');
    await pick(wb, 'Start Agent Run');
    const notMember = await wb.waitForNotification(/stranger@example\.org is not a member of the token's workspace/);
    assert.match(await notMember.innerText(), /anthropic/);
    await shoot(wb, 'launch-error-not-member');
    await clickNotificationButton(notMember, 'Edit');

    await waitForStep(wb, 'Review');
    assert.equal(await reviewValue(wb, 'Prompt'), 'Check the CRM for stale leads');
    assert.equal(await reviewValue(wb, 'Model'), 'anthropic/claude-sonnet-4-5');
    await pick(wb, 'User email');
    await waitForStep(wb, 'User email');
    assert.equal(await inputBox(wb).inputValue(), 'stranger@example.org');
    await wb.typeInInput('nocreds@example.com');
    await waitForStep(wb, 'Review');
    await pick(wb, 'Start Agent Run');
    const noCreds = await wb.waitForNotification(/nocreds@example\.com has no active credentials for anthropic/);
    assert.deepEqual(await notificationButtons(noCreds), ['Retry', 'Enter Email…', 'Choose Another Model', 'Edit']);
    await shoot(wb, 'launch-error-missing-credentials');
    await clickNotificationButton(noCreds, 'Edit');
    await waitForStep(wb, 'Review');
    assert.equal(await reviewValue(wb, 'Prompt'), 'Check the CRM for stale leads');
    await wb.closeQuickInput();
    await clearNotifications(wb);
  });

  it('a start that may have reached the service is not retried: it offers Track Run by ID, and Retry only on a click', async () => {
    const wb = workbench();
    const before = starts(wb.emulator).length;
    await startFromPalette(wb);
    await fillForm(wb, { appId: 'app_todo', prompt: 'Rename the cart module', model: 'hosted/fast' });
    // The run is created, then the connection breaks before the answer.
    wb.emulator.inject({ method: 'POST', path: '^/agents$', reset: true, passThrough: true, times: 1 });
    await pick(wb, 'Start Agent Run');
    const toast = await wb.waitForNotification(/may have been created anyway/);
    assert.deepEqual(await notificationButtons(toast), ['Track Run by ID', 'Retry Anyway', 'Edit', 'Show Logs']);
    await shoot(wb, 'launch-error-may-exist');
    // Nothing more is sent while the person reads the message.
    await wb.page.waitForTimeout(1_500);
    assert.equal(starts(wb.emulator).length, before + 1);
    await clickNotificationButton(toast, 'Retry Anyway');
    await wb.waitForNotification(/Agent run started on app_todo/);
    const sent = (await waitForStarts(wb.emulator, before + 2)).slice(before);
    assert.deepEqual(sent[1].body, sent[0].body, 'Retry sends the same inputs');
    await clearNotifications(wb);
  });

  it('a start cut after the body was sent stays in the Runs view (Track Run by ID, Dismiss); Retry Anyway settles it; nothing is re-sent on its own', async () => {
    const wb = workbench();
    const before = starts(wb.emulator).length;
    const notice = /May have started: “Split the payments service”/;
    await startFromPalette(wb);
    await fillForm(wb, { appId: 'app_todo', prompt: 'Split the payments service', model: 'hosted/fast' });
    wb.emulator.inject({ method: 'POST', path: '^/agents$', reset: true, passThrough: true, times: 1 });
    await pick(wb, 'Start Agent Run');
    await wb.waitForNotification(/may have been created anyway/);
    // The person walks away from the message: the start is not lost, the Runs view keeps it.
    await clearNotifications(wb);
    await wb.runCommand('Agent Runs: Focus on Runs View');
    const row = await wb.waitForTreeRow(notice);
    assert.equal((await wb.treeRowParts(row)).description, 'app_todo · Track Run by ID');
    assert.match((await row.getAttribute('aria-label')) ?? '', /A start may have reached the service \(app_todo, “Split the payments service”\)/);
    await shoot(wb, 'launch-start-may-have-arrived');
    await wb.page.waitForTimeout(1_500);
    assert.equal(starts(wb.emulator).length, before + 1, 'the start was sent again on its own');
    // Clicking the row is Track Run by ID; the row stays until the run is in the list or dismissed.
    await row.click();
    await waitUntil(async () => /Track Run by ID|Agent ID/i.test(await quickTitle(wb) + await quickMessage(wb)), UI_TIMEOUT_MS, 'Track Run by ID to ask for the ID');
    await wb.closeQuickInput();
    await wb.contextMenu(notice, 'Dismiss');
    await waitUntil(async () => (await wb.page.locator('.monaco-list-row', { hasText: notice }).count()) === 0, UI_TIMEOUT_MS, 'the row to go');
    assert.equal(starts(wb.emulator).length, before + 1);

    // Once more, and this time Retry Anyway: the run that comes back settles the row.
    await startFromPalette(wb);
    await fillForm(wb, { appId: 'app_todo', prompt: 'Split the payments service', model: 'hosted/fast' });
    wb.emulator.inject({ method: 'POST', path: '^/agents$', reset: true, passThrough: true, times: 1 });
    await pick(wb, 'Start Agent Run');
    const toast = await wb.waitForNotification(/may have been created anyway/);
    await wb.waitForTreeRow(notice);
    await clickNotificationButton(toast, 'Retry Anyway');
    await wb.waitForNotification(/Agent run started on app_todo/);
    await waitUntil(async () => (await wb.page.locator('.monaco-list-row', { hasText: notice }).count()) === 0, UI_TIMEOUT_MS, 'the started run to settle the row');
    assert.equal(starts(wb.emulator).length, before + 3);
    await clearNotifications(wb);
  });

  it('401 and 429 say what to do, and the prompt survives them', async () => {
    const wb = workbench();
    await startFromPalette(wb);
    await fillForm(wb, { appId: 'app_todo', prompt: 'Add a dark mode', model: 'hosted/auto' });
    wb.emulator.inject({ method: 'POST', path: '^/agents$', status: 401, body: '{"error":"Invalid or revoked token"}', times: 1 });
    await pick(wb, 'Start Agent Run');
    const unauthorized = await wb.waitForNotification(/refused the API token \(401\)/);
    assert.deepEqual(await notificationButtons(unauthorized), ['Set API Token', 'Retry', 'Edit']);
    await shoot(wb, 'launch-error-401');
    await clickNotificationButton(unauthorized, 'Edit');
    await waitForStep(wb, 'Review');
    assert.equal(await reviewValue(wb, 'Prompt'), 'Add a dark mode');

    wb.emulator.inject({ method: 'POST', path: '^/agents$', status: 429, headers: { 'retry-after': '7' }, body: '{"error":"Too many requests"}', times: 1 });
    await pick(wb, 'Start Agent Run');
    const limited = await wb.waitForNotification(/limiting requests \(429\)\. Try again in 7 seconds/);
    await shoot(wb, 'launch-error-429');
    await clickNotificationButton(limited, 'Retry');
    await wb.waitForNotification(/Agent run started on app_todo: “Add a dark mode”/);
    await clearNotifications(wb);
  });

  it('"Start Agent Run with Selection" from the editor menu puts the path, lines and fenced code into the prompt', async () => {
    const wb = workbench();
    const before = starts(wb.emulator).length;
    await wb.page.keyboard.press('Control+P');
    await inputBox(wb).fill('app.ts');
    await wb.page.locator(`${QUICK_INPUT} .monaco-list-row`, { hasText: 'app.ts' }).first().waitFor({ state: 'visible' });
    await enter(wb);
    const editor = wb.page.locator('.editor-instance .monaco-editor .view-lines').first();
    await editor.waitFor({ state: 'visible' });
    await editor.click();
    // Lines 2-3: from the start of line 2 to the end of line 3.
    await wb.page.keyboard.press('Control+Home');
    await wb.page.keyboard.press('ArrowDown');
    await wb.page.keyboard.press('Shift+ArrowDown');
    await wb.page.keyboard.press('Shift+End');
    await editor.click({ button: 'right', position: { x: 120, y: 30 } });
    const menu = wb.page.locator('.context-view .monaco-menu');
    await menu.locator('.action-item:has(.action-label[aria-label="Start Agent Run with Selection…"])').first().waitFor({ state: 'visible' });
    await shoot(wb, 'launch-selection-menu');
    await wb.chooseInOpenMenu('Start Agent Run with Selection…');

    await waitForStep(wb, 'App ID');
    await enter(wb);
    await waitForStep(wb, 'Prompt');
    assert.match(await quickMessage(wb), /src\/app\.ts, lines 2–3/);
    await shoot(wb, 'launch-selection-prompt');
    await wb.typeInInput('Explain why login accepts empty passwords');
    await waitForStep(wb, 'Model');
    await waitUntil(async () => (await placeholder(wb)).includes('offered by the service'), UI_TIMEOUT_MS, 'the live model list');
    await wb.typeInInput('hosted/auto');
    await waitForStep(wb, 'Review');
    await pick(wb, 'Start Agent Run');
    await wb.waitForNotification(/Agent run started/);
    const [sent] = (await waitForStarts(wb.emulator, before + 1)).slice(before);
    assert.equal(sent.body.prompt, [
      'Explain why login accepts empty passwords',
      '',
      'File `src/app.ts`, lines 2–3:',
      '',
      '```typescript',
      '  // TODO: the check is inverted',
      '  return user === "" || password === "";',
      '```',
    ].join('\n'));
    await clearNotifications(wb);
  });

  it('allow_edits is confirmed in a modal that shows the permitted branches', async () => {
    const wb = workbench();
    const before = starts(wb.emulator).length;
    await startFromPalette(wb);
    await fillForm(wb, { appId: 'app_todo', prompt: 'Apply the fix', model: 'hosted/auto' });
    await pick(wb, 'Permission');
    await waitForStep(wb, 'Permission');
    await pick(wb, 'allow_edits');
    await waitForStep(wb, 'Review');
    await pick(wb, 'Permitted branches');
    await waitForStep(wb, 'Permitted branches');
    await wb.typeInInput('fix/login');
    await waitForStep(wb, 'Review');
    await pick(wb, 'Start Agent Run');
    const dialog = wb.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const text = await dialog.innerText();
    assert.match(text, /Allow the agent to change app app_todo\?/);
    assert.match(text, /Permitted branches: fix\/login/);
    await shoot(wb, 'launch-allow-edits-confirm');
    assert.equal(starts(wb.emulator).length, before, 'nothing is sent before the confirmation');
    await dialog.locator('.monaco-button', { hasText: 'Allow Edits and Start' }).click();
    await wb.waitForNotification(/Agent run started/);
    const [sent] = (await waitForStarts(wb.emulator, before + 1)).slice(before);
    assert.equal(sent.body.permission, 'allow_edits');
    assert.deepEqual(sent.body.permittedBranches, ['fix/login']);
    await clearNotifications(wb);
  });

  it('"Compose in Editor" writes a multi-line prompt in a Markdown editor and continues the form', async () => {
    const wb = workbench();
    const before = starts(wb.emulator).length;
    await startFromPalette(wb);
    await waitForStep(wb, 'App ID');
    await enter(wb);
    await waitForStep(wb, 'Prompt');
    await inputBox(wb).fill('First line');
    await clickTitleButton(wb, 'Compose in Editor');
    await wb.page.locator('.tabs-container .tab.active', { hasText: /Untitled/ }).first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const editor = wb.page.locator('.editor-instance .monaco-editor .view-lines').first();
    await editor.click();
    await wb.page.keyboard.press('Control+End');
    await wb.page.keyboard.type('\nPlan:\n- step one\n- step two');
    await shoot(wb, 'launch-compose-editor');
    await wb.page.locator('.statusbar-item', { hasText: 'Continue Agent Run' }).first().click();
    await waitForStep(wb, 'Model');
    await waitUntil(async () => (await placeholder(wb)).includes('offered by the service'), UI_TIMEOUT_MS, 'the live model list');
    await wb.typeInInput('hosted/auto');
    await waitForStep(wb, 'Review');
    assert.match(await wb.page.locator(`${QUICK_INPUT} .monaco-list-row`, { hasText: 'Prompt' }).first().innerText(), /lines/);
    await pick(wb, 'Start Agent Run');
    await wb.waitForNotification(/Agent run started/);
    const [sent] = (await waitForStarts(wb.emulator, before + 1)).slice(before);
    // What was typed in the form went into the editor; the editor's text was sent.
    assert.ok(sent.body.prompt.startsWith('First line\nPlan:\n- step one\n'), sent.body.prompt);
    assert.ok(sent.body.prompt.trimEnd().endsWith('step two'), sent.body.prompt);
    await clearNotifications(wb);
  });
});

describe('Start an agent run: plan and credit refusals (UI)', function () {
  this.timeout(180_000);

  describe('a workspace without API access', () => {
    const workbench = useWorkbench({
      name: 'launch-no-api-access',
      signedIn: 'noApiAccess',
      settings: { 'agentRuns.appId': 'app_free', 'agentRuns.notifications': 'off', 'workbench.startupEditor': 'none' },
    });
    waitForActivation(workbench);

    it('explains the workspace plan', async () => {
      const wb = workbench();
      await startFromPalette(wb);
      await fillForm(wb, { appId: 'app_free', prompt: 'Tidy the README', model: 'hosted/auto' });
      await pick(wb, 'Start Agent Run');
      const toast = await wb.waitForNotification(/plan does not include API access \(402 api_access_required\)/);
      assert.deepEqual(await notificationButtons(toast), ['Retry', 'Edit']);
      await shoot(wb, 'launch-error-plan');
    });
  });

  describe('a workspace without paid credits', () => {
    const workbench = useWorkbench({
      name: 'launch-no-credits',
      signedIn: 'noCredits',
      settings: { 'agentRuns.appId': 'app_broke', 'agentRuns.notifications': 'off', 'workbench.startupEditor': 'none' },
    });
    waitForActivation(workbench);

    it('suggests a connected-provider model; "Choose Another Model" re-opens the form at the model step', async () => {
      const wb = workbench();
      await startFromPalette(wb);
      await fillForm(wb, { appId: 'app_broke', prompt: 'Write release notes', model: 'hosted/pro' });
      await pick(wb, 'Start Agent Run');
      const toast = await wb.waitForNotification(/too few paid credits for the service-hosted model hosted\/pro/);
      assert.match(await toast.innerText(), /connected-provider model/);
      await shoot(wb, 'launch-error-credits');
      await clickNotificationButton(toast, 'Choose Another Model');
      await waitForStep(wb, 'Model', '3/4');
      await wb.typeInInput('openai/gpt-5');
      await waitForStep(wb, 'Review');
      assert.equal(await reviewValue(wb, 'Prompt'), 'Write release notes');
      await pick(wb, 'Start Agent Run');
      await waitUntil(async () => (await quickMessage(wb)).includes('needs the email'), UI_TIMEOUT_MS, 'the user email question');
      await wb.typeInInput('owner@broke.example');
      await wb.waitForNotification(/Agent run started on app_broke/);
      const last = starts(wb.emulator).at(-1)!;
      assert.equal(last.body.model, 'openai/gpt-5');
      assert.equal(last.body.userEmail, 'owner@broke.example');
      assert.equal(last.body.prompt, 'Write release notes');
    });
  });
});

describe('Start an agent run: presets and the served schema (UI)', function () {
  this.timeout(180_000);
  const workbench = useWorkbench({
    name: 'launch-presets',
    settings: {
      'agentRuns.notifications': 'off',
      'agentRuns.userEmail': 'dev@example.com',
      'workbench.startupEditor': 'none',
      'agentRuns.presets': [
        { name: 'Review', appId: 'app_todo', model: 'openai/gpt-5-mini', reasoningEffort: 'high' },
        { name: 'Old', appId: 'app_crm', model: 'openai/gpt-4' },
      ],
    },
  });
  waitForActivation(workbench);

  it('offers presets first; a preset whose model is gone is flagged and asks for another model', async () => {
    const wb = workbench();
    await wb.runCommand('Agent Runs: Start Agent Run…');
    await waitForStep(wb, 'Preset', '1/5');
    const old = wb.page.locator(`${QUICK_INPUT} .monaco-list-row`, { hasText: 'Preset: Old' }).first();
    await waitUntil(async () => /no longer offered/.test(await old.innerText()), UI_TIMEOUT_MS, 'the outdated preset to be flagged');
    await wb.page.locator(`${QUICK_INPUT} .monaco-list-row`, { hasText: 'Custom…' }).first().waitFor({ state: 'visible' });
    await shoot(wb, 'launch-presets');
    await pick(wb, 'Preset: Old');
    await waitForStep(wb, 'Prompt', '2/4');
    await wb.typeInInput('Archive old leads');
    await waitForStep(wb, 'Model', '3/4');
    await waitUntil(async () => (await placeholder(wb)).includes('openai/gpt-4 is no longer offered; choose another model'), UI_TIMEOUT_MS, 'the model step to say why it is asked');
    await shoot(wb, 'launch-preset-model-gone');
    await wb.typeInInput('hosted/auto');
    await waitForStep(wb, 'Review', '4/4');
    assert.equal(await reviewValue(wb, 'App ID'), 'app_crm');
    await pick(wb, 'Start Agent Run');
    await wb.waitForNotification(/Agent run started on app_crm/);
    assert.equal(starts(wb.emulator).at(-1)?.body.model, 'hosted/auto');
    await clearNotifications(wb);
  });

  it('a preset skips the steps it answers; the configured email is offered once, then sent for that model', async () => {
    const wb = workbench();
    const before = starts(wb.emulator).length;
    for (const round of [1, 2]) {
      await wb.runCommand('Agent Runs: Start Agent Run…');
      await waitForStep(wb, 'Preset', '1/5');
      await pick(wb, 'Preset: Review');
      await waitForStep(wb, 'Prompt', '2/3');
      await wb.typeInInput(`Review round ${round}`);
      await waitForStep(wb, 'Review', '3/3');
      assert.equal(await reviewValue(wb, 'Model'), 'openai/gpt-5-mini');
      assert.equal(await reviewValue(wb, 'Reasoning effort'), 'high');
      if (round === 1) {
        await pick(wb, 'Start Agent Run');
        await waitUntil(async () => (await quickMessage(wb)).includes('needs the email'), UI_TIMEOUT_MS, 'the user email question');
        assert.equal(await inputBox(wb).inputValue(), 'dev@example.com', 'prefilled from agentRuns.userEmail');
        await enter(wb);
      } else {
        // Learned from the first refusal: the review says the email will be sent.
        assert.match(await reviewValue(wb, 'User email'), /dev@example\.com/);
        await shoot(wb, 'launch-preset-review-email');
        await pick(wb, 'Start Agent Run');
      }
      await wb.waitForNotification(new RegExp(`Agent run started on app_todo: “Review round ${round}”`));
      await clearNotifications(wb);
    }
    const sent = (await waitForStarts(wb.emulator, before + 3)).slice(before);
    assert.deepEqual(sent.map((s) => [s.status, s.body.userEmail]), [[400, undefined], [sent[1].status, 'dev@example.com'], [sent[2].status, 'dev@example.com']]);
    assert.equal(sent.length, 3, 'the second run needed no second try');
  });

  it('warns once when the served schema changed', async () => {
    const wb = workbench();
    wb.emulator.inject({ method: 'GET', path: '^/openapi\\.json$', extraFields: { 'x-revision': 2 }, times: 0 });
    await wb.runCommand('Agent Runs: Start Agent Run…');
    await wb.waitForNotification(/API schema changed/);
    await shoot(wb, 'launch-schema-changed');
    await wb.closeQuickInput();
    await clearNotifications(wb);
    const schemaReads = (): number => wb.emulator.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/openapi.json')).length;
    const before = schemaReads();
    await wb.runCommand('Agent Runs: Start Agent Run…');
    await waitForStep(wb, 'Preset');
    // The second flow read the schema too and said nothing. Counted in the log, which gets every
    // warning shown: a toast count would also see the first one if it was still being cleared.
    await waitUntil(() => schemaReads() > before, UI_TIMEOUT_MS, 'the second flow to read the schema');
    await wb.page.waitForTimeout(1_500);
    const warnings = wb.readOutputLog('Agent Runs').split('\n').filter((l) => /API schema changed/.test(l));
    assert.equal(warnings.length, 1, `warned once, not on every flow:\n${warnings.join('\n')}`);
    await wb.closeQuickInput();
  });
});

describe('Start an agent run with a revoked token: the shared 401 gate (UI)', function () {
  this.timeout(180_000);
  const workbench = useWorkbench({
    name: 'launch-revoked',
    signedIn: 'revoked',
    settings: {
      'agentRuns.appId': 'app_todo',
      'agentRuns.notifications': 'off',
      'workbench.startupEditor': 'none',
    },
  });
  waitForActivation(workbench);

  it('one prompt (the form\'s own), polling paused; after Set API Token, Start Run sends the same inputs with the new token', async () => {
    const wb = workbench();
    const rejectedItem = wb.page.locator('.statusbar-item', { hasText: 'Agent Runs: token rejected' });
    const gatePrompt = wb.page.locator('.notifications-toasts .notification-toast', { hasText: /rejected the API token: it may have been revoked/ });
    await startFromPalette(wb);
    await fillForm(wb, { appId: 'app_todo', prompt: 'Fix the flaky login test', model: 'hosted/auto' });
    await pick(wb, 'Start Agent Run');
    const refused = await wb.waitForNotification(/refused the API token \(401\)/);
    assert.deepEqual(await notificationButtons(refused), ['Set API Token', 'Retry', 'Edit']);
    // The gate knows: the status bar says so (polling is paused) ...
    await rejectedItem.first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    // ... and it shows no prompt of its own: one message, not two.
    await wb.page.waitForTimeout(2_000);
    assert.equal(await gatePrompt.count(), 0, 'the gate prompted too');
    await shoot(wb, 'launch-revoked-401');

    await clickNotificationButton(refused, 'Set API Token');
    await wb.typeInInput(wb.emulator.tokens.default, { prompt: /API token/ });
    const resume = await wb.waitForNotification(/Start the agent run now\? Everything you entered is kept\./);
    assert.deepEqual(await notificationButtons(resume), ['Start Run', 'Edit']);
    await rejectedItem.first().waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
    await clickNotificationButton(resume, 'Start Run');
    await wb.waitForNotification(/Agent run started on app_todo: “Fix the flaky login test”/);

    const sent = await waitForStarts(wb.emulator, 2);
    assert.deepEqual(sent.map((s) => s.status), [401, 201]);
    assert.deepEqual(sent[1].body, sent[0].body, 'Retry sends the same inputs');
    const auth = wb.emulator.requests.filter((r) => r.method === 'POST' && /\/agents$/.test(r.path)).map((r) => r.headers.authorization);
    assert.deepEqual(auth, [`Bearer ${wb.emulator.tokens.revoked}`, `Bearer ${wb.emulator.tokens.default}`], 'the retry used the new token');
    assert.equal(await gatePrompt.count(), 0, 'the gate prompted');
    await clearNotifications(wb);
  });
});

describe('Start an agent run: what the palette and the App ID step offer a newcomer (UI)', function () {
  this.timeout(180_000);
  // No agentRuns.appId: a first session, as the issue's newcomer had it.
  const workbench = useWorkbench({
    name: 'launch-first',
    settings: { 'agentRuns.notifications': 'off', 'workbench.startupEditor': 'none' },
    workspaceFiles: {
      'src/app.ts': 'export const answer = 42;\n',
      'src/checkout.test.js': "test('checkout works', () => {});\n",
    },
  });
  waitForActivation(workbench);

  /** The palette's rows for "Start Agent Run", top first, with their categories. */
  async function paletteRows(wb: Workbench, shot?: string): Promise<string[]> {
    await wb.findCommandPaletteEntry('Agent Runs: Start Agent Run…');
    await inputBox(wb).fill('>Start Agent Run');
    const rows = wb.page.locator(`${QUICK_INPUT} .monaco-list-row .label-name`);
    await waitUntil(async () => (await rows.allInnerTexts()).some((t) => t.trim() === 'Agent Runs: Start Agent Run…'), UI_TIMEOUT_MS, 'the palette to list Start Agent Run…');
    const labels = (await rows.allInnerTexts()).map((t) => t.trim());
    if (shot) await shoot(wb, shot);
    await wb.closeQuickInput();
    return labels;
  }

  it('the palette offers "Start Agent Run…" first; "for These Tests" only with a test file open', async () => {
    const wb = workbench();
    const none = await paletteRows(wb, 'palette-start-agent-run');
    assert.equal(none[0], 'Agent Runs: Start Agent Run…', none.join(' | '));
    assert.ok(!none.some((t) => t.includes('for These Tests')), `offered with no test file open: ${none.join(' | ')}`);
    assert.ok(!none.some((t) => t.includes('Create Test Group from File(s)')), none.join(' | '));

    await wb.page.keyboard.press('Control+P');
    await inputBox(wb).fill('app.ts');
    await wb.page.locator(`${QUICK_INPUT} .monaco-list-row.focused`, { hasText: 'app.ts' }).first().waitFor({ state: 'visible' });
    await enter(wb);
    await wb.page.locator('.tabs-container .tab.active[aria-label^="app.ts"]').first().waitFor({ state: 'visible' });
    // The palette takes the editor's context keys as they are when it opens, a moment after the
    // tab shows active: wait until it offers what an open editor brings, then read it.
    await wb.findCommandPaletteEntry('Start Agent Run with Selection…');
    await wb.closeQuickInput();
    const other = await paletteRows(wb);
    assert.ok(!other.some((t) => t.includes('for These Tests')), `offered on src/app.ts: ${other.join(' | ')}`);

    await wb.page.keyboard.press('Control+P');
    await inputBox(wb).fill('checkout.test.js');
    await wb.page.locator(`${QUICK_INPUT} .monaco-list-row.focused`, { hasText: 'checkout.test.js' }).first().waitFor({ state: 'visible' });
    await enter(wb);
    await wb.page.locator('.tabs-container .tab.active[aria-label^="checkout.test.js"]').first().waitFor({ state: 'visible' });
    await wb.findCommandPaletteEntry('Start Agent Run for These Tests');
    await wb.closeQuickInput();
    const tests = await paletteRows(wb, 'palette-start-agent-run-test-file');
    assert.ok(tests.includes('Agent Runs: Start Agent Run for These Tests'), tests.join(' | '));
  });

  it('Enter on the empty App ID says why; a started app is offered next time with its project name', async () => {
    const wb = workbench();
    await startFromPalette(wb);
    await waitForStep(wb, 'App ID', '1/4');
    assert.match(await placeholder(wb), /Type the App ID/);
    await enter(wb);
    const problem = wb.page.locator(`${QUICK_INPUT} .monaco-list-row`, { hasText: 'Enter the App ID of a verified project' }).first();
    await problem.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await shoot(wb, 'launch-app-id-empty');
    // Enter again on that row: still the same step, nothing sent.
    await enter(wb);
    await waitForStep(wb, 'App ID', '1/4');
    assert.equal(starts(wb.emulator).length, 0);

    await wb.typeInInput('app_shop');
    await waitForStep(wb, 'Prompt');
    await wb.typeInInput('Add a dark mode toggle to the settings page');
    await waitForStep(wb, 'Model');
    await waitUntil(async () => (await placeholder(wb)).includes('offered by the service'), UI_TIMEOUT_MS, 'the live model list');
    await wb.typeInInput('hosted/balanced');
    await waitForStep(wb, 'Review');
    await pick(wb, 'Start Agent Run');
    await waitForStarts(wb.emulator, 1);
    // The run's first read names its project: the Runs view's app row shows it.
    await wb.runCommand('Agent Runs: Focus on Runs View');
    await wb.waitForTreeRow('Shop Frontend');
    await clearNotifications(wb);

    await startFromPalette(wb);
    await waitForStep(wb, 'App ID', '1/4');
    const offered = wb.page.locator(`${QUICK_INPUT} .monaco-list-row`, { hasText: 'app_shop' }).first();
    await offered.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const description = (await offered.locator('.label-description').first().innerText()).trim();
    assert.match(description, /^Shop Frontend · recent · 1 run in the list$/);
    await shoot(wb, 'launch-app-id-offers');
    await enter(wb);
    await waitForStep(wb, 'Prompt');
    await wb.closeQuickInput();
  });
});
