/**
 * The history as a virtualised list. Every message is kept as data (a `Row`); only the rows near
 * the viewport have elements. Each row has a height: estimated from its text until it has been
 * on screen, then measured. Heights give every row a top (`tops`, prefix sums over the rows the
 * filter shows); spacers above and below the mounted rows stand in for the rest, so the page's
 * scrollbar is the whole history's.
 *
 * Updates keep what the user looks at still: before re-mounting, the row at the viewport's top
 * and the distance into it are noted, and after heights changed the page is scrolled so that
 * point stays put (the browser's own scroll anchoring is off, see panel.css). Mounted rows that
 * stay mounted keep their elements, so a text selection, focus and open tool calls survive; the
 * open tool calls of rows that leave the window are remembered and restored when they return.
 */
import type { WireMessage } from '../core/panel/protocol';
import { compareOrder } from '../core/transcript/order';
import { h } from './dom';
import { estimateHeight, mergeRows, RowIndex, type Row, type Viewport } from './rowIndex';

export type { Row, Viewport } from './rowIndex';
import { RowRenderer, openIndices, placeRows, setFeedPositions, setHeight, type RowRendererDeps } from './rows';

export interface HistoryDeps extends RowRendererDeps {
  container: HTMLElement;
  viewport: Viewport;
  /** Called after rows were mounted (find marks them). */
  decorate: (row: Row) => void;
}

export interface ApplyResult {
  /** New messages after the previous last one. */
  appended: number;
  /** New messages that went somewhere before the end (older history arriving, late ones). */
  inserted: number;
  changed: number;
  removed: number;
}

/** Rows mounted beyond the viewport, above and below (CSS px). */
const OVERSCAN_PX = 800;
/** After a jump, only this much beyond the viewport is mounted in that frame; the rest when idle. */
export const JUMP_OVERSCAN_PX = 100;
/** A move of the row being read smaller than this is left alone (layout works in 1/64 px). */
const ANCHOR_TOLERANCE_PX = 0.01;
/** Viewport height assumed when it is unknown (tests on linkedom). */
const DEFAULT_HEIGHT_PX = 800;

export class History {
  private rows: Row[] = [];
  private readonly byKey = new Map<string, Row>();
  /** The rows the filter shows, with where each starts. */
  private readonly shown = new RowIndex();
  private mounted: Row[] = [];
  private filter: ((m: WireMessage) => boolean) | undefined;
  private readonly spacerTop: HTMLElement;
  private readonly spacerBottom: HTMLElement;
  private readonly renderer: RowRenderer;
  /** The logical scroll position when the viewport cannot say (tests without layout). */
  private fallbackY = 0;
  private firstUnseenKey: string | undefined;
  /** The row being read before `apply`, and how far into it the viewport's top was. */
  private pendingAnchor: { row: Row; delta: number } | undefined;
  /** Rows mounted beyond the viewport by the render under way (less right after a jump). */
  private overscan = OVERSCAN_PX;

  constructor(private readonly deps: HistoryDeps) {
    const doc = deps.doc;
    this.spacerTop = h(doc, 'div', { class: 'log-spacer', 'aria-hidden': 'true' });
    this.spacerBottom = h(doc, 'div', { class: 'log-spacer', 'aria-hidden': 'true' });
    deps.container.append(this.spacerTop, this.spacerBottom);
    this.renderer = new RowRenderer(deps);
  }

  get shownCount(): number {
    return this.shown.length;
  }

  get(key: string): WireMessage | undefined {
    return this.byKey.get(key)?.msg;
  }

  row(key: string): Row | undefined {
    return this.byKey.get(key);
  }

  /** The rows the filter shows, in order (read-only use). */
  shownRows(): readonly Row[] {
    return this.shown.all();
  }

  /** Every row, shown or not, in order. */
  allRows(): readonly Row[] {
    return this.rows;
  }

  mountedRows(): readonly Row[] {
    return this.mounted;
  }

