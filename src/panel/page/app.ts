/**
 * The run panel app inside the webview: wires header, lifecycle, notices, find bar, history and
 * composer to the extension's messages. Its page is injected (`AppEnv`) so node tests run it on linkedom.
 */
import type { ExtensionToWebviewMessage, InitMessage } from '../common/protocol';
import type { RenderOptions } from '../common/render';
import { setHidden } from './dom';
import { messageAction, onClick, onKeyDown, runCommand, type UiCommand } from './events';
import { filterFor, ROLE_FILTERS, type RoleFilter } from './findBar';
import { statusLabel } from './header';
import type { History } from './history';
import { buildPage, captureState, type AppEnv, type Page } from './page';
import { ScrollFollower } from './scrollFollow';
import { Unseen } from './seen';

export { parseBranches } from './composer';
export type { AppEnv, PersistedState } from './page';

const TICK_MS = 5_000;
const TIMES_EVERY_TICKS = 6;
const SAVE_VIEW_MS = 300;

export class App {
  private page: Page | undefined;
  /** Mounts what a scroll brings near the viewport of this page's history. */
  private follower: ScrollFollower | undefined;
  private tickTimer: unknown;
  private saveTimer: unknown;
  private ticks = 0;
  private disposed = false;
  private rootWired = false;

  private readonly seen: Unseen;

  constructor(private readonly env: AppEnv) {
    this.seen = new Unseen({ now: () => env.now(), isVisible: () => env.isVisible(), viewport: env.viewport, post: (m) => env.post(m) });
  }

  /** Handles a validated message from the extension. */
  handle(message: ExtensionToWebviewMessage): void {
    switch (message.type) {
      case 'init':
        this.onInit(message);
        break;
      case 'update':
        this.onUpdate(message);
        break;
      case 'followUpResult':
        this.page?.composer.onFollowUpResult(message.requestId, message.ok ? undefined : message.error);
        break;
      case 'draft':
        this.page?.composer.onDraft(message.text);
        break;
      case 'sendState':
        this.page?.composer.setSendState(message.send);
        break;
      case 'review':
        this.page?.review.show(message);
        if (this.page && message.review) {
          // The badge shows the review's status beside its conversation (see `shownStatus`).
          this.page.headerView.reviewStatus = message.review.status;
          this.renderHeader();
        }
        break;
    }
  }

  dispose(): void {
    this.disposed = true;
    this.teardown();
  }

  private teardown(): void {
    this.page?.composer.dispose();
    this.page?.find.dispose();
    this.env.clearTimeout(this.tickTimer);
    this.env.clearTimeout(this.saveTimer);
  }

  // ---------------------------------------------------------------- init

  private onInit(m: InitMessage): void {
    this.teardown();
    const saved = this.env.getState();
    const mine = saved?.agentId === m.agentId ? saved : undefined;
    const page = this.build(m);
    this.page = page;
    this.follower = new ScrollFollower(page.history, { whenIdle: (fn) => this.env.whenIdle(fn), current: () => this.page === page, clock: () => this.env.clock() });
    page.log.setAttribute('aria-busy', 'true');
    this.renderHeader();
    page.headerView.renderFreshness(m.freshness);
    this.renderLifecycle();
    page.notices.render(m.transcript);

    page.history.init(m.messages, m.firstUnseenKey, new Map(mine?.open ?? []));
    page.find.setFilters((mine?.filters ?? []).filter((f) => ROLE_FILTERS.includes(f)));
    page.history.setFilter(filterFor(page.find.filters));
    page.nav.restore(mine?.view, m.firstUnseenKey);
    this.renderEmpty();
    this.renderTurn();

    page.composer.start(m.draft, saved?.draft ?? '', m.send);
    this.saveState();
    this.seen.reset();
    this.seen.maybeMarkSeen();
    this.scheduleTick();
    this.env.whenIdle(() => {
      if (!this.disposed && this.page === page) {
        // Not needed for the first paint; and the history so far is not announced.
        page.headerView.fillExactTimes();
        page.log.removeAttribute('aria-busy');
      }
    });
  }

  private renderOptions(): RenderOptions {
    const p = this.page!;
    return { strings: p.S, locale: p.locale, now: this.env.now(), maxContentChars: p.maxContentChars };
  }

