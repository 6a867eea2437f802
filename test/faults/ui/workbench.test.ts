// Fault scenarios a person would see, in the real workbench (code-server in Chromium) with the
// packaged extension and the output channel at trace level: hostile content in the real run
// panel, forged webview messages, follow-ups and test groups whose POST breaks after it may
// have arrived, a follow-up typed while the service is unreachable, a reload and a crash of
// the extension host mid-run, corrupt stored state, plain http to another machine, and every
// sink a token could reach. One workbench for the whole file, in order.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { clickNotificationButton } from '../../e2e/harness';
import { paths } from '../../support/paths';
import { waitUntil } from '../../support/processes';
import { describeSecret, registerSecret, scenario, type Scenario } from '../registry';
import { HOSTILE_SHORT, HOSTILE_TEXTS, hostileToolParameters, withTrap } from '../support/hostile';
import {
  activations, admin, allFramesHtml, backOnline, browserStorage, command, clearNotifications, extensionHostPid, goodReadsSince, observe,
  openWithTrace, panelFrame, panelHasFocus, posts, restoreStartSettings, startHeldRun, toastButtons, trackRun, transcriptFiles, Trap, UI_TIMEOUT_MS, uiChecked,
  useFaultWorkbench, userDataFiles, webviewHostFrame, type Workbench,
} from './support';

const FIXTURE = fs.readFileSync(path.join(paths.repoRoot, 'test', 'fixtures', 'testfiles', 'checkout.test.js'), 'utf8');

interface PanelInspection {
  pwned: unknown;
  bad: string[];
  hrefs: string[];
  text: string;
  articles: number;
  composer: string;
  status: string;
}

/** What the run panel's page holds: trap flag, elements content must not create, link targets, text. */
const INSPECT = `(() => {
  const app = document.getElementById('app');
  const bad = [];
  for (const el of Array.from(app.querySelectorAll('*'))) {
    const ownForm = el.tagName === 'FORM' && el.classList.contains('composer');
    if ((!ownForm && ['SCRIPT','STYLE','IMG','IFRAME','OBJECT','EMBED','LINK','META','BASE','FORM','VIDEO','AUDIO','SOURCE'].includes(el.tagName.toUpperCase())) || el.namespaceURI !== 'http://www.w3.org/1999/xhtml') bad.push(el.tagName);
    for (const a of Array.from(el.attributes)) {
      // Lane segments and the history's spacers are sized through CSSOM (allowed by the CSP).
      const own = a.name === 'style' && (el.classList.contains('seg') || el.classList.contains('log-spacer'));
      if (a.name.startsWith('on') || a.name === 'href' || a.name === 'src' || a.name === 'srcdoc' || a.name === 'action' || a.name === 'formaction' || (a.name === 'style' && !own)) bad.push(el.tagName + '[' + a.name + ']');
    }
  }
  const ta = app.querySelector('textarea');
  const st = app.querySelector('.composer-status');
  return {
    pwned: window.__pwned,
    bad,
    hrefs: Array.from(app.querySelectorAll('[data-href]')).map((e) => e.getAttribute('data-href') || ''),
    text: app.textContent || '',
    articles: app.querySelectorAll('.log > article').length,
    composer: ta ? ta.value : '',
    status: st ? st.textContent || '' : '',
  };
})()`;

async function inspect(frame: Frame): Promise<PanelInspection> {
  return frame.evaluate<PanelInspection>(INSPECT);
}

/**
 * `inspect` over the whole history: it is windowed (only rows near the viewport are in the DOM),
 * so the page is scrolled from the top to the end and what each position shows is joined.
 */
async function inspectAll(frame: Frame): Promise<PanelInspection> {
  const seen: PanelInspection[] = [];
  await frame.evaluate('new Promise((r) => { document.scrollingElement.scrollTop = 0; requestAnimationFrame(() => setTimeout(r, 50)); })');
  for (let step = 0; step < 200; step++) {
    seen.push(await inspect(frame));
    const moved = await frame.evaluate(`new Promise((r) => {
      const se = document.scrollingElement;
      const before = se.scrollTop;
      se.scrollTop = before + Math.max(200, se.clientHeight / 2);
      requestAnimationFrame(() => setTimeout(() => r(se.scrollTop !== before), 50));
    })`);
    if (!moved) {
      break;
    }
  }
  const last = seen[seen.length - 1];
  return {
    ...last,
    pwned: seen.map((s) => s.pwned).find((p) => p !== undefined),
    bad: [...new Set(seen.flatMap((s) => s.bad))],
    hrefs: [...new Set(seen.flatMap((s) => s.hrefs))],
    text: seen.map((s) => s.text).join('\n'),
  };
}

async function closeEditors(wb: Workbench): Promise<void> {
  await command(wb, 'View: Close All Editors');
}

/** Picks the run in a run quick pick by typing its ID (matched in the detail line). */
async function pickRunInQuickPick(wb: Workbench, agentId: string): Promise<void> {
  const input = wb.page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  await input.fill(agentId);
  await wb.page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: agentId }).first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  await input.press('Enter');
}

/**
 * Picks the run when the command asks which one. A run command from the palette asks nothing
 * when that run's panel is in front, as it may be after a reload (the workbench decides
 * whether it brings the panel back).
 */
async function pickRunIfAsked(wb: Workbench, agentId: string): Promise<void> {
  const input = wb.page.locator('.quick-input-widget .quick-input-box input');
  const asked = await waitUntil(async () => (await input.isVisible()) && (await input.getAttribute('placeholder')) === 'Pick a run', 3_000, 'a run pick')
    .then(() => true, () => false);
  if (asked) {
    await pickRunInQuickPick(wb, agentId);
  }
}

