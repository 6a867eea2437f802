/**
 * Where each shown row starts: prefix sums of the rows' heights (measured, else estimated),
 * recomputed lazily from the first row whose height changed. Appending rows only extends it.
 */
import type { WireMessage } from '../common/protocol';
import { compareOrder } from '../../run/common/transcript/order';

export interface Viewport {
  /** True when the end of the log is in view (within a small tolerance), or about to be scrolled there. */
  isAtBottom(): boolean;
  /** Brings the end into view; may do it in the next frame (no layout is forced now). */
  scrollToBottom(): void;
  scrollIntoView(el: Element): void;
  /** Height of the visible area in CSS pixels, when known. */
  height?(): number;
  /** How far the viewport's top is below the top of `el` (negative: `el` starts further down). */
  offsetWithin?(el: Element): number;
  /** Scrolls now so that the viewport's top is `y` px below the top of `el`. */
  scrollWithin?(el: Element, y: number): void;
  /** The distance from the top of `within` to the top of `el`, after layout. */
  topOf?(el: Element, within: Element): number;
  /**
   * True when the browser keeps what is on screen still by itself when content above it
   * changes size (CSS scroll anchoring): the history then does not correct the scroll itself.
   */
  anchorsItself?: boolean;
}

export interface Row {
  msg: WireMessage;
  /** Measured height (CSS px) once the row has been on screen. */
  height?: number;
  est: number;
  /** Index in the shown rows, valid while `History.indexValid`. */
  index: number;
  el?: HTMLElement;
  /** Elements drawn above the message: the "new since" divider, a gap notice. */
  lead: HTMLElement[];
  /** Indices of the open `<details>` (tool calls), kept while the row is not mounted. */
  open?: number[];
}

/** A first guess at a row's height from its text; replaced once measured. */
export function estimateHeight(msg: WireMessage): number {
  const chars = msg.content?.length ?? 0;
  const lines = Math.min(60, Math.ceil(chars / 90) + ((msg.content?.match(/\n/g)?.length ?? 0) >> 1));
  const tool = msg.toolName !== undefined || msg.toolParameters !== undefined ? 30 : 0;
  return 46 + lines * 20 + tool + (msg.gapBefore !== undefined ? 40 : 0);
}


export class RowIndex {
  private rows: Row[] = [];
  /** `tops[i]` is where row i starts; `tops[n]` is the total height. */
  private readonly tops: number[] = [0];
  private validTo = 0;
  private indexValid = true;

  get length(): number {
    return this.rows.length;
  }

  /** The shown rows, in order, each with its `index` up to date. */
  all(): readonly Row[] {
    this.ensureIndex();
    return this.rows;
  }

  at(i: number): Row | undefined {
    return this.rows[i];
  }

  set(rows: Row[]): void {
    this.rows = rows;
    this.indexValid = false;
    this.validTo = 0;
  }

  push(row: Row): void {
    this.ensureIndex();
    row.index = this.rows.length;
    this.rows.push(row);
  }

  /**
   * Row `index` (and maybe rows after it) changed height: the tops after it are summed again.
   * Its own top stays; it is where the new sum starts.
   */
  heightChanged(index: number): void {
    this.validTo = Math.min(this.validTo, Math.max(0, index));
  }

  private ensureIndex(): void {
    if (!this.indexValid) {
      this.rows.forEach((r, i) => (r.index = i));
      this.indexValid = true;
    }
  }

  private ensureTops(): void {
    this.ensureIndex();
    const n = this.rows.length;
    if (this.validTo >= n && this.tops.length === n + 1) {
      return;
    }
    this.tops.length = n + 1;
    let i = Math.min(this.validTo, n);
    let y = this.tops[i] ?? 0;
    for (; i < n; i++) {
      this.tops[i] = y;
      const r = this.rows[i];
      y += r.height ?? r.est;
    }
    this.tops[n] = y;
    this.validTo = n;
  }

  /** Where row `i` starts (i = length: the total height). */
  top(i: number): number {
    this.ensureTops();
    return this.tops[i];
  }

  get total(): number {
    return this.top(this.rows.length);
  }

  /** Where a shown row starts, or undefined when the filter hides it. */
  topOf(row: Row): number | undefined {
    this.ensureIndex();
    return row.index >= 0 && this.rows[row.index] === row ? this.top(row.index) : undefined;
  }

  /** The index of the row at `y` (the last one that starts at or above it); -1 when empty. */
  indexAt(y: number): number {
    this.ensureTops();
    let lo = 0;
    let hi = this.rows.length - 1;
    if (hi < 0) {
      return -1;
    }
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.tops[mid] <= y) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }
}

/** The rows after an update that did more than append: in transcript order again. */
export function mergeRows(rows: readonly Row[], removed: ReadonlySet<Row>, inserted: Row[], atEnd: readonly Row[], moved: boolean): Row[] {
  const rest = removed.size > 0 ? rows.filter((r) => !removed.has(r)) : rows;
  inserted.sort((a, b) => compareOrder(a.msg, b.msg));
  const first = rest[0];
  const lastInserted = inserted[inserted.length - 1];
  if (!moved && first && lastInserted && compareOrder(lastInserted.msg, first.msg) <= 0) {
    // Older history arriving (the chunks after a long run's `init`): it goes before everything.
    return inserted.concat(rest, atEnd);
  }
  return rest.concat(inserted, atEnd).sort((a, b) => compareOrder(a.msg, b.msg));
}
