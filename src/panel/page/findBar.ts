/**
 * Find, role filters and jump buttons above the history. Hits are marked by wrapping text nodes
 * of the sanitised message in `<mark>`, never by re-parsing HTML, so marking cannot undo the sanitiser.
 */
import { format, type WebviewStrings, type WireMessage } from '../common/protocol';
import { formatNumber, roleClass } from '../common/render';
import { h, setHidden, setText } from './dom';
import type { Row } from './history';

export type RoleFilter = 'prompts' | 'agent' | 'tools' | 'errors';
export const ROLE_FILTERS: readonly RoleFilter[] = ['prompts', 'agent', 'tools', 'errors'];

export function isToolCall(m: WireMessage): boolean {
  return m.toolName !== undefined || m.toolParameters !== undefined || roleClass(m.role) === 'tool';
}

/** Which filter a message belongs to (a message matches one or more). */
export function matchesFilter(m: WireMessage, f: RoleFilter): boolean {
  switch (f) {
    case 'prompts':
      return roleClass(m.role) === 'user';
    case 'agent':
      return roleClass(m.role) === 'assistant' && !isToolCall(m);
    case 'tools':
      return isToolCall(m);
    case 'errors':
      return /error|fail/i.test(m.role ?? '');
  }
}

export interface Match {
  row: Row;
  /** Which occurrence in the row's text. */
  nth: number;
}

export interface FindBarDeps {
  rows(): readonly Row[];
  mounted(): readonly Row[];
  /** Brings the match's row into view. */
  reveal(row: Row): void;
  filtersChanged(filters: ReadonlySet<RoleFilter>): void;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const SEARCH_DEBOUNCE_MS = 120;
const MAX_QUERY_CHARS = 500;

/** The text of a message that find searches (lower case). */
function searchText(m: WireMessage): string {
  return `${m.content ?? ''}\n${m.toolName ?? ''}\n${m.toolParameters ?? ''}`.toLowerCase();
}

export class FindBar {
  readonly el: HTMLElement;
  readonly input: HTMLInputElement;
  private readonly findRow: HTMLElement;
  private readonly count: HTMLElement;
  private readonly filterButtons = new Map<RoleFilter, HTMLButtonElement>();
  readonly filters = new Set<RoleFilter>();
  private query = '';
  private matches: Match[] = [];
  private current = -1;
  private timer: unknown;
  private readonly texts = new WeakMap<WireMessage, string>();

  constructor(
    doc: Document,
    private readonly S: WebviewStrings,
    private readonly locale: string,
    private readonly deps: FindBarDeps,
  ) {
    this.input = h(doc, 'input', { type: 'search', class: 'find-input', 'aria-label': S.findLabel, placeholder: S.findPlaceholder, maxlength: MAX_QUERY_CHARS, spellcheck: 'false' });
    this.count = h(doc, 'span', { class: 'find-count', role: 'status', 'aria-live': 'polite' });
    const btn = (ui: string, label: string, text: string) => h(doc, 'button', { type: 'button', class: 'icon-button', 'data-ui': ui, title: label, 'aria-label': label }, text);
    this.findRow = h(
      doc,
      'div',
      { class: 'find-row', role: 'search', hidden: true },
      this.input,
      this.count,
      btn('find-prev', S.findPrevious, '↑'),
      btn('find-next', S.findNext, '↓'),
      btn('find-close', S.findClose, '×'),
    );
    const labels: Record<RoleFilter, string> = { prompts: S.filterPrompts, agent: S.filterAgent, tools: S.filterTools, errors: S.filterErrors };
    const group = h(doc, 'div', { class: 'filters', role: 'group', 'aria-label': S.filtersLabel }, h(doc, 'span', { class: 'filters-label', 'aria-hidden': 'true' }, S.filtersLabel));
    for (const f of ROLE_FILTERS) {
      const b = h(doc, 'button', { type: 'button', class: 'filter', 'data-filter': f, 'aria-pressed': 'false' }, labels[f]);
      this.filterButtons.set(f, b);
      group.appendChild(b);
    }
    const nav = h(
      doc,
      'div',
      { class: 'jumps', role: 'group', 'aria-label': S.navHint, title: S.navHint },
      btn('prev-prompt', S.previousPrompt, '⇡'),
      btn('next-prompt', S.nextPrompt, '⇣'),
      btn('latest', S.latestMessage, '⤓'),
    );
    this.el = h(doc, 'div', { class: 'log-tools' }, this.findRow, h(doc, 'div', { class: 'tools-row' }, group, nav));
    this.input.addEventListener('input', () => {
      this.deps.clearTimeout(this.timer);
      this.timer = this.deps.setTimeout(() => this.search(this.input.value, true), SEARCH_DEBOUNCE_MS);
    });
  }

  get isOpen(): boolean {
    return !this.findRow.hasAttribute('hidden');
  }

  open(): void {
    setHidden(this.findRow, false);
    this.input.focus();
    this.input.select?.();
  }

  close(): void {
    setHidden(this.findRow, true);
    this.deps.clearTimeout(this.timer);
    this.search('', false);
  }

  toggleFilter(f: RoleFilter): void {
    if (this.filters.has(f)) {
      this.filters.delete(f);
    } else {
      this.filters.add(f);
    }
    this.filterButtons.get(f)?.setAttribute('aria-pressed', String(this.filters.has(f)));
    this.deps.filtersChanged(this.filters);
    if (this.query) {
      this.search(this.query, false);
    }
  }

