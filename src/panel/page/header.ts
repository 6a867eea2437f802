/**
 * The panel's header (sticky status bar, details, toolbar, error and freshness banners), re-filled
 * in place on every update since "Updated" moves each poll.
 */
import { format, shownReviewStatus, type Freshness, type LifecycleView, type PanelHeader, type WebviewStrings } from '../common/protocol';
import { formatExactTime, formatRelativeTime, isValidTimestamp, neutralizeText } from '../common/render';
import { clear, h, setHidden, setText } from './dom';

type FactKey = 'conversation' | 'app' | 'project' | 'model' | 'effort' | 'permission' | 'branches' | 'created' | 'updated' | 'completed';

const MAX_ERROR_CHARS = 4_000;

export function statusLabel(status: string | undefined, S: WebviewStrings): string {
  switch (status) {
    case 'queued':
      return S.statusQueued;
    case 'running':
      return S.statusRunning;
    case 'completed':
      return S.statusCompleted;
    case 'error':
      return S.statusError;
    case undefined:
      return S.statusUnknown;
    default:
      return neutralizeText(status);
  }
}

/**
 * What the status badge (and the tab title) says: the run's status, or a code review's own once
 * known unless its conversation failed (a review stays open after its conversation completed).
 */
export function shownStatus(hd: PanelHeader, reviewStatus: string | undefined, S: WebviewStrings): { cls: string; label: string; review: boolean } {
  const review = shownReviewStatus(hd.codeReview === true, hd.status, reviewStatus);
  if (review !== undefined) {
    return { cls: 'status-review', label: neutralizeText(review), review: true };
  }
  const known = ['queued', 'running', 'completed', 'error'].includes(hd.status ?? '') ? hd.status! : 'unknown';
  return { cls: `status-${known}`, label: statusLabel(hd.status, S), review: false };
}

export class HeaderView {
  /** The sticky part: the bar, and the details it opens over the history. */
  readonly header: HTMLElement;
  readonly toolbar: HTMLElement;
  /** Where the lifecycle lanes go (page.ts puts them there). */
  readonly details: HTMLElement;
  /** The review's status, for a code review's conversation (see `shownStatus`). */
  reviewStatus: string | undefined;
  readonly errorBanner: HTMLElement;
  readonly freshBanner: HTMLElement;
  private readonly badge: HTMLElement;
  /** "Code review" beside the status, for a code review's conversation. */
  private readonly kind: HTMLElement;
  private readonly clone: HTMLElement;
  private readonly title: HTMLElement;
  private readonly turn: HTMLElement;
  private readonly model: HTMLElement;
  private readonly lanes: HTMLElement;
  private readonly toggle: HTMLElement;
  private readonly facts = {} as Record<FactKey, { row: HTMLElement; value: HTMLElement }>;
  private readonly agentId: HTMLElement;
  private readonly errorText: HTMLElement;
  private readonly freshText: HTMLElement;
  /** Exact times (tooltips) are filled in once the first paint is done. */
  private exactTimes = false;

