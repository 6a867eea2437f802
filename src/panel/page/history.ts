/**
 * The history as a virtualised list: every message is a `Row` of data, only rows near the
 * viewport have elements (rowWindow.ts), so a long run stays fast. This holds the rows in
 * transcript order, the filter and the updates; mounting and scrolling are the window's.
 */
import type { WireMessage } from '../common/protocol';
import { roleClass } from '../common/render';
import { compareOrder } from '../../run/common/transcript/order';
import { RowWindow, type WindowDeps } from './rowWindow';
import { estimateHeight, mergeRows, RowIndex, type Row } from './rowIndex';
import { RowRenderer, type RowRendererDeps } from './rows';

export type { Row, Viewport } from './rowIndex';
export { JUMP_OVERSCAN_PX, OVERSCAN_PX } from './rowWindow';

export interface HistoryDeps extends RowRendererDeps, WindowDeps {}

export interface ApplyResult {
  /** New messages after the previous last one. */
  appended: number;
  /** New messages that went somewhere before the end (older history arriving, late ones). */
  inserted: number;
  changed: number;
  removed: number;
}

export class History {
  private rows: Row[] = [];
  private readonly byKey = new Map<string, Row>();
  /** The rows the filter shows, with where each starts. */
  private readonly shown = new RowIndex();
  private filter: ((m: WireMessage) => boolean) | undefined;
  private readonly renderer: RowRenderer;
  private readonly window: RowWindow;
  private firstUnseenKey: string | undefined;
  /** The person's prompts among the rows (the header's turn), kept as rows come and go: an append must not count them all. */
  private prompts = 0;

  constructor(private readonly deps: HistoryDeps) {
    this.renderer = new RowRenderer(deps);
    this.window = new RowWindow(deps, this.shown, this.renderer, () => this.firstUnseenKey);
  }

  /** How many of the rows are the person's prompts. */
  get promptCount(): number {
    return this.prompts;
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
    return this.window.mountedRows();
  }

  /** Replaces everything: a new `init`. */
  init(messages: readonly WireMessage[], firstUnseenKey: string | undefined, open: ReadonlyMap<string, number[]>): void {
    this.window.clear();
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
    this.prompts = countPrompts(this.rows);
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
    return this.window.scrollY();
  }

  /** Scrolls so the viewport's top is `y` px into the log, then mounts what is there. */
  scrollTo(y: number): void {
    this.window.scrollTo(y);
  }

  /**
   * Re-measures after an update that left the window's rows in place, mounting nothing above the
   * view; false when a `render` is needed instead.
   */
  refresh(): boolean {
    return this.window.refresh();
  }

  /** Where a mounted row is in the page now (layout, not the model), else where the model puts it. */
  placedTop(row: Row): number | undefined {
    return this.window.placedTop(row);
  }

  /** Mounts the rows at the end (the caller scrolls there). */
  renderTail(): void {
    this.window.renderTail();
  }

  /**
   * Mounts the rows near the viewport and unmounts the others. With `keepAnchor`, what is at
   * the viewport's top stays there when rows above it changed height or arrived (`apply`).
   */
  render(opts?: { keepAnchor: boolean; y?: number; overscan?: number }): void {
    this.window.render(opts);
  }

  /**
   * Notes the row being read now, before anything on the page changes (the header above the
   * history may grow): the next `render` brings it back to the same place on screen.
   */
  holdAnchor(): void {
    this.window.holdAnchor();
  }

  /** True when the mounted rows cover the viewport plus `margin` (default: half the overscan) above and below it. */
  covers(y: number, margin?: number): boolean {
    return this.window.covers(y, margin);
  }

  /** Forgets measured heights (the theme or the width changed); mounted rows are measured again. */
  remeasure(): void {
    for (const r of this.rows) {
      r.height = undefined;
    }
    this.shown.heightChanged(0);
    this.render({ keepAnchor: true });
  }

  /**
   * Inserts new and replaces changed messages, removes evicted ones; re-mounts nothing else.
   * The next `render` keeps the row being read where it is, wherever rows went.
   */
  apply(messages: readonly WireMessage[], removedKeys: readonly string[]): ApplyResult {
    this.window.holdAnchorOnce();
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
    this.window.dropUnmounted(removed);
    if (moved || removed.size > 0 || inserted.length > 0) {
      this.rows = mergeRows(this.rows, removed, inserted, atEnd, moved);
      this.prompts = countPrompts(this.rows);
      this.rebuildShown();
      return result;
    }
    // The common case, messages at the end: nothing before them moves.
    for (const r of atEnd) {
      this.prompts += isPrompt(r) ? 1 : 0;
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
        this.window.unmountRow(r);
        if (key === this.firstUnseenKey) {
          this.firstUnseenKey = undefined;
        }
      }
    }
    return removed;
  }

  private change(row: Row, msg: WireMessage): void {
    this.prompts -= isPrompt(row) ? 1 : 0;
    row.msg = msg;
    this.prompts += isPrompt(row) ? 1 : 0;
    row.est = estimateHeight(msg);
    row.height = undefined;
    this.shownRows();
    this.shown.heightChanged(row.index);
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

function isPrompt(r: Row): boolean {
  return roleClass(r.msg.role) === 'user';
}

function countPrompts(rows: readonly Row[]): number {
  return rows.reduce((n, r) => (isPrompt(r) ? n + 1 : n), 0);
}