  private build(m: InitMessage): Page {
    const page: Page = buildPage(this.env, m, {
      renderOptions: () => this.renderOptions(),
      decorate: (row) => page.find.decorate(row),
      reveal: (row) => {
        page.nav.reveal(row, false);
        this.saveStateSoon();
      },
      filtersChanged: (filters) => this.onFiltersChanged(filters),
      saveDraft: () => this.saveState(),
    });
    this.wireRoot();
    return page;
  }

  private wireRoot(): void {
    if (this.rootWired) {
      return;
    }
    // Delegated once for the life of the page; a second `init` rebuilds only the content.
    this.rootWired = true;
    const root = this.env.root;
    const handlers = {
      openLink: (url: string) => this.env.post({ type: 'openLink', url }),
      messageAction: (action: string, key: string) => {
        const p = this.page;
        const msg = p?.history.get(key);
        if (p && msg && messageAction(msg, action, (m) => this.env.post(m))) {
          this.announce(p.S.copied);
        }
      },
      command: (cmd: UiCommand) => this.command(cmd),
      toggleFilter: (f: RoleFilter) => this.page?.find.toggleFilter(f),
      submit: () => this.page?.composer.submit(),
      isFindInput: (t: EventTarget | null) => !!this.page && t === this.page.find.input,
      isComposer: (t: EventTarget | null) => !!this.page && t === this.page.composer.textarea,
      isBranches: (t: EventTarget | null) => !!this.page && t === this.page.composer.branches,
    };
    root.addEventListener('click', (e) => onClick(e, handlers));
    // Middle-click on a link: same as a click, and never a navigation.
    root.addEventListener('auxclick', (e) => {
      if ((e.target as Element | null)?.closest?.('.md-link')) {
        onClick(e, handlers);
      }
    });
    root.addEventListener('keydown', (e) => onKeyDown(e, handlers));
    // `toggle` does not bubble: caught on the way down, to remember open tool calls.
    root.addEventListener('toggle', () => this.saveStateSoon(), true);
  }

  // ---------------------------------------------------------------- commands

  private command(cmd: UiCommand): void {
    const p = this.page;
    if (p) {
      runCommand(cmd, p, {
        post: (msg) => this.env.post(msg),
        announce: (text) => this.announce(text),
        toLatest: () => this.toLatest(),
        moved: () => this.saveStateSoon(),
      });
    }
  }

  private toLatest(): void {
    this.seen.hidePill(this.page);
    this.page?.nav.toLatest(true);
    this.seen.maybeMarkSeen();
  }

  private onFiltersChanged(filters: ReadonlySet<RoleFilter>): void {
    const p = this.page;
    if (!p) {
      return;
    }
    const atBottom = this.env.viewport.isAtBottom();
    const reading = p.history.mountedRows().filter((r) => (p.history.topOfRow(r) ?? -1) >= p.history.scrollY());
    p.history.setFilter(filterFor(filters));
    // The first row at or below the reading line that the new filter still shows stays in view.
    const keep = atBottom ? undefined : reading.find((r) => p.history.topOfRow(r) !== undefined);
    if (!keep || !p.nav.reveal(keep, false)) {
      p.nav.toLatest(false);
    }
    this.renderEmpty();
    this.saveStateSoon();
  }

  // ---------------------------------------------------------------- updates

  private onUpdate(m: Extract<ExtensionToWebviewMessage, { type: 'update' }>): void {
    const p = this.page;
    if (!p) {
      this.env.log('update before init ignored');
      return;
    }
    const wasAtBottom = this.env.viewport.isAtBottom();
    if (!wasAtBottom) {
      // What is being read stays put on screen, whatever above it changes size.
      p.history.holdAnchor();
    }
    if (m.header) {
      const prevStatus = p.header.status;
      p.header = m.header;
      this.renderHeader();
      if (m.header.status !== prevStatus) {
        this.announce(statusLabel(m.header.status, p.S));
      }
    }
    if (m.freshness) {
      p.headerView.renderFreshness(m.freshness);
    }
    p.lifecycle = m.lifecycle ?? p.lifecycle;
    p.activity = m.activity ?? p.activity;
    if (m.lifecycle || m.activity || m.header) {
      this.renderLifecycle();
    }
    if (m.transcript) {
      p.notices.render(m.transcript);
    }
    if (m.messages?.length || m.removedKeys?.length) {
      this.applyMessages(p, m.messages ?? [], m.removedKeys ?? [], wasAtBottom);
    } else if (!wasAtBottom && !p.history.refresh()) {
      p.history.render({ keepAnchor: true });
    }
    // Where the view was before this update (the end stays in view when it was there):
    // reading it again now would lay out the document in the middle of the handler.
    this.seen.maybeMarkSeen(wasAtBottom);
  }

