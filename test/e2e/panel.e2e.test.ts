// The run panel as a person uses it: a running run opened from the Runs tree, messages
// arriving while it is open (no reload of the page, the scroll position and an expanded tool
// call kept, the "N new" pill), follow-ups from the composer (queued turns, a failed send that
// keeps the text and is never re-sent), Markdown export through the save dialog, Clone Run,
// hostile agent output shown as inert text, and the panel (with its unsent draft) coming back
// after a window reload; and a long run: find (a match that was never rendered), role filters,
// prompt jumps with the keyboard and the new-messages pill. The emulator's request log shows
// exactly what was sent.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Locator } from 'playwright-core';
import { waitUntil } from '../support/processes';
import { UI_TIMEOUT_MS, useWorkbench, type Workbench } from './harness';
import { startRunOnService } from './service';
import { adminOk } from '../emulator/testing';

const PROMPT = 'Tidy up the todo store and explain each change';
/** A follow-up the person starts writing (and never sends): begun before the export, finished before the reload. */
const DRAFT_START = 'Draft: rename the store';
const DRAFT = `${DRAFT_START} to TodoRepository`;
const PANEL_TAB = /^Run: app_todo/;

interface AdminAgent {
  status: string;
  history: { sequence: number; role: string; content: string }[];
  pendingTurns: { prompt: string }[];
  activeTurn: { number: number; prompt: string; stepsDone: number; stepsTotal: number } | null;
  lifecycle: { conversationState?: string; sandboxState?: string; queuedTurnCount?: number };
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

interface InjectedMessage {
  role: string;
  /** `null` only under the deployed shapes (a tool call with parameters only). */
  content: string | null;
  toolName?: string;
  /** A string under the reference's shapes; an object under the deployed service's. */
  toolParameters?: string | { [key: string]: Json };
  /** Strings under the reference's shapes; objects too under the deployed service's. */
  attachments?: (string | { [key: string]: Json })[];
}

/** The little of the DOM these tests touch inside the page (this file is compiled without the DOM library). */
interface PageElement {
  getBoundingClientRect(): { top: number; left: number; width: number; height: number };
  setAttribute(name: string, value: string): void;
  getAttribute(name: string): string | null;
  readonly outerHTML: string;
}

interface ScrollState {
  top: number;
  height: number;
  client: number;
}

async function admin<T>(wb: Workbench, method: string, route: string, body?: unknown): Promise<T> {
  return (await adminOk(wb.emulator.adminUrl, method, route, body)) as T;
}

function agentView(wb: Workbench, agentId: string): Promise<AdminAgent> {
  return admin<AdminAgent>(wb, 'GET', `/agents/${agentId}`);
}

function waitForAgent(wb: Workbench, agentId: string, what: string, check: (a: AdminAgent) => boolean): Promise<AdminAgent> {
  return waitForValue(async () => {
    const a = await agentView(wb, agentId);
    // Only what a failure message needs.
    return { ...a, history: [], summary: `${a.status}, ${a.activeTurn ? `turn ${a.activeTurn.number} at step ${a.activeTurn.stepsDone}/${a.activeTurn.stepsTotal}` : 'no active turn'}` };
  }, check, `${what} (run ${agentId})`);
}

/** Waits until `read()` gives a value `ok` accepts; the failure names the last value read. */
async function waitForValue<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs = UI_TIMEOUT_MS): Promise<T> {
  let last: T | undefined;
  try {
    await waitUntil(async () => ok((last = await read())), timeoutMs, what);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)} (last: ${JSON.stringify(last)})`);
  }
  return last!;
}

/** Appends a message to the run's history, as the agent would. */
async function inject(wb: Workbench, agentId: string, message: InjectedMessage): Promise<void> {
  await admin(wb, 'POST', `/agents/${agentId}/messages`, message);
}

/** The follow-up POSTs the emulator received for this run, oldest first. */
function followUpPosts(wb: Workbench, agentId: string): { prompt: string; status?: number; fault?: string }[] {
  return wb.emulator.requests
    .filter((r) => r.method === 'POST' && r.path.split('?')[0].endsWith(`/agents/${agentId}/messages`))
    .map((r) => ({ prompt: (JSON.parse(r.body) as { prompt: string }).prompt, status: r.status, fault: r.fault }));
}

/** How many times the extension read this run (GET /agents/{id}). */
function runReads(wb: Workbench, agentId: string): number {
  return wb.emulator.requests.filter((r) => r.method === 'GET' && r.path.split('?')[0].endsWith(`/agents/${agentId}`)).length;
}

async function waitForFollowUpPosts(wb: Workbench, agentId: string, count: number): Promise<ReturnType<typeof followUpPosts>> {
  await waitUntil(
    () => {
      const posts = followUpPosts(wb, agentId);
      return posts.length >= count && posts.every((p) => p.status !== undefined || p.fault !== undefined);
    },
    UI_TIMEOUT_MS,
    `${count} answered POST /agents/${agentId}/messages (now ${followUpPosts(wb, agentId).length})`,
  );
  return followUpPosts(wb, agentId);
}

/** The panel's frame (the webview content, two iframes deep) showing this run. */
function panelFrame(wb: Workbench, agentId: string, timeoutMs = UI_TIMEOUT_MS): Promise<Frame> {
  return wb.webviewFrame(async (frame) => {
    const id = frame.locator('.run-header .agent-id');
    return (await id.count()) > 0 && (await id.first().textContent())?.trim() === agentId;
  }, timeoutMs);
}

/** The articles mounted now (the history is windowed: only those near the viewport). */
function articles(frame: Frame): Locator {
  return frame.locator('.log article.msg');
}

/** How many messages the history holds (the feed's set size), mounted or not. */
async function historySize(frame: Frame): Promise<number> {
  return Number((await frame.locator('.log article.msg').first().getAttribute('aria-setsize')) ?? '0');
}

function article(frame: Frame, text: string): Locator {
  return frame.locator('.log article.msg', { hasText: text }).first();
}

function scrollState(frame: Frame): Promise<ScrollState> {
  return frame.evaluate<ScrollState>(
    '(() => { const s = document.scrollingElement; return { top: s.scrollTop, height: s.scrollHeight, client: s.clientHeight }; })()',
  );
}

const atBottom = (s: ScrollState): boolean => s.height - (s.top + s.client) <= 48;

/** Resolves once the page has not scrolled for 10 animation frames (a wheel scroll is animated). */
async function scrollSettled(frame: Frame): Promise<ScrollState> {
  await frame.evaluate(`new Promise((resolve) => {
    const s = document.scrollingElement;
    let last = -1, same = 0;
    const check = () => {
      if (s.scrollTop === last) { same++; } else { same = 0; last = s.scrollTop; }
      if (same >= 10) { resolve(true); } else { requestAnimationFrame(check); }
    };
    requestAnimationFrame(check);
  })`);
  return scrollState(frame);
}

/** Top of an element relative to the webview's viewport. */
function viewportTop(locator: Locator): Promise<number> {
  return locator.evaluate((el: PageElement) => el.getBoundingClientRect().top);
}

/**
 * Clicks the middle of `text` inside the element (a person aims at the words, not at the
 * middle of their paragraph). Fails when the element does not show that text.
 */
async function clickText(locator: Locator, text: string): Promise<void> {
  const position = await locator.evaluate((el: PageElement, wanted: string) => {
    const node = el as unknown as { ownerDocument: { createTreeWalker(root: unknown, what: number): { nextNode(): { textContent: string | null } | null }; createRange(): { setStart(n: unknown, o: number): void; setEnd(n: unknown, o: number): void; getBoundingClientRect(): { left: number; top: number; width: number; height: number } } } };
    const walker = node.ownerDocument.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const at = (t.textContent ?? '').indexOf(wanted);
      if (at >= 0) {
        const range = node.ownerDocument.createRange();
        range.setStart(t, at);
        range.setEnd(t, at + wanted.length);
        const r = range.getBoundingClientRect();
        const box = el.getBoundingClientRect();
        return { x: r.left - box.left + r.width / 2, y: r.top - box.top + r.height / 2 };
      }
    }
    return undefined;
  }, text);
  assert.ok(position, `the element shows no "${text}"`);
  await locator.click({ position });
}

/** Closes the run panels' editor tabs with their close buttons, as a person would. */
async function closeRunPanels(wb: Workbench): Promise<void> {
  const tabs = wb.page.locator('.tabs-container .tab', { hasText: PANEL_TAB });
  for (let n = await tabs.count(); n > 0; n = await tabs.count()) {
    const tab = tabs.first();
    await tab.hover();
    await tab.locator('.tab-actions .action-label').first().click();
    await waitUntil(async () => (await tabs.count()) < n, UI_TIMEOUT_MS, 'the run panel tab to close');
  }
}

/** Types into the composer with the keyboard and sends with Ctrl+Enter. */
async function sendFromComposer(wb: Workbench, frame: Frame, text: string): Promise<void> {
  const composer = frame.locator('#composer-input');
  await composer.click();
  await wb.page.keyboard.type(text);
  assert.equal(await composer.inputValue(), text);
  await wb.page.keyboard.press('Control+Enter');
}

/** The composer is idle again (the Send button back) after a send. */
async function waitForComposerIdle(frame: Frame): Promise<void> {
  await frame.locator('.composer button[type="submit"]:not([disabled])', { hasText: /^Send$/ }).waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
}

async function lifecycleMeta(frame: Frame): Promise<string> {
  return ((await frame.locator('.lifecycle-meta').textContent()) ?? '').trim();
}

/** Moves the pointer off the panel, so no hover state is left in a screenshot. */
async function shoot(wb: Workbench, name: string): Promise<void> {
  await wb.page.mouse.move(5, 880);
  await wb.screenshot(name);
}

/** A tool call and some text, enough to fill more than one screen of the panel. */
function backlog(i: number): InjectedMessage {
  if (i === 18) {
    return {
      role: 'tool',
      toolName: 'edit_file',
      // Three edits: long enough (17 lines) to be folded into a collapsed tool call.
      toolParameters: JSON.stringify({
        path: 'src/store/todos.ts',
        edits: [
          { find: 'let todos = []', replace: 'const todos: Todo[] = []' },
          { find: 'todos = todos.filter', replace: 'todos.splice(0, todos.length, ...todos.filter' },
          { find: 'export default todos', replace: 'export { todos }' },
        ],
      }),
      content: 'Edited `src/store/todos.ts` (1 change).',
    };
  }
  return {
    role: 'assistant',
    content: `Step ${i}: looked at part ${i} of the store.\n\n- kept the public API\n- removed a duplicate check\n- \`npm test\` still passes`,
  };
}

