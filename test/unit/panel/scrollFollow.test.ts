/**
 * What a scroll mounts and when (src/panel/page/scrollFollow.ts), on the real History over a
 * linkedom document: a jump's frame mounts only the view, and the rows around it come in idle
 * slices of one step (`OVERSCAN_STEP_PX` above and below) each when a step takes the slice's
 * time, so no frame or idle task renders a whole overscan at once. Rows are estimated at 66 px
 * here (no layout), so a step of 100 px each side is at most 2 + 2 rows.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { STRING_KEYS, type WebviewStrings, type WireMessage } from '../../../src/panel/common/protocol';

interface DomEl {
  getAttribute(name: string): string | null;
  querySelectorAll(sel: string): ArrayLike<DomEl>;
  appendChild(n: DomEl): DomEl;
}
interface DomDocument {
  body: DomEl;
  createElement(tag: string): DomEl;
}
interface HistoryInstance {
  init(messages: readonly WireMessage[], firstUnseenKey: string | undefined, open: ReadonlyMap<string, number[]>): void;
  scrollTo(y: number): void;
}
interface FollowerInstance {
  onScroll(): void;
  readonly filling: boolean;
}
interface Bundle {
  History: new (deps: unknown) => HistoryInstance;
  ScrollFollower: new (history: HistoryInstance, deps: unknown) => FollowerInstance;
  createAllowListSanitizer(doc: DomDocument): unknown;
  FILL_SLICE_MS: number;
  OVERSCAN_STEP_PX: number;
  OVERSCAN_PX: number;
  JUMP_OVERSCAN_PX: number;
}

let bundle: Bundle;
let parseHTML: (html: string) => { document: DomDocument };
let tmp: string | undefined;

const ROW_PX = 66; // estimateHeight of a one-line message
const VIEW_PX = 800; // the history's default viewport height without layout
const strings = Object.fromEntries(STRING_KEYS.map((k) => [k, `«${k}» {0}`])) as WebviewStrings;

function wire(i: number): WireMessage {
  return { key: `id:${i}`, arrival: i, id: String(i), sequence: i, role: i % 2 === 0 ? 'user' : 'assistant', content: `message **${i}**`, createdAt: 1_700_000_000_000 + i };
}

interface Page {
  follower: FollowerInstance;
  /** The viewport's top within the log. */
  y: number;
  /** Idle callbacks not run yet, oldest first. */
  idle: (() => void)[];
  /** Milliseconds the clock moves on each read (the time a step seems to take). */
  tick: number;
  current: boolean;
  /** The indices of the mounted rows. */
  mounted(): number[];
  /** Runs the oldest idle callback; returns how many rows it mounted. */
  runIdle(): number;
}

function page(count: number): Page {
  const { document: doc } = parseHTML('<!doctype html><html><body></body></html>');
  const container = doc.createElement('div');
  doc.body.appendChild(container);
  let now = 0;
  const p: Page = {
    follower: undefined as unknown as FollowerInstance,
    y: 0,
    idle: [],
    tick: 0,
    current: true,
    mounted: () => Array.from(container.querySelectorAll('article')).map((a) => Number((a.getAttribute('data-key') ?? '').slice(3))),
    runIdle() {
      const before = new Set(p.mounted());
      const fn = p.idle.shift();
      assert.ok(fn, 'an idle callback is waiting');
      fn();
      return p.mounted().filter((i) => !before.has(i)).length;
    },
  };
  const history = new bundle.History({
    doc,
    container,
    sanitize: bundle.createAllowListSanitizer(doc),
    renderOptions: () => ({ strings, locale: 'en', now: 1_700_000_100_000 }),
    strings: () => strings,
    viewport: {
      isAtBottom: () => false,
      scrollToBottom: () => undefined,
      scrollIntoView: () => undefined,
      offsetWithin: () => p.y,
      scrollWithin: (_el: unknown, y: number) => {
        p.y = y;
      },
    },
    decorate: () => undefined,
    log: () => undefined,
  });
  history.init(Array.from({ length: count }, (_, i) => wire(i)), undefined, new Map());
  history.scrollTo(0);
  p.follower = new bundle.ScrollFollower(history, {
    whenIdle: (fn: () => void) => p.idle.push(fn),
    current: () => p.current,
    clock: () => (now += p.tick),
  });
  return p;
}

/** The rows a range of the log holds, the one at its top included. */
function rowsIn(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = Math.floor(Math.max(0, from) / ROW_PX); i <= Math.floor(to / ROW_PX); i++) {
    out.push(i);
  }
  return out;
}

/** Runs the idle callbacks until none is left; the rows each mounted. */
function drain(p: Page): number[] {
  const added: number[] = [];
  while (p.idle.length > 0) {
    added.push(p.runIdle());
  }
  return added;
}