/** The run's follow-ups as the service stored them (accepted turns and the history). */
async function followUpsStored(wb: Workbench, agentId: string, text: string): Promise<number> {
  const agent = (await admin(wb, 'GET', `/agents/${agentId}`)) as { history: { role: string; content: string }[]; pendingTurns: { prompt: string }[] };
  const inHistory = agent.history.filter((m) => m.role === 'user' && m.content === text).length;
  const pending = agent.pendingTurns.filter((t) => t.prompt === text).length;
  return inHistory + pending;
}

describe('faults in the workbench (what a person sees)', function () {
  this.timeout(180_000);
  const workbench = useFaultWorkbench({
    name: 'faults',
    stepMs: 30,
    settings: { 'agentRuns.polling.panelSeconds': 1, 'agentRuns.polling.backgroundSeconds': 5, 'agentRuns.notifications': 'all', 'agentRuns.appId': 'app_todo' },
    workspaceFiles: { 'checkout.test.js': FIXTURE },
  });
  let trap: Trap;
  let hostileRunId = '';

  before(async () => {
    trap = await Trap.start();
  });
  after(async () => {
    await trap?.close();
  });

  scenario('hostile', 'a hostile run in the real panel: nothing runs or loads, unsafe links are inert, a safe link asks first', (s) => uiChecked(workbench(), s, async () => {
    const wb = workbench();
    const id = await startHeldRun(wb, 'Hostile run in the workbench');
    hostileRunId = id;
    for (const text of HOSTILE_TEXTS) {
      await admin(wb, 'POST', `/agents/${id}/messages`, { role: 'assistant', content: withTrap(text, trap.origin) });
    }
    await admin(wb, 'POST', `/agents/${id}/messages`, { role: 'tool', toolName: HOSTILE_SHORT[0], toolParameters: hostileToolParameters(trap.origin), content: 'see [the safe link](https://ok.example/safe-target)', attachments: HOSTILE_SHORT.map((a) => withTrap(a, trap.origin)) });
    await admin(wb, 'PATCH', `/agents/${id}`, { lastError: withTrap(`${HOSTILE_TEXTS[1]} \u202Eoops`, trap.origin), projectName: '<svg onload=window.__pwned=1>\u202Eevil' });
    await trackRun(wb, id);
    const frame = await panelFrame(wb, HOSTILE_TEXTS.length);
    await frame.evaluate('new Promise((r) => setTimeout(r, 500))');
    const st = await inspectAll(frame);
    assert.equal(st.pwned, undefined, 'injected code ran in the real webview');
    assert.deepEqual(st.bad, [], 'content created elements or attributes it must not');
    assert.deepEqual(trap.hits, [], 'hostile content made requests');
    assert.ok(st.hrefs.every((h) => /^(https?:\/\/|mailto:)/i.test(h)), `unsafe link targets: ${st.hrefs.filter((h) => !/^(https?:|mailto:)/i.test(h)).join(' ')}`);
    assert.ok(st.text.includes('<script>window.__pwned = "script"'), 'hostile text is not shown as text');
    // A safe link asks before anything opens; cancelling opens nothing.
    await frame.locator('.md-link', { hasText: 'the safe link' }).first().click();
    const dialog = wb.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    assert.match(await dialog.innerText(), /Open this link[\s\S]*https:\/\/ok\.example\/safe-target/);
    await dialog.locator('.monaco-button', { hasText: /^Cancel$/ }).click();
    await dialog.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
    await wb.screenshot('faults-hostile-panel');
  }));

  scenario('messages', 'forged messages sent to the extension from inside the webview are validated: unknown ones ignored and logged, unsafe links refused', (s) => uiChecked(workbench(), s, async () => {
    const wb = workbench();
    const content = await panelFrame(wb, 1);
    const again = String(await content.evaluate("(() => { try { acquireVsCodeApi(); return 'acquired'; } catch (e) { return String(e); } })()"));
    assert.match(again, /already been acquired/, 'a second script could get the VS Code API');
    const hostFrame = await webviewHostFrame(wb);
    const runId = hostileRunId;
    assert.ok(runId, 'the hostile run of the previous scenario is not there');
    const before = wb.readOutputLog('Agent Runs');
    const invalid: unknown[] = [
      { type: 'eval', code: 'x' }, { type: 'openLink' }, { type: 'ready', extra: 1 }, { type: 'sendFollowUp', requestId: 1, prompt: '   ' },
      'ready', null, { type: 'export', format: 'exe' }, { type: 'copy', text: 5 }, { type: 'runCommand', command: 'agentRuns.clearToken' },
    ];
    const unsafeLinks = ['command:workbench.action.terminal.new', 'javascript:alert(1)', 'file:///etc/passwd', 'vscode://agent-runs-team.agent-runs/track?id=x', 'https://ok.example/\u202Egnp.exe'];
    const forged = [...invalid, ...unsafeLinks.map((url) => ({ type: 'openLink', url }))];
    for (const message of forged) {
      await hostFrame.evaluate(`window.__vscode_post_message__('onmessage', { message: ${JSON.stringify(message)} })`);
    }
    // Positive control: a valid, harmless message through the same channel is acted on.
    const index = wb.emulator.requests.length;
    await hostFrame.evaluate(`window.__vscode_post_message__('onmessage', { message: { type: 'refresh' } })`);
    await waitUntil(() => wb.emulator.requests.slice(index).some((r) => r.method === 'GET' && r.path.includes(runId)), UI_TIMEOUT_MS, 'the forged refresh to be acted on (the channel works)');
    await waitUntil(() => wb.readOutputLog('Agent Runs').slice(before.length).split('\n').filter((l) => /ignored a message from the webview|refused to open a link/.test(l)).length >= forged.length, UI_TIMEOUT_MS, 'every forged message to be logged');
    const log = wb.readOutputLog('Agent Runs').slice(before.length);
    const ignored = log.split('\n').filter((l) => /ignored a message from the webview/.test(l)).length;
    const refused = log.split('\n').filter((l) => /refused to open a link/.test(l)).length;
    s.note(`${ignored} forged messages ignored and logged, ${refused} unsafe links refused`);
    assert.equal(ignored, invalid.length, 'invalid messages must be ignored and logged');
    assert.equal(refused, unsafeLinks.length, 'unsafe links (command:, javascript:, file:, vscode:, bidi) must be refused');
    assert.equal(await wb.page.locator('.monaco-dialog-box').isVisible(), false, 'an unsafe link got as far as the confirmation');
    assert.equal(await wb.page.locator('.terminal-outer-container').isVisible().catch(() => false), false, 'a command link opened a terminal');
  }));

  scenario('hostile', 'bidi overrides and control characters from the service are neutralised in the tree and in notifications too, not only in the panel', (s) => uiChecked(workbench(), s, async () => {
    const wb = workbench();
    await closeEditors(wb);
    await clearNotifications(wb);
    // The tree labels a tracked run with its first user message, and shows an unknown status as sent.
    const id = await startHeldRun(wb, 'Pay invoice \u202Efdp.exe\u202C now\u0007');
    await admin(wb, 'PATCH', `/agents/${id}`, { status: 'paused\u202E\u0007\u001b[31m' });
    await trackRun(wb, id);
    await panelFrame(wb, 1);
    await closeEditors(wb);
    await admin(wb, 'PATCH', `/agents/${id}`, { status: 'error', lastError: 'failed in \u202Egnp.exe\u202C\u0000 step' });
    // Read it now (headless Chromium can leave the window "unfocused", where reads are minutes apart).
    await command(wb, 'Agent Runs: Refresh');
    const toast = await wb.waitForNotification(/Agent run failed/, 60_000);
    const toastText = await toast.innerText();
    const row = await wb.waitForTreeRow(/Pay invoice/);
    const rowText = await row.innerText();
    // eslint-disable-next-line no-control-regex
    const raw = /[\u202a-\u202e\u2066-\u2069\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
    // eslint-disable-next-line no-control-regex
    const show = (t: string): string => t.replace(/[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, (c) => `<U+${c.charCodeAt(0).toString(16).padStart(4, '0')}>`);
    s.note(`tree row: ${show(rowText.replace(/\s+/g, ' ')).slice(0, 120)}; notification: ${show(toastText.replace(/\s+/g, ' ')).slice(0, 120)}`);
    const problems: string[] = [];
    if (raw.test(rowText)) {
      problems.push('the tree row (src/runs/common/presentation.ts runLabel/statusText)');
    }
    if (raw.test(toastText)) {
      problems.push('the failure notification (src/runs/alerts.ts)');
    }
    await toast.locator('.codicon-notifications-clear, .codicon-close').first().click().catch(() => undefined);
    await command(wb, 'Agent Runs: Clear Finished');
    assert.deepEqual(problems, [], `BUG (glue): raw bidi/control characters from the service reach ${problems.join(' and ')}`);
  }));

  scenario('no-duplicates', 'a follow-up from the panel whose POST breaks after it arrived is sent once: it may have arrived, the run\'s history settles it, nothing resends it', (s) => uiChecked(workbench(), s, async () => {
    const wb = workbench();
    await closeEditors(wb);
    const id = await startHeldRun(wb, 'Composer under faults');
    await trackRun(wb, id);
    const frame = await panelFrame(wb, 3);
    const text = 'Please also update the changelog (typed during a failure)';
    const uncertain = frame.locator('.notice-uncertain');
    let sawUncertain = false;
    wb.emulator.inject({ method: 'POST', path: `^/agents/${id}/messages$`, passThrough: true, reset: true, times: 1 });
    const sentAt = wb.emulator.requests.length;
    await frame.locator('textarea').fill(text);
    await frame.locator('textarea').press('Control+Enter');
    await waitUntil(() => posts(wb, `/agents/${id}/messages`).length === 1, UI_TIMEOUT_MS, 'the follow-up POST');
    await waitUntil(async () => (await followUpsStored(wb, id, text)) === 1, UI_TIMEOUT_MS, 'the service to have the follow-up once');
    // Until a read shows it, the composer holds the text, locked, and says it may have arrived;
    // then the history settles it: the composer is free and empty (the text was sent).
    await waitUntil(async () => {
      sawUncertain ||= await uncertain.isVisible();
      const st = await inspect(frame);
      return st.composer === '' && !(await uncertain.isVisible());
    }, 30_000, 'the run\'s history to settle the follow-up');
    s.note(`the panel ${sawUncertain ? 'said the follow-up may have arrived, then' : ''} settled it from the run's history`);
    // The run was read again and again after the broken POST (that is how it settled), and
    // nothing sent the follow-up a second time.
    assert.ok(goodReadsSince(wb, sentAt, id) >= 2, 'the run was read after the broken POST');
    s.duplicatePosts(posts(wb, `/agents/${id}/messages`).length - 1, 'follow-up POSTs for one Send');
    assert.equal(await followUpsStored(wb, id, text), 1, 'the service has the follow-up once');
  }));

  scenario('no-duplicates', 'the send lock of a panel follow-up holds through a double Send, the tab hidden and shown, and the tree button: one POST', (s) => uiChecked(workbench(), s, async () => {
    const wb = workbench();
    await closeEditors(wb);
    await clearNotifications(wb);
    const id = await startHeldRun(wb, 'Send lock');
    await trackRun(wb, id);
    await panelFrame(wb, 3);
    const text = 'Add an index on created_at (sent once)';
    // Another editor in the panel's group, opened before the send: hiding and showing the panel
    // during the send are then two clicks on tabs (the palette and a run pick took longer than
    // the client's 30 s at load 19; the send had ended, and the checks below saw nothing held).
    await command(wb, 'File: New Untitled Text File');
    const tab = (title: string) => wb.page.locator('.tabs-container .tab', { hasText: title }).first();
    const showTab = async (title: string): Promise<void> => {
      await tab(title).click();
      await waitUntil(async () => ((await tab(title).getAttribute('class')) ?? '').split(/\s+/).includes('active'), UI_TIMEOUT_MS, `the tab "${title}" in front`);
    };
    await showTab('Run: ');
    await panelHasFocus(await panelFrame(wb, 3));
    // The service takes the follow-up and holds its answer until the checks below are done (it
    // was 6 s, which the steps below outlasted on a busy machine: the send had ended before the
    // tree button was pressed). The client gives up after its own 30 s.
    wb.emulator.inject({ method: 'POST', path: `^/agents/${id}/messages$`, passThrough: true, delayMs: 120_000, times: 1 });
    // Through the page's own channel to the extension, whatever the page itself guards.
    const send = async (requestId: number): Promise<void> => {
      const hostFrame = await webviewHostFrame(wb);
      await hostFrame.evaluate(`window.__vscode_post_message__('onmessage', { message: ${JSON.stringify({ type: 'sendFollowUp', requestId, prompt: text })} })`);
    };
    await send(901);
    await send(902);
    await waitUntil(() => posts(wb, `/agents/${id}/messages`).length >= 1, UI_TIMEOUT_MS, 'the follow-up POST');
    // The tab is hidden (another editor in front) and shown again: its page is rebuilt from init.
    await showTab('Untitled-');
    await showTab('Run: ');
    await panelHasFocus(await panelFrame(wb, 3));
    await send(903);
    await observe(1_000);
    // Counted here, so a resend is measured even when a check below stops the scenario.
    const afterPage = posts(wb, `/agents/${id}/messages`).length;
    s.duplicatePosts(afterPage - 1, 'follow-up POSTs for one Send (a double Send, then a Send from the rebuilt page)');
    // The tree button (Send Follow-up on the run's row) during the send: the run is shown, no box opens.
    assert.equal(posts(wb, `/agents/${id}/messages`)[0]?.status, undefined, 'premise: the follow-up\'s POST is still waiting for its answer');
    await wb.treeInlineAction('Send lock', 'Send Follow-up');
    await wb.waitForNotification(/A follow-up to this run is being sent/, UI_TIMEOUT_MS);
    const box = await wb.page.locator('.quick-input-widget .quick-input-title', { hasText: /Follow-up for/ }).isVisible().catch(() => false);
    assert.equal(box, false, 'the follow-up box opened during the send');
    assert.equal(posts(wb, `/agents/${id}/messages`)[0]?.status, undefined, 'premise: the follow-up\'s POST was still under way when the tree button was pressed');
    wb.emulator.releaseHeld();
    await waitUntil(() => posts(wb, `/agents/${id}/messages`)[0]?.status === 202, UI_TIMEOUT_MS, 'the held answer to go out');
    await waitUntil(async () => (await followUpsStored(wb, id, text)) >= 1, 30_000, 'the follow-up to be on the service');
    await observe(2_000);
    s.duplicatePosts(posts(wb, `/agents/${id}/messages`).length - afterPage, 'follow-up POSTs after the tree button during the send');
    assert.equal(await followUpsStored(wb, id, text), 1, 'the service has the follow-up once');
    await clearNotifications(wb);
    await closeEditors(wb).catch(() => undefined);
  }));

  scenario('no-duplicates', 'a window reload while a panel follow-up is on its way: nothing resends it, the sent text does not come back as a draft, the history settles it', (s) => uiChecked(workbench(), s, async () => {
    const wb = workbench();
    await closeEditors(wb);
    await clearNotifications(wb);
    const id = await startHeldRun(wb, 'Reload mid-send');
    await trackRun(wb, id);
    const frame = await panelFrame(wb, 3);
    const text = 'Rename the flag to enable_cache (sent before the reload)';
    // The service takes the follow-up; its answer never comes back to this window.
    wb.emulator.inject({ method: 'POST', path: `^/agents/${id}/messages$`, passThrough: true, delayMs: 60_000, times: 1 });
    // Typed (so it was a draft), then sent from the composer.
    await frame.locator('textarea').fill(text);
    await waitUntil(async () => (await browserStorage(wb)).includes(text), 30_000, 'the draft to reach the browser storage');
    await frame.locator('textarea').press('Control+Enter');
    await waitUntil(() => posts(wb, `/agents/${id}/messages`).length === 1, UI_TIMEOUT_MS, 'the follow-up POST');
    // The web workbench writes its storage in the background: reload once the send is in it.
    // The extension's workspace state is one JSON object in the web workbench's storage.
    const sendStored = (stored: string): boolean => stored.split('\n').filter((l) => l.includes(' agent-runs-team.agent-runs = ')).some((l) => {
      const state = JSON.parse(l.slice(l.indexOf(' = ') + 3)) as Record<string, unknown>;
      return JSON.stringify(state['agentRuns.followUpSends.v1'] ?? '').includes(text) && !JSON.stringify(state['agentRuns.drafts.v1'] ?? '').includes(text);
    });
    await waitUntil(async () => {
      const stored = await browserStorage(wb);
      return stored.includes(id) && sendStored(stored);
    }, 30_000, 'the run list and the send (holding the text, no longer the draft) to reach the browser storage');
    const index = wb.emulator.requests.length;
    await openWithTrace(wb);
    // The new extension host reads the run (it may have finished meanwhile); its history shows the follow-up.
    await waitUntil(() => goodReadsSince(wb, index, id) >= 1, 60_000, 'the run to be read after the reload');
    await waitUntil(async () => (await followUpsStored(wb, id, text)) === 1, UI_TIMEOUT_MS, 'the follow-up in the run');
    // Settled: Send Follow-up opens its box again, empty (the text was sent, it is not a draft).
    await waitUntil(async () => {
      await command(wb, 'Agent Runs: Send Follow-up…');
      await pickRunIfAsked(wb, id);
      const opened = await wb.page.locator('.quick-input-widget .quick-input-title', { hasText: /Follow-up for/ }).waitFor({ state: 'visible', timeout: 3_000 }).then(() => true, () => false);
      if (!opened) {
        await clearNotifications(wb);
      }
      return opened;
    }, 30_000, 'the follow-up to be settled by the history');
    const kept = await wb.page.locator('.quick-input-widget .quick-input-box input').inputValue();
    await wb.page.keyboard.press('Escape');
    s.duplicatePosts(posts(wb, `/agents/${id}/messages`).length - 1, 'follow-up POSTs across the reload');
    assert.equal(kept, '', 'the already-sent follow-up came back as a draft');
    assert.equal(await followUpsStored(wb, id, text), 1);
    await closeEditors(wb).catch(() => undefined);
  }));

  scenario('drafts', 'a follow-up typed while the service is unreachable is kept, never sent on its own (it may have arrived), and sent once when the person chooses Resend Anyway', (s) => uiChecked(workbench(), s, async () => {
    const wb = workbench();
    await closeEditors(wb);
    await clearNotifications(wb);
    const id = await startHeldRun(wb, 'Offline follow-up');
    await trackRun(wb, id);
    await panelFrame(wb, 3);
    await closeEditors(wb);
    const text = 'Run the migrations again when you are back';
    wb.emulator.inject({ path: '^/agents', reset: true, times: 0 });
    await command(wb, 'Agent Runs: Send Follow-up…');
    await pickRunInQuickPick(wb, id);
    await wb.typeInInput(text, { prompt: /Follow-up for/ });
    // A reset after the body was sent: the client cannot know whether it arrived.
    const toast = await wb.waitForNotification(/may have reached the service/i, 30_000);
    const buttons = await toastButtons(toast);
    s.note(`offline follow-up: notification offers ${buttons.join(', ')}`);
    assert.ok(buttons.includes('Check the Run') && buttons.includes('Resend Anyway') && !buttons.includes('Retry'), `buttons: ${buttons.join(', ')}`);
    assert.equal(posts(wb, `/agents/${id}/messages`).length, 1, 'one attempt while offline');
    assert.equal(await followUpsStored(wb, id, text), 0);
    await toast.locator('.codicon-notifications-clear, .codicon-close').first().click().catch(() => undefined);
    // The service comes back and the run is read again; the follow-up is not sent on its own.
    wb.emulator.clearFaults();
    const index = wb.emulator.requests.length;
    await waitUntil(() => goodReadsSince(wb, index, id) >= 2, 60_000, 'the run to be read again after the outage');
    s.duplicatePosts(posts(wb, `/agents/${id}/messages`).length - 1, 'follow-up POSTs nobody confirmed');
    // The person runs Send Follow-up again: no empty box, but what may have arrived, with the choice.
    await command(wb, 'Agent Runs: Send Follow-up…');
    await pickRunInQuickPick(wb, id);
    const warning = await wb.waitForNotification(/may already have reached the service/, UI_TIMEOUT_MS);
    const said = await warning.innerText();
    if (!said.includes(text)) {
      s.lostDraft(`the follow-up that may have arrived is not named: "${said.slice(0, 120)}"`);
    }
    await clickNotificationButton(warning, 'Resend Anyway');
    await waitUntil(async () => (await followUpsStored(wb, id, text)) === 1, UI_TIMEOUT_MS, 'the resent follow-up to arrive');
    s.duplicatePosts(posts(wb, `/agents/${id}/messages`).length - 2, 'follow-up POSTs for one send and one deliberate resend');
  }));

  scenario('no-duplicates', 'a test group whose POST breaks after the service created it: one POST, one group, Retry offered, nothing resent', (s) => uiChecked(workbench(), s, async () => {
    const wb = workbench();
    await closeEditors(wb);
    await clearNotifications(wb);
    const groups = async (): Promise<{ name: string }[]> => ((await admin(wb, 'GET', '/test-groups')) as { testGroups: { name: string }[] }).testGroups;
    const before = (await groups()).length;
    wb.emulator.inject({ method: 'POST', path: '^/test-groups$', passThrough: true, reset: true, times: 1 });
    await wb.page.keyboard.press('Control+P');
    const quick = wb.page.locator('.quick-input-widget .quick-input-box input');
    await quick.fill('checkout.test.js');
    await wb.page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: 'checkout.test.js' }).first().waitFor({ state: 'visible' });
    await quick.press('Enter');
    await wb.page.locator('.tabs-container .tab.active[aria-label^="checkout.test.js"]').first().waitFor({ state: 'visible' });
    // The editor takes the focus a moment after its tab shows (seconds on a busy machine): a
    // palette opened before that closes as it does, as for a person who types too early.
    await wb.page.locator('.editor-group-container.active .monaco-editor.focused').first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await command(wb, 'Agent Runs: Create Test Group from File(s)');
    const step = async (n: number): Promise<void> => waitUntil(async () => /\b\d\/4\b/.test(await wb.page.locator('.quick-input-widget').innerText().catch(() => '')) && (await wb.page.locator('.quick-input-widget').innerText()).includes(`${n}/4`), UI_TIMEOUT_MS, `step ${n}/4`);
    await step(1);
    await quick.press('Enter');
    await step(2);
    await wb.typeInInput('Checkout after a reset');
    await step(3);
    await quick.press('Enter');
    await step(4);
    await quick.press('Enter');
    const toast = await wb.waitForNotification(/was not created/, 30_000);
    const buttons = await toastButtons(toast);
    assert.ok(buttons.includes('Retry'), `buttons: ${buttons.join(', ')}`);
    await observe(3_000);
    const sent = posts(wb, '/test-groups').length;
    s.duplicatePosts(sent - 1, 'POST /test-groups for one confirmation');
    const created = (await groups()).slice(before).filter((g) => g.name === 'Checkout after a reset').length;
    s.note(`test group: ${sent} POST, ${created} group(s) on the service, the person was offered ${buttons.join(', ')}`);
    assert.equal(created, 1, 'the group exists once on the service');
    await toast.locator('.codicon-notifications-clear, .codicon-close').first().click().catch(() => undefined);
  }));

  /** A run with its panel open, a draft in the composer, a saved transcript. */
  async function runWithDraft(wb: Workbench, prompt: string, draft: string): Promise<string> {
    await closeEditors(wb);
    const id = await startHeldRun(wb, prompt, 4);
    await trackRun(wb, id);
    const frame = await panelFrame(wb, 4);
    await frame.locator('textarea').fill(draft);
    await frame.locator('textarea').press('End');
    // Written where it survives: the workspace state (browser storage) and the transcript file.
    // The web workbench writes its storage in the background: wait until the run list and the
    // draft are in it, so the reload cannot come back with an older state.
    // The draft must be in the extension's own workspace state (drafts.v1), not only in the
    // page's saved state (also in that storage): a panel restored and closed before its page is
    // up cannot report it again.
    const draftStored = (stored: string): boolean => stored.split('\n').filter((l) => l.includes(' agent-runs-team.agent-runs = ')).some((l) => {
      const state = JSON.parse(l.slice(l.indexOf(' = ') + 3)) as Record<string, unknown>;
      return JSON.stringify(state['agentRuns.drafts.v1'] ?? '').includes(draft);
    });
    await waitUntil(async () => {
      const stored = await browserStorage(wb);
      return draftStored(stored) && stored.includes(id);
    }, 30_000, 'the run list and the draft to reach the browser storage');
    await waitUntil(() => transcriptFiles(wb).some((f) => fs.readFileSync(f, 'utf8').includes(id)), 30_000, 'the transcript to be saved');
    return id;
  }

  /** After a reload or a restart, with the service unreachable: only stored state can show the run. */
  async function expectRestored(wb: Workbench, s: Scenario, id: string, prompt: string, draft: string): Promise<void> {
    await wb.waitForTreeRow(prompt, 30_000);
    await closeEditors(wb).catch(() => undefined);
    await command(wb, 'Agent Runs: Open Run');
    await pickRunInQuickPick(wb, id);
    const frame = await panelFrame(wb, 4, 30_000);
    // Open Run gave the panel the focus: what comes next (a key, the palette) waits until it has it.
    await panelHasFocus(frame);
    const st = await inspect(frame);
    s.note(`restored: ${st.articles} messages from the transcript cache, composer "${st.composer.slice(0, 40)}"`);
    assert.ok(st.articles >= 4, 'the transcript did not come back');
    if (st.composer !== draft) {
      s.lostDraft(`the composer holds "${st.composer.slice(0, 60)}" after the restart`);
    }
  }

  scenario('persistence', 'a window reload mid-run: the run list, the transcript (service down) and the follow-up draft come back', (s) => uiChecked(workbench(), s, async () => {
    const wb = workbench();
    const prompt = 'Reload mid-run';
    const draft = 'draft typed before the reload';
    const id = await runWithDraft(wb, prompt, draft);
    // From now on the service is unreachable: what shows after the reload comes from storage.
    wb.emulator.inject({ method: 'GET', path: '^/agents/', reset: true, times: 0 });
    await openWithTrace(wb);
    await expectRestored(wb, s, id, prompt, draft);
    await backOnline(wb);
  }));

  scenario('persistence', 'the extension host killed mid-run (SIGKILL): after the restart the run list, transcript and draft come back', (s) => uiChecked(workbench(), s, async () => {
    const wb = workbench();
    wb.emulator.clearFaults();
    const prompt = 'Crash mid-run';
    const draft = 'draft typed before the crash';
    const id = await runWithDraft(wb, prompt, draft);
    wb.emulator.inject({ method: 'GET', path: '^/agents/', reset: true, times: 0 });
    const pid = extensionHostPid(wb.session.server);
    assert.ok(pid, 'the extension host process was not found');
    const before = activations(wb);
    process.kill(pid, 'SIGKILL');
    // VS Code offers to restart it; a person clicks the button.
    await waitUntil(async () => {
      if (activations(wb) > before) {
        return true;
      }
      const restart = wb.page.locator('.notifications-toasts .monaco-button', { hasText: /Restart/ }).first();
      if (await restart.isVisible().catch(() => false)) {
        await restart.click().catch(() => undefined);
      }
      return false;
    }, 60_000, 'the extension host to come back');
    s.note(`extension host ${pid} killed; the extension activated again`);
    await wb.openActivityBarView('Agent Runs');
    await expectRestored(wb, s, id, prompt, draft);
    await backOnline(wb);
  }, /terminated unexpectedly/));

  scenario('secrets', 'plain http to another machine: a warning before the token is stored or sent; nothing is sent unless the person agrees', (s) => uiChecked(workbench(), s, async () => {
    const wb = workbench();
    wb.emulator.clearFaults();
    await closeEditors(wb);
    await clearNotifications(wb);
    const fresh = (await admin(wb, 'POST', '/tokens', { workspaceId: 'ws_acme', name: 'insecure' })) as { token: string };
    // 0.0.0.0 reaches this machine, but is not a loopback name: the extension must treat it as remote.
    const insecure = wb.emulator.baseUrl.replace('127.0.0.1', '0.0.0.0');
    registerSecret(fresh.token, { label: 'the token the plain-http scenario stores', baseUrl: insecure });
    const carrying = (): number => wb.emulator.requests.filter((r) => (r.headers.authorization ?? '').includes(fresh.token)).length;
    await backOnline(wb);
    try {
      await command(wb, 'Agent Runs: Set Base URL');
      await wb.typeInInput(insecure);
      await wb.waitForOutputLog('Agent Runs', `Base URL is now ${insecure}.`);
      await command(wb, 'Agent Runs: Set API Token');
      await wb.typeInInput(fresh.token);
      const dialog = wb.page.locator('.monaco-dialog-box');
      await dialog.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      const warning = await dialog.innerText();
      s.note(`warning: ${warning.replace(/\s+/g, ' ').slice(0, 200)}`);
      assert.match(warning, /plain http/);
      assert.equal(carrying(), 0, 'the token was sent before the person answered the warning');
      await dialog.locator('.monaco-button', { hasText: /^Cancel$/ }).click();
      await wb.waitForNotification(/token was not stored/);
      assert.equal(carrying(), 0);
      // Agreeing is what sends it (the check is real: the emulator sees requests to 0.0.0.0).
      await command(wb, 'Agent Runs: Set API Token');
      await wb.typeInInput(fresh.token);
      await dialog.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      await dialog.locator('.monaco-button', { hasText: /Send Over HTTP/ }).click();
      const id = await startHeldRun(wb, 'Over plain http');
      await trackRun(wb, id);
      await waitUntil(() => carrying() > 0, UI_TIMEOUT_MS, 'a request with the token after the person agreed');
    } finally {
      // Back to the emulator's own base URL (and so its token), whatever happened above, by the
      // settings file and a reload rather than the palette: a workbench too slow to answer must
      // not leave the next scenarios on another origin with another token. Whatever else is left
      // open, the next scenario closes what it finds.
      await restoreStartSettings(wb);
    }
  }));

  scenario('secrets', 'the token is in no sink a person or another origin can see: DOM, notifications, export, logs at trace, settings, storage', (s) => uiChecked(workbench(), s, async () => {
    const wb = workbench();
    await closeEditors(wb);
    await clearNotifications(wb);
    // A run whose service echoes the token in an error, then redirects it to another origin.
    const id = await startHeldRun(wb, 'Sinks');
    const echoed = wb.emulator.requests.length;
    wb.emulator.inject({ method: 'GET', path: `^/agents/${id}$`, status: 500, body: JSON.stringify({ error: `internal error for ${wb.emulator.tokens.default}` }), times: 1 });
    await command(wb, 'Agent Runs: Track Run by ID…');
    await wb.typeInInput(id, { prompt: /agent ID/i });
    const toast = await wb.waitForNotification(/failed \(500\)|internal error/i, 30_000);
    // The premise of what follows: the service echoes the very token the extension sent it.
    const read = wb.emulator.requests.slice(echoed).find((r) => r.status === 500 && r.path.split('?')[0].endsWith(`/agents/${id}`));
    assert.equal(read?.headers.host, new URL(wb.emulator.baseUrl).host, 'premise: the extension reads from the emulator\'s own base URL');
    const sent = (read?.headers.authorization ?? '').replace(/^Bearer /, '');
    // Compared, never handed to assert as values: a failure report must not print a token.
    assert.ok(sent === wb.emulator.tokens.default, `premise: the extension sends the emulator's default token (it sent ${sent ? describeSecret(sent) : 'none'})`);
    s.sink('the error notification', await toast.innerText());
    await clearNotifications(wb);
    await trackRun(wb, id);
    const frame = await panelFrame(wb, 3);
    // A follow-up: its text is what the extension logs at trace level, so the log searched
    // below holds trace lines of this scenario's own (whatever scenarios ran before).
    await frame.locator('textarea').fill('Sinks: one follow-up, logged at trace level');
    await frame.locator('textarea').press('Control+Enter');
    await waitUntil(() => posts(wb, `/agents/${id}/messages`).length === 1, UI_TIMEOUT_MS, 'the follow-up POST');
    wb.emulator.inject({ method: 'GET', path: `^/agents/${id}$`, redirectTo: 'foreign', redirectStatus: 307, times: 1 });
    const index = wb.emulator.requests.length;
    await frame.locator('[data-ui="refresh"]').first().click();
    await waitUntil(() => wb.emulator.requests.slice(index).some((r) => r.status === 307), UI_TIMEOUT_MS, 'the redirect');
    // Export the run as Markdown: the save dialog proposes the workspace folder.
    await frame.locator('[data-ui="export-markdown"]').first().click();
    const saveInput = wb.page.locator('.quick-input-widget .quick-input-box input');
    await saveInput.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await saveInput.press('Enter');
    const exported = path.join(wb.session.profile.workspaceDir, `agent-run-${id}.md`);
    await waitUntil(() => fs.existsSync(exported), UI_TIMEOUT_MS, 'the exported transcript');
    s.sink('exported transcript', fs.readFileSync(exported, 'utf8'));
    const log = wb.readOutputLog('Agent Runs');
    assert.match(log, /\[trace\]/, 'the output channel is not at trace level');
    s.sink('output channel (trace level)', log);
    s.sink('requests to another origin', JSON.stringify(wb.emulator.foreignRequests));
    assert.deepEqual(wb.emulator.foreignRequests.map((r) => r.path), [], 'a request reached the other origin');
    s.sink('globalState and workspaceState (browser storage)', await browserStorage(wb));
    const files = userDataFiles(wb);
    s.note(`${files.length} profile files, the browser storage, every frame's DOM and the export searched`);
    for (const f of files) {
      s.sink(`profile file ${f.file}`, f.text);
    }
    s.sink('every frame (notifications, tree, panel)', await allFramesHtml(wb));
    const secretStore = String(await wb.page.evaluate("localStorage.getItem('secrets.provider') || ''"));
    s.note(`the editor's secret storage (localStorage 'secrets.provider', the designated place) holds the token ${secretStore.includes(wb.emulator.tokens.default) ? 'in plain text' : 'not in plain text'}`);
  }));

  scenario('persistence', 'corrupt stored state (run list, drafts, insecure-URL list, transcript files): reset with a warning, never a failed activation', (s) => uiChecked(workbench(), s, async () => {
    const wb = workbench();
    await closeEditors(wb);
    wb.emulator.clearFaults();
    const base = wb.emulator.baseUrl;
    // State of this scenario's own to corrupt (a run list, a draft, a transcript), whatever ran before.
    await runWithDraft(wb, 'Before corrupt state', 'draft typed before the state was corrupted');
    await closeEditors(wb);
    for (const f of transcriptFiles(wb)) {
      fs.writeFileSync(f, '\u0000garbage{"version":1');
    }
    const origin = new URL(wb.session.server.url).origin;
    // Leave the workbench (it writes its state on the way out), then corrupt that state from a
    // page of the same origin, where nothing else writes.
    await wb.page.goto(`${origin}/healthz`);
    const corrupted = await wb.page.evaluate(`(async () => {
      const open = (name) => new Promise((res, rej) => { const r = indexedDB.open(name); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
      const names = (await indexedDB.databases()).map((d) => d.name).filter((n) => n.startsWith('vscode-web-state-db-'));
      let n = 0;
      for (const name of names) {
        const db = await open(name);
        const tx = db.transaction('ItemTable', 'readwrite');
        const store = tx.objectStore('ItemTable');
        const current = await new Promise((res) => { const q = store.get('agent-runs-team.agent-runs'); q.onsuccess = () => res(q.result); });
        if (current !== undefined) {
          const value = name.endsWith('-global')
            ? { ${JSON.stringify(`agentRuns.ledger.v1:${base}`)}: { version: 1, runs: 'garbage' }, 'agentRuns.insecureBaseUrlsAccepted': { not: 'a list' }, 'agentRuns.testGroups.recentAppIds': 42 }
            : { 'agentRuns.drafts.v1': 'garbage', 'agentRuns.launch.draft': [1, 2] };
          store.put(JSON.stringify(value), 'agent-runs-team.agent-runs');
          n++;
        }
        await new Promise((res) => { tx.oncomplete = res; });
        db.close();
      }
      return n;
    })()`);
    assert.ok(Number(corrupted) >= 1, 'found no stored state to corrupt');
    const hostLogBefore = wb.extensionHostLog().length;
    const outBefore = wb.readOutputLog('Agent Runs').length;
    await openWithTrace(wb);
    await wb.waitForExtensionActivation();
    // The premise: the extension came back on the service whose run list was corrupted.
    await waitUntil(() => / ms on \S+ \(/.test(wb.readOutputLog('Agent Runs').slice(outBefore)), 30_000, 'the extension\'s activation line (at trace level)');
    assert.ok(wb.readOutputLog('Agent Runs').slice(outBefore).includes(` ms on ${base} (`), `premise: the extension started on ${base}`);
    const hostLog = wb.extensionHostLog().slice(hostLogBefore);
    assert.doesNotMatch(hostLog, /Activating extension .*agent-runs.* failed/i, 'activation failed on corrupt state');
    await waitUntil(() => /saved run list was unreadable and has been reset/.test(wb.readOutputLog('Agent Runs').slice(outBefore)), 30_000, 'the reset warning');
    // The person is told too (the list they knew is gone), once, with the way to get runs back.
    await wb.waitForNotification(/could not read its saved list of runs.*Track Run by ID/, 30_000);
    s.note('corrupt state: warnings in the output channel and one notification about the run list');
    // Everything still works: a run can be tracked and shows up.
    const id = await startHeldRun(wb, 'After corrupt state');
    await trackRun(wb, id);
    await wb.waitForTreeRow('After corrupt state', 30_000);
    await panelFrame(wb, 3);
    // The panel read the drafts: unreadable, reset, said in the log.
    await waitUntil(() => /saved follow-up drafts were unreadable and have been reset/.test(wb.readOutputLog('Agent Runs').slice(outBefore)), 30_000, 'the drafts reset warning');
  }));
});

