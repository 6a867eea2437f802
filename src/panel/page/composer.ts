/**
 * The follow-up composer. Whether a follow-up is sending is the extension's to say (`send`,
 * `sendState`) so it survives reloads; `uncertain` (it may have reached the service) offers Resend
 * or Edit. The page's own guard covers click-to-first-answer, so a double click cannot post twice.
 */
import {
  format,
  isPermissionValue,
  MAX_BRANCHES,
  MAX_PROMPT_CHARS,
  type SendState,
  type WebviewStrings,
  type WebviewToExtensionMessage,
} from '../common/protocol';
import { neutralizeText } from '../common/render';
import { h, setHidden, setText } from './dom';

const DRAFT_DEBOUNCE_MS = 400;

export interface ComposerDeps {
  post(message: WebviewToExtensionMessage): void;
  /** Keeps the draft in the webview state at once (a reload before the debounce keeps it). */
  saveDraft(text: string): void;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  activeElement(): Element | null;
}

export class Composer {
  readonly dock: HTMLElement;
  readonly pill: HTMLButtonElement;
  readonly textarea: HTMLTextAreaElement;
  readonly branches: HTMLInputElement;
  private readonly permission: HTMLSelectElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly status: HTMLElement;
  private readonly uncertain: HTMLElement;
  private readonly form: HTMLFormElement;
  /** Shown instead of the form when the conversation takes no follow-ups. */
  private readonly closedLine: HTMLElement;
  private closed = false;
  private requestId = 0;
  /** The last follow-up posted, until its result: what to clear on success. */
  private pending: { id: number; prompt: string } | undefined;
  /** Set between posting and the extension's first word on it (sendState or followUpResult). */
  private submitted = false;
  private send: SendState | undefined;
  /** The text typed before a send state took the box over, given back when it ends. */
  private ownText: string | undefined;
  private draftTimer: unknown;

