/**
 * The webview app (src/panel/page) on a linkedom document. The app is bundled with esbuild
 * here (it is compiled against the DOM lib, not part of this node build) and driven through
 * the same validated messages the extension posts. DOMPurify needs a real browser, so these
 * tests use the allow-list sanitizer the app applies after DOMPurify.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import {
  MAX_WIRE_CONTENT_CHARS,
  PROTOCOL_VERSION,
  STRING_KEYS,
  parseExtensionMessage,
  parseWebviewMessage,
  type ExtensionToWebviewMessage,
  type InitMessage,
  type UpdateMessage,
  type WebviewStrings,
  type WebviewToExtensionMessage,
  type WireMessage,
} from '../../../src/panel/common/protocol';

// ------------------------------------------------------------------ minimal DOM typing

interface DomEvent {
  defaultPrevented: boolean;
}
interface DomEl {
  localName: string;
  id: string;
  className: string;
  textContent: string | null;
  value: string;
  disabled: boolean;
  children: ArrayLike<DomEl>;
  parentNode: DomEl | null;
  attributes: ArrayLike<{ name: string; value: string }>;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  setAttribute(name: string, value: string): void;
  querySelector(sel: string): DomEl | null;
  querySelectorAll(sel: string): ArrayLike<DomEl>;
  dispatchEvent(e: DomEvent): boolean;
  appendChild(n: DomEl): DomEl;
}
interface DomDocument {
  body: DomEl;
  getElementById(id: string): DomEl | null;
  createElement(tag: string): DomEl;
}
interface DomWindow {
  document: DomDocument;
  Event: new (type: string, init?: { bubbles?: boolean; cancelable?: boolean }) => DomEvent;
}

interface AppInstance {
  handle(m: ExtensionToWebviewMessage): void;
  onScroll(): void;
  flushDraft(): void;
  dispose(): void;
}
interface Bundle {
  App: new (env: unknown) => AppInstance;
  parseBranches(text: string): string[];
  forPosting(m: ExtensionToWebviewMessage): ExtensionToWebviewMessage[];
  createAllowListSanitizer(doc: DomDocument): (html: string) => DomEl;
  enforceAllowList(root: DomEl): number;
  REVEAL_OFFSET_PX: number;
}

let bundle: Bundle;
let parseHTML: (html: string) => unknown;
let tmp: string;

async function loadBundle(this: Mocha.Context): Promise<void> {
  if (bundle) {
    return;
  }
  this.timeout(30_000);
  const result = await esbuild.build({
    stdin: {
      contents: [
        "export { App, parseBranches } from './src/panel/page/app';",
        "export { createAllowListSanitizer, enforceAllowList } from './src/panel/page/sanitize';",
        "export { forPosting } from './src/panel/common/protocol';",
        "export { REVEAL_OFFSET_PX } from './src/panel/page/navigation';",
      ].join('\n'),
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  });
  tmp = mkdtempSync(join(tmpdir(), 'agent-runs-webview-'));
  const file = join(tmp, 'app.cjs');
  writeFileSync(file, result.outputFiles[0].text);
  bundle = createRequire(__filename)(file) as Bundle;
  const linkedom = await import('linkedom');
  parseHTML = linkedom.parseHTML;
}

function removeBundle(): void {
  if (tmp) {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------ harness

const T0 = Date.UTC(2025, 0, 1, 9, 0, 0);
const strings = Object.fromEntries(STRING_KEYS.map((k) => [k, `«${k}» {0}`])) as WebviewStrings;

class FakeTimers {
  now = T0;
  private next = 1;
  private readonly tasks = new Map<number, { at: number; fn: () => void }>();
  set = (fn: () => void, ms: number): number => {
    const id = this.next++;
    this.tasks.set(id, { at: this.now + ms, fn });
    return id;
  };
  clear = (id: unknown): void => {
    this.tasks.delete(id as number);
  };
  /** Runs everything due now, including tasks those schedule for now. */
  runDue(): number {
    let ran = 0;
    for (;;) {
      const due = [...this.tasks.entries()].filter(([, t]) => t.at <= this.now).sort((a, b) => a[1].at - b[1].at || a[0] - b[0]);
      if (due.length === 0) {
        return ran;
      }
      for (const [id, t] of due) {
        this.tasks.delete(id);
        t.fn();
        ran++;
      }
    }
  }
  advance(ms: number): void {
    this.now += ms;
    this.runDue();
  }
}

interface Harness {
  win: DomWindow;
  doc: DomDocument;
  app: AppInstance;
  posted: WebviewToExtensionMessage[];
  logs: string[];
  timers: FakeTimers;
  viewport: {
    atBottom: boolean;
    toBottom: number;
    intoView: number;
    /** The last explicit scroll position the app asked for (px from the top of the log). */
    scrolledTo: number | undefined;
    isAtBottom(): boolean;
    scrollToBottom(): void;
    scrollIntoView(): void;
    scrollWithin(el: unknown, y: number): void;
  };
  state: () => unknown;
  send(m: unknown): void;
  q(sel: string): DomEl;
  articles(): DomEl[];
  keys(): string[];
  click(el: DomEl): DomEvent;
  key(el: DomEl, key: string, mods?: { ctrlKey?: boolean; metaKey?: boolean; shiftKey?: boolean; altKey?: boolean }): DomEvent;
  type(text: string): void;
}

/** Advances 10 ms per call, so background slices end after a few steps as in a browser. */
let clockMs = 0;
function slicedClock(): number {
  clockMs += 10;
  return clockMs;
}

function harness(initialState?: unknown): Harness {
  const win = parseHTML('<!doctype html><html><head></head><body><div id="app"></div></body></html>') as DomWindow;
  const doc = win.document;
  const posted: WebviewToExtensionMessage[] = [];
  const logs: string[] = [];
  const timers = new FakeTimers();
  let state: unknown = initialState;
  const viewport = {
    atBottom: true,
    toBottom: 0,
    intoView: 0,
    isAtBottom() {
      return this.atBottom;
    },
    scrollToBottom() {
      this.toBottom++;
      this.atBottom = true;
    },
    scrollIntoView() {
      this.intoView++;
    },
    scrolledTo: undefined as number | undefined,
    scrollWithin(_el: unknown, y: number) {
      this.scrolledTo = y;
      this.atBottom = false;
    },
  };
  const app = new bundle.App({
    document: doc,
    root: doc.getElementById('app'),
    post: (m: unknown) => {
      // Everything the app posts must pass the extension's validation.
      const r = parseWebviewMessage(m);
      assert.ok(r.ok, `the app posted an invalid message: ${JSON.stringify(m)}`);
      posted.push(r.message);
    },
    getState: () => state,
    setState: (s: unknown) => {
      state = s;
    },
    sanitize: bundle.createAllowListSanitizer(doc),
    viewport,
    now: () => timers.now,
    clock: () => slicedClock(),
    setTimeout: timers.set,
    clearTimeout: timers.clear,
    whenIdle: (fn: () => void) => timers.set(fn, 0),
    isVisible: () => true,
    log: (m: string) => logs.push(m),
  });
  const h: Harness = {
    win,
    doc,
    app,
    posted,
    logs,
    timers,
    viewport,
    state: () => state,
    send(m) {
      const r = parseExtensionMessage(m);
      assert.ok(r.ok, `test message invalid: ${r.ok ? '' : r.reason}`);
      app.handle(r.message);
    },
    q(sel) {
      const el = doc.body.querySelector(sel);
      assert.ok(el, `no ${sel}`);
      return el;
    },
    articles() {
      return Array.from(doc.body.querySelectorAll('.log > article'));
    },
    keys() {
      return h.articles().map((a) => a.getAttribute('data-key') ?? '');
    },
    click(el) {
      const e = new win.Event('click', { bubbles: true, cancelable: true });
      el.dispatchEvent(e);
      return e;
    },
    key(el, key, mods = {}) {
      const e = new win.Event('keydown', { bubbles: true, cancelable: true });
      Object.assign(e, { key, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods });
      el.dispatchEvent(e);
      return e;
    },
    type(text) {
      const ta = h.q('textarea');
      ta.value = text;
      ta.dispatchEvent(new win.Event('input', { bubbles: true }));
    },
  };
  return h;
}

