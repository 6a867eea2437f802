/**
 * The code review above a review conversation: facts and four keyboard-reachable tabs. All of it
 * is the service's text, set as text; thread images are links (the extension checks them), never loaded.
 */
import { format, type ReviewMessage, type WebviewStrings, type WebviewToExtensionMessage } from '../common/protocol';
import type { ReviewCommentView, ReviewItemView, ReviewView } from '../common/reviewView';
import { formatExactTime, isValidTimestamp, neutralizeText } from '../common/render';
import { clear, h, setHidden, setText } from './dom';

type TabName = 'changes' | 'comments' | 'tests' | 'thread';
const TABS: readonly TabName[] = ['changes', 'comments', 'tests', 'thread'];

export class ReviewSection {
  readonly el: HTMLElement;
  private readonly title: HTMLElement;
  private readonly facts: HTMLElement;
  private readonly problem: HTMLElement;
  private readonly tabList: HTMLElement;
  private readonly body: HTMLElement;
  private selected: TabName = 'changes';
  private view: ReviewView | undefined;

  constructor(
    private readonly doc: Document,
    private readonly S: WebviewStrings,
    private readonly locale: string,
    post: (m: WebviewToExtensionMessage) => void,
  ) {
    this.title = h(doc, 'h2', { class: 'review-title' });
    this.facts = h(doc, 'div', { class: 'review-facts' });
    this.problem = h(doc, 'div', { class: 'review-problem', role: 'status' });
    this.tabList = h(doc, 'div', { class: 'review-tabs', role: 'tablist', 'aria-label': S.reviewTabs });
    this.body = h(doc, 'div', { class: 'review-body', role: 'tabpanel' });
    const refresh = h(doc, 'button', { class: 'review-refresh', type: 'button', title: S.reviewRefresh, 'aria-label': S.reviewRefresh }, '↻');
    refresh.addEventListener('click', () => post({ type: 'refreshReview' }));
    this.tabList.addEventListener('keydown', (e) => this.onKey(e));
    this.el = h(doc, 'section', { class: 'review', 'aria-label': S.reviewSection, hidden: true },
      h(doc, 'div', { class: 'review-head' }, this.title, refresh), this.facts, this.problem, this.tabList, this.body);
    setHidden(this.problem, true);
  }

  show(m: ReviewMessage): void {
    setHidden(this.el, false);
    setHidden(this.problem, m.problem === undefined);
    setText(this.problem, m.problem === undefined ? '' : format(this.S.reviewReadFailed, neutralizeText(m.problem)));
    if (m.review) {
      this.view = m.review;
      this.render();
    }
  }

  private render(): void {
    const v = this.view;
    if (!v) return;
    const S = this.S;
    setText(this.title, neutralizeText(v.title ?? v.reviewId));
    const facts = [
      v.status,
      v.from !== undefined || v.to !== undefined ? format(S.reviewVersions, neutralizeText(v.from ?? '?'), neutralizeText(v.to ?? '?')) : undefined,
      v.requestedBy !== undefined ? format(S.reviewRequestedBy, neutralizeText(v.requestedBy)) : undefined,
      v.model,
    ].filter((x): x is string => x !== undefined);
    setText(this.facts, facts.map(neutralizeText).join(' · '));
    clear(this.tabList);
    const names: Record<TabName, string> = { changes: S.reviewChanges, comments: S.reviewComments, tests: S.reviewTests, thread: S.reviewThread };
    for (const t of TABS) {
      const on = t === this.selected;
      const tab = h(this.doc, 'button', { type: 'button', role: 'tab', class: 'review-tab', 'data-tab': t, 'aria-selected': on ? 'true' : 'false', tabindex: on ? 0 : -1 },
        format(names[t], String(v.counts[t])));
      tab.addEventListener('click', () => this.select(t, false));
      this.tabList.append(tab);
    }
    clear(this.body);
    this.body.setAttribute('aria-label', format(names[this.selected], String(v.counts[this.selected])));
    const shown = this.selected === 'thread' ? v.thread.length : v[this.selected].length;
    if (shown === 0) {
      this.body.append(h(this.doc, 'p', { class: 'review-none' }, S.reviewNone));
      return;
    }
    const list = h(this.doc, 'ul', { class: 'review-list' });
    if (this.selected === 'thread') {
      for (const c of v.thread) list.append(this.comment(c));
    } else {
      for (const i of v[this.selected]) list.append(this.item(i));
    }
    this.body.append(list);
    const more = v.counts[this.selected] - shown;
    if (more > 0) this.body.append(h(this.doc, 'p', { class: 'review-none' }, format(S.reviewMore, String(more))));
  }

  private item(i: ReviewItemView): HTMLElement {
    const S = this.S;
    const by = i.by === 'ai' ? S.reviewByAi : i.by === 'user' ? (i.byEmail ?? S.reviewByPerson) : i.by;
    const tags = [i.priority, i.state, by].filter((x): x is string => x !== undefined).map((t) => h(this.doc, 'span', { class: 'review-tag' }, neutralizeText(t)));
    return h(this.doc, 'li', { class: `review-item${i.state === 'completed' ? ' done' : ''}` },
      h(this.doc, 'div', { class: 'review-item-title' }, neutralizeText(i.title ?? i.id), ...tags),
      i.description !== undefined ? h(this.doc, 'div', { class: 'review-text' }, neutralizeText(i.description)) : undefined);
  }

  private comment(c: ReviewCommentView): HTMLElement {
    const S = this.S;
    const meta = [c.author, c.at !== undefined && isValidTimestamp(c.at) ? formatExactTime(c.at, this.locale) : undefined, c.edited ? S.reviewEdited : undefined]
      .filter((x): x is string => x !== undefined).map(neutralizeText).join(' · ');
    const links = c.links.map((url) => h(this.doc, 'a', { class: 'md-link', href: '#', 'data-href': url }, neutralizeText(url)));
    return h(this.doc, 'li', { class: `review-comment${c.deleted ? ' deleted' : ''}`, style: undefined, 'data-depth': c.depth },
      h(this.doc, 'div', { class: 'review-meta' }, meta),
      h(this.doc, 'div', { class: 'review-text' }, c.deleted ? S.reviewDeleted : neutralizeText(c.body ?? '')),
      links.length > 0 ? h(this.doc, 'div', { class: 'review-links' }, ...links) : undefined);
  }

  private select(t: TabName, focus: boolean): void {
    this.selected = t;
    this.render();
    if (focus) this.tabList.querySelector<HTMLElement>(`[data-tab="${t}"]`)?.focus();
  }

  private onKey(e: KeyboardEvent): void {
    const i = TABS.indexOf(this.selected);
    const next = e.key === 'ArrowRight' ? (i + 1) % TABS.length
      : e.key === 'ArrowLeft' ? (i + TABS.length - 1) % TABS.length
        : e.key === 'Home' ? 0 : e.key === 'End' ? TABS.length - 1 : -1;
    if (next < 0) return;
    e.preventDefault();
    e.stopPropagation();
    this.select(TABS[next], true);
  }
}