  /** Replaces everything: a new `init`. */
  init(messages: readonly WireMessage[], firstUnseenKey: string | undefined, open: ReadonlyMap<string, number[]>): void {
    for (const r of this.mounted) {
      this.unmountRow(r);
    }
    this.mounted = [];
    this.byKey.clear();
    this.rows = [];
    for (const msg of messages) {
      const existing = this.byKey.get(msg.key);
      if (existing) {
        existing.msg = msg;
        existing.est = estimateHeight(msg);
        continue;
      }
      const row = this.newRow(msg);
      row.open = open.get(msg.key);
      this.rows.push(row);
    }
    this.rows.sort((a, b) => compareOrder(a.msg, b.msg));
    this.firstUnseenKey = firstUnseenKey !== undefined && this.byKey.has(firstUnseenKey) ? firstUnseenKey : undefined;
    this.rebuildShown();
  }

  setFilter(filter: ((m: WireMessage) => boolean) | undefined): void {
    this.filter = filter;
    this.rebuildShown();
  }

  private newRow(msg: WireMessage): Row {
    const row: Row = { msg, est: estimateHeight(msg), index: -1, lead: [] };
    this.byKey.set(msg.key, row);
    return row;
  }

  private rebuildShown(): void {
    const f = this.filter;
    this.shown.set(f ? this.rows.filter((r) => f(r.msg)) : this.rows.slice());
  }

  /** Where a shown row starts, in CSS px from the top of the log. */
  topOfRow(row: Row): number | undefined {
    return this.shown.topOf(row);
  }

  /** The index of the shown row at `y`. */
  indexAt(y: number): number {
    return this.shown.indexAt(y);
  }

  /** The viewport's top within the log (CSS px). */
  scrollY(): number {
    return this.deps.viewport.offsetWithin?.(this.deps.container) ?? this.fallbackY;
  }

  private viewHeight(): number {
    const v = this.deps.viewport.height?.();
    return v !== undefined && Number.isFinite(v) && v > 0 ? v : DEFAULT_HEIGHT_PX;
  }

  /** Scrolls so the viewport's top is `y` px into the log, then mounts what is there. */
  scrollTo(y: number): void {
    const target = Math.max(0, y);
    this.fallbackY = target;
    this.deps.viewport.scrollWithin?.(this.deps.container, target);
    this.render({ keepAnchor: true, y: target });
  }

  /**
   * After an update that left the window's rows in place (nothing inserted above, nothing
   * removed) while the viewport is still covered: measured again and the spacers set, but no
   * rows mounted above the view (their estimated heights would nudge what is being read).
   */
  refresh(): boolean {
    // Without the browser's anchoring, `render` is what keeps the row being read still.
    // Only the viewport itself must be covered: the overscan above fills in on the next scroll.
    if (!this.deps.viewport.anchorsItself || !this.covers(this.scrollY(), 0)) {
      return false;
    }
    this.pendingAnchor = undefined;
    this.overscan = OVERSCAN_PX;
    this.shown.all();
    // New rows below the view are mounted (nothing above it moves for them).
    this.mountRange(this.scrollY(), true);
    this.measure();
    return true;
  }

  /** Where a mounted row is in the page now (layout, not the model), else where the model puts it. */
  placedTop(row: Row): number | undefined {
    const vp = this.deps.viewport;
    return row.el && vp.topOf ? vp.topOf(row.el, this.deps.container) : this.shown.topOf(row);
  }

  /** Mounts the rows at the end (the caller scrolls there). */
  renderTail(): void {
    const y = Math.max(0, this.shown.total - this.viewHeight());
    this.fallbackY = y;
    this.render({ keepAnchor: false, y });
  }

