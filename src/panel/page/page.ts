/**
 * The page's parts, built for one `init`, and what the app keeps of them across a reload of the
 * webview (draft, reading position, open tool calls, filters).
 */
import type {
  ActivityView,
  InitMessage,
  LifecycleView,
  PanelHeader,
  WebviewStrings,
  WebviewToExtensionMessage,
} from '../common/protocol';
import type { RenderOptions } from '../common/render';
import { Composer } from './composer';
import { clear, h } from './dom';
import { FindBar, ROLE_FILTERS, type RoleFilter } from './findBar';
import { HeaderView } from './header';
import { History, type Row, type Viewport } from './history';
import { LifecycleSection } from './lifecycle';
import { Navigator, type ReadingPosition } from './navigation';
import { Notices } from './notices';
import { ReviewSection } from './review';
import { openIndices } from './rows';
import type { Sanitizer } from './sanitize';

export interface PersistedState {
  agentId?: string;
  draft?: string;
  /** Where the reader was. Absent: at the end. */
  view?: ReadingPosition;
  /** Open tool calls: message key → indices of its open `<details>`. */
  open?: [string, number[]][];
  filters?: RoleFilter[];
}

export interface AppEnv {
  document: Document;
  /** Where the app mounts; its content is replaced on `init`. */
  root: HTMLElement;
  post(message: WebviewToExtensionMessage): void;
  getState(): PersistedState | undefined;
  setState(state: PersistedState): void;
  sanitize: Sanitizer;
  viewport: Viewport;
  /** Wall clock (Unix ms), for relative times. */
  now(): number;
  /** Monotonic milliseconds (performance.now). */
  clock(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Runs `fn` once the browser is idle after painting. */
  whenIdle(fn: () => void): void;
  /** Whether the page is visible (document.visibilityState). */
  isVisible(): boolean;
  log(msg: string): void;
}

export interface Page {
  agentId: string;
  S: WebviewStrings;
  locale: string;
  maxContentChars: number;
  header: PanelHeader;
  lifecycle: LifecycleView;
  activity: ActivityView;
  headerView: HeaderView;
  lifecycleView: LifecycleSection;
  notices: Notices;
  /** A code review's findings and thread (shown when the extension sends a review). */
  review: ReviewSection;
  find: FindBar;
  history: History;
  nav: Navigator;
  composer: Composer;
  log: HTMLElement;
  empty: HTMLElement;
  announcer: HTMLElement;
}

export interface PageHooks {
  renderOptions: () => RenderOptions;
  decorate: (row: Row) => void;
  reveal: (row: Row) => void;
  filtersChanged: (filters: ReadonlySet<RoleFilter>) => void;
  saveDraft: () => void;
}

const MAX_SAVED_OPEN = 500;

/** Replaces the root's content with the page's parts, in reading order. */
export function buildPage(env: AppEnv, m: InitMessage, hooks: PageHooks): Page {
  const doc = env.document;
  const S = m.strings;
  clear(env.root);
  const headerView = new HeaderView(doc, S, m.locale);
  const lifecycleView = new LifecycleSection(doc, S, m.locale);
  const notices = new Notices(doc, S, m.locale);
  const review = new ReviewSection(doc, S, m.locale, (msg) => env.post(msg));
  const log = h(doc, 'div', { class: 'log', role: 'feed', 'aria-label': S.transcriptLabel, tabindex: 0 });
  const empty = h(doc, 'p', { class: 'log-empty', hidden: true }, S.noMessages);
  const announcer = h(doc, 'div', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
  const history = new History({
    doc,
    container: log,
    sanitize: env.sanitize,
    renderOptions: hooks.renderOptions,
    strings: () => S,
    viewport: env.viewport,
    decorate: hooks.decorate,
    log: (msg) => env.log(msg),
  });
  const timers = { setTimeout: (fn: () => void, ms: number) => env.setTimeout(fn, ms), clearTimeout: (t: unknown) => env.clearTimeout(t) };
  const find = new FindBar(doc, S, m.locale, {
    rows: () => history.shownRows(),
    mounted: () => history.mountedRows(),
    reveal: hooks.reveal,
    filtersChanged: hooks.filtersChanged,
    ...timers,
  });
  const composer = new Composer(doc, S, m.isMac, {
    post: (msg) => env.post(msg),
    saveDraft: hooks.saveDraft,
    ...timers,
    activeElement: () => doc.activeElement,
  });
  const skip = h(doc, 'button', { type: 'button', class: 'skip-link', 'data-ui': 'skip' }, S.skipToComposer);
  headerView.details.append(lifecycleView.el);
  env.root.append(skip, headerView.header, headerView.toolbar, headerView.errorBanner, headerView.freshBanner, review.el, notices.el, find.el, log, empty, composer.dock, announcer);
  return {
    agentId: m.agentId,
    S,
    locale: m.locale,
    maxContentChars: m.maxContentChars,
    header: m.header,
    lifecycle: m.lifecycle,
    activity: m.activity,
    headerView,
    lifecycleView,
    notices,
    review,
    find,
    history,
    nav: new Navigator(history, env.viewport),
    composer,
    log,
    empty,
    announcer,
  };
}

/** What a reload of the webview should come back to. */
export function captureState(p: Page, keptView?: ReadingPosition): PersistedState {
  const state: PersistedState = { agentId: p.agentId, draft: p.composer.text() };
  const view = keptView ?? p.nav.capture();
  if (view) {
    state.view = view;
  }
  const open: [string, number[]][] = [];
  for (const r of p.history.allRows()) {
    const o = r.el ? openIndices(r.el) : r.open;
    if (o && open.length < MAX_SAVED_OPEN) {
      open.push([r.msg.key, o]);
    }
  }
  if (open.length > 0) {
    state.open = open;
  }
  if (p.find.filters.size > 0) {
    state.filters = [...p.find.filters];
  }
  return state;
}

/** The saved state read back: data this page wrote, but still checked field by field. */
export function parsePersistedState(v: unknown): PersistedState | undefined {
  if (v === null || typeof v !== 'object') {
    return undefined;
  }
  const o = v as Record<string, unknown>;
  const out: PersistedState = {};
  if (typeof o.agentId === 'string') {
    out.agentId = o.agentId;
  }
  if (typeof o.draft === 'string') {
    out.draft = o.draft;
  }
  const view = o.view as Record<string, unknown> | undefined;
  if (view && typeof view === 'object' && typeof view.key === 'string' && typeof view.offset === 'number' && Number.isFinite(view.offset)) {
    out.view = { key: view.key, offset: view.offset };
  }
  if (Array.isArray(o.open)) {
    out.open = (o.open as unknown[])
      .filter((e): e is [string, number[]] => Array.isArray(e) && typeof e[0] === 'string' && Array.isArray(e[1]) && (e[1] as unknown[]).every((i) => Number.isInteger(i) && (i as number) >= 0 && (i as number) < 1_000))
      .slice(0, MAX_SAVED_OPEN);
  }
  if (Array.isArray(o.filters)) {
    out.filters = (o.filters as unknown[]).filter((f): f is RoleFilter => ROLE_FILTERS.includes(f as RoleFilter));
  }
  return out;
}