function wire(i: number, over: Partial<WireMessage> = {}): WireMessage {
  return {
    key: `id:${i}`,
    arrival: i,
    id: String(i),
    sequence: i,
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: `message **${i}**`,
    createdAt: T0 - 60_000 + i,
    ...over,
  };
}

function initMessage(messages: WireMessage[], over: Partial<InitMessage> = {}): InitMessage {
  return {
    type: 'init',
    protocol: PROTOCOL_VERSION,
    agentId: 'agent-1',
    locale: 'en',
    isMac: false,
    strings,
    header: { agentId: 'agent-1', status: 'running', appId: 'my-app', projectName: 'Shop', model: 'm-1', permission: 'read_only', createdAt: T0 - 3_600_000 },
    lifecycle: {
      conversation: { current: 'thinking', currentSince: T0 - 30_000, segments: [{ state: 'waiting', totalMs: 5_000 }, { state: 'thinking', totalMs: 0 }] },
      sandbox: { segments: [] },
      queuedTurnCount: 2,
      lastLifecycleEventAt: T0 - 30_000,
    },
    activity: { lastActivityAt: T0 - 30_000, stallAfterMs: 10 * 60_000 },
    freshness: { state: 'live' },
    transcript: { earlierMessagesUnavailable: false, missingMessageCount: 0, droppedMessageCount: 0 },
    messages,
    draft: '',
    maxContentChars: MAX_WIRE_CONTENT_CHARS,
    ...over,
  };
}

function range(from: number, to: number): WireMessage[] {
  const out: WireMessage[] = [];
  for (let i = from; i < to; i++) {
    out.push(wire(i));
  }
  return out;
}

/** Tool parameters long enough (13 lines) to be folded into a collapsed `<details>`. */
function foldedParams(n: number): string {
  return JSON.stringify(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, n])));
}

function update(u: Omit<UpdateMessage, 'type'>): UpdateMessage {
  return { type: 'update', ...u };
}

// ------------------------------------------------------------------ tests