  constructor(
    private readonly doc: Document,
    private readonly S: WebviewStrings,
    private readonly locale: string,
  ) {
    this.badge = h(doc, 'span', { class: 'status-badge' });
    this.kind = h(doc, 'span', { class: 'kind-badge', hidden: true }, S.kindCodeReview);
    this.title = h(doc, 'h1', { class: 'run-title', dir: 'auto' });
    const factKeys: [FactKey, string][] = [
      ['conversation', S.laneConversation],
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
    const dl = h(doc, 'dl', { class: 'facts' });
    for (const [key, label] of factKeys) {
      const value = h(doc, 'dd', { dir: 'auto' });
      const row = h(doc, 'div', { class: `fact fact-${key}` }, h(doc, 'dt', {}, label), value);
      this.facts[key] = { row, value };
      dl.appendChild(row);
    }
    this.agentId = h(doc, 'code', { class: 'agent-id' });
    const copy = h(doc, 'button', { type: 'button', class: 'link-button', 'data-ui': 'copy-agent-id' }, S.copyAgentId);
    dl.appendChild(h(doc, 'div', { class: 'fact fact-agent' }, h(doc, 'dt', {}, S.fieldAgentId), h(doc, 'dd', {}, this.agentId, ' ', copy)));
    this.clone = h(doc, 'button', { type: 'button', 'data-ui': 'clone' }, S.cloneRun);
    this.toolbar = h(
      doc,
      'div',
      { class: 'toolbar', role: 'group', 'aria-label': S.toolbarLabel },
      h(doc, 'button', { type: 'button', 'data-ui': 'refresh' }, S.refresh),
      h(doc, 'button', { type: 'button', 'data-ui': 'export-markdown' }, S.exportMarkdown),
      h(doc, 'button', { type: 'button', 'data-ui': 'export-json' }, S.exportJson),
      this.clone,
      h(doc, 'button', { type: 'button', 'data-ui': 'find', title: S.findOpen, 'aria-keyshortcuts': 'Control+F Meta+F' }, S.findPlaceholder),
    );
    this.turn = h(doc, 'span', { class: 'bar-item bar-turn', hidden: true });
    this.model = h(doc, 'span', { class: 'bar-item bar-model', dir: 'auto', hidden: true });
    this.lanes = h(doc, 'span', { class: 'bar-item bar-lifecycle', hidden: true });
    this.details = h(doc, 'div', { class: 'run-details', id: 'run-details', role: 'region', 'aria-label': S.headerDetails, hidden: true }, h(doc, 'div', { class: 'title-row' }, this.title), dl);
    this.toggle = h(doc, 'button', { type: 'button', class: 'bar-toggle', 'aria-expanded': 'false', 'aria-controls': 'run-details' }, S.headerDetails);
    this.toggle.addEventListener('click', () => this.setExpanded(this.toggle.getAttribute('aria-expanded') !== 'true'));
    this.header = h(
      doc,
      'header',
      { class: 'run-header' },
      h(doc, 'div', { class: 'run-bar' }, this.badge, this.kind, this.turn, this.model, this.lanes, this.toggle),
      this.details,
    );
    // Escape closes the details from anywhere in them, and the focus goes back to the button.
    this.header.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.expanded) {
        e.preventDefault();
        e.stopPropagation();
        this.setExpanded(false);
        this.toggle.focus();
      }
    });

    this.errorText = h(doc, 'div', { class: 'banner-text', dir: 'auto' });
    this.errorBanner = h(doc, 'div', { class: 'banner banner-error', role: 'alert', hidden: true }, h(doc, 'strong', {}, S.lastErrorTitle), this.errorText);
    this.freshText = h(doc, 'span', { class: 'banner-text' });
    this.freshBanner = h(
      doc,
      'div',
      { class: 'banner banner-stale', role: 'status', hidden: true },
      this.freshText,
      ' ',
      h(doc, 'button', { type: 'button', class: 'link-button', 'data-ui': 'refresh' }, S.refresh),
    );
  }

  get expanded(): boolean {
    return this.toggle.getAttribute('aria-expanded') === 'true';
  }

  /** Opens or closes the details (they lie over the history: nothing below them moves). */
  setExpanded(open: boolean): void {
    this.toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
    setHidden(this.details, !open);
  }

  render(hd: PanelHeader, now: number): void {
    const S = this.S;
    const shown = shownStatus(hd, this.reviewStatus, S);
    this.badge.className = `status-badge ${shown.cls}`;
    setText(this.badge, shown.label);
    barItem(this.model, hd.model === undefined ? undefined : neutralizeText(hd.model));
    setHidden(this.kind, hd.codeReview !== true);
    // A code review's conversation is started as a review, not from a prompt: nothing to clone.
    setHidden(this.clone, hd.codeReview === true);
    const titleParts = [hd.appId, hd.projectName].filter((p): p is string => !!p).map(neutralizeText);
    setText(this.title, titleParts.length > 0 ? titleParts.join(' · ') : format(S.runTitle, neutralizeText(hd.agentId)));
    setText(this.agentId, neutralizeText(hd.agentId));

    const text = (key: FactKey, value: string | undefined) => {
      const f = this.facts[key];
      setHidden(f.row, value === undefined || value === '');
      setText(f.value, value === undefined ? '' : neutralizeText(value));
    };
    const efforts: Record<string, string> = { none: S.effortNone, low: S.effortLow, medium: S.effortMedium, high: S.effortHigh };
    const permissions: Record<string, string> = { read_only: S.permissionReadOnly, allow_edits: S.permissionAllowEdits };
    // The conversation's own status, when the badge shows the review's.
    text('conversation', shown.review ? statusLabel(hd.status, S) : undefined);
    text('app', hd.appId);
    text('project', hd.projectName ?? hd.projectId);
    text('model', hd.model);
    text('effort', hd.reasoningEffort === undefined ? undefined : (efforts[hd.reasoningEffort] ?? hd.reasoningEffort));
    text('permission', hd.permission === undefined ? undefined : (permissions[hd.permission] ?? hd.permission));
    text('branches', hd.permittedBranches && hd.permittedBranches.length > 0 ? hd.permittedBranches.join(', ') : undefined);
    this.timeFact('created', hd.createdAt, now);
    this.timeFact('updated', hd.updatedAt, now);
    this.timeFact('completed', hd.completedAt, now);

    if (hd.lastError) {
      const err = hd.lastError.length > MAX_ERROR_CHARS ? `${hd.lastError.slice(0, MAX_ERROR_CHARS)}…` : hd.lastError;
      setText(this.errorText, neutralizeText(err));
      setHidden(this.errorBanner, false);
    } else {
      setHidden(this.errorBanner, true);
    }
  }

  /** The bar's turn: how many prompts the history holds (none yet: not shown). */
  renderTurn(prompts: number): void {
    barItem(this.turn, prompts > 0 ? format(this.S.turnNumber, prompts) : undefined);
  }

  /** The bar's lifecycle: each lane's current state. */
  renderLanes(lc: LifecycleView): void {
    const S = this.S;
    const parts = (
      [
        [S.laneConversation, lc.conversation.current],
        [S.laneSandbox, lc.sandbox.current],
      ] as const
    )
      .filter((p): p is readonly [string, string] => p[1] !== undefined && p[1] !== '')
      .map(([lane, state]) => format(S.laneNow, lane, neutralizeText(state)));
    barItem(this.lanes, parts.length > 0 ? parts.join(' · ') : undefined);
  }

  private timeFact(key: FactKey, ts: number | undefined, now: number): void {
    const f = this.facts[key];
    if (!isValidTimestamp(ts)) {
      setHidden(f.row, true);
      clear(f.value);
      return;
    }
    setHidden(f.row, false);
    let t = f.value.querySelector('time');
    if (!t) {
      clear(f.value);
      t = h(this.doc, 'time', { class: 'time' });
      f.value.appendChild(t);
    }
    if (t.getAttribute('data-ts') !== String(ts)) {
      t.setAttribute('data-ts', String(ts));
      t.setAttribute('datetime', new Date(ts).toISOString());
      if (this.exactTimes) {
        t.setAttribute('title', formatExactTime(ts, this.locale));
      } else {
        t.removeAttribute('title');
      }
    }
    setText(t, formatRelativeTime(ts, now, this.locale));
  }

  /** Exact-time tooltips of the times that do not have one yet (not needed for the first paint). */
  fillExactTimes(): void {
    this.exactTimes = true;
    for (const t of Array.from(this.header.querySelectorAll('time[data-ts]:not([title])'))) {
      const ts = Number(t.getAttribute('data-ts'));
      if (isValidTimestamp(ts)) {
        t.setAttribute('title', formatExactTime(ts, this.locale));
      }
    }
  }

  refreshTimes(now: number): void {
    for (const t of Array.from(this.header.querySelectorAll('time[data-ts]'))) {
      const ts = Number(t.getAttribute('data-ts'));
      if (Number.isFinite(ts)) {
        setText(t, formatRelativeTime(ts, now, this.locale));
      }
    }
  }

  renderFreshness(f: Freshness): void {
    if (f.state === 'live') {
      setHidden(this.freshBanner, true);
      return;
    }
    const when = isValidTimestamp(f.asOf) ? formatExactTime(f.asOf, this.locale) : '—';
    const base = format(f.state === 'offline' ? this.S.offlineAsOf : this.S.staleAsOf, when);
    setText(this.freshText, f.detail ? `${base} — ${neutralizeText(f.detail)}` : base);
    this.freshBanner.classList.toggle('offline', f.state === 'offline');
    setHidden(this.freshBanner, false);
  }
}

/** Shows `value` in a bar item, or hides the item. */
function barItem(el: HTMLElement, value: string | undefined): void {
  setHidden(el, value === undefined);
  setText(el, value ?? '');
  if (value !== undefined) {
    // Cut to one line in the bar: the whole of it on hover.
    el.setAttribute('title', value);
  }
}
