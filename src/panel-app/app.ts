/**
 * The run panel app inside the webview. It renders once on `init` and then applies each
 * `update` to the parts it names: header slots are re-filled in place, only added/changed
 * messages touch the log. Everything it needs from the page is injected (`AppEnv`), so the
 * same code runs in the webview and in node tests on a linkedom document.
 */
import {
  format,
  type ActivityView,
  type ExtensionToWebviewMessage,
  type Freshness,
  type InitMessage,
  type LifecycleView,
  type RunHeader,
  type TranscriptInfo,
  type UpdateMessage,
  type WebviewStrings,
  type WebviewToExtensionMessage,
  MAX_BRANCHES,
  MAX_PROMPT_CHARS,
} from '../core/panel/protocol';
import { laneDurations, stallCheck } from '../core/panel/lifecycle';
import {
  formatDuration,
  formatExactTime,
  formatNumber,
  formatRelativeTime,
  isValidTimestamp,
  keyFromDom,
  neutralizeText,
  type RenderOptions,
} from '../core/panel/render';
import { clear, closestFrom, h, setHidden, setText } from './dom';
import type { Sanitizer } from './sanitize';
import { Timeline, type Viewport } from './timeline';

export interface PersistedState {
  agentId?: string;
  draft?: string;
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
  /** Monotonic milliseconds (performance.now), for slicing work. */
  clock(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /**
   * Runs `fn` once the browser is idle after painting: background rendering and what the
   * first paint does not need wait for it.
   */
  whenIdle(fn: () => void): void;
  /** Whether the page is visible (document.visibilityState). */
  isVisible(): boolean;
  log(msg: string): void;
}

const DRAFT_DEBOUNCE_MS = 400;
const TICK_MS = 5_000;
const TIMES_EVERY_TICKS = 6;
const MARK_SEEN_MIN_INTERVAL_MS = 2_000;
const MAX_ERROR_CHARS = 4_000;

type FactKey = 'app' | 'project' | 'model' | 'effort' | 'permission' | 'branches' | 'created' | 'updated' | 'completed';

interface Ui {
  header: HTMLElement;
  badge: HTMLElement;
  title: HTMLElement;
  facts: Record<FactKey, { row: HTMLElement; value: HTMLElement }>;
  agentId: HTMLElement;
  errorBanner: HTMLElement;
  errorText: HTMLElement;
  freshBanner: HTMLElement;
  freshText: HTMLElement;
  lanes: Record<'conversation' | 'sandbox', { bar: HTMLElement; list: HTMLElement }>;
  lifecycleMeta: HTMLElement;
  stall: HTMLElement;
  notices: HTMLElement;
  log: HTMLElement;
  empty: HTMLElement;
  pill: HTMLButtonElement;
  textarea: HTMLTextAreaElement;
  permission: HTMLSelectElement;
  branches: HTMLInputElement;
  send: HTMLButtonElement;
  composerStatus: HTMLElement;
  announcer: HTMLElement;
}

export class App {
  private init: InitMessage | undefined;
  private strings!: WebviewStrings;
  private locale = 'en';
  private header!: RunHeader;
  private lifecycle!: LifecycleView;
  private activity!: ActivityView;
  private freshness!: Freshness;
  private transcriptInfo!: TranscriptInfo;
  private ui: Ui | undefined;
  /** What each lifecycle lane shows (its states and which is current), to update it in place. */
  private lanesShown: Record<'conversation' | 'sandbox', string> = { conversation: '', sandbox: '' };
  private timeline: Timeline | undefined;
  private newCount = 0;
  private requestId = 0;
  private sendingRequest: { id: number; prompt: string } | undefined;
  private draftTimer: unknown;
  private tickTimer: unknown;
  private ticks = 0;
  private lastMarkSeen = 0;
  private unseen = false;
  private disposed = false;
  private rootWired = false;
  /** Exact times (tooltips) of the header are filled in once the first paint is done. */
  private exactTimes = false;