describe('webview app', () => {
  before(loadBundle);
  after(removeBundle);
  it('renders header, lifecycle, transcript and composer on init', () => {
    const h = harness();
    assert.equal(h.doc.body.querySelectorAll('article').length, 0, 'nothing before init');
    h.send(initMessage(range(1, 4)));
    assert.equal(h.q('.status-badge').textContent, '«statusRunning» {0}');
    assert.match(h.q('.status-badge').className, /status-running/);
    assert.equal(h.q('.run-title').textContent, 'my-app · Shop');
    assert.equal(h.q('.fact-model dd').textContent, 'm-1');
    assert.equal(h.q('.fact-permission dd').textContent, '«permissionReadOnly» {0}');
    assert.ok(h.q('.fact-completed').hasAttribute('hidden'), 'absent fields are hidden');
    assert.equal(h.q('.fact-created time').getAttribute('title'), null, 'the exact time is not needed for the first paint');
    h.timers.runDue();
    assert.ok(h.q('.fact-created time').getAttribute('title'), 'exact time on hover, once the page is idle');
    assert.equal(h.q('.agent-id').textContent, 'agent-1');
    assert.deepEqual(h.keys(), ['id:1', 'id:2', 'id:3']);
    assert.equal(h.q('.log').getAttribute('role'), 'feed');
    assert.equal(h.q('.lifecycle-meta').textContent?.includes('«queuedTurns» 2'), true);
    assert.equal(Array.from(h.doc.body.querySelectorAll('.lane-state')).length, 2);
    assert.ok(h.q('.lane-state.current').textContent?.includes('thinking'));
    assert.ok(h.q('.banner-error').hasAttribute('hidden'));
    assert.ok(h.q('.new-pill').hasAttribute('hidden'));
    assert.ok(h.q('.log-empty').hasAttribute('hidden'));
    assert.equal(h.viewport.toBottom >= 1, true, 'starts at the end');
    assert.deepEqual(h.posted, [{ type: 'markSeen' }]);
    assert.deepEqual(h.state(), { agentId: 'agent-1', draft: '' });
  });

  it('keeps a long history as data and mounts only the rows near the viewport', function () {
    this.timeout(60_000);
    const h = harness();
    const messages = range(1, 50_001);
    // As the panel posts it: an init with the newest, then the older ones in chunks.
    const parts = bundle.forPosting(initMessage(messages));
    assert.ok(parts.length > 1 && parts[0].type === 'init' && parts.slice(1).every((p) => p.type === 'update'));
    let started = process.hrtime.bigint();
    h.send(parts[0]);
    const firstMs = Number(process.hrtime.bigint() - started) / 1e6;
    assert.equal(h.keys()[h.keys().length - 1], 'id:50000');
    started = process.hrtime.bigint();
    for (const part of parts.slice(1)) {
      h.send(part);
    }
    const restMs = Number(process.hrtime.bigint() - started) / 1e6;
    assert.ok(h.q('.new-pill').hasAttribute('hidden'), 'older history is not "new"');
    const keys = h.keys();
    assert.ok(keys.length >= 10 && keys.length <= 60, `${keys.length} rows mounted`);
    assert.equal(keys[keys.length - 1], 'id:50000', 'opens at the end');
    keys.forEach((k, i) => i > 0 && assert.equal(Number(k.slice(3)), Number(keys[i - 1].slice(3)) + 1, 'contiguous'));
    const log = h.q('.log');
    assert.equal(log.getAttribute('role'), 'feed');
    assert.equal(log.getAttribute('aria-busy'), 'true', 'busy until the first paint is done');
    const last = h.articles()[keys.length - 1];
    assert.equal(last.getAttribute('aria-setsize'), '50000');
    assert.equal(last.getAttribute('aria-posinset'), '50000');
    assert.match(last.getAttribute('aria-label') ?? '', /^«roleUser» \{0\}, .*2024|^«roleUser» \{0\}, /, 'labelled by role and time');
    h.timers.runDue();
    assert.equal(log.getAttribute('aria-busy'), null);

    // Reading in the middle: the rows there are mounted, the end is not.
    let y = 0;
    Object.assign(h.viewport, { offsetWithin: () => y });
    h.viewport.atBottom = false;
    y = 66 * 25_000; // every row here is estimated at 66 px until measured
    h.app.onScroll();
    const jumped = h.keys();
    assert.ok(jumped.includes('id:25001') && !jumped.includes('id:50000'), jumped.join(' '));
    // A jump mounts little more than the viewport; the rows around it follow when idle.
    h.timers.runDue();
    const middle = h.keys();
    assert.ok(middle.length > jumped.length && middle.length <= 60 && middle.includes('id:25001'), `${jumped.length} then ${middle.length}`);

    // An append while reading there leaves the mounted rows alone and counts in the pill.
    const before = h.articles();
    started = process.hrtime.bigint();
    h.send(update({ messages: [wire(50_001)] }));
    const appendMs = Number(process.hrtime.bigint() - started) / 1e6;
    const after = h.articles();
    assert.equal(after.length, before.length);
    before.forEach((el, i) => assert.equal(after[i], el, `row ${i} kept`));
    assert.equal(after[0].getAttribute('aria-setsize'), '50001');
    assert.equal(h.q('.new-pill').textContent, '«newMessages» 1');
    console.log(`      linkedom: init of 50,000 in ${firstMs.toFixed(1)} ms, the older ones in ${restMs.toFixed(0)} ms (${keys.length} rows mounted), one append ${appendMs.toFixed(2)} ms`);
  });

  it('mounts more rows for a taller viewport, always ending at the newest', () => {
    let previous = 0;
    for (const height of [400, 1_000, 3_000]) {
      const h = harness();
      Object.assign(h.viewport, { height: () => height });
      h.send(initMessage(range(1, 301)));
      const keys = h.keys();
      assert.equal(keys[keys.length - 1], 'id:300');
      assert.ok(keys.length > previous && keys.length < 300, `${height}px: ${keys.length}`);
      previous = keys.length;
      h.app.dispose();
    }
  });

  it('applies updates to the affected messages only', () => {
    const h = harness();
    h.send(initMessage(range(1, 6).map((m) => (m.sequence === 2 ? { ...m, toolName: 'shell', toolParameters: foldedParams(1) } : m))));
    const before = h.articles();
    const details = before[1].querySelector('details')!;
    details.setAttribute('open', '');

    // Appended: every existing element is the same object.
    h.send(update({ messages: [wire(6), wire(7)] }));
    const after = h.articles();
    assert.equal(after.length, 7);
    before.forEach((el, i) => assert.equal(after[i], el, `element ${i} kept`));
    assert.ok(after[1].querySelector('details')!.hasAttribute('open'), 'expanded tool call still open');

    // Changed: replaced in place, its expanded tool call stays expanded, neighbours untouched.
    h.send(update({ messages: [{ ...wire(2), content: 'edited', toolName: 'shell', toolParameters: foldedParams(2) }] }));
    const changed = h.articles();
    assert.notEqual(changed[1], before[1]);
    assert.equal(changed[0], before[0]);
    assert.equal(changed[2], before[2]);
    assert.ok(changed[1].textContent?.includes('edited'));
    assert.ok(changed[1].querySelector('details')!.hasAttribute('open'));

    // An earlier message that turned up late goes where its sequence says.
    h.send(update({ messages: [wire(0)] }));
    assert.deepEqual(h.keys(), ['id:0', 'id:1', 'id:2', 'id:3', 'id:4', 'id:5', 'id:6', 'id:7']);
    // A message whose sequence changed moves.
    h.send(update({ messages: [{ ...wire(1), sequence: 100 }] }));
    assert.deepEqual(h.keys(), ['id:0', 'id:2', 'id:3', 'id:4', 'id:5', 'id:6', 'id:7', 'id:1']);
    // Evicted ones go.
    h.send(update({ removedKeys: ['id:0', 'id:3', 'id:unknown'] }));
    assert.deepEqual(h.keys(), ['id:2', 'id:4', 'id:5', 'id:6', 'id:7', 'id:1']);
  });

  it('counts the turn in the header from the prompts held, as messages arrive, change, move and go', () => {
    const h = harness();
    const turn = () => (h.q('.bar-turn').hasAttribute('hidden') ? '' : h.q('.bar-turn').textContent);
    h.send(initMessage([wire(1)]));
    assert.equal(turn(), '', 'no prompt, no turn');
    h.send(initMessage(range(1, 6))); // prompts: 2, 4
    assert.equal(turn(), '«turnNumber» 2');
    h.send(update({ messages: [wire(6), wire(7)] })); // appended: 6 is a prompt
    assert.equal(turn(), '«turnNumber» 3');
    h.send(update({ messages: [{ ...wire(7), role: 'user' }] })); // changed to a prompt, in place
    assert.equal(turn(), '«turnNumber» 4');
    h.send(update({ messages: [{ ...wire(2), role: 'assistant' }] })); // and from one
    assert.equal(turn(), '«turnNumber» 3');
    h.send(update({ messages: [wire(0)] })); // a late prompt goes before the end
    assert.equal(turn(), '«turnNumber» 4');
    h.send(update({ removedKeys: ['id:0', 'id:4'] }));
    assert.equal(turn(), '«turnNumber» 2');
  });

  it('follows the end only when the user is there, else counts new messages in a pill', () => {
    const h = harness();
    h.send(initMessage(range(1, 4)));
    const scrolls = h.viewport.toBottom;
    h.send(update({ messages: [wire(4)] }));
    assert.equal(h.viewport.toBottom, scrolls + 1, 'at the end: follows');
    assert.ok(h.q('.new-pill').hasAttribute('hidden'));

    h.viewport.atBottom = false;
    h.send(update({ messages: [wire(5), wire(6)] }));
    h.send(update({ messages: [wire(7)] }));
    assert.equal(h.viewport.toBottom, scrolls + 1, 'scrolled up: stays');
    const pill = h.q('.new-pill');
    assert.ok(!pill.hasAttribute('hidden'));
    assert.equal(pill.textContent, '«newMessages» 3');
    // A changed message does not count as new.
    h.send(update({ messages: [{ ...wire(3), content: 'grew' }] }));
    assert.equal(pill.textContent, '«newMessages» 3');

    h.click(pill);
    assert.ok(pill.hasAttribute('hidden'));
    assert.equal(h.viewport.toBottom, scrolls + 2, 'the pill goes to the new messages at the end');

    // Scrolling to the end by hand hides it too.
    h.viewport.atBottom = false;
    h.send(update({ messages: [wire(8)] }));
    assert.ok(!pill.hasAttribute('hidden'));
    h.viewport.atBottom = true;
    h.app.onScroll();
    assert.ok(pill.hasAttribute('hidden'));
  });

  it('sends a follow-up with Ctrl+Enter, keeps the text on error and clears it on success', () => {
    const h = harness();
    h.send(initMessage(range(1, 3)));
    h.posted.length = 0;
    const ta = h.q('textarea');
    const select = h.q('select');
    // linkedom has no select.value; a browser does.
    Object.defineProperty(select, 'value', { value: 'allow_edits', writable: true, configurable: true });
    h.q('input.composer-branches').value = 'main, release/1.0  main';

    h.type('  ');
    h.key(ta, 'Enter', { ctrlKey: true });
    assert.equal(h.posted.filter((m) => m.type === 'sendFollowUp').length, 0, 'blank prompts are not sent');

    h.type('Please also update the docs');
    assert.deepEqual(h.state(), { agentId: 'agent-1', draft: 'Please also update the docs' }, 'kept in webview state at once');
    const esc = h.key(ta, 'Escape');
    assert.equal(ta.value, 'Please also update the docs', 'Escape keeps the text');
    assert.equal(esc.defaultPrevented, false);
    const enter = h.key(ta, 'Enter');
    assert.equal(enter.defaultPrevented, false, 'plain Enter is a new line');

    const ev = h.key(ta, 'Enter', { ctrlKey: true });
    assert.ok(ev.defaultPrevented);
    const sent = h.posted.filter((m) => m.type === 'sendFollowUp');
    assert.deepEqual(sent, [
      { type: 'sendFollowUp', requestId: 1, prompt: 'Please also update the docs', permission: 'allow_edits', permittedBranches: ['main', 'release/1.0'] },
    ]);
    const button = h.q('button[type="submit"]');
    assert.ok(button.disabled, 'no double send');
    h.key(ta, 'Enter', { metaKey: true });
    assert.equal(h.posted.filter((m) => m.type === 'sendFollowUp').length, 1);

    h.send({ type: 'followUpResult', requestId: 1, ok: false, error: 'Rate limited \u202E, try later' });
    assert.equal(ta.value, 'Please also update the docs', 'the text survives a failure');
    assert.ok(!button.disabled);
    assert.equal(h.q('.composer-status').textContent, '«sendFailed» Rate limited ⟦U+202E⟧, try later');

    // A stale result (wrong request id) is ignored.
    h.key(ta, 'Enter', { ctrlKey: true });
    h.send({ type: 'followUpResult', requestId: 99, ok: true });
    assert.equal(ta.value, 'Please also update the docs');
    h.send({ type: 'followUpResult', requestId: 2, ok: true });
    assert.equal(ta.value, '');
    assert.deepEqual(h.posted[h.posted.length - 1], { type: 'draftChanged', text: '' });
    assert.equal(h.q('input.composer-branches').value, '');
  });

  it('reports the draft debounced, restores it, and never clobbers what is being typed', () => {
    const h = harness();
    h.send(initMessage([], { draft: 'from the host' }));
    assert.equal(h.q('textarea').value, 'from the host');
    h.posted.length = 0;
    h.type('a');
    h.type('ab');
    h.type('abc');
    assert.equal(h.posted.length, 0);
    h.timers.advance(400);
    assert.deepEqual(h.posted, [{ type: 'draftChanged', text: 'abc' }]);
    h.send({ type: 'draft', text: 'restored' });
    assert.equal(h.q('textarea').value, 'restored');

    // After a reload the local copy fills in when the host has none (and is reported)...
    const reloaded = harness({ agentId: 'agent-1', draft: 'typed, not yet reported' });
    reloaded.send(initMessage([], { draft: '' }));
    assert.equal(reloaded.q('textarea').value, 'typed, not yet reported');
    // Marked as the page's own copy: the extension drops it if the run took that text since.
    assert.deepEqual(reloaded.posted[0], { type: 'draftChanged', text: 'typed, not yet reported', restored: true });
    // ...but the host's copy wins when it has one.
    const both = harness({ agentId: 'agent-1', draft: 'older local copy' });
    both.send(initMessage([], { draft: 'host copy' }));
    assert.equal(both.q('textarea').value, 'host copy');
    assert.ok(!both.posted.some((m) => m.type === 'draftChanged'));
  });

  it('turns link clicks and message actions into messages and never navigates', () => {
    const h = harness();
    const long = wire(2, { content: 'cut here', contentLength: 50_000 });
    h.send(
      initMessage([
        wire(1, { content: 'see [docs](https://ok.example/docs) and <javascript:alert(1)>', toolName: 't', toolParameters: '{"x":1}' }),
        long,
      ]),
    );
    h.posted.length = 0;
    const link = h.q('.md-link');
    assert.equal(link.getAttribute('href'), null, 'no href: nothing to navigate to');
    const ev = h.click(link);
    assert.ok(ev.defaultPrevented);
    h.key(link, 'Enter');
    const first = h.articles()[0];
    h.click(first.querySelector('[data-action="copy-message"]')!);
    h.click(first.querySelector('[data-action="copy-params"]')!);
    h.click(first.querySelector('[data-action="open-in-editor"]')!);
    const second = h.articles()[1];
    h.click(second.querySelector('[data-action="copy-message"]')!);
    h.click(h.q('[data-ui="copy-agent-id"]'));
    h.click(h.q('[data-ui="export-markdown"]'));
    h.click(h.q('[data-ui="export-json"]'));
    h.click(h.q('[data-ui="clone"]'));
    h.click(h.q('.toolbar [data-ui="refresh"]'));
    assert.deepEqual(h.posted, [
      { type: 'openLink', url: 'https://ok.example/docs' },
      { type: 'openLink', url: 'https://ok.example/docs' },
      { type: 'copy', text: 'see [docs](https://ok.example/docs) and <javascript:alert(1)>' },
      { type: 'copy', text: '{"x":1}' },
      { type: 'openInEditor', messageKey: 'id:1' },
      { type: 'openInEditor', messageKey: 'id:2' },
      { type: 'copy', text: 'agent-1' },
      { type: 'export', format: 'markdown' },
      { type: 'export', format: 'json' },
      { type: 'clone' },
      { type: 'refresh' },
    ]);
    assert.ok(second.textContent?.includes('«showFullMessage» 50,000'));
  });

  it('updates the header in place and shows error, stale and transcript notices', () => {
    const h = harness();
    h.send(initMessage(range(1, 3)));
    const badge = h.q('.status-badge');
    h.send(update({ header: { agentId: 'agent-1', status: 'error', appId: 'my-app', lastError: 'Sandbox crashed\n<script>x</script>', completedAt: T0 } }));
    assert.equal(h.q('.status-badge'), badge, 'same element');
    assert.match(badge.className, /status-error/);
    assert.ok(!h.q('.banner-error').hasAttribute('hidden'));
    assert.equal(h.q('.banner-error .banner-text').textContent, 'Sandbox crashed\n<script>x</script>');
    assert.equal(h.doc.body.querySelectorAll('script').length, 0);
    assert.ok(!h.q('.fact-completed').hasAttribute('hidden'));
    assert.ok(h.q('.visually-hidden[role="status"]').textContent?.includes('«statusError»'), 'announced');

    h.send(update({ freshness: { state: 'stale', asOf: T0 - 60_000, detail: 'HTTP 503' } }));
    assert.ok(!h.q('.banner-stale').hasAttribute('hidden'));
    assert.ok(h.q('.banner-stale').textContent?.includes('HTTP 503'));
    h.send(update({ freshness: { state: 'live' } }));
    assert.ok(h.q('.banner-stale').hasAttribute('hidden'));

    h.send(update({ transcript: { earlierMessagesUnavailable: true, missingMessageCount: 12, droppedMessageCount: 3 } }));
    assert.ok(h.q('.notice-earlier').textContent?.includes('«missingMessages» 12'));
    assert.ok(h.q('.notice-dropped').textContent?.includes('«droppedMessages» 3'));
    assert.equal(h.articles().length, 2, 'messages untouched');
  });

  it('counts queued follow-ups with a singular for one', () => {
    const h = harness();
    const lifecycle = initMessage([]).lifecycle;
    h.send(initMessage([], { lifecycle: { ...lifecycle, queuedTurnCount: 1 } }));
    assert.match(h.q('.lifecycle-meta').textContent ?? '', /^«queuedTurn» 1 ·/);
    h.send(update({ lifecycle: { ...lifecycle, queuedTurnCount: 2 } }));
    assert.match(h.q('.lifecycle-meta').textContent ?? '', /^«queuedTurns» 2 ·/);
    h.send(update({ lifecycle: { ...lifecycle, queuedTurnCount: 0 } }));
    assert.match(h.q('.lifecycle-meta').textContent ?? '', /^«noQueuedTurns» \{0\} ·/);
    h.app.dispose();
  });

  it('updates the lifecycle lanes in place while their states stay the same', () => {
    const h = harness();
    const lifecycle = initMessage([]).lifecycle;
    h.send(initMessage([]));
    const states = Array.from(h.doc.body.querySelectorAll('.lane-state'));
    const durations = states.map((li) => li.querySelector('.dur')?.textContent);
    h.timers.advance(5_000);
    const ticked = Array.from(h.doc.body.querySelectorAll('.lane-state'));
    ticked.forEach((li, i) => assert.equal(li, states[i], `lane state ${i} kept`));
    assert.notEqual(ticked[1].querySelector('.dur')?.textContent, durations[1], 'the current state\'s time moved on');
    // A new state: rebuilt.
    h.send(update({ lifecycle: { ...lifecycle, conversation: { current: 'tool', currentSince: T0, segments: [...lifecycle.conversation.segments, { state: 'tool', totalMs: 0 }] } } }));
    const rebuilt = Array.from(h.doc.body.querySelectorAll('.lane-state'));
    assert.equal(rebuilt.length, 3);
    assert.ok(rebuilt[2].textContent?.includes('tool'));
    assert.equal(h.doc.body.querySelectorAll('.lane-bar .seg').length, 3);
    h.app.dispose();
  });

  it('warns about a stall while running and ticks the lanes', () => {
    const h = harness();
    h.send(initMessage([]));
    assert.ok(h.q('.stall-warning').hasAttribute('hidden'));
    assert.ok(!h.q('.log-empty').hasAttribute('hidden'), 'empty transcript says so');
    h.timers.advance(10 * 60_000);
    assert.ok(!h.q('.stall-warning').hasAttribute('hidden'));
    assert.ok(h.q('.stall-warning').textContent?.includes('«stalled» 10m 30s'));
    h.send(update({ header: { agentId: 'agent-1', status: 'completed' } }));
    assert.ok(h.q('.stall-warning').hasAttribute('hidden'));
    h.app.dispose();
  });

  it('a stalled code review\'s warning does not suggest a follow-up', () => {
    const h = harness();
    h.send(initMessage([]));
    h.send(update({ header: { agentId: 'agent-1', status: 'running', codeReview: true, noFollowUps: true } }));
    h.timers.advance(10 * 60_000);
    assert.ok(!h.q('.stall-warning').hasAttribute('hidden'));
    assert.ok(h.q('.stall-warning').textContent?.includes('«stalledNoFollowUps» 10m 30s'), h.q('.stall-warning').textContent ?? '');
    h.app.dispose();
  });

  it('draws a divider above the first unseen message', () => {
    const h = harness();
    h.send(initMessage(range(1, 200), { firstUnseenKey: 'id:150' }));
    const divider = h.q('.divider-new');
    const next = h.doc.body.querySelector('.divider-new + article');
    assert.equal(next?.getAttribute('data-key'), 'id:150');
    assert.ok(divider);
    assert.ok(!h.keys().includes('id:199'), 'opens at the first unseen message, not at the end');
    assert.equal(h.viewport.toBottom, 0);
    assert.equal(h.doc.body.querySelectorAll('.divider-new').length, 1);
  });

  it('ignores updates before init', () => {
    const h = harness();
    h.app.handle({ type: 'update', messages: [wire(1)] });
    assert.equal(h.articles().length, 0);
    assert.ok(h.logs.some((l) => l.includes('before init')));
  });

  it('parses branch lists', () => {
    assert.deepEqual(bundle.parseBranches(' main,  release/1.0\nfeat-x ,main,, '), ['main', 'release/1.0', 'feat-x']);
    assert.deepEqual(bundle.parseBranches(''), []);
  });
});

