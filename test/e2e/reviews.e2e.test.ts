// Code reviews as a person uses them (issues 21, 31), against the emulator's deployed profile
// (version C): "Start Code Review…" asks for a branch first (the service lists none: typed
// here), then what of it is compared; a feature branch against main goes out as the two branches
// in one POST, and the review's conversation opens in its panel with the review above it, read
// to its end. A branch never synced is synced from the form, which goes on once the sync
// completed. The service lists reviews without their IDs: the row of the one started here opens
// it, another says its ID is not known here and is tracked by ID.
import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { waitUntil } from '../support/processes';
import { atStep, enter, pick, quickInput } from './formSteps';
import { UI_TIMEOUT_MS, useWorkbench, type Workbench } from './harness';

const REVIEW_TIMEOUT_MS = 120_000;
const APP = 'app_todo';

async function tabCount(frame: Frame, name: string): Promise<number> {
  const text = (await frame.locator(`.review-tab[data-tab="${name}"]`).textContent().catch(() => '')) ?? '';
  const m = /\((\d+)\)/.exec(text);
  return m ? Number(m[1]) : -1;
}

/** The rest of the form with its defaults: title, description, focus areas, model, then Start on the review. */
async function startFromTitle(wb: Workbench): Promise<void> {
  for (const step of [/: Title\b/, /: Description\b/, /: Focus areas\b/, /: Model\b/, /: Review\b/]) await enter(wb, step);
}

/** The source or target branch, typed (the service has no list of branches), then its entry picked: a known one, or the typed one. */
async function typeBranch(wb: Workbench, side: 'Source' | 'Target', branch: string): Promise<void> {
  await atStep(wb, new RegExp(`: ${side} branch\\b`));
  await wb.typeInInput(branch, { submit: false });
  await wb.quickPickSelect(new RegExp(`^\\s*${branch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\s*$`));
}

const reviewPosts = (wb: Workbench) => wb.emulator.requests.filter((r) => r.method === 'POST' && r.path.includes('/code-reviews'));