  /** Sets the filters as they were (a reload); the caller applies them to the history. */
  setFilters(list: readonly RoleFilter[]): void {
    this.filters.clear();
    for (const f of ROLE_FILTERS) {
      if (list.includes(f)) {
        this.filters.add(f);
      }
      this.filterButtons.get(f)?.setAttribute('aria-pressed', String(this.filters.has(f)));
    }
  }

  /** Counts the matches in every shown message; with `jump`, goes to the first one. */
  search(query: string, jump: boolean): void {
    this.deps.clearTimeout(this.timer);
    this.timer = undefined;
    this.query = query.toLowerCase().slice(0, MAX_QUERY_CHARS);
    this.matches = [];
    this.current = -1;
    if (this.query) {
      const q = this.query;
      for (const row of this.deps.rows()) {
        let text = this.texts.get(row.msg);
        if (text === undefined) {
          text = searchText(row.msg);
          this.texts.set(row.msg, text);
        }
        for (let i = text.indexOf(q), n = 0; i >= 0; i = text.indexOf(q, i + q.length), n++) {
          this.matches.push({ row, nth: n });
        }
      }
    }
    this.showCount();
    if (jump && this.matches.length > 0) {
      this.step(1);
    } else {
      this.redecorate();
    }
  }

  /** The messages changed: counted again, staying on the current match when it is still there. */
  refresh(): void {
    if (!this.query) {
      return;
    }
    const cur = this.matches[this.current];
    this.search(this.query, false);
    if (cur) {
      this.current = this.matches.findIndex((m) => m.row === cur.row && m.nth === cur.nth);
      this.showCount();
      this.redecorate();
    }
  }

  /** Runs a pending search now (Enter right after typing). */
  private settle(): void {
    if (this.timer !== undefined || this.input.value.toLowerCase().slice(0, MAX_QUERY_CHARS) !== this.query) {
      this.search(this.input.value, false);
    }
  }

  /** Next (1) or previous (-1) match, wrapping around. */
  step(dir: 1 | -1): void {
    this.settle();
    const n = this.matches.length;
    if (n === 0) {
      return;
    }
    this.current = this.current < 0 ? (dir === 1 ? 0 : n - 1) : (this.current + dir + n) % n;
    this.showCount();
    this.deps.reveal(this.matches[this.current].row);
    this.redecorate();
  }

  private showCount(): void {
    if (!this.query) {
      setText(this.count, '');
      return;
    }
    const n = this.matches.length;
    setText(
      this.count,
      n === 0 ? this.S.findNone : format(this.S.findCount, formatNumber(Math.max(this.current + 1, 0), this.locale), formatNumber(n, this.locale)),
    );
  }

  private redecorate(): void {
    for (const r of this.deps.mounted()) {
      this.decorate(r);
    }
  }

  /** Marks the matches in a mounted row's text nodes; the current one gets its own class. */
  decorate(row: Row): void {
    const el = row.el;
    if (!el) {
      return;
    }
    unmark(el);
    if (!this.query) {
      return;
    }
    const marks = mark(el, this.query);
    const cur = this.matches[this.current];
    if (cur && cur.row === row && marks.length > 0) {
      const m = marks[Math.min(cur.nth, marks.length - 1)];
      m.classList.add('find-current');
      const details = m.closest('details');
      if (details && !details.hasAttribute('open')) {
        details.setAttribute('open', '');
      }
    }
  }

  dispose(): void {
    this.deps.clearTimeout(this.timer);
  }
}

/** Wraps each occurrence of `q` (lower case) in text nodes of the message's body and tool call. */
function mark(root: HTMLElement, q: string): HTMLElement[] {
  const doc = root.ownerDocument;
  const out: HTMLElement[] = [];
  const texts: Text[] = [];
  for (const part of Array.from(root.querySelectorAll('.msg-body, .tool'))) {
    collectText(part, texts);
  }
  for (const t of texts) {
    const value = t.data;
    const lower = value.toLowerCase();
    let i = lower.indexOf(q);
    if (i < 0) {
      continue;
    }
    const frag = doc.createDocumentFragment();
    let last = 0;
    for (; i >= 0; i = lower.indexOf(q, last)) {
      frag.appendChild(doc.createTextNode(value.slice(last, i)));
      const m = h(doc, 'mark', { class: 'find-match' }, value.slice(i, i + q.length));
      out.push(m);
      frag.appendChild(m);
      last = i + q.length;
    }
    frag.appendChild(doc.createTextNode(value.slice(last)));
    t.parentNode?.replaceChild(frag, t);
  }
  return out;
}

function collectText(node: Node, out: Text[]): void {
  for (let c = node.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 3) {
      out.push(c as Text);
    } else if (c.nodeType === 1) {
      collectText(c, out);
    }
  }
}

function unmark(root: HTMLElement): void {
  const marks = Array.from(root.querySelectorAll('mark.find-match'));
  for (const m of marks) {
    const parent = m.parentNode;
    if (parent) {
      parent.replaceChild(root.ownerDocument.createTextNode(m.textContent ?? ''), m);
      parent.normalize();
    }
  }
}

/** What the role filters show: everything when none is on, else what matches any of them. */
export function filterFor(filters: ReadonlySet<RoleFilter>): ((m: WireMessage) => boolean) | undefined {
  const list = [...filters];
  return list.length === 0 ? undefined : (m) => list.some((f) => matchesFilter(m, f));
}
