// Code reviews as a person uses them (issue 21), against the emulator's deployed profile: the
// Runs view learns the service offers them, "Start Code Review…" from the palette walks the
// form with its defaults (the app from settings, the two newest ready versions of GET
// /versions), one POST starts it, and the review's conversation opens in the run panel with the
// review above it; it is followed to its end and its changes, tests and thread are read there.
import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { waitUntil } from '../support/processes';
import { UI_TIMEOUT_MS, useWorkbench, type Workbench } from './harness';

const REVIEW_TIMEOUT_MS = 120_000;

async function tabCount(frame: Frame, name: string): Promise<number> {
  const text = (await frame.locator(`.review-tab[data-tab="${name}"]`).textContent().catch(() => '')) ?? '';
  const m = /\((\d+)\)/.exec(text);
  return m ? Number(m[1]) : -1;
}

/** Accepts each step's default (Enter), as a person who agrees with the form would, until the form closes. */
async function acceptDefaults(wb: Workbench): Promise<string[]> {
  const widget = wb.page.locator('.quick-input-widget');
  const titles: string[] = [];
  await widget.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  for (let i = 0; i < 20 && (await widget.isVisible()); i++) {
    const title = (await widget.locator('.quick-input-title').innerText().catch(() => '')) ?? '';
    const placeholder = (await widget.locator('.quick-input-box input').getAttribute('placeholder').catch(() => '')) ?? '';
    const step = `${title}|${placeholder}`;
    titles.push(step);
    // A pick step takes Enter once its list has an active entry (lists load from the service).
    await waitUntil(async () => !(await widget.locator('.quick-input-list').isVisible()) || (await widget.locator('.quick-input-list .monaco-list-row.focused').count()) > 0,
      UI_TIMEOUT_MS, `an active entry in "${step}"`);
    await widget.locator('.quick-input-box input').press('Enter');
    await waitUntil(async () => {
      if (!(await widget.isVisible())) return true;
      const t = (await widget.locator('.quick-input-title').innerText().catch(() => '')) ?? '';
      const p = (await widget.locator('.quick-input-box input').getAttribute('placeholder').catch(() => '')) ?? '';
      return `${t}|${p}` !== step;
    }, UI_TIMEOUT_MS, `the form to move on from "${step}"`);
  }
  return titles;
}

describe('UI: code reviews (deployed profile)', function () {
  this.timeout(300_000);
  const workbench = useWorkbench({ name: 'reviews', preset: 'deployed', settings: { 'agentRuns.appId': 'app_todo' } });

  it('starts a review between two versions from the list, follows it to its end and reads its changes, tests and thread in its panel', async () => {
    const wb = workbench();
    await wb.waitForExtensionActivation();
    await wb.openActivityBarView('Agent Runs');
    await wb.waitForTreeRow(/^Code reviews/);
    await wb.runCommand('Start Code Review…');
    const steps = await acceptDefaults(wb);
    assert.ok(steps.some((s) => s.includes('From version') || s.includes('start from')), `the form asked for the versions: ${steps.join(' / ')}`);
    await wb.waitForNotification(/Code review started on app_todo/);
    const posts = wb.emulator.requests.filter((r) => r.method === 'POST' && r.path.includes('/code-reviews'));
    assert.equal(posts.length, 1, 'one POST /code-reviews');

    const frame = await wb.webviewFrameWith('.review-tab', REVIEW_TIMEOUT_MS);
    await waitUntil(async () => /completed/i.test((await frame.locator('.review-facts').textContent()) ?? '') || (await tabCount(frame, 'thread')) > 0,
      REVIEW_TIMEOUT_MS, 'the review to record its discussion');
    await waitUntil(async () => (await tabCount(frame, 'changes')) > 0 && (await tabCount(frame, 'tests')) > 0 && (await tabCount(frame, 'thread')) > 0,
      REVIEW_TIMEOUT_MS, 'changes, tests and a thread in the review');
    const changes = await frame.locator('.review-item-title').allTextContents();
    assert.ok(changes.length > 0 && changes.every((t) => t.trim() !== ''), `the Changes tab lists its items: ${changes.join(' / ')}`);

    // Keyboard: from the selected tab, End goes to the Thread.
    await frame.locator('.review-tab[aria-selected="true"]').focus();
    await frame.locator('.review-tab[aria-selected="true"]').press('End');
    await waitUntil(async () => (await frame.locator('.review-tab[aria-selected="true"]').getAttribute('data-tab')) === 'thread', UI_TIMEOUT_MS, 'the Thread tab');
    const thread = await frame.locator('.review-comment').count();
    assert.ok(thread > 0, 'the thread lists its comments');
    await frame.locator('.review-tab[data-tab="tests"]').click();
    const tests = await frame.locator('.review-item-title').allTextContents();
    assert.ok(tests.length > 0, 'the Tests tab lists its items');
    await wb.page.mouse.move(5, 880);
    await wb.screenshot('reviews-1-panel');
  });
});