  /**
   * Mounts the rows near the viewport and unmounts the others. With `keepAnchor`, what is at
   * the viewport's top stays there when rows above it changed height or arrived (`apply`).
   */
  render(opts: { keepAnchor: boolean; y?: number; overscan?: number } = { keepAnchor: true }): void {
    this.overscan = opts.overscan ?? OVERSCAN_PX;
    let y = opts.y ?? this.scrollY();
    const pending = this.pendingAnchor;
    this.pendingAnchor = undefined;
    if (this.deps.viewport.anchorsItself) {
      // The browser's scroll anchoring keeps the row being read still (panel.css); correcting
      // here as well would move it twice.
      this.mountRange(y);
      this.measure();
      return;
    }
    let anchor = pending;
    if (opts.keepAnchor && pending) {
      const top = this.shown.topOf(pending.row);
      if (top !== undefined && Math.abs(top + pending.delta - y) > ANCHOR_TOLERANCE_PX) {
        y = this.moveTo(top + pending.delta);
      }
    } else if (opts.keepAnchor) {
      anchor = this.anchorAt(y);
    }
    this.mountRange(y);
    if (this.measure() && opts.keepAnchor && anchor && y > 0) {
      const top = this.shown.topOf(anchor.row);
      if (top !== undefined && Math.abs(top + anchor.delta - y) > ANCHOR_TOLERANCE_PX) {
        y = this.moveTo(top + anchor.delta);
        this.mountRange(y);
        this.measure();
      }
    }
  }

  /**
   * Notes the row being read now, before anything on the page changes (the header above the
   * history may grow): the next `render` brings it back to the same place on screen.
   */
  holdAnchor(): void {
    this.pendingAnchor = this.anchorAt(this.scrollY());
  }

  /** The row at `y` and how far into it `y` is. */
  private anchorAt(y: number): { row: Row; delta: number } | undefined {
    const i = this.indexAt(Math.max(0, y));
    const row = this.shown.at(i);
    return row && y > 0 ? { row, delta: y - this.shown.top(i) } : undefined;
  }

  private moveTo(y: number): number {
    this.fallbackY = y;
    this.deps.viewport.scrollWithin?.(this.deps.container, y);
    return y;
  }

  /** True when the mounted rows cover the viewport plus `margin` above and below it. */
  covers(y: number, margin = OVERSCAN_PX / 2): boolean {
    if (this.mounted.length === 0) {
      return this.shown.length === 0;
    }
    this.shown.all();
    const first = this.mounted[0];
    const last = this.mounted[this.mounted.length - 1];
    const top = this.shown.top(first.index);
    const bottom = this.shown.top(last.index + 1);
    const h = this.viewHeight();
    return (top <= Math.max(0, y - margin) || first.index === 0) && (bottom >= y + h + margin || last.index === this.shown.length - 1);
  }

  /** Mounts the rows around `y`; with `keepFirst`, none above the first mounted one (only below). */
  private mountRange(y: number, keepFirst = false): void {
    const n = this.shown.length;
    const want: Row[] = [];
    if (n > 0) {
      const held = keepFirst ? this.mounted[0]?.index : undefined;
      const first = held ?? Math.max(0, this.indexAt(Math.max(0, y - this.overscan)));
      const last = Math.max(first, this.indexAt(Math.max(0, y + this.viewHeight() + this.overscan)));
      for (let i = first; i <= last; i++) {
        want.push(this.shown.at(i)!);
      }
    }
    const keep = new Set(want);
    for (const r of this.mounted) {
      if (!keep.has(r)) {
        this.unmountRow(r);
      }
    }
    const fresh = want.filter((r) => !r.el);
    this.renderer.render(fresh, this.firstUnseenKey);
    placeRows(this.deps.container, this.spacerTop, this.spacerBottom, want);
    this.mounted = want.filter((r) => r.el);
    for (const r of fresh) {
      if (r.el) {
        this.deps.decorate(r);
      }
    }
    this.setPositions();
  }

  /** Spacer heights and the feed's position attributes of the mounted rows. */
  private setPositions(): void {
    const n = this.shown.length;
    const first = this.mounted[0];
    const last = this.mounted[this.mounted.length - 1];
    const top = first ? this.shown.top(first.index) : 0;
    const bottom = last ? this.shown.top(n) - this.shown.top(last.index + 1) : this.shown.top(n);
    setHeight(this.spacerTop, top);
    setHeight(this.spacerBottom, bottom);
    setFeedPositions(this.mounted, n);
  }

