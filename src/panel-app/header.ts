/**
 * The panel's header: status badge, title, the run's facts, the toolbar, and the error and
 * freshness banners. Re-filled in place on every update (an update moves "Updated" each poll).
 */
import { format, type Freshness, type RunHeader, type WebviewStrings } from '../core/panel/protocol';
import { formatExactTime, formatRelativeTime, isValidTimestamp, neutralizeText } from '../core/panel/render';
import { clear, h, setHidden, setText } from './dom';

type FactKey = 'app' | 'project' | 'model' | 'effort' | 'permission' | 'branches' | 'created' | 'updated' | 'completed';

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

export class HeaderView {
  readonly header: HTMLElement;
  readonly errorBanner: HTMLElement;
  readonly freshBanner: HTMLElement;
  private readonly badge: HTMLElement;
  /** "Code review" beside the status, for a code review's conversation. */
  private readonly kind: HTMLElement;
  private readonly clone: HTMLElement;
  private readonly title: HTMLElement;
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
    const toolbar = h(
      doc,
      'div',
      { class: 'toolbar', role: 'group', 'aria-label': S.toolbarLabel },
      h(doc, 'button', { type: 'button', 'data-ui': 'refresh' }, S.refresh),
      h(doc, 'button', { type: 'button', 'data-ui': 'export-markdown' }, S.exportMarkdown),
      h(doc, 'button', { type: 'button', 'data-ui': 'export-json' }, S.exportJson),
      this.clone,
      h(doc, 'button', { type: 'button', 'data-ui': 'find', title: S.findOpen, 'aria-keyshortcuts': 'Control+F Meta+F' }, S.findPlaceholder),
    );
    this.header = h(doc, 'header', { class: 'run-header' }, h(doc, 'div', { class: 'title-row' }, this.badge, this.kind, this.title), dl, toolbar);

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

  render(hd: RunHeader, now: number): void {
    const S = this.S;
    const known = ['queued', 'running', 'completed', 'error'].includes(hd.status ?? '') ? hd.status! : 'unknown';
    this.badge.className = `status-badge status-${known}`;
    setText(this.badge, statusLabel(hd.status, S));
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
