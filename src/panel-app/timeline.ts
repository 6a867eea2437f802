/**
 * The history timeline: one `<article>` per message, keyed by the transcript key, kept in
 * transcript order. `init` renders the newest messages at once and the older ones in
 * background chunks (prepended, so what the user looks at does not move); `apply` inserts or
 * replaces only the affected articles. Nothing else in the log is touched by an update, so
 * scroll position, text selection and expanded tool calls elsewhere survive.
 */
import type { WireMessage } from '../core/panel/protocol';
import { compareOrder } from '../core/transcript/order';
import { domKey, formatRelativeTime, keyFromDom, renderMessage, type RenderOptions } from '../core/panel/render';
import { h } from './dom';
import type { Sanitizer } from './sanitize';

export interface Viewport {
  /** True when the end of the log is in view (within a small tolerance), or about to be scrolled there. */
  isAtBottom(): boolean;
  /** Brings the end into view; may do it in the next frame (no layout is forced now). */
  scrollToBottom(): void;
  scrollIntoView(el: Element): void;
  /** Height of the visible area in CSS pixels, when known (decides how much `init` renders at once). */
  height?(): number;
}

export interface TimelineDeps {
  doc: Document;
  container: HTMLElement;
  sanitize: Sanitizer;
  renderOptions: () => RenderOptions;
  /** Runs `fn` soon, after the browser had a chance to paint (when it is idle). */
  schedule: (fn: () => void) => void;
  /** A millisecond clock for slicing background work. */
  clock: () => number;
  viewport: Viewport;
  dividerLabel: () => string;
  log: (msg: string) => void;
}

interface Item {
  msg: WireMessage;
  el?: HTMLElement;
}

/**
 * Newest messages rendered synchronously by `init` when the viewport's height is unknown, and
 * the most it renders otherwise. Each costs Markdown rendering and sanitizing before the first
 * paint, so with a known height only about a screenful is rendered (see `initialCount`).
 */
export const INITIAL_CHUNK = 60;
/** The fewest `init` renders at once. */
const MIN_INITIAL = 12;
/** The smallest height of a message on screen (one line of text): enough of them fill the viewport. */
const MIN_MESSAGE_PX = 40;
/** Older messages rendered per background slice step. */
export const BACKGROUND_CHUNK = 50;
/** A background slice renders steps until this much time has passed, then lets the browser paint. */
const SLICE_BUDGET_MS = 24;
/** When the first unseen message is further back, at most this many render synchronously. */
const MAX_INITIAL = 1_000;

const FOCUSABLE = 'button, summary, [tabindex]';

export interface ApplyResult {
  added: number;
  changed: number;
  removed: number;
}

export class Timeline {
  private items: Item[] = [];
  private readonly byKey = new Map<string, Item>();
  /** Items at this index and after have elements; older ones are still to be rendered. */
  private renderedFrom = 0;
  private generation = 0;
  private firstUnseenKey: string | undefined;
  private divider: HTMLElement | undefined;

  constructor(private readonly deps: TimelineDeps) {}

  get size(): number {
    return this.items.length;
  }

  /** Number of messages not yet rendered (background rendering still going). */
  get pending(): number {
    return this.renderedFrom;
  }

  get(key: string): WireMessage | undefined {
    return this.byKey.get(key)?.msg;
  }

  element(key: string): HTMLElement | undefined {
    return this.byKey.get(key)?.el;
  }

  keys(): string[] {
    return this.items.map((i) => i.msg.key);
  }

  /** Stops background rendering (a new init replaces this timeline). */
  dispose(): void {
    this.generation++;
  }

