/**
 * The page's clicks and keys, delegated once on the root. Ctrl/Cmd+F opens our find because VS
 * Code's cannot see unmounted messages; Alt+Up/Down and Ctrl/Cmd+End are left to text fields.
 */
import type { WebviewToExtensionMessage, WireMessage } from '../common/protocol';
import { keyFromDom } from '../common/render';
import { closestFrom } from './dom';
import type { RoleFilter } from './findBar';
import type { Page } from './page';

export type UiCommand =
  | 'skip'
  | 'copy-agent-id'
  | 'refresh'
  | 'export-markdown'
  | 'export-json'
  | 'clone'
  | 'pill'
  | 'find'
  | 'find-next'
  | 'find-prev'
  | 'find-close'
  | 'prev-prompt'
  | 'next-prompt'
  | 'latest'
  | 'resend'
  | 'edit-follow-up';

export interface EventHandlers {
  openLink(url: string): void;
  messageAction(action: string, key: string): void;
  command(cmd: UiCommand): void;
  toggleFilter(f: RoleFilter): void;
  /** Ctrl/Cmd+Enter in the composer. */
  submit(): void;
  isFindInput(target: EventTarget | null): boolean;
  isComposer(target: EventTarget | null): boolean;
  isBranches(target: EventTarget | null): boolean;
}

const COMMANDS = new Set<string>([
  'skip', 'copy-agent-id', 'refresh', 'export-markdown', 'export-json', 'clone', 'pill', 'find', 'find-next', 'find-prev',
  'find-close', 'prev-prompt', 'next-prompt', 'latest', 'resend', 'edit-follow-up',
]);

export function onClick(e: Event, on: EventHandlers): void {
  const link = closestFrom(e.target, '.md-link');
  if (link) {
    e.preventDefault();
    const url = link.getAttribute('data-href');
    if (url) {
      on.openLink(url);
    }
    return;
  }
  const action = closestFrom(e.target, '[data-action]');
  if (action) {
    const key = closestFrom(action, 'article[data-key]')?.getAttribute('data-key');
    if (key) {
      on.messageAction(action.getAttribute('data-action') ?? '', keyFromDom(key));
    }
    return;
  }
  const filter = closestFrom(e.target, '[data-filter]')?.getAttribute('data-filter');
  if (filter === 'prompts' || filter === 'agent' || filter === 'tools' || filter === 'errors') {
    on.toggleFilter(filter);
    return;
  }
  const cmd = closestFrom(e.target, '[data-ui]')?.getAttribute('data-ui');
  if (cmd && COMMANDS.has(cmd)) {
    on.command(cmd as UiCommand);
  }
}

function isTextField(target: EventTarget | null): boolean {
  const el = target as Element | null;
  return !!el && typeof el.closest === 'function' && el.closest('textarea, input, select, [contenteditable]') !== null;
}

/** Handles a key: true when it was ours (default prevented, not passed on to VS Code). */
function route(e: KeyboardEvent, on: EventHandlers): boolean {
  const mod = e.ctrlKey || e.metaKey;
  if (mod && !e.altKey && !e.shiftKey && (e.key === 'f' || e.key === 'F')) {
    on.command('find');
    return true;
  }
  if (on.isFindInput(e.target)) {
    if (e.key === 'Enter') {
      on.command(e.shiftKey ? 'find-prev' : 'find-next');
      return true;
    }
    if (e.key === 'Escape') {
      on.command('find-close');
      return true;
    }
  }
  if (!isTextField(e.target)) {
    if (e.altKey && !mod && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) {
      on.command(e.key === 'ArrowUp' ? 'prev-prompt' : 'next-prompt');
      return true;
    }
    // End, with or without Ctrl/Cmd: the newest message, followed. The browser's own End is a
    // smooth scroll to where the end was when it began; the rows it passes are measured on the
    // way and move the end, so it stopped thousands of pixels short.
    if (e.key === 'End' && !e.altKey && !e.shiftKey) {
      on.command('latest');
      return true;
    }
  }
  return false;
}

export function onKeyDown(e: KeyboardEvent, on: EventHandlers): void {
  if (route(e, on)) {
    e.preventDefault();
    e.stopPropagation();
    return;
  }
  if (e.key !== 'Enter') {
    // Escape in the composer is left alone: it never clears or sends anything.
    return;
  }
  if (closestFrom(e.target, '.md-link')) {
    onClick(e, on);
    return;
  }
  if (on.isComposer(e.target) && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    on.submit();
    return;
  }
  if (on.isBranches(e.target)) {
    // No implicit form submission from the single-line field: sending is explicit.
    e.preventDefault();
    if (e.ctrlKey || e.metaKey) {
      on.submit();
    }
  }
}

/** A message's own action (copy, open in the editor); true when something was copied. */
export function messageAction(msg: WireMessage, action: string, post: (m: WebviewToExtensionMessage) => void): boolean {
  const copyOrOpen = (text: string | undefined, cut: number | undefined): boolean => {
    if (text !== undefined && cut === undefined) {
      post({ type: 'copy', text });
      return true;
    }
    // The webview holds only the first part of a long message; the editor shows all.
    post({ type: 'openInEditor', messageKey: msg.key });
    return false;
  };
  switch (action) {
    case 'copy-message':
      return copyOrOpen(msg.content, msg.contentLength);
    case 'copy-params':
      return copyOrOpen(msg.toolParameters, msg.toolParametersLength);
    case 'open-in-editor':
      post({ type: 'openInEditor', messageKey: msg.key });
      return false;
    default:
      return false;
  }
}

export interface CommandContext {
  post(message: WebviewToExtensionMessage): void;
  announce(text: string): void;
  toLatest(): void;
  /** The view moved (saved for a reload). */
  moved(): void;
}

/** A button's or a key's command, on the page's parts. */
export function runCommand(cmd: UiCommand, p: Page, ctx: CommandContext): void {
  switch (cmd) {
    case 'skip':
      return p.composer.textarea.focus();
    case 'copy-agent-id':
      ctx.post({ type: 'copy', text: p.header.agentId });
      return ctx.announce(p.S.copied);
    case 'refresh':
      return ctx.post({ type: 'refresh' });
    case 'export-markdown':
      return ctx.post({ type: 'export', format: 'markdown' });
    case 'export-json':
      return ctx.post({ type: 'export', format: 'json' });
    case 'clone':
      return ctx.post({ type: 'clone' });
    case 'resend':
      return ctx.post({ type: 'resendFollowUp' });
    case 'edit-follow-up':
      return ctx.post({ type: 'discardFollowUp' });
    case 'find':
      return p.find.open();
    case 'find-next':
      return p.find.step(1);
    case 'find-prev':
      return p.find.step(-1);
    case 'find-close':
      p.find.close();
      // The focus goes back to the history, the view stays: focusing the log (taller than the
      // viewport) would scroll it into view, off the live end, which then no longer follows.
      return p.log.focus({ preventScroll: true });
    case 'prev-prompt':
    case 'next-prompt':
      p.nav.jumpToPrompt(cmd === 'prev-prompt' ? -1 : 1);
      return ctx.moved();
    case 'pill':
    case 'latest':
      // The new messages are at the end: the pill goes there, as Ctrl+End does.
      return ctx.toLatest();
  }
}
