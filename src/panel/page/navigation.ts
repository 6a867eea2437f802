/**
 * Moving through the history: to a message (find, the pill, a prompt jump), to the latest one,
 * back to where the reader was after a reload, and noting where that is.
 */
import { roleClass } from '../common/render';
import type { History, Row, Viewport } from './history';

/** A revealed message starts this far below the viewport's top (clear of the sticky header bar and find bar). */
export const REVEAL_OFFSET_PX = 112;
const LINE_TOLERANCE_PX = 8;

/** Where the reader is: the message at the viewport's top and how far into it. */
export interface ReadingPosition {
  key: string;
  offset: number;
}

export class Navigator {
  constructor(
    private readonly history: History,
    private readonly viewport: Viewport,
  ) {}

  /** Scrolls a row to just below the viewport's top; with `focus`, moves focus to it too. */
  reveal(row: Row, focus: boolean): boolean {
    const hist = this.history;
    const top = hist.topOfRow(row);
    if (top === undefined) {
      return false;
    }
    hist.scrollTo(top - REVEAL_OFFSET_PX);
    // Mounting measured the rows around it (and the browser may have anchored the scroll): once
    // or twice more, to where it is actually placed.
    for (let i = 0; i < 3; i++) {
      const placed = hist.placedTop(row);
      if (placed === undefined || Math.abs(placed - REVEAL_OFFSET_PX - hist.scrollY()) <= 0.5) {
        break;
      }
      hist.scrollTo(placed - REVEAL_OFFSET_PX);
    }
    if (focus) {
      row.el?.focus({ preventScroll: true });
    }
    return true;
  }

  /** The next (1) or previous (-1) prompt from the one being read; false when there is none. */
  jumpToPrompt(dir: 1 | -1): boolean {
    const hist = this.history;
    const rows = hist.shownRows();
    const line = hist.scrollY() + REVEAL_OFFSET_PX;
    // The prompt at the reading line (give or take a few px of rounding and re-measuring) is
    // the current one: the jumps go past it.
    const cur = hist.indexAt(line + LINE_TOLERANCE_PX);
    const isPrompt = (r: Row) => roleClass(r.msg.role) === 'user';
    if (dir === 1) {
      for (let i = cur + 1; i < rows.length; i++) {
        if (isPrompt(rows[i])) {
          return this.reveal(rows[i], true);
        }
      }
      return false;
    }
    for (let i = Math.min(cur, rows.length - 1); i >= 0; i--) {
      if (isPrompt(rows[i]) && (hist.topOfRow(rows[i]) ?? 0) < line - LINE_TOLERANCE_PX) {
        return this.reveal(rows[i], true);
      }
    }
    return false;
  }

  /** Mounts the end and scrolls there; `focus` moves focus to the latest message. */
  toLatest(focus: boolean): void {
    this.history.renderTail();
    this.viewport.scrollToBottom();
    if (focus) {
      const rows = this.history.shownRows();
      rows[rows.length - 1]?.el?.focus({ preventScroll: true });
    }
  }

  /** Where the history opens: where the reader was (a reload), the first unseen message, or the end. */
  restore(view: ReadingPosition | undefined, firstUnseenKey: string | undefined): void {
    const hist = this.history;
    const saved = view ? hist.row(view.key) : undefined;
    const savedTop = saved ? hist.topOfRow(saved) : undefined;
    if (view && savedTop !== undefined) {
      hist.scrollTo(savedTop + view.offset);
      return;
    }
    const unseen = firstUnseenKey !== undefined ? hist.row(firstUnseenKey) : undefined;
    if (!unseen || !this.reveal(unseen, false)) {
      this.toLatest(false);
    }
  }

  /** The reading position, or undefined at the end (a reload then follows the end). */
  capture(): ReadingPosition | undefined {
    if (this.viewport.isAtBottom()) {
      return undefined;
    }
    const hist = this.history;
    const y = hist.scrollY();
    const row = hist.shownRows()[hist.indexAt(Math.max(0, y))];
    const top = row ? hist.topOfRow(row) : undefined;
    return row && top !== undefined ? { key: row.msg.key, offset: Math.round(y - top) } : undefined;
  }
}