  init(messages: readonly WireMessage[], firstUnseenKey?: string): void {
    this.generation++;
    const { container } = this.deps;
    while (container.firstChild) {
      container.removeChild(container.firstChild);
    }
    this.byKey.clear();
    this.divider = undefined;
    this.items = [];
    for (const msg of messages) {
      const existing = this.byKey.get(msg.key);
      if (existing) {
        existing.msg = msg;
        continue;
      }
      const item: Item = { msg };
      this.byKey.set(msg.key, item);
      this.items.push(item);
    }
    this.items.sort((a, b) => compareOrder(a.msg, b.msg));
    this.firstUnseenKey = firstUnseenKey !== undefined && this.byKey.has(firstUnseenKey) ? firstUnseenKey : undefined;

    let first = Math.max(0, this.items.length - this.initialCount());
    if (this.firstUnseenKey !== undefined) {
      const idx = this.items.findIndex((i) => i.msg.key === this.firstUnseenKey);
      first = Math.max(0, Math.min(first, idx - 5, this.items.length - MAX_INITIAL));
    }
    this.renderedFrom = this.items.length;
    this.renderRange(first, this.items.length);
    this.renderedFrom = first;
    if (this.divider) {
      this.deps.viewport.scrollIntoView(this.divider);
    } else {
      this.deps.viewport.scrollToBottom();
    }
    this.scheduleBackground();
  }

  /** Enough of the newest messages to fill the viewport (the rest follow in the background). */
  private initialCount(): number {
    const height = this.deps.viewport.height?.();
    if (height === undefined || !Number.isFinite(height) || height <= 0) {
      return INITIAL_CHUNK;
    }
    return Math.min(INITIAL_CHUNK, Math.max(MIN_INITIAL, Math.ceil(height / MIN_MESSAGE_PX)));
  }

  private scheduleBackground(): void {
    if (this.renderedFrom <= 0) {
      return;
    }
    const gen = this.generation;
    this.deps.schedule(() => {
      if (gen !== this.generation || this.renderedFrom <= 0) {
        return;
      }
      const atBottom = this.deps.viewport.isAtBottom();
      const started = this.deps.clock();
      do {
        const from = Math.max(0, this.renderedFrom - BACKGROUND_CHUNK);
        this.renderRange(from, this.renderedFrom);
        this.renderedFrom = from;
      } while (this.renderedFrom > 0 && this.deps.clock() - started < SLICE_BUDGET_MS);
      // Scroll anchoring keeps the view still in Chromium; this covers the case where the
      // anchor was the end of the log itself.
      if (atBottom && !this.divider) {
        this.deps.viewport.scrollToBottom();
      }
      this.scheduleBackground();
    });
  }

  /** Renders items[from, to) (none rendered yet) and inserts them before the next rendered one. */
  private renderRange(from: number, to: number): void {
    if (to <= from) {
      return;
    }
    const opts = this.deps.renderOptions();
    const slice = this.items.slice(from, to);
    const html = slice.map((i) => renderMessage(i.msg, opts)).join('');
    const frag = this.deps.sanitize(html);
    for (const el of Array.from(frag.children) as HTMLElement[]) {
      const attr = el.getAttribute('data-key');
      const key = attr !== null ? keyFromDom(attr) : undefined;
      const item = key !== undefined ? this.byKey.get(key) : undefined;
      if (!item || item.el) {
        el.remove();
        continue;
      }
      item.el = el;
      if (key === this.firstUnseenKey && !this.divider) {
        this.divider = h(this.deps.doc, 'div', { class: 'divider-new', role: 'separator' }, this.deps.dividerLabel());
        frag.insertBefore(this.divider, el);
      }
    }
    for (const item of slice) {
      if (!item.el) {
        this.deps.log(`message ${item.msg.key.slice(0, 80)} did not survive sanitizing`);
      }
    }
    this.deps.container.insertBefore(frag, this.nextRenderedElement(to));
  }

  private nextRenderedElement(index: number): Node | null {
    for (let i = index; i < this.items.length; i++) {
      const el = this.items[i].el;
      if (el) {
        return el === this.firstElementAfterDivider() ? (this.divider ?? el) : el;
      }
    }
    return null;
  }

  private firstElementAfterDivider(): HTMLElement | undefined {
    return this.firstUnseenKey !== undefined && this.divider ? this.byKey.get(this.firstUnseenKey)?.el : undefined;
  }

