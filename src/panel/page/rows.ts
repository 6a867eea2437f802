/**
 * Elements for history rows: the message's `<article>` (rendered and sanitised in one batch per
 * mount), the "new since you last looked" divider and the notice for a gap.
 */
import { format, type WebviewStrings } from '../common/protocol';
import {
  domKey,
  formatExactTime,
  formatNumber,
  formatRelativeTime,
  isValidTimestamp,
  keyFromDom,
  renderMessage,
  roleLabel,
  type RenderOptions,
} from '../common/render';
import { h } from './dom';
import type { Row } from './history';
import type { Sanitizer } from './sanitize';

export interface RowRendererDeps {
  doc: Document;
  sanitize: Sanitizer;
  renderOptions: () => RenderOptions;
  strings: () => WebviewStrings;
  log: (msg: string) => void;
}

const FOCUSABLE = 'button, summary, [tabindex]';

export class RowRenderer {
  constructor(private readonly deps: RowRendererDeps) {}

  /** Gives each row its elements (rows whose HTML did not survive sanitising stay without). */
  render(rows: readonly Row[], firstUnseenKey: string | undefined): void {
    if (rows.length === 0) {
      return;
    }
    const opts = this.deps.renderOptions();
    const byKey = new Map(rows.map((r) => [r.msg.key, r]));
    const frag = this.deps.sanitize(rows.map((r) => renderMessage(r.msg, opts)).join(''));
    for (const el of Array.from(frag.children) as HTMLElement[]) {
      const attr = el.getAttribute('data-key');
      const row = attr !== null ? byKey.get(keyFromDom(attr)) : undefined;
      if (!row || row.el) {
        continue;
      }
      this.finish(row, el, opts);
      row.lead = this.lead(row, firstUnseenKey);
    }
    for (const r of rows) {
      if (!r.el) {
        this.deps.log(`message ${r.msg.key.slice(0, 80)} did not survive sanitizing`);
      }
    }
  }

  /** Re-renders a mounted row in place, keeping its open tool calls and focus. */
  replace(row: Row): void {
    const old = row.el;
    if (!old) {
      return;
    }
    const opts = this.deps.renderOptions();
    const frag = this.deps.sanitize(renderMessage(row.msg, opts));
    const el = frag.firstElementChild as HTMLElement | null;
    if (!el || el.getAttribute('data-key') !== domKey(row.msg.key)) {
      this.deps.log(`message ${row.msg.key.slice(0, 80)} did not survive sanitizing`);
      return;
    }
    row.open = openIndices(old);
    const hadFocus = focusPath(old);
    this.finish(row, el, opts);
    for (const a of ['aria-setsize', 'aria-posinset']) {
      const v = old.getAttribute(a);
      if (v !== null) {
        el.setAttribute(a, v);
      }
    }
    old.replaceWith(el);
    if (hadFocus !== undefined) {
      el.querySelectorAll<HTMLElement>(FOCUSABLE)[hadFocus]?.focus();
    }
  }

  private finish(row: Row, el: HTMLElement, opts: RenderOptions): void {
    // Set here, after sanitising: the feed's labels are the app's, never the service's markup.
    const when = isValidTimestamp(row.msg.createdAt) ? `, ${formatExactTime(row.msg.createdAt, opts.locale)}` : '';
    el.setAttribute('aria-label', `${roleLabel(row.msg.role, opts.strings)}${when}`);
    el.setAttribute('tabindex', '-1');
    const details = el.querySelectorAll('details');
    for (const i of row.open ?? []) {
      details[i]?.setAttribute('open', '');
    }
    row.el = el;
  }

  private lead(row: Row, firstUnseenKey: string | undefined): HTMLElement[] {
    const S = this.deps.strings();
    const doc = this.deps.doc;
    const out: HTMLElement[] = [];
    if (row.msg.key === firstUnseenKey) {
      out.push(h(doc, 'div', { class: 'divider-new', role: 'separator' }, S.newSinceLastLooked));
    }
    const gap = row.msg.gapBefore;
    if (gap !== undefined) {
      const text = gap > 0 ? format(S.gapMessages, formatNumber(gap, this.deps.renderOptions().locale)) : S.gapUnknown;
      out.push(h(doc, 'div', { class: 'notice notice-gap', role: 'note' }, text));
    }
    return out;
  }

  /** Updates relative time labels under `root`; only text that differs is written. */
  refreshTimes(root: Element, now: number, locale: string): void {
    for (const t of Array.from(root.querySelectorAll('time[data-ts]'))) {
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

export function openIndices(el: Element): number[] | undefined {
  const open: number[] = [];
  el.querySelectorAll('details').forEach((d, i) => {
    if (d.hasAttribute('open')) {
      open.push(i);
    }
  });
  return open.length > 0 ? open : undefined;
}

function focusPath(el: Element): number | undefined {
  const active = el.ownerDocument?.activeElement;
  if (!active || !el.contains(active)) {
    return undefined;
  }
  const i = Array.from(el.querySelectorAll(FOCUSABLE)).indexOf(active);
  return i >= 0 ? i : undefined;
}

/** Puts the mounted rows' elements between the spacers, in order, moving only what is out of place. */
export function placeRows(container: HTMLElement, spacerTop: HTMLElement, spacerBottom: HTMLElement, rows: readonly Row[]): void {
  let cursor: ChildNode | null = spacerTop.nextSibling;
  for (const r of rows) {
    if (!r.el) {
      continue;
    }
    for (const node of [...r.lead, r.el]) {
      if (cursor === node) {
        cursor = cursor.nextSibling;
      } else {
        container.insertBefore(node, cursor);
      }
    }
  }
  while (cursor && cursor !== spacerBottom) {
    const next: ChildNode | null = cursor.nextSibling;
    cursor.remove();
    cursor = next;
  }
}

/** The feed's position attributes of the mounted rows (written only when they changed). */
export function setFeedPositions(rows: readonly Row[], setSize: number): void {
  const size = String(setSize);
  for (const r of rows) {
    const el = r.el!;
    if (el.getAttribute('aria-setsize') !== size) {
      el.setAttribute('aria-setsize', size);
    }
    const pos = String(r.index + 1);
    if (el.getAttribute('aria-posinset') !== pos) {
      el.setAttribute('aria-posinset', pos);
    }
  }
}

export function setHeight(el: HTMLElement, px: number): void {
  // Not rounded: rows measure in fractions of a pixel, and a spacer rounded differently from one
  // update to the next would nudge everything below it. CSSOM writes are allowed by the CSP.
  const v = `${Math.max(0, Math.round(px * 64) / 64)}px`;
  if (el.style.height !== v) {
    el.style.height = v;
  }
}