describe('webview: scrolling mounts the view in its frame and the rows around it when idle', () => {
  before(async function () {
    this.timeout(30_000);
    const result = await esbuild.build({
      stdin: {
        contents: [
          "export { History, JUMP_OVERSCAN_PX, OVERSCAN_PX } from './src/panel/page/history';",
          "export { ScrollFollower, FILL_SLICE_MS, OVERSCAN_STEP_PX } from './src/panel/page/scrollFollow';",
          "export { createAllowListSanitizer } from './src/panel/page/sanitize';",
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
    tmp = mkdtempSync(join(tmpdir(), 'agent-runs-scroll-'));
    const file = join(tmp, 'scroll.cjs');
    writeFileSync(file, result.outputFiles[0].text);
    bundle = createRequire(__filename)(file) as Bundle;
    parseHTML = (await import('linkedom')).parseHTML as unknown as typeof parseHTML;
  });
  after(() => {
    if (tmp) {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  /** At most this many rows per step: 100 px above and below, 66 px rows. */
  const perStep = () => 2 * Math.ceil(bundle.OVERSCAN_STEP_PX / ROW_PX);

  it('a jump mounts the view in its frame, then one step per slow idle slice up to the whole overscan', () => {
    const p = page(5_000);
    p.tick = bundle.FILL_SLICE_MS; // every step takes a whole slice
    p.y = ROW_PX * 2_500;
    p.follower.onScroll();
    const jumpPx = bundle.JUMP_OVERSCAN_PX;
    assert.deepEqual(p.mounted(), rowsIn(p.y - jumpPx, p.y + VIEW_PX + jumpPx), 'the frame mounts the view and a little more');
    const added = drain(p);
    const steps = (bundle.OVERSCAN_PX - jumpPx) / bundle.OVERSCAN_STEP_PX;
    assert.equal(added.length, steps, `one idle slice per step: ${added.join(', ')}`);
    assert.ok(added.every((n) => n > 0 && n <= perStep()), `rows mounted by each idle slice: ${added.join(', ')}`);
    assert.deepEqual(p.mounted(), rowsIn(p.y - bundle.OVERSCAN_PX, p.y + VIEW_PX + bundle.OVERSCAN_PX), 'the whole overscan in the end');
    assert.equal(p.follower.filling, false);
  });

  it('on a fast machine one idle slice takes every step', () => {
    const p = page(5_000);
    p.tick = 0;
    p.y = ROW_PX * 1_000;
    p.follower.onScroll();
    assert.deepEqual(drain(p).length, 1);
    assert.deepEqual(p.mounted(), rowsIn(p.y - bundle.OVERSCAN_PX, p.y + VIEW_PX + bundle.OVERSCAN_PX));
  });

  it('a scroll that stays on the mounted rows mounts nothing in its frame: the fill takes it from the first step', () => {
    const p = page(5_000);
    p.tick = bundle.FILL_SLICE_MS;
    p.y = ROW_PX * 3_000;
    p.follower.onScroll();
    const atJump = p.mounted();
    p.y += 50; // the view is still covered, with less than half the overscan below it
    p.follower.onScroll();
    assert.deepEqual(p.mounted(), atJump, 'nothing rendered in the scroll\'s frame');
    const added = drain(p);
    assert.ok(added.every((n) => n <= perStep()), `rows mounted by each idle slice: ${added.join(', ')}`);
    assert.deepEqual(p.mounted(), rowsIn(p.y - bundle.OVERSCAN_PX, p.y + VIEW_PX + bundle.OVERSCAN_PX));
  });

  it('a jump during a fill: the waiting slice leaves the new place to the jump\'s frame, and the fill starts over there', () => {
    const p = page(5_000);
    p.tick = bundle.FILL_SLICE_MS;
    p.y = ROW_PX * 500;
    p.follower.onScroll();
    p.runIdle();
    p.runIdle();
    p.runIdle();
    // Scrolled far away; the slice already queued runs before the scroll's frame.
    p.y = ROW_PX * 4_000;
    assert.equal(p.runIdle(), 0, 'the queued slice renders nothing at the new place');
    assert.equal(p.idle.length, 0, 'and queues nothing: the scroll\'s frame starts the fill again');
    p.follower.onScroll();
    assert.deepEqual(p.mounted(), rowsIn(p.y - bundle.JUMP_OVERSCAN_PX, p.y + VIEW_PX + bundle.JUMP_OVERSCAN_PX));
    const added = drain(p);
    assert.ok(added.every((n) => n > 0 && n <= perStep()), `rows mounted by each idle slice: ${added.join(', ')}`);
    assert.deepEqual(p.mounted(), rowsIn(p.y - bundle.OVERSCAN_PX, p.y + VIEW_PX + bundle.OVERSCAN_PX));
  });

  it('leaves a history alone once it is no longer the page\'s', () => {
    const p = page(5_000);
    p.y = ROW_PX * 2_000;
    p.follower.onScroll();
    const atJump = p.mounted();
    p.current = false;
    assert.deepEqual(drain(p), [0]);
    assert.deepEqual(p.mounted(), atJump);
  });
});