  /** Inserts new and replaces changed messages, removes evicted ones. Touches nothing else. */
  apply(messages: readonly WireMessage[], removedKeys: readonly string[] = []): ApplyResult {
    let added = 0;
    let changed = 0;
    let removed = 0;
    for (const key of removedKeys) {
      const item = this.byKey.get(key);
      if (!item) {
        continue;
      }
      const idx = this.items.indexOf(item);
      this.items.splice(idx, 1);
      this.byKey.delete(key);
      if (idx < this.renderedFrom) {
        this.renderedFrom--;
      }
      if (key === this.firstUnseenKey) {
        this.divider?.remove();
        this.divider = undefined;
        this.firstUnseenKey = undefined;
      }
      item.el?.remove();
      removed++;
    }
    for (const msg of messages) {
      const existing = this.byKey.get(msg.key);
      if (existing) {
        changed++;
        const moved = compareOrder(existing.msg, msg) !== 0;
        existing.msg = msg;
        if (moved) {
          this.reposition(existing);
        } else if (existing.el) {
          this.replaceElement(existing);
        }
        continue;
      }
      added++;
      const item: Item = { msg };
      this.byKey.set(msg.key, item);
      this.insertItem(item);
    }
    return { added, changed, removed };
  }

  private indexFor(msg: WireMessage): number {
    const items = this.items;
    const last = items[items.length - 1];
    if (!last || compareOrder(last.msg, msg) <= 0) {
      return items.length;
    }
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareOrder(items[mid].msg, msg) <= 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private insertItem(item: Item): void {
    const idx = this.indexFor(item.msg);
    this.items.splice(idx, 0, item);
    if (idx < this.renderedFrom) {
      // Falls in the part the background renderer has not reached: it will render it.
      this.renderedFrom++;
      return;
    }
    this.renderRange(idx, idx + 1);
  }

  private reposition(item: Item): void {
    const idx = this.items.indexOf(item);
    this.items.splice(idx, 1);
    if (idx < this.renderedFrom) {
      this.renderedFrom--;
    }
    const old = item.el;
    item.el = undefined;
    this.insertItem(item);
    if (old) {
      if (item.el) {
        carryOverState(old, item.el);
      }
      old.remove();
    }
  }

  private replaceElement(item: Item): void {
    const old = item.el!;
    const frag = this.deps.sanitize(renderMessage(item.msg, this.deps.renderOptions()));
    const el = frag.firstElementChild as HTMLElement | null;
    if (!el || el.getAttribute('data-key') !== domKey(item.msg.key)) {
      this.deps.log(`message ${item.msg.key.slice(0, 80)} did not survive sanitizing`);
      return;
    }
    carryOverState(old, el);
    const hadFocus = focusPath(old);
    old.replaceWith(el);
    item.el = el;
    if (hadFocus !== undefined) {
      const target = el.querySelectorAll<HTMLElement>(FOCUSABLE)[hadFocus];
      target?.focus();
    }
  }

  /** Updates relative time labels; only text nodes that differ are written. */
  refreshTimes(now: number, locale: string): void {
    const times = this.deps.container.querySelectorAll('time[data-ts]');
    for (const t of Array.from(times)) {
      const ts = Number(t.getAttribute('data-ts'));
      if (Number.isFinite(ts)) {
        const label = formatRelativeTime(ts, now, locale);
        if (t.textContent !== label) {
          t.textContent = label;
        }
      }
    }
  }
}

/** Keeps which tool calls were expanded when a message's element is re-rendered. */
function carryOverState(from: Element, to: Element): void {
  const before = from.querySelectorAll('details');
  const after = to.querySelectorAll('details');
  before.forEach((d, i) => {
    const n = after[i];
    if (n && d.hasAttribute('open')) {
      n.setAttribute('open', '');
    }
  });
}

function focusPath(el: Element): number | undefined {
  const active = el.ownerDocument?.activeElement;
  if (!active || !el.contains(active)) {
    return undefined;
  }
  const list = Array.from(el.querySelectorAll(FOCUSABLE));
  const i = list.indexOf(active);
  return i >= 0 ? i : undefined;
}