describe('webview sanitizer allow-list', () => {
  before(loadBundle);
  after(removeBundle);
  it('removes everything outside the allow-list', () => {
    const win = parseHTML('<!doctype html><html><body></body></html>') as DomWindow;
    const sanitize = bundle.createAllowListSanitizer(win.document);
    const frag = sanitize(
      [
        '<article data-key="k" onclick="x()" style="color:red">',
        '<script>alert(1)</script><style>*{}</style><img src=x onerror=alert(1)>',
        '<svg onload=alert(1)><a href="javascript:alert(1)">s</a></svg><math><mi>m</mi></math>',
        '<iframe src="https://evil.example"></iframe><object data="x"></object><form action="https://evil.example"><input></form>',
        '<a class="md-link" data-href="javascript:alert(1)" href="https://ok.example">bad</a>',
        '<a class="md-link" data-href="https://ok.example/ok" tabindex="0" role="link">good</a>',
        '<button type="submit" data-action="rm -rf">b</button><div dir="rtl" tabindex="5" role="button" data-ts="12x">t</div>',
        '<details open><summary>s</summary>kept text</details>',
        '</article>',
      ].join(''),
    );
    const host = win.document.createElement('div');
    host.appendChild(frag);
    for (const el of Array.from(host.querySelectorAll('*'))) {
      assert.ok(!['script', 'style', 'img', 'svg', 'math', 'iframe', 'object', 'form', 'input'].includes(el.localName), el.localName);
      for (const a of Array.from(el.attributes)) {
        assert.ok(!a.name.startsWith('on') && a.name !== 'style' && a.name !== 'href', `${el.localName}[${a.name}]`);
      }
    }
    const links = Array.from(host.querySelectorAll('[data-href]')).map((e) => e.getAttribute('data-href'));
    assert.deepEqual(links, ['https://ok.example/ok']);
    assert.equal(host.querySelector('button')!.getAttribute('type'), null);
    assert.equal(host.querySelector('button')!.getAttribute('data-action'), null);
    const div = host.querySelector('div[dir]')!;
    assert.equal(div.getAttribute('tabindex'), null);
    assert.equal(div.getAttribute('role'), null);
    assert.equal(div.getAttribute('data-ts'), null);
    assert.ok(host.querySelector('details')!.hasAttribute('open'));
    assert.ok(host.textContent?.includes('kept text'));
    assert.equal(bundle.enforceAllowList(host), 0, 'idempotent');
  });
});