describe('UI: code reviews (deployed profile, version C)', function () {
  this.timeout(300_000);
  const workbench = useWorkbench({ name: 'reviews', preset: 'deployed', settings: { 'agentRuns.appId': APP } });

  it('compares a feature branch with main, each picked as a branch: one POST with the two branches; its panel reads changes, tests and thread', async () => {
    const wb = workbench();
    await wb.waitForExtensionActivation();
    await wb.openActivityBarView('Agent Runs');
    await wb.waitForTreeRow(/^Code reviews/);
    await wb.runCommand('Start Code Review…');
    await enter(wb, /: App ID\b/);
    await typeBranch(wb, 'Source', 'feature/request-timeouts');
    await pick(wb, /: Source(?! branch)\b/, /^\s*(Request timeouts \()?feature\/request-timeouts\)?\s*$/);
    await typeBranch(wb, 'Target', 'main');
    await pick(wb, /: Target(?! branch)\b/, /^\s*(Main \()?main\)?\s*$/);
    await startFromTitle(wb);
    await wb.waitForNotification(/Code review started on app_todo/);
    const posts = reviewPosts(wb);
    assert.equal(posts.length, 1, 'one POST /code-reviews');
    const body = JSON.parse(posts[0].body) as Record<string, unknown>;
    assert.deepEqual([body.appId, body.fromVersion, body.toVersion], [APP, 'feature/request-timeouts', 'main']);
    const versionReads = wb.emulator.requests.filter((r) => r.method === 'GET' && /\/versions\?/.test(r.path));
    assert.ok(versionReads.length > 0 && versionReads.every((r) => /[?&]version=/.test(r.path)), 'GET /versions always with a branch');

    const frame = await wb.webviewFrameWith('.review-tab', REVIEW_TIMEOUT_MS);
    await waitUntil(async () => (await tabCount(frame, 'changes')) > 0 && (await tabCount(frame, 'tests')) > 0 && (await tabCount(frame, 'thread')) > 0,
      REVIEW_TIMEOUT_MS, 'changes, tests and a thread in the review');
    const changes = await frame.locator('.review-item-title').allTextContents();
    assert.ok(changes.length > 0 && changes.every((t) => t.trim() !== ''), `the Changes tab lists its items: ${changes.join(' / ')}`);
    // Keyboard: from the selected tab, End goes to the Thread.
    await frame.locator('.review-tab[aria-selected="true"]').focus();
    await frame.locator('.review-tab[aria-selected="true"]').press('End');
    await waitUntil(async () => (await frame.locator('.review-tab[aria-selected="true"]').getAttribute('data-tab')) === 'thread', UI_TIMEOUT_MS, 'the Thread tab');
    assert.ok((await frame.locator('.review-comment').count()) > 0, 'the thread lists its comments');
    await wb.page.mouse.move(5, 880);
    await wb.screenshot('reviews-1-panel');
  });

  it('a branch never synced: "Sync branch" in the form, progress, and the form goes on with the new version once the sync completed', async () => {
    const wb = workbench();
    const before = reviewPosts(wb).length;
    await wb.runCommand('Start Code Review…');
    await enter(wb, /: App ID\b/);
    await typeBranch(wb, 'Source', 'feature/dark-mode');
    await atStep(wb, /: Source(?! branch)\b/);
    await waitUntil(async () => (await quickInput(wb).locator('.monaco-list-row', { hasText: 'No synced versions' }).count()) > 0, UI_TIMEOUT_MS, 'the branch has no synced version');
    await wb.screenshot('reviews-2-never-synced');
    await pick(wb, /: Source(?! branch)\b/, /Sync branch feature\/dark-mode/);
    // The sync runs under a progress notification (a few of the emulator's steps, too quick to
    // catch on screen); once it completed the form goes on by itself, to the target.
    await atStep(wb, /: Target branch\b/);
    assert.ok(wb.emulator.requests.some((r) => r.method === 'GET' && /\/versions\/status\?/.test(r.path)), 'the sync answered 202 and was followed');
    const syncs = wb.emulator.requests.filter((r) => r.method === 'POST' && r.path.includes('/versions/sync'));
    assert.equal(syncs.length, 1, 'the sync was asked for once');
    assert.deepEqual(JSON.parse(syncs[0].body), { appId: APP, version: 'feature/dark-mode' });
    const synced = (wb.emulator.state.versions.get(APP) ?? []).filter((v) => v.version === 'feature/dark-mode');
    assert.equal(synced.length, 1, 'one version of the branch, the synced one');

    await typeBranch(wb, 'Target', 'main');
    await pick(wb, /: Target(?! branch)\b/, /^\s*(Main \()?main\)?\s*$/);
    await startFromTitle(wb);
    await wb.waitForNotification(/Code review started on app_todo/);
    const posts = reviewPosts(wb);
    assert.equal(posts.length, before + 1, 'one more POST /code-reviews');
    const body = JSON.parse(posts[posts.length - 1].body) as Record<string, unknown>;
    assert.deepEqual([body.fromVersion, body.toVersion], [synced[0].versionId, 'main'], 'the new version against main');
  });

  it('rows of reviews listed without IDs: the one started here opens; another says its ID is not known here, and is tracked by ID', async () => {
    const wb = workbench();
    // A review created elsewhere over REST: listed without its ID, not known to this editor.
    const res = await fetch(`${wb.emulator.baseUrl}/code-reviews`, {
      method: 'POST',
      headers: { authorization: `Bearer ${wb.emulator.tokens.default}`, 'content-type': 'application/json' },
      body: JSON.stringify({ appId: APP, fromVersion: 'fix/login-redirect', toVersion: 'main', title: 'Made elsewhere' }),
    });
    assert.equal(res.status, 202);
    const { reviewId } = (await res.json()) as { reviewId: string };

    // Expanded (by its twistie: a click on a row that a refresh moves may land on another), then read again.
    const reviewsRow = await wb.waitForTreeRow(/^Code reviews/);
    if ((await reviewsRow.getAttribute('aria-expanded')) !== 'true') await reviewsRow.locator('.monaco-tl-twistie').click();
    await waitUntil(async () => (await wb.treeRow(/^Code reviews/).getAttribute('aria-expanded')) === 'true', UI_TIMEOUT_MS, '"Code reviews" expanded');
    await wb.treeInlineAction(/^Code reviews/, 'Refresh Code Reviews');
    const elsewhere = await wb.waitForTreeRow(/#\d+ Made elsewhere/, REVIEW_TIMEOUT_MS);
    assert.match((await wb.treeRowParts(elsewhere)).description, /^ID not known here/);
    const seeded = await wb.waitForTreeRow(/#\d+ Settings page \(TODO-140\)/);
    assert.match((await wb.treeRowParts(seeded)).description, /^ID not known here/);
    // The first test's review: its title is the service's (or none: then the branches compared).
    const mine = await wb.waitForTreeRow(/#\d+ (Request timeouts|feature\/request-timeouts) → (Main|main)/);
    assert.doesNotMatch((await wb.treeRowParts(mine)).description, /ID not known here/, 'the review started here is matched to its row');
    await wb.screenshot('reviews-3-rows-without-ids');

    await elsewhere.click();
    const toast = await wb.waitForNotification(/cannot be opened here/);
    await toast.locator('.monaco-button', { hasText: 'Track Code Review by ID…' }).click();
    await wb.typeInInput(reviewId, { prompt: /Track Code Review by ID/ });
    // Tracked: the row opens the review (its panel shows the review above the conversation).
    await wb.webviewFrameWith('.review-tab', REVIEW_TIMEOUT_MS);
    await waitUntil(async () => !/ID not known here/.test((await wb.treeRowParts(wb.treeRow(/#\d+ Made elsewhere/))).description),
      UI_TIMEOUT_MS, 'the tracked row to be known');
  });
});