  /** Measures the mounted rows; true when a height changed. */
  private measure(): boolean {
    const vp = this.deps.viewport;
    if (!vp.topOf || this.mounted.length === 0) {
      return false;
    }
    const container = this.deps.container;
    const starts = this.mounted.map((r) => vp.topOf!(r.lead[0] ?? r.el!, container));
    starts.push(vp.topOf(this.spacerBottom, container));
    let changed = false;
    this.mounted.forEach((r, i) => {
      const hgt = Math.max(1, starts[i + 1] - starts[i]);
      if (r.height === undefined || Math.abs(r.height - hgt) > 0.5) {
        r.height = hgt;
        this.shown.invalidateFrom(r.index + 1);
        changed = true;
      }
    });
    if (changed) {
      this.setPositions();
    }
    return changed;
  }

  private unmountRow(r: Row): void {
    if (r.el) {
      r.open = openIndices(r.el);
      r.el.remove();
      r.el = undefined;
    }
    for (const l of r.lead) {
      l.remove();
    }
    r.lead = [];
  }

  /** Forgets measured heights (the theme or the width changed); mounted rows are measured again. */
  remeasure(): void {
    for (const r of this.rows) {
      r.height = undefined;
    }
    this.shown.invalidateFrom(0);
    this.render({ keepAnchor: true });
  }

  /**
   * Inserts new and replaces changed messages, removes evicted ones; re-mounts nothing else.
   * The next `render` keeps the row being read where it is, wherever rows went.
   */
  apply(messages: readonly WireMessage[], removedKeys: readonly string[]): ApplyResult {
    this.pendingAnchor ??= this.anchorAt(this.scrollY());
    const result: ApplyResult = { appended: 0, inserted: 0, changed: 0, removed: 0 };
    const removed = this.remove(removedKeys);
    result.removed = removed.size;
    let moved = false;
    const atEnd: Row[] = [];
    const inserted: Row[] = [];
    let end = this.rows[this.rows.length - 1];
    for (const msg of messages) {
      const existing = this.byKey.get(msg.key);
      if (existing) {
        result.changed++;
        moved ||= compareOrder(existing.msg, msg) !== 0;
        this.change(existing, msg);
        continue;
      }
      const row = this.newRow(msg);
      if (!end || compareOrder(end.msg, msg) <= 0) {
        atEnd.push(row);
        end = row;
      } else {
        inserted.push(row);
      }
    }
    result.appended = atEnd.length;
    result.inserted = inserted.length;
    this.mounted = this.mounted.filter((r) => !removed.has(r) && r.el);
    if (moved || removed.size > 0 || inserted.length > 0) {
      this.rows = mergeRows(this.rows, removed, inserted, atEnd, moved);
      this.rebuildShown();
      return result;
    }
    // The common case, messages at the end: nothing before them moves.
    for (const r of atEnd) {
      this.rows.push(r);
      if (!this.filter || this.filter(r.msg)) {
        this.shown.push(r);
      }
    }
    return result;
  }

  private remove(keys: readonly string[]): Set<Row> {
    const removed = new Set<Row>();
    for (const key of keys) {
      const r = this.byKey.get(key);
      if (r) {
        removed.add(r);
        this.byKey.delete(key);
        this.unmountRow(r);
        if (key === this.firstUnseenKey) {
          this.firstUnseenKey = undefined;
        }
      }
    }
    return removed;
  }

  private change(row: Row, msg: WireMessage): void {
    row.msg = msg;
    row.est = estimateHeight(msg);
    row.height = undefined;
    this.shownRows();
    this.shown.invalidateFrom(row.index);
    this.renderer.replace(row);
    if (row.el) {
      this.deps.decorate(row);
    }
  }

  /** Updates relative time labels of the mounted rows. */
  refreshTimes(now: number, locale: string): void {
    this.renderer.refreshTimes(this.deps.container, now, locale);
  }
}