describe('Run panel (UI)', function () {
  this.timeout(120_000);
  const workbench = useWorkbench({
    name: 'panel',
    // One step a second: a [[slow]] turn stays busy for about half a minute, long enough to
    // queue follow-ups behind it.
    stepMs: 1_000,
    settings: {
      'agentRuns.polling.panelSeconds': 1,
      'agentRuns.polling.backgroundSeconds': 5,
      'agentRuns.notifications': 'off',
      'workbench.colorTheme': 'Default Dark Modern',
      'workbench.startupEditor': 'none',
    },
  });
  let agentId = '';
  const exportPath = (wb: Workbench): string => path.join(wb.session.profile.workspaceDir, 'exported-run.md');

  before(async function () {
    this.timeout(60_000);
    await workbench().waitForExtensionActivation();
  });

  it('opens a running run from the tree and follows new messages without a reload, keeping scroll and an expanded tool call', async () => {
    const wb = workbench();
    agentId = await startRunOnService(wb, PROMPT, { model: 'hosted/balanced', reasoningEffort: 'high' });
    // Let the service begin the turn (the prompt becomes the first message), then hold the
    // run there: it stays `running` and only what this test injects arrives.
    await waitForAgent(wb, agentId, 'the first turn to begin', (a) => a.activeTurn !== null);
    await admin(wb, 'PATCH', `/agents/${agentId}`, { status: 'running' });
    for (let i = 1; i <= 24; i++) {
      await inject(wb, agentId, backlog(i));
    }

    await wb.runCommand('Agent Runs: Track Run by ID…');
    await wb.typeInInput(agentId, { prompt: /agent ID/i });
    // Track Run reveals the row itself (a click on the activity bar could race it and close the view).
    await wb.waitForTreeRow(PROMPT);
    // Tracking opens the panel; close it and open the run from the tree, as a person would.
    const tracked = await panelFrame(wb, agentId);
    await closeRunPanels(wb);
    await waitUntil(() => tracked.isDetached(), UI_TIMEOUT_MS, 'the closed panel\'s page to go');
    await wb.contextMenu(PROMPT, 'Open Run');

    const frame = await panelFrame(wb, agentId);
    await frame.locator('.status-badge', { hasText: 'Running' }).waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    // The header's bar (issue 33 §5): status, turn, model and lifecycle in one line; the rest
    // behind its Details button.
    assert.equal((await frame.locator('.run-bar .bar-model').textContent())?.trim(), 'hosted/balanced');
    await frame.locator('.run-bar .bar-lifecycle', { hasText: /^Conversation: / }).waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const details = frame.locator('.run-bar button[aria-controls="run-details"]');
    await details.click();
    assert.equal(await details.getAttribute('aria-expanded'), 'true');
    assert.match((await frame.locator('.run-title').textContent()) ?? '', /app_todo/);
    assert.equal((await frame.locator('.fact-model dd').textContent())?.trim(), 'hosted/balanced');
    assert.equal((await frame.locator('.fact-app dd').textContent())?.trim(), 'app_todo');
    assert.equal(await frame.locator('.lifecycle .lane').count(), 2);
    await frame.locator('.lifecycle .lane-state', { hasText: 'thinking' }).first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await details.click();
    assert.equal(await details.getAttribute('aria-expanded'), 'false');
    await waitUntil(async () => (await historySize(frame)) === 25, UI_TIMEOUT_MS, 'the prompt and the 24 injected messages');
    const opened = await scrollSettled(frame);
    assert.ok(atBottom(opened), `the panel opens at the end of the history (${JSON.stringify(opened)})`);
    await shoot(wb, 'panel-1-opened');
    // The header's details: facts and lifecycle lanes, over the history.
    await details.click();
    await frame.locator('.lifecycle').waitFor({ state: 'visible' });
    await shoot(wb, 'panel-1-header');
    await details.click();
    // Back to the end (End in the history), where the person was.
    await frame.locator('.log').focus();
    await wb.page.keyboard.press('End');
    await waitUntil(async () => atBottom(await scrollState(frame)), UI_TIMEOUT_MS, 'End to scroll to the end of the history');

    // Marks that a reload of the page, or a re-render of the history, would lose.
    await frame.evaluate("window.__panelMarker = 'still-the-same-page'");

    // The person scrolls up and expands the tool call.
    const log = frame.locator('.log');
    const box = await log.boundingBox();
    assert.ok(box, 'the history is on screen');
    await wb.page.mouse.move(box.x + box.width / 2, Math.min(box.y + box.height / 2, 600));
    await wb.page.mouse.wheel(0, -500);
    await scrollSettled(frame);
    const toolArticle = article(frame, 'Edited src/store/todos.ts');
    await toolArticle.locator('details.tool > summary').click();
    await toolArticle.locator('details.tool[open] .tool-params').waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const scrolledUp = await scrollSettled(frame);
    assert.ok(!atBottom(scrolledUp), `scrolled up (${JSON.stringify(scrolledUp)})`);
    const toolTopBefore = await viewportTop(toolArticle);
    await shoot(wb, 'panel-2-scrolled-up-tool-expanded');
    // The history is windowed: the articles mounted now are marked, and must stay the same elements.
    await articles(frame).evaluateAll((els: PageElement[]) => els.forEach((el) => el.setAttribute('data-e2e-marker', `kept-${el.getAttribute('aria-posinset') ?? ''}`)));

    for (let i = 1; i <= 3; i++) {
      await inject(wb, agentId, { role: 'assistant', content: `Live update ${i} arrived while you were reading.` });
    }
    await article(frame, 'Live update 3 arrived').waitFor({ state: 'attached', timeout: UI_TIMEOUT_MS });
    assert.equal(await historySize(frame), 28);
    const pill = frame.locator('.new-pill');
    await pill.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    assert.equal((await pill.textContent())?.trim(), '3 new ↓');
    await scrollSettled(frame);
    // The history is windowed: rows mounted above the view replace their estimated heights with
    // measured ones and the page's scroll offset follows (scroll anchoring). What the person
    // sees must not move.
    assert.equal(await viewportTop(toolArticle), toolTopBefore, 'the tool call did not move on screen');
    assert.equal(await toolArticle.locator('details.tool').getAttribute('open'), '', 'the tool call is still expanded');
    assert.equal(await frame.evaluate('window.__panelMarker'), 'still-the-same-page', 'the webview page was reloaded');
    // Every article still mounted is the element it was (its marker), none was re-rendered.
    const markers = await articles(frame).evaluateAll((els: PageElement[]) => els.map((el) => [el.getAttribute('aria-posinset'), el.getAttribute('data-e2e-marker')]));
    for (const [pos, marker] of markers) {
      if (Number(pos) <= 25) {
        assert.equal(marker, `kept-${pos}`, `message ${pos} was re-rendered`);
      }
    }
    await shoot(wb, 'panel-3-new-messages-pill');

    // The pill takes the person to the end; from there, new messages keep the end in view.
    await pill.click();
    await pill.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
    await waitUntil(async () => atBottom(await scrollState(frame)), UI_TIMEOUT_MS, 'the pill to scroll to the end');
    await inject(wb, agentId, { role: 'assistant', content: 'One more, seen at the bottom.' });
    await article(frame, 'One more, seen at the bottom.').waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const followed = await scrollSettled(frame);
    assert.ok(atBottom(followed), `the end stays in view (${JSON.stringify(followed)})`);
    assert.ok(await pill.isHidden(), 'no pill when the new message is in view');
    assert.equal(await frame.evaluate('window.__panelMarker'), 'still-the-same-page');
  });

  it('sends follow-ups from the composer: one POST each, queued turns shown, a send that may have arrived keeps the text, locked, and is not re-sent', async () => {
    const wb = workbench();
    assert.ok(agentId, 'the first test created the run');
    const frame = await panelFrame(wb, agentId);
    const composer = frame.locator('#composer-input');
    const status = frame.locator('.composer-status');

    // The held run re-opens with a long turn.
    const first = 'Also cover the empty title case [[slow]]';
    await sendFromComposer(wb, frame, first);
    let posts = await waitForFollowUpPosts(wb, agentId, 1);
    assert.deepEqual(posts, [{ prompt: first, status: 202, fault: undefined }]);
    await waitForComposerIdle(frame);
    assert.equal(await composer.inputValue(), '', 'the composer clears once the service accepted the follow-up');
    const busy = await waitForAgent(wb, agentId, 'the slow turn to begin', (a) => a.activeTurn?.prompt === first);
    assert.ok(busy.activeTurn!.stepsTotal - busy.activeTurn!.stepsDone >= 15, 'the turn has time left to queue behind');
    await frame.locator('.status-badge', { hasText: 'Running' }).waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });

    // Two more while it is busy: the service queues them, and the panel shows the queue grow.
    const second = 'Then update the changelog';
    await sendFromComposer(wb, frame, second);
    posts = await waitForFollowUpPosts(wb, agentId, 2);
    assert.deepEqual(posts[1], { prompt: second, status: 202, fault: undefined });
    await waitForComposerIdle(frame);
    assert.equal(await composer.inputValue(), '');
    await waitForValue(() => lifecycleMeta(frame), (t) => /\b1 follow-ups? queued/.test(t), 'the panel to show 1 queued follow-up');
    const third = 'And bump the version';
    await sendFromComposer(wb, frame, third);
    posts = await waitForFollowUpPosts(wb, agentId, 3);
    assert.deepEqual(posts[2], { prompt: third, status: 202, fault: undefined });
    await waitForValue(() => lifecycleMeta(frame), (t) => /\b2 follow-ups queued/.test(t), 'the panel to show 2 queued follow-ups');
    const queued = await agentView(wb, agentId);
    assert.deepEqual(queued.pendingTurns.map((t) => t.prompt), [second, third], 'the service queued both behind the busy turn');
    const details = frame.locator('.run-bar button[aria-controls="run-details"]');
    await details.click();
    await frame.locator('.lifecycle').waitFor({ state: 'visible' });
    await shoot(wb, 'panel-4-follow-ups-queued');
    await details.click();
    // Hold the run here, still running, as the first test held it (the halt drops the queued
    // follow-ups): the tests after the export inject messages and need it still followed, and a
    // finished run is not polled. Left to itself it ends about 45 s after the first follow-up;
    // on a busy machine with VS Code 1.139 the export alone took 47 s.
    await admin(wb, 'PATCH', `/agents/${agentId}`, { status: 'running' });

    // The service answers 503: the follow-up may have reached it, so it is neither called "not
    // sent" nor sent again on its own; the composer stays locked on it and says so.
    wb.emulator.inject({ method: 'POST', path: `^/agents/${agentId}/messages$`, status: 503, times: 1 });
    const failing = 'Please also add a migration note';
    await sendFromComposer(wb, frame, failing);
    posts = await waitForFollowUpPosts(wb, agentId, 4);
    assert.equal(posts[3].prompt, failing);
    assert.equal(posts[3].status, 503);
    const notice = frame.locator('.notice-uncertain');
    await notice.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    assert.match((await notice.textContent()) ?? '', /may already have reached the service/);
    assert.equal(await composer.inputValue(), failing, 'the typed text stays in the composer');
    assert.equal(await frame.locator('.composer button[type="submit"]').isDisabled(), true, 'Send is locked while it may have arrived');
    assert.doesNotMatch((await status.textContent()) ?? '', /^Not sent/);
    await composer.scrollIntoViewIfNeeded();
    await shoot(wb, 'panel-5-follow-up-may-have-arrived');
    // Two more reads of the run later (the panel polls every second), still one attempt.
    const reads = runReads(wb, agentId);
    await waitUntil(() => runReads(wb, agentId) >= reads + 2, UI_TIMEOUT_MS, 'two more polls of the run');
    assert.equal(followUpPosts(wb, agentId).length, 4, 'the failed follow-up was sent again without being asked');
    assert.equal(followUpPosts(wb, agentId).filter((p) => p.prompt === failing).length, 1);

    // The person takes it back (Edit): the text returns as an editable draft, nothing is sent.
    await notice.locator('button[data-ui="edit-follow-up"]').click();
    await notice.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
    await waitUntil(async () => (await composer.getAttribute('readonly')) === null && (await composer.inputValue()) === failing, UI_TIMEOUT_MS, 'the text back in an editable composer');
    assert.equal(followUpPosts(wb, agentId).length, 4);
    // And gives up on it: clear the box.
    await composer.click();
    await wb.page.keyboard.press('Control+A');
    await wb.page.keyboard.press('Delete');
    assert.equal(await composer.inputValue(), '');
  });

  it('exports the run as Markdown through the save dialog, without the token', async () => {
    const wb = workbench();
    const frame = await panelFrame(wb, agentId);
    const target = exportPath(wb);
    // The person has begun a follow-up (not sent) when they export.
    await frame.locator('#composer-input').click();
    await wb.page.keyboard.type(DRAFT_START);
    await frame.locator('.toolbar button', { hasText: 'Export as Markdown' }).click();
    // code-server's save dialog is VS Code's simple file dialog: a path in a quick input. It
    // fills in its suggestion (the workspace folder and a file name) after it shows; type
    // over it only then, or the suggestion replaces what was typed.
    const input = wb.page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const suggested = path.join(wb.session.profile.workspaceDir, `agent-run-${agentId}.md`);
    await waitForValue(() => input.inputValue(), (v) => v === suggested, `the save dialog to suggest ${suggested}`);
    await shoot(wb, 'panel-6-export-dialog');
    await wb.typeInInput(target, { prompt: /Export run/, submit: false });
    await waitForValue(() => input.inputValue(), (v) => v === target, 'the save dialog to take the typed path');
    await input.press('Enter');
    const toast = await wb.waitForNotification(/Run exported to/);
    await waitUntil(() => fs.existsSync(target), UI_TIMEOUT_MS, `${target} to be written`);
    const text = fs.readFileSync(target, 'utf8');
    assert.ok(text.includes(agentId.replace(/_/g, '\\_')), `the export names the run: ${text.slice(0, 200)}`);
    assert.match(text, /Tidy up the todo store/);
    assert.match(text, /Live update 3 arrived while you were reading\./);
    assert.match(text, /edit_file/);
    assert.match(text, /Also cover the empty title case/);
    assert.ok(!text.includes(wb.emulator.tokens.default), 'the export contains the API token');
    assert.ok(!/Bearer\s/i.test(text), 'the export contains an Authorization header');
    // The notification opens the file; closing it brings the panel back.
    await toast.locator('.monaco-button', { hasText: /^Open$/ }).click();
    const fileTab = wb.page.locator('.tabs-container .tab.active', { hasText: 'exported-run.md' });
    await fileTab.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await wb.page.locator('.editor-instance .view-lines', { hasText: 'Agent run' }).first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await shoot(wb, 'panel-7-exported-file');
    await fileTab.hover();
    await fileTab.locator('.tab-actions .action-label').first().click();
    await wb.page.locator('.tabs-container .tab.active', { hasText: PANEL_TAB }).waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    // A hidden panel's page is torn down; shown again, it has the unsent text back.
    const shown = await panelFrame(wb, agentId);
    assert.notEqual(shown, frame, 'a new page for the panel shown again');
    await shown.locator('.status-badge').waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    assert.equal(await shown.locator('#composer-input').inputValue(), DRAFT_START);
  });

  it('Clone run opens the launch form pre-filled with the run', async () => {
    const wb = workbench();
    const frame = await panelFrame(wb, agentId);
    await frame.locator('.toolbar button', { hasText: 'Clone run' }).click();
    const quick = wb.page.locator('.quick-input-widget');
    await waitUntil(
      async () => (await quick.isVisible()) && /Start Agent Run.*: Review/.test(await quick.locator('.quick-input-title').innerText().catch(() => '')),
      UI_TIMEOUT_MS,
      'the launch form at its review step',
    );
    const value = async (label: string): Promise<string> => {
      const row = quick
        .locator('.monaco-list-row')
        .filter({ has: wb.page.locator('.label-name', { hasText: new RegExp(`^\\s*${label}\\s*$`) }) })
        .first();
      await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      return (await row.locator('.label-description').first().innerText()).trim();
    };
    assert.equal(await value('App ID'), 'app_todo');
    assert.equal(await value('Prompt'), PROMPT);
    assert.equal(await value('Model'), 'hosted/balanced');
    await shoot(wb, 'panel-8-clone-form');
    await wb.closeQuickInput();
  });

  it('shows hostile agent output as inert text', async () => {
    const wb = workbench();
    const frame = await panelFrame(wb, agentId);
    const hostile = [
      'Hostile: <img src=x onerror="window.__pwned=1"> and <script>window.__pwned=1</script>',
      '',
      '[a javascript link](javascript:window.__pwned=1) [a command link](command:workbench.action.toggleSidebarVisibility) [the docs](https://example.com/docs)',
    ].join('\n');
    const size = await historySize(frame);
    await inject(wb, agentId, { role: 'assistant', content: hostile });
    // Wherever the person was reading, the Latest button brings the newest message into view.
    await waitUntil(async () => (await historySize(frame)) > size, UI_TIMEOUT_MS, 'the hostile message to arrive');
    await frame.locator('[data-ui="latest"]').click();
    const msg = article(frame, 'Hostile:');
    await msg.waitFor({ state: 'attached', timeout: UI_TIMEOUT_MS });
    await msg.scrollIntoViewIfNeeded();
    const body = (await msg.locator('.msg-body').textContent()) ?? '';
    assert.ok(body.includes('<img src=x onerror="window.__pwned=1">'), `the img tag shows as text: ${body}`);
    assert.ok(body.includes('<script>window.__pwned=1</script>'), `the script tag shows as text: ${body}`);
    // Nothing that loads, runs or navigates anywhere in the panel's content.
    const active = 'img, script, iframe, object, embed, svg, a[href], [href], [src], [onerror], [onclick], [onload]';
    const found = await frame.locator('#app').locator(active).evaluateAll((els: PageElement[]) => els.map((e) => e.outerHTML.slice(0, 200)));
    assert.deepEqual(found, [], 'active elements in the panel');
    // The javascript: and command: links are shown as their Markdown source: no link at all.
    const para = msg.locator('.msg-body p', { hasText: 'a command link' });
    assert.match((await para.textContent()) ?? '', /\[a javascript link\]\(javascript:window\.__pwned=1\) \[a command link\]\(command:workbench\.action\.toggleSidebarVisibility\)/);
    assert.deepEqual(await msg.locator('.md-link').evaluateAll((els: PageElement[]) => els.map((e) => e.getAttribute('data-href'))), ['https://example.com/docs'], 'only the https link is a link');
    await shoot(wb, 'panel-9-hostile-content');

    // Clicking the command: link does nothing; the https link after it asks first (which
    // also shows the panel has handled the clicks before it).
    const sidebar = wb.page.locator('.part.sidebar');
    const sidebarShown = await sidebar.isVisible();
    const editorsBefore = await wb.page.locator('.tabs-container .tab').count();
    await clickText(para, 'a command link');
    await clickText(para, 'command:workbench.action.toggleSidebarVisibility');
    await clickText(para, 'a javascript link');
    await msg.locator('.md-link', { hasText: 'the docs' }).click();
    const dialog = wb.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    assert.match(await dialog.innerText(), /Open this link from the run in your browser\?[\s\S]*https:\/\/example\.com\/docs/);
    await shoot(wb, 'panel-10-link-confirmation');
    await wb.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
    assert.equal(await sidebar.isVisible(), sidebarShown, 'the command: link ran its command');
    assert.equal(await wb.page.locator('.tabs-container .tab').count(), editorsBefore, 'a click opened an editor');
    for (const f of wb.page.frames()) {
      if (!f.isDetached()) {
        assert.equal(await f.evaluate('typeof window.__pwned'), 'undefined', `window.__pwned was set in ${f.url()}`);
      }
    }
  });

  it('shows a model\'s thinking folded, opened from the keyboard, and an error as one (issue 20)', async () => {
    const wb = workbench();
    const frame = await panelFrame(wb, agentId);
    const size = await historySize(frame);
    await inject(wb, agentId, { role: 'thinking', content: 'Weighing **two** fixes before answering.' });
    await inject(wb, agentId, { role: 'error', content: 'The sandbox lost its network.' });
    await waitUntil(async () => (await historySize(frame)) >= size + 2, UI_TIMEOUT_MS, 'the thinking and the error to arrive');
    await frame.locator('[data-ui="latest"]').click();
    const thinking = frame.locator('.log article.msg.role-thinking').last();
    await thinking.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    assert.equal((await thinking.locator('.msg-role').textContent())?.trim(), 'Thinking');
    const body = thinking.locator('details.thinking .msg-body');
    assert.ok(await body.isHidden(), 'folded by default');
    await thinking.locator('details.thinking > summary').focus();
    await wb.page.keyboard.press('Enter');
    await body.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    assert.equal(await body.locator('strong').textContent(), 'two');
    const error = frame.locator('.log article.msg.role-error').last();
    await error.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    assert.equal((await error.locator('.msg-role').textContent())?.trim(), 'Error');
    // Set apart by a solid border in the theme's error colour, not by colour alone.
    const border = await error.evaluate((el: PageElement) => {
      const s = (globalThis as unknown as { getComputedStyle(e: PageElement): { borderLeftStyle: string; borderLeftWidth: string } }).getComputedStyle(el);
      return `${s.borderLeftStyle} ${s.borderLeftWidth}`;
    });
    assert.equal(border, 'solid 3px');
    await shoot(wb, 'panel-9b-thinking-and-error');
  });

  it('shows the deployed service\'s shapes: object tool parameters as JSON, attachment objects as chips (issue 20)', async () => {
    const wb = workbench();
    const frame = await panelFrame(wb, agentId);
    const size = await historySize(frame);
    await admin(wb, 'PATCH', '/settings', { shapes: 'deployed' });
    try {
      await inject(wb, agentId, { role: 'tool', content: null, toolName: 'run_tests', toolParameters: { path: 'src/store', watch: false, grep: ['todos', 'filters'] } });
      await inject(wb, agentId, {
        role: 'assistant',
        content: 'The report and the issue it closes.',
        attachments: [
          { type: 'file', name: 'report.html', url: 'https://files.example.test/report.html', mimeType: 'text/html' },
          { type: 'linear_issue', identifier: 'ENG-12', title: 'Todos vanish on reload', url: 'javascript:alert(1)' },
          { snapshot: { cpu: 2 } },
        ],
      });
    } finally {
      await admin(wb, 'PATCH', '/settings', { shapes: 'reference' });
    }
    await waitUntil(async () => (await historySize(frame)) >= size + 2, UI_TIMEOUT_MS, 'the two deployed-shaped messages to arrive');
    await frame.locator('[data-ui="latest"]').click();
    // The run goes on writing its own tool calls: this one is found by its tool's name.
    const tool = frame.locator('.log article.msg.role-tool', { has: frame.locator('code.tool-name', { hasText: 'run_tests' }) }).last();
    await tool.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    assert.equal(await tool.locator('.msg-empty').count(), 0, 'parameters only: no "empty message"');
    const params = (await tool.locator('.tool-body').innerText()).replace(/\s+/g, ' ');
    assert.match(params, /"path": "src\/store", "watch": false, "grep": \[ "todos", "filters" \]/, params);
    const chips = frame.locator('.log article.msg.role-assistant', { hasText: 'The report and the issue it closes.' }).last().locator('ul.chips > li');
    await chips.first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const texts = (await chips.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    assert.equal(texts.length, 3, texts.join(' | '));
    assert.match(texts[0], /report\.html/);
    assert.match(texts[1], /ENG-12/);
    assert.match(texts[1], /Todos vanish on reload/);
    assert.match(texts[2], /\{"snapshot":\{"cpu":2\}\}/);
    assert.equal(await chips.nth(0).locator('a').count(), 1, 'an https attachment is a link');
    assert.equal(await chips.nth(1).locator('a').count(), 0, 'a javascript: URL is never a link');
    await shoot(wb, 'panel-9c-deployed-shapes');
  });

  it('comes back after a window reload showing the same run, with the unsent draft', async () => {
    const wb = workbench();
    const frame = await panelFrame(wb, agentId);
    // The person finishes the follow-up they began earlier and reloads the window straight away.
    const composer = frame.locator('#composer-input');
    assert.equal(await composer.inputValue(), DRAFT_START);
    await composer.click();
    await wb.page.keyboard.press('Control+End');
    await wb.page.keyboard.type(DRAFT.slice(DRAFT_START.length));
    assert.equal(await composer.inputValue(), DRAFT);
    const postsBefore = followUpPosts(wb, agentId).length;

    await wb.reloadWindow();
    const restored = await panelFrame(wb, agentId, 60_000);
    assert.notEqual(restored, frame, 'a new page after the reload');
    await restored.locator('.status-badge').waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await waitForValue(() => restored.locator('#composer-input').inputValue(), (v) => v === DRAFT, 'the unsent draft to be restored');
    // The history is back: found with the panel's own find (it may be far from the end).
    await restored.locator('[data-ui="find"]').click();
    await restored.locator('.find-input').fill('Live update 3 arrived');
    // Enter again until it is there: the page may still be taking in the newest messages.
    await waitUntil(async () => {
      await restored.locator('.find-input').press('Enter');
      return (await article(restored, 'Live update 3 arrived').count()) > 0;
    }, UI_TIMEOUT_MS, 'find to bring back "Live update 3"');
    await restored.locator('.find-input').press('Escape');
    await wb.page.locator('.tabs-container .tab.active', { hasText: PANEL_TAB }).waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    assert.equal(await restored.evaluate('typeof window.__panelMarker'), 'undefined');
    assert.equal(followUpPosts(wb, agentId).length, postsBefore, 'the draft was sent');
    await shoot(wb, 'panel-11-after-reload');
  });

  it('finds, filters and jumps through a long run, and shows new messages in a pill', async function () {
    this.timeout(240_000);
    const wb = workbench();
    const longId = await startRunOnService(wb, 'Go through every module and report', { model: 'hosted/balanced', reasoningEffort: 'high' });
    await waitForAgent(wb, longId, 'the first turn to begin', (a) => a.activeTurn !== null);
    await admin(wb, 'PATCH', `/agents/${longId}`, { status: 'running' });
    // 300 messages: prompts at 100 and 200, a tool call every other 10th, and one word ("zanzibar")
    // in message 5 (far from the end, never rendered while the panel opens there) and in 255.
    for (let i = 1; i <= 300; i++) {
      const word = i === 5 || i === 255 ? ' zanzibar' : '';
      const message: InjectedMessage = i === 100 || i === 200
        ? { role: 'user', content: `Prompt number ${i}: keep going` }
        : i % 10 === 0
          ? { role: 'tool', toolName: 'read_file', toolParameters: JSON.stringify({ path: `src/module-${i}.ts` }), content: `read module ${i}` }
          : { role: 'assistant', content: `Step ${i} of the long run.${word}\n\n- checked part ${i}\n- nothing to change` };
      await inject(wb, longId, message);
    }
    await wb.runCommand('Agent Runs: Track Run by ID…');
    await wb.typeInInput(longId, { prompt: /agent ID/i });
    const frame = await panelFrame(wb, longId);
    await waitUntil(async () => (await historySize(frame)) === 301, UI_TIMEOUT_MS, 'the prompt and the 300 messages');
    await scrollSettled(frame);
    const mounted = await articles(frame).count();
    assert.ok(mounted < 100, `only the rows near the viewport are in the DOM (${mounted})`);
    assert.equal(await article(frame, 'zanzibar').count(), 0, 'message 5 is not rendered');
    assert.equal(await frame.locator('.log').getAttribute('role'), 'feed');

    // Find: Ctrl+F in the panel, a match in a message that was not rendered.
    await frame.locator('.log').click({ position: { x: 4, y: 4 } }).catch(() => frame.locator('.log').focus());
    await frame.locator('.log').focus();
    await wb.page.keyboard.press('Control+f');
    const input = frame.locator('.find-input');
    await input.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await wb.page.keyboard.type('zanzibar');
    await wb.page.keyboard.press('Enter');
    const count = frame.locator('.find-count');
    await waitForValue(async () => `${((await count.textContent()) ?? '').trim()} (${await historySize(frame)} messages)`, (t) => t.startsWith('1 of 2 '), 'the match count');
    const current = frame.locator('mark.find-current');
    await current.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    assert.match((await current.locator('xpath=ancestor::article').textContent()) ?? '', /Step 5 of the long run/);
    assert.equal(await wb.page.locator('.monaco-editor .find-widget.visible').count(), 0, "VS Code's own find widget stays closed");
    await shoot(wb, 'panel-12-find-unrendered-match');
    await wb.page.keyboard.press('Enter');
    await waitForValue(async () => ((await count.textContent()) ?? '').trim(), (t) => t === '2 of 2', 'the next match');
    assert.match((await frame.locator('mark.find-current').locator('xpath=ancestor::article').textContent()) ?? '', /Step 255/);
    await wb.page.keyboard.press('Shift+Enter');
    await waitForValue(async () => ((await count.textContent()) ?? '').trim(), (t) => t === '1 of 2', 'the previous match');
    await wb.page.keyboard.press('Escape');
    await input.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
    assert.equal(await frame.locator('mark').count(), 0, 'the highlights go with the find bar');

    // Filters: tool calls only, then everything again.
    const tools = frame.locator('button.filter', { hasText: 'Tool calls' });
    await tools.click();
    assert.equal(await tools.getAttribute('aria-pressed'), 'true');
    await waitUntil(async () => (await historySize(frame)) === 28, UI_TIMEOUT_MS, 'the 28 tool calls (every 10th but the prompts)');
    const roles = await articles(frame).evaluateAll((els: PageElement[]) => els.map((el) => el.getAttribute('aria-label') ?? ''));
    assert.ok(roles.length > 0 && roles.every((r) => r.startsWith('Tool')), roles.join(' | '));
    await shoot(wb, 'panel-13-filter-tool-calls');
    await tools.click();
    await waitUntil(async () => (await historySize(frame)) === 301, UI_TIMEOUT_MS, 'everything again');

    // Jumps: from the end, Alt+Up to the prompt above (200), again (100), Alt+Down back to 200.
    await frame.locator('.log').focus();
    await wb.page.keyboard.press('Control+End');
    await scrollSettled(frame);
    const promptAtTop = async (n: number) => {
      const a = article(frame, `Prompt number ${n}:`);
      await a.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      const top = await viewportTop(a);
      assert.ok(top >= 0 && top < 200, `prompt ${n} is at the top of the view (${top}px)`);
    };
    await wb.page.keyboard.press('Alt+ArrowUp');
    await promptAtTop(200);
    await wb.page.keyboard.press('Alt+ArrowUp');
    await promptAtTop(100);
    await shoot(wb, 'panel-14-jumped-to-prompt');
    await wb.page.keyboard.press('Alt+ArrowDown');
    await promptAtTop(200);

    // Reading up there, new messages arrive: a pill, and Ctrl+End takes the person to them.
    for (let i = 1; i <= 2; i++) {
      await inject(wb, longId, { role: 'assistant', content: `Late news ${i}` });
    }
    const pill = frame.locator('.new-pill');
    await pill.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    // The two may come in two reads (a busy machine): the pill says "1 new" first, then counts on.
    await waitForValue(async () => ((await pill.textContent()) ?? '').trim(), (t) => t === '2 new ↓', 'the pill to count both');
    await promptAtTop(200);
    await shoot(wb, 'panel-15-new-messages-pill-long-run');
    await wb.page.keyboard.press('Control+End');
    await pill.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
    await article(frame, 'Late news 2').waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    assert.ok(atBottom(await scrollSettled(frame)), 'at the end');
  });
});