  constructor(private readonly env: AppEnv) {}

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
        this.onFollowUpResult(message.requestId, message.ok ? undefined : message.error);
        break;
      case 'draft':
        this.onDraft(message.text);
        break;
    }
  }

  dispose(): void {
    this.disposed = true;
    this.timeline?.dispose();
    this.env.clearTimeout(this.tickTimer);
    this.env.clearTimeout(this.draftTimer);
  }

  // ---------------------------------------------------------------- init

  private onInit(m: InitMessage): void {
    this.init = m;
    this.strings = m.strings;
    this.locale = m.locale;
    this.header = m.header;
    this.lifecycle = m.lifecycle;
    this.activity = m.activity;
    this.freshness = m.freshness;
    this.transcriptInfo = m.transcript;
    this.newCount = 0;
    this.sendingRequest = undefined;
    this.exactTimes = false;
    this.lanesShown = { conversation: '', sandbox: '' };
    this.timeline?.dispose();

    const ui = this.build(m);
    this.ui = ui;
    this.env.setState({ agentId: m.agentId, draft: this.env.getState()?.draft });

    this.renderHeader();
    this.renderFreshness();
    this.renderLifecycle();
    this.renderNotices();

    this.timeline = new Timeline({
      doc: this.env.document,
      container: ui.log,
      sanitize: this.env.sanitize,
      renderOptions: () => this.renderOptions(),
      schedule: (fn) => this.env.whenIdle(() => this.onBackgroundChunk(fn)),
      clock: () => this.env.clock(),
      viewport: this.env.viewport,
      dividerLabel: () => this.strings.newSinceLastLooked,
      log: (msg) => this.env.log(msg),
    });
    ui.log.setAttribute('aria-busy', 'true');
    this.timeline.init(m.messages, m.firstUnseenKey);
    this.afterBackground();
    this.renderEmpty();

    // Draft: the host's copy wins; a local one (not yet reported before a reload) fills in.
    const local = this.env.getState()?.draft ?? '';
    const draft = m.draft || local;
    ui.textarea.value = draft;
    if (!m.draft && local) {
      this.env.post({ type: 'draftChanged', text: local.slice(0, MAX_PROMPT_CHARS) });
    }
    this.persistDraft();

    this.unseen = true;
    this.maybeMarkSeen();
    this.scheduleTick();
    // Tooltips are not needed for the first paint.
    this.env.whenIdle(() => {
      if (!this.disposed && this.ui === ui) {
        this.exactTimes = true;
        this.fillExactTimes();
      }
    });
  }

  private onBackgroundChunk(fn: () => void): void {
    if (this.disposed) {
      return;
    }
    fn();
    this.afterBackground();
  }

  private afterBackground(): void {
    if (this.ui && this.timeline && this.timeline.pending === 0) {
      // Announce only what arrives after the initial render (not the whole history).
      this.ui.log.removeAttribute('aria-busy');
      this.ui.log.setAttribute('aria-live', 'polite');
    }
  }

  private renderOptions(): RenderOptions {
    return {
      strings: this.strings,
      locale: this.locale,
      now: this.env.now(),
      maxContentChars: this.init?.maxContentChars,
    };
  }

  private build(m: InitMessage): Ui {
    const doc = this.env.document;
    const S = m.strings;
    const root = this.env.root;
    clear(root);

    const skip = h(doc, 'button', { type: 'button', class: 'skip-link', 'data-ui': 'skip' }, S.skipToComposer);

    // Header.
    const badge = h(doc, 'span', { class: 'status-badge' });
    const title = h(doc, 'h1', { class: 'run-title', dir: 'auto' });
    const factKeys: [FactKey, string][] = [
      ['app', S.fieldApp],
      ['project', S.fieldProject],
      ['model', S.fieldModel],
      ['effort', S.fieldEffort],
      ['permission', S.fieldPermission],
      ['branches', S.fieldBranches],
      ['created', S.fieldCreated],
      ['updated', S.fieldUpdated],
      ['completed', S.fieldCompleted],
    ];
    const facts = {} as Ui['facts'];
    const dl = h(doc, 'dl', { class: 'facts' });
    for (const [key, label] of factKeys) {
      const value = h(doc, 'dd', { dir: 'auto' });
      const row = h(doc, 'div', { class: `fact fact-${key}` }, h(doc, 'dt', {}, label), value);
      facts[key] = { row, value };
      dl.appendChild(row);
    }
    const agentId = h(doc, 'code', { class: 'agent-id' });
    dl.appendChild(
      h(
        doc,
        'div',
        { class: 'fact fact-agent' },
        h(doc, 'dt', {}, S.fieldAgentId),
        h(doc, 'dd', {}, agentId, ' ', h(doc, 'button', { type: 'button', class: 'link-button', 'data-ui': 'copy-agent-id' }, S.copyAgentId)),
      ),
    );
    const toolbar = h(
      doc,
      'div',
      { class: 'toolbar', role: 'group', 'aria-label': S.toolbarLabel },
      h(doc, 'button', { type: 'button', 'data-ui': 'refresh' }, S.refresh),
      h(doc, 'button', { type: 'button', 'data-ui': 'export-markdown' }, S.exportMarkdown),
      h(doc, 'button', { type: 'button', 'data-ui': 'export-json' }, S.exportJson),
      h(doc, 'button', { type: 'button', 'data-ui': 'clone' }, S.cloneRun),
    );
    const header = h(doc, 'header', { class: 'run-header' }, h(doc, 'div', { class: 'title-row' }, badge, title), dl, toolbar);

    // Banners.
    const errorText = h(doc, 'div', { class: 'banner-text', dir: 'auto' });
    const errorBanner = h(doc, 'div', { class: 'banner banner-error', role: 'alert', hidden: true }, h(doc, 'strong', {}, S.lastErrorTitle), errorText);
    const freshText = h(doc, 'span', { class: 'banner-text' });
    const freshBanner = h(
      doc,
      'div',
      { class: 'banner banner-stale', role: 'status', hidden: true },
      freshText,
      ' ',
      h(doc, 'button', { type: 'button', class: 'link-button', 'data-ui': 'refresh' }, S.refresh),
    );

    // Lifecycle.
    const lane = (label: string) => {
      const bar = h(doc, 'div', { class: 'lane-bar', 'aria-hidden': 'true' });
      const list = h(doc, 'ul', { class: 'lane-states' });
      const el = h(doc, 'div', { class: 'lane' }, h(doc, 'div', { class: 'lane-name' }, label), bar, list);
      return { el, bar, list };
    };
    const conv = lane(S.laneConversation);
    const sand = lane(S.laneSandbox);
    const lifecycleMeta = h(doc, 'div', { class: 'lifecycle-meta' });
    const stall = h(doc, 'div', { class: 'stall-warning', role: 'status', hidden: true });
    const lifecycle = h(
      doc,
      'section',
      { class: 'lifecycle', 'aria-label': S.lifecycleTitle },
      h(doc, 'h2', { class: 'section-title' }, S.lifecycleTitle),
      conv.el,
      sand.el,
      lifecycleMeta,
      stall,
    );

    // Log.
    const notices = h(doc, 'div', { class: 'notices' });
    const log = h(doc, 'div', { class: 'log', role: 'log', 'aria-label': S.transcriptLabel, 'aria-live': 'off', tabindex: 0 });
    const empty = h(doc, 'p', { class: 'log-empty', hidden: true }, S.noMessages);

    // Composer.
    const textarea = h(doc, 'textarea', {
      id: 'composer-input',
      class: 'composer-input',
      rows: 3,
      placeholder: S.composerPlaceholder,
      'aria-label': S.composerLabel,
      'aria-keyshortcuts': m.isMac ? 'Meta+Enter' : 'Control+Enter',
      maxlength: MAX_PROMPT_CHARS,
    });
    const permission = h(
      doc,
      'select',
      { class: 'composer-permission', 'aria-label': S.permissionLabel },
      h(doc, 'option', { value: '' }, S.permissionKeep),
      h(doc, 'option', { value: 'read_only' }, S.permissionReadOnly),
      h(doc, 'option', { value: 'allow_edits' }, S.permissionAllowEdits),
    );
    const branches = h(doc, 'input', {
      type: 'text',
      class: 'composer-branches',
      placeholder: S.branchesPlaceholder,
      'aria-label': S.branchesLabel,
      spellcheck: 'false',
    });
    const send = h(doc, 'button', { type: 'submit', class: 'primary' }, S.send);
    const composerStatus = h(doc, 'span', { class: 'composer-status', role: 'status' });
    const pill = h(doc, 'button', { type: 'button', class: 'new-pill', hidden: true, 'data-ui': 'pill' });
    const options = h(
      doc,
      'details',
      { class: 'composer-options' },
      h(doc, 'summary', {}, S.composerOptions),
      h(doc, 'label', {}, h(doc, 'span', {}, S.permissionLabel), permission),
      h(doc, 'label', {}, h(doc, 'span', {}, S.branchesLabel), branches),
    );
    const form = h(
      doc,
      'form',
      { class: 'composer', 'aria-label': S.composerLabel },
      textarea,
      options,
      h(doc, 'div', { class: 'composer-row' }, h(doc, 'span', { class: 'composer-hint' }, S.composerHint), composerStatus, send),
    );
    const dock = h(doc, 'div', { class: 'dock' }, pill, form);
    const announcer = h(doc, 'div', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });

    root.append(skip, header, errorBanner, freshBanner, lifecycle, notices, log, empty, dock, announcer);

    const ui: Ui = {
      header,
      badge,
      title,
      facts,
      agentId,
      errorBanner,
      errorText,
      freshBanner,
      freshText,
      lanes: { conversation: { bar: conv.bar, list: conv.list }, sandbox: { bar: sand.bar, list: sand.list } },
      lifecycleMeta,
      stall,
      notices,
      log,
      empty,
      pill,
      textarea,
      permission,
      branches,
      send,
      composerStatus,
      announcer,
    };
    this.wire(ui, form);
    return ui;
  }

  // ---------------------------------------------------------------- events

  private wire(ui: Ui, form: HTMLFormElement): void {
    if (!this.rootWired) {
      // Delegated once for the life of the page; a second `init` rebuilds only the content.
      this.rootWired = true;
      const root = this.env.root;
      root.addEventListener('click', (e) => this.onClick(e));
      root.addEventListener('auxclick', (e) => {
        // Middle-click on a link: same as a click, and never a navigation.
        if (closestFrom(e.target, '.md-link')) {
          this.onClick(e);
        }
      });
      root.addEventListener('keydown', (e) => this.onKeyDown(e));
    }
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit();
    });
    ui.textarea.addEventListener('input', () => this.onDraftInput());
    // Leaving the box (to the palette, another editor, "Reload Window") reports the draft at
    // once: the debounce could otherwise still be pending when the window goes away.
    ui.textarea.addEventListener('blur', () => this.flushDraft());
  }

  private onClick(e: Event): void {
    const link = closestFrom(e.target, '.md-link');
    if (link) {
      e.preventDefault();
      const url = link.getAttribute('data-href');
      if (url) {
        this.env.post({ type: 'openLink', url });
      }
      return;
    }
    const action = closestFrom(e.target, '[data-action]');
    if (action) {
      const article = closestFrom(action, 'article[data-key]');
      const key = article?.getAttribute('data-key');
      if (key) {
        this.onMessageAction(action.getAttribute('data-action') ?? '', keyFromDom(key));
      }
      return;
    }
    const ui = closestFrom(e.target, '[data-ui]');
    switch (ui?.getAttribute('data-ui')) {
      case 'skip':
        this.ui?.textarea.focus();
        break;
      case 'copy-agent-id':
        this.env.post({ type: 'copy', text: this.header.agentId });
        this.announce(this.strings.copied);
        break;
      case 'refresh':
        this.env.post({ type: 'refresh' });
        break;
      case 'export-markdown':
        this.env.post({ type: 'export', format: 'markdown' });
        break;
      case 'export-json':
        this.env.post({ type: 'export', format: 'json' });
        break;
      case 'clone':
        this.env.post({ type: 'clone' });
        break;
      case 'pill':
        this.hidePill();
        this.env.viewport.scrollToBottom();
        this.maybeMarkSeen();
        break;
      default:
        break;
    }
  }

  private onMessageAction(action: string, key: string): void {
    const msg = this.timeline?.get(key);
    if (!msg) {
      return;
    }
    switch (action) {
      case 'copy-message':
        if (msg.content !== undefined && msg.contentLength === undefined) {
          this.env.post({ type: 'copy', text: msg.content });
          this.announce(this.strings.copied);
        } else {
          // The webview holds only the first part of a long message; the editor shows all.
          this.env.post({ type: 'openInEditor', messageKey: key });
        }
        break;
      case 'copy-params':
        if (msg.toolParameters !== undefined && msg.toolParametersLength === undefined) {
          this.env.post({ type: 'copy', text: msg.toolParameters });
          this.announce(this.strings.copied);
        } else {
          this.env.post({ type: 'openInEditor', messageKey: key });
        }
        break;
      case 'open-in-editor':
        this.env.post({ type: 'openInEditor', messageKey: key });
        break;
      default:
        break;
    }
  }

  private onKeyDown(e: KeyboardEvent): void {
    const ui = this.ui;
    if (!ui) {
      return;
    }
    if (e.key === 'Enter') {
      const link = closestFrom(e.target, '.md-link');
      if (link) {
        this.onClick(e);
        return;
      }
      if (e.target === ui.textarea && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        this.submit();
        return;
      }
      if (e.target === ui.branches) {
        // No implicit form submission from the single-line field: sending is explicit.
        e.preventDefault();
        if (e.ctrlKey || e.metaKey) {
          this.submit();
        }
      }
    }
    // Escape in the composer is left alone: it never clears or sends anything.
  }

  // ---------------------------------------------------------------- composer

  private onDraftInput(): void {
    this.persistDraft();
    this.env.clearTimeout(this.draftTimer);
    this.draftTimer = this.env.setTimeout(() => this.flushDraft(), DRAFT_DEBOUNCE_MS);
  }

  private persistDraft(): void {
    if (this.ui && this.init) {
      this.env.setState({ agentId: this.init.agentId, draft: this.ui.textarea.value.slice(0, MAX_PROMPT_CHARS) });
    }
  }

  /** Sends the pending draft now (also used when the page is about to be hidden). */
  flushDraft(): void {
    if (!this.ui || this.draftTimer === undefined) {
      return;
    }
    this.env.clearTimeout(this.draftTimer);
    this.draftTimer = undefined;
    this.env.post({ type: 'draftChanged', text: this.ui.textarea.value.slice(0, MAX_PROMPT_CHARS) });
  }

  private submit(): void {
    const ui = this.ui;
    if (!ui || this.sendingRequest) {
      return;
    }
    const prompt = ui.textarea.value;
    if (!prompt.trim()) {
      ui.textarea.focus();
      return;
    }
    if (prompt.length > MAX_PROMPT_CHARS) {
      return;
    }
    const id = ++this.requestId;
    const msg: WebviewToExtensionMessage = { type: 'sendFollowUp', requestId: id, prompt };
    const perm = ui.permission.value;
    if (perm === 'read_only' || perm === 'allow_edits') {
      msg.permission = perm;
    }
    const branches = parseBranches(ui.branches.value);
    if (branches.length > 0) {
      msg.permittedBranches = branches;
    }
    this.sendingRequest = { id, prompt };
    ui.send.disabled = true;
    ui.send.textContent = this.strings.sending;
    ui.textarea.setAttribute('aria-busy', 'true');
    ui.composerStatus.classList.remove('error');
    setText(ui.composerStatus, '');
    this.env.post(msg);
  }

  private onFollowUpResult(requestId: number, error: string | undefined): void {
    const ui = this.ui;
    const pending = this.sendingRequest;
    if (!ui || !pending || pending.id !== requestId) {
      return;
    }
    this.sendingRequest = undefined;
    ui.send.disabled = false;
    ui.send.textContent = this.strings.send;
    ui.textarea.removeAttribute('aria-busy');
    if (error !== undefined) {
      // The text stays in the composer so nothing typed is lost.
      ui.composerStatus.classList.add('error');
      setText(ui.composerStatus, format(this.strings.sendFailed, neutralizeText(error)));
      return;
    }
    // Clear only what was sent: anything typed while sending stays.
    if (ui.textarea.value === pending.prompt) {
      ui.textarea.value = '';
    }
    ui.permission.value = '';
    ui.branches.value = '';
    this.persistDraft();
    this.env.clearTimeout(this.draftTimer);
    this.draftTimer = undefined;
    this.env.post({ type: 'draftChanged', text: ui.textarea.value });
  }

  private onDraft(text: string): void {
    const ui = this.ui;
    if (!ui) {
      return;
    }
    const focused = this.env.document.activeElement === ui.textarea;
    if (!focused || ui.textarea.value === '') {
      ui.textarea.value = text;
      this.persistDraft();
    }
  }

  // ---------------------------------------------------------------- updates

  private onUpdate(m: UpdateMessage): void {
    const ui = this.ui;
    const timeline = this.timeline;
    if (!ui || !timeline) {
      this.env.log('update before init ignored');
      return;
    }
    const wasAtBottom = this.env.viewport.isAtBottom();
    if (m.header) {
      const prevStatus = this.header.status;
      this.header = m.header;
      this.renderHeader();
      if (m.header.status !== prevStatus) {
        this.announce(this.statusLabel(m.header.status));
      }
    }
    if (m.freshness) {
      this.freshness = m.freshness;
      this.renderFreshness();
    }
    if (m.lifecycle) {
      this.lifecycle = m.lifecycle;
    }
    if (m.activity) {
      this.activity = m.activity;
    }
    if (m.lifecycle || m.activity || m.header) {
      this.renderLifecycle();
    }
    if (m.transcript) {
      this.transcriptInfo = m.transcript;
      this.renderNotices();
    }
    if (m.messages?.length || m.removedKeys?.length) {
      const r = timeline.apply(m.messages ?? [], m.removedKeys ?? []);
      this.renderEmpty();
      if (r.added > 0) {
        this.unseen = true;
        if (wasAtBottom) {
          this.env.viewport.scrollToBottom();
        } else {
          this.newCount += r.added;
          this.showPill();
        }
      } else if (wasAtBottom && r.changed > 0) {
        // A streamed message at the end grew: stay pinned to the end.
        this.env.viewport.scrollToBottom();
      }
    }
    // Where the view was before this update (the end stays in view when it was there):
    // reading it again now would lay out the document in the middle of the handler.
    this.maybeMarkSeen(wasAtBottom);
  }

  /** Called on scroll (throttled by the caller). */
  onScroll(): void {
    if (this.env.viewport.isAtBottom()) {
      this.hidePill();
      this.maybeMarkSeen();
    }
  }

  /** Called when the page becomes visible or hidden. */
  onVisibilityChange(): void {
    if (this.env.isVisible()) {
      this.maybeMarkSeen();
    } else {
      this.flushDraft();
    }
  }

  private showPill(): void {
    const ui = this.ui;
    if (!ui || this.newCount <= 0) {
      return;
    }
    setText(ui.pill, format(this.strings.newMessages, formatNumber(this.newCount, this.locale)));
    setHidden(ui.pill, false);
  }

  private hidePill(): void {
    this.newCount = 0;
    if (this.ui) {
      setHidden(this.ui.pill, true);
    }
  }

  /** Tells the extension the run was seen, when the end of the log is in view (`atBottom`, when already known). */
  private maybeMarkSeen(atBottom?: boolean): void {
    if (!this.unseen || !this.env.isVisible() || !(atBottom ?? this.env.viewport.isAtBottom())) {
      return;
    }
    const now = this.env.now();
    if (now - this.lastMarkSeen < MARK_SEEN_MIN_INTERVAL_MS) {
      return;
    }
    this.lastMarkSeen = now;
    this.unseen = false;
    this.env.post({ type: 'markSeen' });
  }

  private announce(text: string): void {
    if (this.ui) {
      // Re-setting the same text is not announced again; clear first.
      this.ui.announcer.textContent = '';
      this.ui.announcer.textContent = text;
    }
  }

  // ---------------------------------------------------------------- rendering parts

  private statusLabel(status: string | undefined): string {
    switch (status) {
      case 'queued':
        return this.strings.statusQueued;
      case 'running':
        return this.strings.statusRunning;
      case 'completed':
        return this.strings.statusCompleted;
      case 'error':
        return this.strings.statusError;
      case undefined:
        return this.strings.statusUnknown;
      default:
        return neutralizeText(status);
    }
  }

  private renderHeader(): void {
    const ui = this.ui;
    if (!ui) {
      return;
    }
    const hd = this.header;
    const S = this.strings;
    const known = ['queued', 'running', 'completed', 'error'].includes(hd.status ?? '') ? hd.status! : 'unknown';
    ui.badge.className = `status-badge status-${known}`;
    setText(ui.badge, this.statusLabel(hd.status));
    const titleParts = [hd.appId, hd.projectName].filter((p): p is string => !!p).map(neutralizeText);
    setText(ui.title, titleParts.length > 0 ? titleParts.join(' · ') : format(S.runTitle, neutralizeText(hd.agentId)));
    setText(ui.agentId, neutralizeText(hd.agentId));

    const text = (key: FactKey, value: string | undefined) => {
      const f = ui.facts[key];
      setHidden(f.row, value === undefined || value === '');
      setText(f.value, value === undefined ? '' : neutralizeText(value));
    };
    text('app', hd.appId);
    text('project', hd.projectName ?? hd.projectId);
    text('model', hd.model);
    text('effort', this.effortLabel(hd.reasoningEffort));
    text('permission', this.permissionLabel(hd.permission));
    text('branches', hd.permittedBranches && hd.permittedBranches.length > 0 ? hd.permittedBranches.join(', ') : undefined);
    this.timeFact('created', hd.createdAt);
    this.timeFact('updated', hd.updatedAt);
    this.timeFact('completed', hd.completedAt);

    if (hd.lastError) {
      const err = hd.lastError.length > MAX_ERROR_CHARS ? `${hd.lastError.slice(0, MAX_ERROR_CHARS)}…` : hd.lastError;
      setText(ui.errorText, neutralizeText(err));
      setHidden(ui.errorBanner, false);
    } else {
      setHidden(ui.errorBanner, true);
    }
  }

  private effortLabel(e: string | undefined): string | undefined {
    const S = this.strings;
    const map: Record<string, string> = { none: S.effortNone, low: S.effortLow, medium: S.effortMedium, high: S.effortHigh };
    return e === undefined ? undefined : (map[e] ?? e);
  }

  private permissionLabel(p: string | undefined): string | undefined {
    const S = this.strings;
    if (p === 'read_only') return S.permissionReadOnly;
    if (p === 'allow_edits') return S.permissionAllowEdits;
    return p;
  }

  private timeFact(key: FactKey, ts: number | undefined): void {
    const ui = this.ui!;
    const f = ui.facts[key];
    if (!isValidTimestamp(ts)) {
      setHidden(f.row, true);
      clear(f.value);
      return;
    }
    setHidden(f.row, false);
    let t = f.value.querySelector('time');
    if (!t) {
      clear(f.value);
      t = h(this.env.document, 'time', { class: 'time' });
      f.value.appendChild(t);
    }
    if (t.getAttribute('data-ts') !== String(ts)) {
      // Updated in place (an update moves "Updated" on every poll).
      t.setAttribute('data-ts', String(ts));
      t.setAttribute('datetime', new Date(ts).toISOString());
      if (this.exactTimes) {
        t.setAttribute('title', formatExactTime(ts, this.locale));
      } else {
        t.removeAttribute('title');
      }
    }
    setText(t, formatRelativeTime(ts, this.env.now(), this.locale));
  }

  /** Exact-time tooltips of the header's times that do not have one yet. */
  private fillExactTimes(): void {
    for (const t of Array.from(this.ui?.header.querySelectorAll('time[data-ts]:not([title])') ?? [])) {
      const ts = Number(t.getAttribute('data-ts'));
      if (isValidTimestamp(ts)) {
        t.setAttribute('title', formatExactTime(ts, this.locale));
      }
    }
  }

  private renderFreshness(): void {
    const ui = this.ui;
    if (!ui) {
      return;
    }
    const f = this.freshness;
    if (f.state === 'live') {
      setHidden(ui.freshBanner, true);
      return;
    }
    const when = isValidTimestamp(f.asOf) ? formatExactTime(f.asOf, this.locale) : '—';
    const base = format(f.state === 'offline' ? this.strings.offlineAsOf : this.strings.staleAsOf, when);
    setText(ui.freshText, f.detail ? `${base} — ${neutralizeText(f.detail)}` : base);
    ui.freshBanner.classList.toggle('offline', f.state === 'offline');
    setHidden(ui.freshBanner, false);
  }

  private renderLifecycle(): void {
    const ui = this.ui;
    if (!ui) {
      return;
    }
    const now = this.env.now();
    const lc = this.lifecycle;
    const doc = this.env.document;
    for (const name of ['conversation', 'sandbox'] as const) {
      const lane = lc[name];
      const { bar, list } = ui.lanes[name];
      const durations = laneDurations(lane, now, lc.endedAt);
      const total = durations.reduce((s, d) => s + d.ms, 0);
      const grow = (ms: number) => String(total > 0 ? Math.max(ms / total, 0.02) : 1);
      // The same states as shown (the usual case on an update or a tick): only the times and
      // the bar's proportions change, in place.
      const shape = JSON.stringify(durations.map((d) => [d.state, d.current]));
      if (shape === this.lanesShown[name] && durations.length === 0) {
        continue;
      }
      if (shape === this.lanesShown[name] && bar.children.length === durations.length && list.children.length === durations.length) {
        durations.forEach((d, i) => {
          const seg = bar.children[i] as HTMLElement;
          const value = grow(d.ms);
          if (seg.style.flexGrow !== value) {
            seg.style.flexGrow = value;
          }
          const dur = list.children[i]?.querySelector('.dur');
          if (dur) {
            setText(dur, formatDuration(d.ms, this.locale));
          }
        });
        continue;
      }
      this.lanesShown[name] = shape;
      // Otherwise rebuilt: a lane holds a handful of states, and nothing in it is focusable.
      clear(bar);
      clear(list);
      if (durations.length === 0) {
        list.appendChild(h(doc, 'li', { class: 'lane-none' }, this.strings.laneNotReported));
        continue;
      }
      durations.forEach((d, i) => {
        const seg = h(doc, 'span', { class: `seg seg-c${i % 6}${d.current ? ' current' : ''}` });
        // CSSOM writes are allowed under the style-src CSP (unlike style attributes).
        seg.style.flexGrow = grow(d.ms);
        bar.appendChild(seg);
        const li = h(
          doc,
          'li',
          { class: `lane-state seg-c${i % 6}${d.current ? ' current' : ''}`, 'aria-current': d.current ? 'true' : undefined },
          h(doc, 'span', { class: 'swatch', 'aria-hidden': 'true' }),
          h(doc, 'bdi', {}, neutralizeText(d.state)),
          ' ',
          h(doc, 'span', { class: 'dur' }, formatDuration(d.ms, this.locale)),
        );
        list.appendChild(li);
      });
    }
    const meta: string[] = [];
    if (lc.queuedTurnCount !== undefined) {
      const n = lc.queuedTurnCount;
      meta.push(n === 0 ? this.strings.noQueuedTurns : format(n === 1 ? this.strings.queuedTurn : this.strings.queuedTurns, formatNumber(n, this.locale)));
    }
    if (isValidTimestamp(lc.lastLifecycleEventAt)) {
      meta.push(format(this.strings.lastLifecycleEvent, formatRelativeTime(lc.lastLifecycleEventAt, now, this.locale)));
    }
    setText(ui.lifecycleMeta, meta.join(' · '));

    const stall = stallCheck({
      status: this.header.status,
      lastActivityAt: this.activity.lastActivityAt,
      now,
      stallAfterMs: this.activity.stallAfterMs,
    });
    if (stall.stalled) {
      setText(ui.stall, format(this.strings.stalled, formatDuration(stall.idleMs, this.locale)));
    }
    setHidden(ui.stall, !stall.stalled);
  }

  private renderNotices(): void {
    const ui = this.ui;
    if (!ui) {
      return;
    }
    const t = this.transcriptInfo;
    const doc = this.env.document;
    clear(ui.notices);
    if (t.earlierMessagesUnavailable) {
      const text = t.missingMessageCount > 0
        ? `${this.strings.earlierUnavailable} ${format(this.strings.missingMessages, formatNumber(t.missingMessageCount, this.locale))}`
        : this.strings.earlierUnavailable;
      ui.notices.appendChild(h(doc, 'p', { class: 'notice notice-earlier' }, text));
    }
    if (t.droppedMessageCount > 0) {
      ui.notices.appendChild(
        h(doc, 'p', { class: 'notice notice-dropped' }, format(this.strings.droppedMessages, formatNumber(t.droppedMessageCount, this.locale))),
      );
    }
  }

  private renderEmpty(): void {
    if (this.ui && this.timeline) {
      setHidden(this.ui.empty, this.timeline.size > 0);
    }
  }

  private scheduleTick(): void {
    this.env.clearTimeout(this.tickTimer);
    this.tickTimer = this.env.setTimeout(() => {
      if (this.disposed) {
        return;
      }
      this.ticks++;
      this.renderLifecycle();
      if (this.ticks % TIMES_EVERY_TICKS === 0) {
        this.refreshTimes();
      }
      this.scheduleTick();
    }, TICK_MS);
  }

  private refreshTimes(): void {
    const now = this.env.now();
    this.timeline?.refreshTimes(now, this.locale);
    if (this.ui) {
      for (const t of Array.from(this.ui.header.querySelectorAll('time[data-ts]'))) {
        const ts = Number(t.getAttribute('data-ts'));
        if (Number.isFinite(ts)) {
          setText(t, formatRelativeTime(ts, now, this.locale));
        }
      }
    }
  }
}

/** "main, release/1.2  feature-x" → ["main", "release/1.2", "feature-x"], deduplicated. */
export function parseBranches(text: string): string[] {
  const out: string[] = [];
  for (const b of text.split(/[\s,]+/)) {
    const t = b.trim().slice(0, 255);
    if (t && !out.includes(t)) {
      out.push(t);
    }
    if (out.length >= MAX_BRANCHES) {
      break;
    }
  }
  return out;
}
