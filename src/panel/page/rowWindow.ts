/**
 * The mounted rows of the history, with spacers so the scrollbar is the whole history's. An
 * update keeps the row being read still by hand (browser scroll anchoring is off, see panel.css);
 * rows that stay mounted keep their elements so selection, focus and open tool calls survive.
 */
import { h } from './dom';
import type { Row, RowIndex, Viewport } from './rowIndex';
import { openIndices, placeRows, setFeedPositions, setHeight, type RowRenderer } from './rows';

export interface WindowDeps {
  doc: Document;
  container: HTMLElement;
  viewport: Viewport;
  /** Called after rows were mounted (find marks them). */
  decorate: (row: Row) => void;
}

/** Rows mounted beyond the viewport, above and below (CSS px). */
export const OVERSCAN_PX = 800;
/** After a jump, only this much beyond the viewport is mounted in that frame; the rest when idle (scrollFollow.ts). */
export const JUMP_OVERSCAN_PX = 100;
/** A move of the row being read smaller than this is left alone (layout works in 1/64 px). */
const ANCHOR_TOLERANCE_PX = 0.01;
/** Viewport height assumed when it is unknown (tests on linkedom). */
const DEFAULT_HEIGHT_PX = 800;

export class RowWindow {
  private mounted: Row[] = [];
  private readonly spacerTop: HTMLElement;
  private readonly spacerBottom: HTMLElement;
  /** The logical scroll position when the viewport cannot say (tests without layout). */
  private fallbackY = 0;
  /** The row being read before `History.apply`, and how far into it the viewport's top was. */
  private pendingAnchor: { row: Row; delta: number } | undefined;
  /** Rows mounted beyond the viewport by the render under way (less right after a jump). */
  private overscan = OVERSCAN_PX;

  /**
   * @param shown the rows the filter shows, with where each starts (the history's)
   * @param firstUnseenKey the message the "new since" divider goes above, if any
   */
  constructor(
    private readonly deps: WindowDeps,
    private readonly shown: RowIndex,
    private readonly renderer: RowRenderer,
    private readonly firstUnseenKey: () => string | undefined,
  ) {
    const doc = deps.doc;
    this.spacerTop = h(doc, 'div', { class: 'log-spacer', 'aria-hidden': 'true' });
    this.spacerBottom = h(doc, 'div', { class: 'log-spacer', 'aria-hidden': 'true' });
    deps.container.append(this.spacerTop, this.spacerBottom);
  }

  mountedRows(): readonly Row[] {
    return this.mounted;
  }

  /** Unmounts every row (a new `init`). */
  clear(): void {
    for (const r of this.mounted) {
      this.unmountRow(r);
    }
    this.mounted = [];
  }

  /** Forgets mounted rows that were removed or lost their element (after `History.apply`). */
  dropUnmounted(removed: ReadonlySet<Row>): void {
    this.mounted = this.mounted.filter((r) => !removed.has(r) && r.el);
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
   * Re-measures after an update that left the window's rows in place, mounting nothing above the
   * view: their estimated heights would nudge what is being read.
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
   * the viewport's top stays there when rows above it changed height or arrived (`History.apply`).
   */
  render(opts: { keepAnchor: boolean; y?: number; overscan?: number } = { keepAnchor: true }): void {
    this.overscan = opts.overscan ?? OVERSCAN_PX;
    let y = opts.y ?? this.scrollY();
    const pending = this.pendingAnchor;
    this.pendingAnchor = undefined;
    if (this.deps.viewport.anchorsItself) {
      // Scroll anchoring (panel.css) should keep the row being read still; where Chromium did not
      // (66 px moved as find opened: webview.browser.find.test), it is put back once by layout.
      const held = opts.keepAnchor ? this.onScreen(y) : undefined;
      this.mountRange(y);
      this.measure();
      if (held) {
        this.putBack(held);
      }
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

  /** Like `holdAnchor`, unless a row being read is already noted (`History.apply`). */
  holdAnchorOnce(): void {
    this.pendingAnchor ??= this.anchorAt(this.scrollY());
  }

  /** The mounted row at the viewport's top `y`, and where it is on screen (layout). */
  private onScreen(y: number): { el: HTMLElement; at: number } | undefined {
    const viewport = this.deps.viewport;
    const row = this.shown.at(this.shown.indexAt(Math.max(0, y)));
    const top = row?.el ? viewport.topOf?.(row.el, this.deps.container) : undefined;
    return row?.el && top !== undefined ? { el: row.el, at: top - this.scrollY() } : undefined;
  }

  /** Scrolls by what the row `onScreen` noted moved on screen since, if it is still mounted. */
  private putBack(held: { el: HTMLElement; at: number }): void {
    const top = held.el.isConnected ? this.deps.viewport.topOf?.(held.el, this.deps.container) : undefined;
    if (top === undefined) {
      return;
    }
    const y = this.scrollY();
    const moved = top - y - held.at;
    if (Math.abs(moved) > ANCHOR_TOLERANCE_PX) {
      this.moveTo(y + moved);
    }
  }

  /** The row at `y` and how far into it `y` is. */
  private anchorAt(y: number): { row: Row; delta: number } | undefined {
    const i = this.shown.indexAt(Math.max(0, y));
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
      const first = held ?? Math.max(0, this.shown.indexAt(Math.max(0, y - this.overscan)));
      const last = Math.max(first, this.shown.indexAt(Math.max(0, y + this.viewHeight() + this.overscan)));
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
    this.renderer.render(fresh, this.firstUnseenKey());
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
        this.shown.heightChanged(r.index);
        changed = true;
      }
    });
    if (changed) {
      this.setPositions();
    }
    return changed;
  }

  /** Takes a row's elements out of the page, remembering its open tool calls. */
  unmountRow(r: Row): void {
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
}