describe('webview app: a second init', () => {
  before(loadBundle);
  after(removeBundle);

  it('rebuilds the content without doubling event handlers', () => {
    const h = harness();
    h.send(initMessage(range(1, 300)));
    h.send(initMessage(range(1, 4), { header: { agentId: 'agent-1', status: 'completed' } }));
    h.timers.runDue();
    assert.deepEqual(h.keys(), ['id:1', 'id:2', 'id:3'], 'the first history did not come back');
    assert.match(h.q('.status-badge').className, /status-completed/);
    h.posted.length = 0;
    h.click(h.q('[data-ui="clone"]'));
    assert.deepEqual(h.posted, [{ type: 'clone' }]);
  });
});

describe('webview app: long runs (find, filters, jumps, gaps, send state, reload)', () => {
  before(loadBundle);
  after(removeBundle);

  it('finds in every message, also those not mounted, and marks only text nodes', function () {
    this.timeout(30_000);
    const h = harness();
    const messages = range(1, 5_001).map((m) => {
      const i = m.sequence!;
      if (i === 10) return { ...m, content: 'the **needle** is *here*' };
      if (i === 3_000) return { ...m, content: 'needle and Needle' };
      if (i === 4_990) return { ...m, content: 'a last needle' };
      return m;
    });
    h.send(initMessage(messages, { strings: { ...strings, findCount: '{0} of {1}' } }));
    assert.ok(!h.keys().includes('id:10'), 'id:10 is not mounted');
    const find = h.q('.find-row');
    assert.ok(find.hasAttribute('hidden'));
    const e = h.key(h.q('.log'), 'f', { ctrlKey: true });
    assert.ok(e.defaultPrevented, 'Ctrl+F is ours, not the webview find widget');
    assert.ok(!find.hasAttribute('hidden'));
    const input = h.q('.find-input');
    assert.equal(input.getAttribute('aria-label'), strings.findLabel);
    input.value = 'NEEDLE';
    input.dispatchEvent(new h.win.Event('input', { bubbles: true }));
    h.timers.advance(200);
    assert.equal(h.q('.find-count').textContent, '1 of 4');
    const art = h.articles().find((a) => a.getAttribute('data-key') === 'id:10');
    assert.ok(art, 'the first match is mounted now');
    const current = art.querySelector('mark.find-current');
    assert.equal(current?.textContent, 'needle');
    assert.equal(current?.parentNode?.localName, 'strong', 'the Markdown around it is kept');
    assert.equal(art.querySelector('em')?.textContent, 'here');

    h.key(input, 'Enter');
    assert.equal(h.q('.find-count').textContent, '2 of 4');
    h.key(input, 'Enter');
    assert.equal(h.q('.find-count').textContent, '3 of 4');
    const second = h.articles().find((a) => a.getAttribute('data-key') === 'id:3000');
    assert.equal(second?.querySelector('mark.find-current')?.textContent, 'Needle', 'the second match in the same message');
    assert.equal(second?.querySelectorAll('mark.find-match').length, 2);
    h.key(input, 'Enter', { shiftKey: true });
    assert.equal(h.q('.find-count').textContent, '2 of 4');
    h.click(h.q('[data-ui="find-prev"]'));
    h.click(h.q('[data-ui="find-prev"]'));
    assert.equal(h.q('.find-count').textContent, '4 of 4', 'wraps around');

    h.key(input, 'Escape');
    assert.ok(find.hasAttribute('hidden'));
    assert.equal(h.doc.body.querySelectorAll('mark').length, 0, 'marks removed');
    assert.equal(second?.textContent?.includes('needle and Needle'), true, 'text intact');
  });

  it('filters by role and jumps between prompts and to the latest message with the keyboard', () => {
    const h = harness();
    // Even: prompts, odd: agent; one error; one tool call.
    const messages = range(1, 1_001).map((m) => (m.sequence === 501 ? { ...m, role: 'error' } : m.sequence === 503 ? { ...m, toolName: 'shell' } : m));
    h.send(initMessage(messages));
    const setsize = () => h.articles()[0]?.getAttribute('aria-setsize');
    assert.equal(setsize(), '1000');
    const prompts = h.q('[data-filter="prompts"]');
    h.click(prompts);
    assert.equal(prompts.getAttribute('aria-pressed'), 'true');
    assert.equal(setsize(), '500');
    assert.ok(h.articles().every((a) => a.className.includes('role-user')));
    h.click(h.q('[data-filter="errors"]'));
    assert.equal(setsize(), '501');
    h.click(prompts);
    h.click(h.q('[data-filter="errors"]'));
    h.click(h.q('[data-filter="tools"]'));
    assert.deepEqual(h.keys(), ['id:503']);
    h.click(h.q('[data-filter="tools"]'));
    assert.equal(setsize(), '1000');

    // Rows are estimated at 66 px here (the tool call at 96), so row i starts at i × 66 + 30
    // past it. At the end the viewport's top is at 65,230 and the reading line (REVEAL_OFFSET_PX,
    // 112 px, below it: clear of the header's bar and the find bar) at 65,342, 38 px into id:990:
    // that prompt is the one being read, and Alt+Up goes to its start first.
    const top = (i: number) => i * 66 + 30;
    const log = h.q('.log');
    h.app.onScroll();
    h.key(log, 'ArrowUp', { altKey: true });
    assert.equal(h.viewport.scrolledTo, top(989) - bundle.REVEAL_OFFSET_PX, 'to the start of the prompt being read (id:990)');
    h.key(log, 'ArrowUp', { altKey: true });
    assert.equal(h.viewport.scrolledTo, top(987) - bundle.REVEAL_OFFSET_PX, 'to the prompt above it (id:988)');
    h.key(log, 'ArrowUp', { altKey: true });
    assert.equal(h.viewport.scrolledTo, top(985) - bundle.REVEAL_OFFSET_PX, 'id:986');
    h.key(log, 'ArrowDown', { altKey: true });
    assert.equal(h.viewport.scrolledTo, top(987) - bundle.REVEAL_OFFSET_PX, 'back down to id:988');
    h.key(log, 'ArrowUp', { altKey: true });
    h.key(log, 'ArrowUp', { altKey: true });
    assert.equal(h.viewport.scrolledTo, top(983) - bundle.REVEAL_OFFSET_PX, 'id:984');
    // Not in text fields: Alt+Up there is the field's.
    const ta = h.q('textarea');
    const inField = h.key(ta, 'ArrowUp', { altKey: true });
    assert.equal(inField.defaultPrevented, false);
    assert.equal(h.viewport.scrolledTo, top(983) - bundle.REVEAL_OFFSET_PX);
    const toBottom = h.viewport.toBottom;
    const end = h.key(log, 'End', { ctrlKey: true });
    assert.ok(end.defaultPrevented);
    assert.equal(h.viewport.toBottom, toBottom + 1, 'Ctrl+End: the latest message');
    assert.ok(h.q('.jumps').getAttribute('title'), 'the keys are shown');
  });

  it('draws a notice where the service no longer returns messages', () => {
    const h = harness();
    h.send(initMessage([wire(1), wire(5, { gapBefore: 3 }), wire(9, { gapBefore: 0 })]));
    const gaps = Array.from(h.doc.body.querySelectorAll('.log > .notice-gap'));
    assert.equal(gaps.length, 2);
    assert.equal(gaps[0].textContent, '«gapMessages» 3');
    assert.equal(gaps[1].textContent, strings.gapUnknown);
    const next = (el: DomEl) => h.doc.body.querySelector(`.log > .notice-gap + article[data-key="${el === gaps[0] ? 'id:5' : 'id:9'}"]`);
    assert.ok(next(gaps[0]) && next(gaps[1]), 'each right above the message after the gap');
    // A gap that comes with an update is drawn too.
    h.send(update({ messages: [wire(20, { gapBefore: 10 })] }));
    assert.equal(h.doc.body.querySelectorAll('.log > .notice-gap').length, 3);
  });

  it('locks the composer while the extension sends, and offers Resend or Edit when unsure', () => {
    const h = harness();
    h.send(initMessage(range(1, 3), { send: { state: 'sending', prompt: 'Fix the tests', since: T0 } }));
    const ta = h.q('textarea');
    const button = h.q('button[type="submit"]');
    assert.equal(ta.value, 'Fix the tests');
    assert.ok(ta.hasAttribute('readonly'));
    assert.ok(button.disabled);
    assert.equal(button.textContent, strings.sending);
    h.posted.length = 0;
    h.key(ta, 'Enter', { ctrlKey: true });
    h.q('form.composer').dispatchEvent(new h.win.Event('submit', { bubbles: true, cancelable: true }));
    assert.equal(h.posted.filter((m) => m.type === 'sendFollowUp').length, 0, 'no second send');

    h.send({ type: 'sendState', send: { state: 'uncertain', prompt: 'Fix the tests', since: T0 } });
    const notice = h.q('.notice-uncertain');
    assert.ok(!notice.hasAttribute('hidden'));
    assert.ok(notice.textContent?.includes(strings.sendUncertain));
    assert.ok(button.disabled);
    assert.equal(button.textContent, strings.send);
    h.click(h.q('[data-ui="resend"]'));
    h.click(h.q('[data-ui="edit-follow-up"]'));
    assert.deepEqual(h.posted, [{ type: 'resendFollowUp' }, { type: 'discardFollowUp' }]);

    h.send({ type: 'sendState' });
    assert.ok(notice.hasAttribute('hidden'));
    assert.ok(!ta.hasAttribute('readonly'));
    assert.ok(!button.disabled);

    // Between the click and the extension's first word, the page itself holds a second send back.
    h.posted.length = 0;
    // linkedom has no select.value; a browser does.
    Object.defineProperty(h.q('select'), 'value', { value: '', writable: true, configurable: true });
    h.type('Another one');
    h.key(ta, 'Enter', { ctrlKey: true });
    h.click(button);
    h.key(ta, 'Enter', { ctrlKey: true });
    assert.equal(h.posted.filter((m) => m.type === 'sendFollowUp').length, 1);
    h.send({ type: 'sendState', send: { state: 'sending', prompt: 'Another one', since: T0 } });
    h.send({ type: 'sendState' });
    h.send({ type: 'followUpResult', requestId: 1, ok: true });
    assert.equal(ta.value, '', 'sent: cleared');
    assert.ok(!button.disabled);
  });

  // Issue 20 §1: a code review's conversation takes no follow-ups; the extension says so in the
  // header (run/common/ledger/runState.ts conversationOf), and the page offers no box to write one in.
  it('a code review: labelled, a line instead of the composer, nothing can be sent; the draft stays', () => {
    const h = harness();
    const header = { agentId: 'agent-1', status: 'completed', kind: 'code_review', reviewId: 'rev_1', appId: 'my-app', codeReview: true as const, noFollowUps: true as const };
    h.send(initMessage(range(1, 3), { header, draft: 'Typed before it was known' }));
    assert.ok(!h.q('.kind-badge').hasAttribute('hidden'));
    assert.equal(h.q('.kind-badge').textContent, strings.kindCodeReview);
    const line = h.q('[data-ui="no-follow-ups"]');
    assert.ok(!line.hasAttribute('hidden'));
    assert.equal(line.textContent, strings.noFollowUps);
    assert.ok(h.q('form.composer').hasAttribute('hidden'), 'no box to write a follow-up in');
    const ta = h.q('textarea');
    assert.equal(ta.value, 'Typed before it was known', 'the draft is kept');
    h.posted.length = 0;
    h.key(ta, 'Enter', { ctrlKey: true });
    h.q('form.composer').dispatchEvent(new h.win.Event('submit', { bubbles: true, cancelable: true }));
    assert.equal(h.posted.filter((m) => m.type === 'sendFollowUp').length, 0, 'nothing sent');
    assert.ok(h.q('[data-ui="clone"]').hasAttribute('hidden'), 'a review is started as a review: no Clone Run');

    // Issue 33 §8: once the review is read, the badge says the review's status (as the tab
    // does, panel/common/tabTitle.ts), and the conversation's own status moves to the details.
    assert.equal(h.q('.status-badge').textContent, strings.statusCompleted);
    assert.ok(h.q('.fact-conversation').hasAttribute('hidden'));
    const review = { reviewId: 'rev_1', status: 'open', changes: [], comments: [], tests: [], thread: [], counts: { changes: 0, comments: 0, tests: 0, thread: 0 } };
    h.send({ type: 'review', review });
    assert.equal(h.q('.status-badge').textContent, 'open');
    assert.match(h.q('.status-badge').className, /status-review/);
    assert.equal(h.q('.fact-conversation dd').textContent, strings.statusCompleted);
    assert.ok(!h.q('.fact-conversation').hasAttribute('hidden'));
    h.send(update({ header: { ...header, status: 'error' } }));
    assert.equal(h.q('.status-badge').textContent, strings.statusError, 'a failed conversation is what the badge says');
    h.send(update({ header }));

    // A run that does take follow-ups (the header without the flags): the box is back.
    const { codeReview: _c, noFollowUps: _n, kind: _k, reviewId: _r, ...agentHeader } = header;
    h.send(update({ header: agentHeader }));
    assert.ok(h.q('.kind-badge').hasAttribute('hidden'));
    assert.ok(h.q('[data-ui="no-follow-ups"]').hasAttribute('hidden'));
    assert.ok(!h.q('form.composer').hasAttribute('hidden'));
    assert.ok(!h.q('button[type="submit"]').disabled);
    assert.ok(!h.q('[data-ui="clone"]').hasAttribute('hidden'));
  });

  it('a send settled by the run\'s history leaves the composer empty; one that failed gives the text back', () => {
    const h = harness();
    h.send(initMessage(range(1, 3)));
    const ta = h.q('textarea');
    // linkedom has no select.value; a browser does.
    Object.defineProperty(h.q('select'), 'value', { value: '', writable: true, configurable: true });
    h.type('Fix the tests');
    h.key(ta, 'Enter', { ctrlKey: true });
    h.send({ type: 'sendState', send: { state: 'sending', prompt: 'Fix the tests', since: T0 } });
    h.send({ type: 'sendState', send: { state: 'uncertain', prompt: 'Fix the tests', since: T0 } });
    assert.equal(ta.value, 'Fix the tests');
    // The history showed it: sent, so it leaves the composer (not put back as a draft).
    h.send({ type: 'sendState' });
    assert.equal(ta.value, '');
    assert.ok(!ta.hasAttribute('readonly'));

    // A send the service refused: the text comes back, whichever of the two answers comes first.
    for (const resultFirst of [false, true]) {
      h.type('Refused one');
      h.key(ta, 'Enter', { ctrlKey: true });
      const id = (h.posted.filter((m) => m.type === 'sendFollowUp').pop() as { requestId: number }).requestId;
      h.send({ type: 'sendState', send: { state: 'sending', prompt: 'Refused one', since: T0 } });
      const result = { type: 'followUpResult', requestId: id, ok: false, error: 'Not allowed (403).' } as const;
      if (resultFirst) h.send(result);
      h.send({ type: 'sendState' });
      if (!resultFirst) h.send(result);
      assert.equal(ta.value, 'Refused one', `the text is back (${resultFirst ? 'result' : 'lock'} first)`);
      ta.value = '';
    }
  });

  it('comes back after a reload to the message being read, with its open tool call and the filters', () => {
    const h = harness();
    const messages = range(1, 2_001).map((m) => (m.sequence === 1_500 ? { ...m, toolName: 'shell', toolParameters: foldedParams(1) } : m));
    h.send(initMessage(messages));
    let y = 0;
    Object.assign(h.viewport, {
      offsetWithin: () => y,
      scrollWithin: (_el: unknown, v: number) => {
        y = v;
        h.viewport.scrolledTo = v;
      },
    });
    h.viewport.atBottom = false;
    y = 66 * 1_499 + 12;
    h.app.onScroll();
    const row = h.articles().find((a) => a.getAttribute('data-key') === 'id:1500');
    assert.ok(row);
    row.querySelector('details')!.setAttribute('open', '');
    // Away and back: the row is unmounted and mounted again, still open.
    y = 0;
    h.app.onScroll();
    assert.ok(!h.keys().includes('id:1500'));
    y = 66 * 1_499 + 12;
    h.app.onScroll();
    const back = h.articles().find((a) => a.getAttribute('data-key') === 'id:1500');
    assert.notEqual(back, row);
    assert.ok(back?.querySelector('details')?.hasAttribute('open'), 'open again after coming back into view');
    h.click(h.q('[data-filter="agent"]'));
    h.click(h.q('[data-filter="prompts"]'));
    h.app.flushDraft();
    const saved = h.state() as { view?: { key: string; offset: number }; open?: unknown; filters?: unknown };
    assert.deepEqual(saved.open, [['id:1500', [0]]]);
    assert.deepEqual(saved.filters, ['agent', 'prompts']);
    assert.ok(saved.view, 'a reading position');

    const reloaded = harness(saved);
    reloaded.send(initMessage(messages));
    assert.equal(reloaded.viewport.toBottom, 0, 'not at the end');
    assert.equal(reloaded.q('[data-filter="agent"]').getAttribute('aria-pressed'), 'true');
    const again = reloaded.articles().find((a) => a.getAttribute('data-key') === saved.view!.key);
    assert.ok(again, 'the message being read is mounted');
    assert.ok(reloaded.articles().find((a) => a.getAttribute('data-key') === 'id:1500')?.querySelector('details')?.hasAttribute('open'));
    // Another run's state is not applied.
    const other = harness({ ...saved, agentId: 'agent-2' });
    other.send(initMessage(messages));
    assert.equal(other.viewport.toBottom, 1);
  });
});