  constructor(
    doc: Document,
    private readonly S: WebviewStrings,
    isMac: boolean,
    private readonly deps: ComposerDeps,
  ) {
    this.textarea = h(doc, 'textarea', {
      id: 'composer-input',
      class: 'composer-input',
      rows: 3,
      placeholder: S.composerPlaceholder,
      'aria-label': S.composerLabel,
      'aria-keyshortcuts': isMac ? 'Meta+Enter' : 'Control+Enter',
      maxlength: MAX_PROMPT_CHARS,
    });
    this.permission = h(
      doc,
      'select',
      { class: 'composer-permission', 'aria-label': S.permissionLabel },
      h(doc, 'option', { value: '' }, S.permissionKeep),
      h(doc, 'option', { value: 'read_only' }, S.permissionReadOnly),
      h(doc, 'option', { value: 'allow_edits' }, S.permissionAllowEdits),
    );
    this.branches = h(doc, 'input', { type: 'text', class: 'composer-branches', placeholder: S.branchesPlaceholder, 'aria-label': S.branchesLabel, spellcheck: 'false' });
    this.sendButton = h(doc, 'button', { type: 'submit', class: 'primary' }, S.send);
    this.status = h(doc, 'span', { class: 'composer-status', role: 'status' });
    this.pill = h(doc, 'button', { type: 'button', class: 'new-pill', hidden: true, 'data-ui': 'pill', 'aria-keyshortcuts': isMac ? 'Meta+End' : 'Control+End' });
    this.uncertain = h(
      doc,
      'div',
      { class: 'notice notice-uncertain', role: 'alert', hidden: true },
      h(doc, 'span', {}, S.sendUncertain),
      ' ',
      h(doc, 'button', { type: 'button', 'data-ui': 'resend' }, S.resend),
      ' ',
      h(doc, 'button', { type: 'button', class: 'secondary', 'data-ui': 'edit-follow-up' }, S.editFollowUp),
    );
    const options = h(
      doc,
      'details',
      { class: 'composer-options' },
      h(doc, 'summary', {}, S.composerOptions),
      h(doc, 'label', {}, h(doc, 'span', {}, S.permissionLabel), this.permission),
      h(doc, 'label', {}, h(doc, 'span', {}, S.branchesLabel), this.branches),
    );
    const form = (this.form = h(
      doc,
      'form',
      { class: 'composer', 'aria-label': S.composerLabel },
      this.uncertain,
      this.textarea,
      options,
      h(doc, 'div', { class: 'composer-row' }, h(doc, 'span', { class: 'composer-hint' }, S.composerHint), this.status, this.sendButton),
    ));
    this.closedLine = h(doc, 'p', { class: 'composer-closed', role: 'note', hidden: true, 'data-ui': 'no-follow-ups' }, S.noFollowUps);
    this.dock = h(doc, 'div', { class: 'dock' }, this.pill, form, this.closedLine);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit();
    });
    this.textarea.addEventListener('input', () => this.onInput());
    // Leaving the box (to the palette, another editor, "Reload Window") reports the draft at
    // once: the debounce could otherwise still be pending when the window goes away.
    this.textarea.addEventListener('blur', () => this.flushDraft());
  }

  /** The draft on `init`: the host's copy wins; a local one not yet reported fills in. */
  start(hostDraft: string, localDraft: string, send: SendState | undefined): void {
    const draft = hostDraft || localDraft;
    this.textarea.value = draft;
    if (!hostDraft && localDraft) {
      this.deps.post({ type: 'draftChanged', text: localDraft.slice(0, MAX_PROMPT_CHARS), restored: true });
    }
    this.deps.saveDraft(this.text());
    this.setSendState(send);
  }

  /** The text the user is writing (not a prompt shown while it is being sent). */
  text(): string {
    return (this.send ? (this.ownText ?? '') : this.textarea.value).slice(0, MAX_PROMPT_CHARS);
  }

  get locked(): boolean {
    return this.closed || this.submitted || this.send !== undefined;
  }

  /** Whether the conversation takes follow-ups; when not, a line replaces the box and what was typed stays the run's draft. */
  setTakesFollowUps(takes: boolean): void {
    this.closed = !takes;
    setHidden(this.form, this.closed);
    setHidden(this.closedLine, !this.closed);
    this.showLock();
  }

  setSendState(send: SendState | undefined): void {
    this.submitted = false;
    const was = this.send;
    this.send = send;
    const ta = this.textarea;
    if (send) {
      if (!was) {
        this.ownText = ta.value === send.prompt ? undefined : ta.value;
      }
      ta.value = send.prompt;
      ta.setAttribute('readonly', '');
    } else if (was) {
      // Settled: the sent text leaves the composer (the history shows it). When it was not sent,
      // the text comes back: by followUpResult (a failure) or the `draft` message (Edit).
      ta.removeAttribute('readonly');
      ta.value = this.ownText ?? '';
      this.ownText = undefined;
    }
    setHidden(this.uncertain, send?.state !== 'uncertain');
    if (send?.state === 'uncertain') {
      // The notice says what happened; a "Not sent" line beside it would contradict it.
      this.clearError();
    }
    this.showLock();
  }

  private clearError(): void {
    this.status.classList.remove('error');
    setText(this.status, '');
  }

  private showLock(): void {
    const sending = this.submitted || this.send?.state === 'sending';
    this.sendButton.disabled = this.locked;
    this.sendButton.textContent = sending ? this.S.sending : this.S.send;
    if (sending) {
      this.textarea.setAttribute('aria-busy', 'true');
    } else {
      this.textarea.removeAttribute('aria-busy');
    }
  }

  submit(): void {
    if (this.locked) {
      return;
    }
    const prompt = this.textarea.value;
    if (!prompt.trim()) {
      this.textarea.focus();
      return;
    }
    if (prompt.length > MAX_PROMPT_CHARS) {
      return;
    }
    const id = ++this.requestId;
    const msg: WebviewToExtensionMessage = { type: 'sendFollowUp', requestId: id, prompt };
    const perm = this.permission.value;
    if (isPermissionValue(perm)) {
      msg.permission = perm;
    }
    const branches = parseBranches(this.branches.value);
    if (branches.length > 0) {
      msg.permittedBranches = branches;
    }
    this.pending = { id, prompt };
    this.submitted = true;
    this.showLock();
    this.status.classList.remove('error');
    setText(this.status, '');
    this.deps.post(msg);
  }

  onFollowUpResult(requestId: number, error: string | undefined): void {
    const pending = this.pending;
    if (!pending || pending.id !== requestId) {
      return;
    }
    this.pending = undefined;
    this.submitted = false;
    this.showLock();
    if (error !== undefined && this.send?.state === 'uncertain') {
      // It may have arrived: the uncertain notice (Resend / Edit) speaks for it.
      return;
    }
    if (error !== undefined) {
      // Not sent: the text comes back to the composer so nothing typed is lost (also when the
      // lock is still lifting: then with it).
      if (this.send) {
        this.ownText ??= pending.prompt;
      } else if (this.textarea.value.trim() === '') {
        this.textarea.value = pending.prompt;
      }
      this.status.classList.add('error');
      setText(this.status, format(this.S.sendFailed, neutralizeText(error)));
      return;
    }
    // Clear only what was sent: anything typed while sending stays.
    if (!this.send && this.textarea.value === pending.prompt) {
      this.textarea.value = '';
    }
    this.permission.value = '';
    this.branches.value = '';
    this.deps.saveDraft(this.text());
    this.deps.clearTimeout(this.draftTimer);
    this.draftTimer = undefined;
    this.deps.post({ type: 'draftChanged', text: this.text() });
  }

  /** The draft changed elsewhere (another panel, the palette): taken unless it is being typed. */
  onDraft(text: string): void {
    if (this.send) {
      this.ownText = text;
      return;
    }
    if (this.deps.activeElement() !== this.textarea || this.textarea.value === '') {
      this.textarea.value = text;
      this.deps.saveDraft(this.text());
    }
  }

  private onInput(): void {
    this.deps.saveDraft(this.text());
    this.deps.clearTimeout(this.draftTimer);
    this.draftTimer = this.deps.setTimeout(() => this.flushDraft(), DRAFT_DEBOUNCE_MS);
  }

  /** Sends the pending draft now (also used when the page is about to be hidden). */
  flushDraft(): void {
    if (this.draftTimer === undefined) {
      return;
    }
    this.deps.clearTimeout(this.draftTimer);
    this.draftTimer = undefined;
    this.deps.post({ type: 'draftChanged', text: this.text() });
  }

  dispose(): void {
    this.deps.clearTimeout(this.draftTimer);
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