  private applyMessages(p: Page, messages: Parameters<History['apply']>[0], removed: readonly string[], wasAtBottom: boolean): void {
    const busy = p.log.getAttribute('aria-busy') === 'true';
    p.log.setAttribute('aria-busy', 'true');
    const r = p.history.apply(messages, removed);
    if (wasAtBottom) {
      p.history.renderTail();
      if (r.appended > 0 || r.changed > 0 || r.inserted > 0) {
        this.env.viewport.scrollToBottom();
      }
    } else if (r.inserted > 0 || r.removed > 0 || !p.history.refresh()) {
      p.history.render({ keepAnchor: true });
    }
    if (r.appended > 0) {
      this.seen.arrived(p, r.appended, wasAtBottom);
    }
    p.find.refresh();
    this.renderEmpty();
    this.renderTurn();
    if (!busy) {
      p.log.removeAttribute('aria-busy');
    }
  }

  /** Called on scroll (throttled by the caller). */
  onScroll(): void {
    const p = this.page;
    if (!p) {
      return;
    }
    this.follower?.onScroll();
    if (this.env.viewport.isAtBottom()) {
      this.seen.hidePill(this.page);
      this.seen.maybeMarkSeen();
    }
    this.saveStateSoon();
  }

  /** The theme, the font or the width changed: heights are measured again, the view stays put. */
  onLayoutChange(): void {
    const p = this.page;
    if (!p) {
      return;
    }
    if (this.env.viewport.isAtBottom()) {
      p.history.remeasure();
      p.history.renderTail();
      this.env.viewport.scrollToBottom();
    } else {
      p.history.remeasure();
    }
  }

  /** Called when the page becomes visible or hidden. */
  onVisibilityChange(): void {
    if (this.env.isVisible()) {
      this.seen.maybeMarkSeen();
    } else {
      this.flushDraft();
    }
  }

  /** Reports the pending draft and saves the view now (the page is about to go away). */
  flushDraft(): void {
    this.page?.composer.flushDraft();
    this.saveState();
  }

  private announce(text: string): void {
    const a = this.page?.announcer;
    if (a) {
      // Re-setting the same text is not announced again; clear first.
      a.textContent = '';
      a.textContent = text;
    }
  }

  // ---------------------------------------------------------------- state

  private saveStateSoon(): void {
    if (this.saveTimer === undefined) {
      this.saveTimer = this.env.setTimeout(() => {
        this.saveTimer = undefined;
        this.saveState();
      }, SAVE_VIEW_MS);
    }
  }

  /** Draft, reading position, open tool calls and filters, for a reload of the page. */
  private saveState(): void {
    const p = this.page;
    if (!p) {
      return;
    }
    // A page being hidden or torn down (a window reload) has no height and reads as scrolled to
    // the top: the last position seen while it was shown stays the one kept.
    const shown = this.env.isVisible() && (this.env.viewport.height?.() ?? 1) > 0;
    const state = captureState(p, shown ? undefined : this.env.getState()?.view);
    this.env.setState(state);
  }

  // ---------------------------------------------------------------- rendering parts

  private renderHeader(): void {
    const p = this.page;
    p?.headerView.render(p.header, this.env.now());
    p?.composer.setTakesFollowUps(p.header.noFollowUps !== true);
  }

  private renderLifecycle(): void {
    const p = this.page;
    p?.lifecycleView.render(p.lifecycle, p.activity, p.header.status, this.env.now(), p.header.noFollowUps !== true);
    p?.headerView.renderLanes(p.lifecycle);
  }

  /** The turn in the header: the prompts the history holds (filters aside). */
  private renderTurn(): void {
    const p = this.page;
    p?.headerView.renderTurn(p.history.promptCount);
  }

  private renderEmpty(): void {
    const p = this.page;
    if (p) {
      setHidden(p.empty, p.history.shownCount > 0);
    }
  }

  private scheduleTick(): void {
    this.env.clearTimeout(this.tickTimer);
    this.tickTimer = this.env.setTimeout(() => {
      if (this.disposed || !this.page) {
        return;
      }
      this.ticks++;
      this.renderLifecycle();
      if (this.ticks % TIMES_EVERY_TICKS === 0) {
        const now = this.env.now();
        this.page.history.refreshTimes(now, this.page.locale);
        this.page.headerView.refreshTimes(now);
      }
      this.scheduleTick();
    }, TICK_MS);
  }
}