/** Every shown row's key in order, read by scrolling the whole history through the window. */
function readAll(h: Harness): string[] {
  let y = 0;
  Object.assign(h.viewport, { offsetWithin: () => y });
  h.viewport.atBottom = false;
  const seen: string[] = [];
  for (;;) {
    h.app.onScroll();
    const arts = h.articles();
    for (const a of arts) {
      const k = a.getAttribute('data-key') ?? '';
      if (!seen.includes(k)) {
        seen.push(k);
      }
    }
    const last = arts[arts.length - 1];
    if (!last || last.getAttribute('aria-posinset') === last.getAttribute('aria-setsize')) {
      return seen;
    }
    y += 400;
  }
}

describe('webview app: updates to rows that are not mounted', () => {
  before(loadBundle);
  after(removeBundle);

  it('keeps order when messages change, arrive or go outside the window', function () {
    this.timeout(60_000);
    const h = harness();
    h.send(initMessage(range(10, 1_010)));
    assert.ok(!h.keys().includes('id:20'), 'id:20 is not mounted');
    h.send(
      update({
        messages: [{ ...wire(20), content: 'changed before it was drawn' }, wire(5), wire(1_500), { ...wire(15), sequence: 2_000 }],
        removedKeys: ['id:30'],
      }),
    );
    const expected = [5, ...Array.from({ length: 1_000 }, (_, i) => i + 10).filter((n) => n !== 30 && n !== 15), 1_500, 15].map((n) => `id:${n}`);
    assert.deepEqual(readAll(h), expected);
    const changed = h.articles().find((a) => a.getAttribute('data-key') === 'id:20');
    assert.equal(changed, undefined, 'scrolled past by now');
  });
});
