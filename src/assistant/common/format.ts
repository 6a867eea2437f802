/**
 * A run as text for a model and as chat Markdown, bounded (`maxMessages`, `maxMessageChars`,
 * `maxChars`, noting what was left out) as a model's context is not free. Service text loses control
 * and bidi characters and is escaped in Markdown: no injected links, images or command URIs.
 */
import type { Agent, AgentMessage } from '../../api/types';
import { oneLine } from '../../api/sanitize';
import { attachmentLine, toolParametersLine } from '../../run/common/transcript/parts';
import type { L10n } from '../../base/common/l10n';
import { cleanText, cut } from '../../base/common/text';
import { statusText } from '../../run/common/rows';

export interface RunTextBounds {
  maxMessages: number;
  maxMessageChars: number;
  maxChars: number;
}

export const DEFAULT_RUN_TEXT_BOUNDS: RunTextBounds = { maxMessages: 5, maxMessageChars: 2000, maxChars: 8000 };

/** Escapes Markdown so service text shows as typed: no links, images, HTML or headings. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`);
}

/** Attachments named per message at most; the rest are counted. */
const MAX_ATTACHMENTS_NAMED = 10;

/** A message as text: its tool call on one line (parameters of any shape), the content if any, attachments by name, link and type. */
function messageBody(m: AgentMessage): string {
  const parts: string[] = [];
  if (m.toolName || m.toolParameters !== undefined) {
    const name = m.toolName ? ` ${oneLine(m.toolName, 80)}` : '';
    const params = m.toolParameters !== undefined ? ` ${oneLine(toolParametersLine(m.toolParameters), 200)}` : '';
    parts.push(`[tool${name}${params}]`);
  }
  const content = cleanText(m.content ?? '').trim();
  if (content) parts.push(content);
  const attachments = m.attachments ?? [];
  if (attachments.length > 0) {
    const named = attachments.slice(0, MAX_ATTACHMENTS_NAMED).map((a) => oneLine(attachmentLine(a), 200));
    const more = attachments.length > named.length ? `; ${attachments.length - named.length} more` : '';
    parts.push(`[attachments: ${named.join('; ')}${more}]`);
  }
  return parts.join(' ');
}

/** The run for a model: one fact per line, then the latest messages, oldest first. */
export function runAsText(agent: Agent, bounds: RunTextBounds = DEFAULT_RUN_TEXT_BOUNDS): string {
  const lines: string[] = [`Run ${oneLine(agent.agentId, 200)}`];
  const fact = (label: string, value: string | number | undefined): void => {
    if (value !== undefined && value !== '') lines.push(`${label}: ${typeof value === 'number' ? value : oneLine(value, 300)}`);
  };
  fact('status', agent.status ?? 'unknown');
  fact('app', agent.appId);
  fact('project', agent.projectName);
  fact('model', agent.model);
  fact('permission', agent.permission);
  if (agent.permittedBranches?.length) fact('branches', agent.permittedBranches.join(', '));
  fact('conversation', agent.lifecycle?.conversationState);
  fact('sandbox', agent.lifecycle?.sandboxState);
  fact('queued follow-ups', agent.lifecycle?.queuedTurnCount);
  if (agent.lastError) fact('last error', agent.lastError);
  const history = agent.history ?? [];
  const shown = history.slice(-bounds.maxMessages);
  const notes: string[] = [];
  if (history.length > shown.length) notes.push(`${history.length - shown.length} earlier message(s) left out`);
  if (shown.length > 0) lines.push('', `Latest ${shown.length} of ${history.length} message(s):`);
  let longCut = 0;
  for (const m of shown) {
    const body = cut(messageBody(m), bounds.maxMessageChars);
    if (body.cut) longCut += 1;
    lines.push(`--- ${oneLine(m.role ?? 'message', 40)}${m.sequence !== undefined ? ` #${m.sequence}` : ''}`, body.text + (body.cut ? ' […]' : ''));
  }
  if (longCut > 0) notes.push(`${longCut} long message(s) shortened`);
  let text = lines.join('\n');
  const whole = cut(text, bounds.maxChars);
  if (whole.cut) {
    text = whole.text;
    notes.push(`cut to ${bounds.maxChars} characters`);
  }
  return notes.length > 0 ? `${text}\n\n(Truncated: ${notes.join('; ')}. The full run is in the Agent Runs panel.)` : text;
}

/** A status as words a person reads (the Runs view's words; `unknown` when there is none). */
export function statusWord(status: string | undefined, l10n: L10n): string {
  return status ? statusText(status, l10n) : l10n.t('unknown');
}

export interface ProgressState {
  status?: string;
  conversationState?: string;
  /** Highest `sequence` (or history length) already shown. */
  seen: number;
}

export interface ProgressBounds {
  /** New messages shown per read at most; the rest are counted. */
  maxMessages: number;
  maxMessageChars: number;
}

/** What a chat progress message says it is before its text: thinking and notes italic, an error bold, an unknown role as sent. */
function roleMark(role: string | undefined, l10n: L10n): string {
  switch (role) {
    case undefined:
    case 'assistant':
    case 'tool':
      return '';
    case 'thinking':
      return `_${escapeMarkdown(l10n.t('Thinking'))}:_ `;
    case 'system':
      return `_${escapeMarkdown(l10n.t('System'))}:_ `;
    case 'error':
      return `**${escapeMarkdown(l10n.t('Error'))}:** `;
    default:
      return role.trim() ? `_${escapeMarkdown(oneLine(role, 40))}:_ ` : '';
  }
}

/**
 * What changed since `state`, as Markdown paragraphs for the chat response, and the new state.
 * A message is new when its `sequence` (or its position, without one) is past `state.seen`.
 */
export function progressMarkdown(agent: Agent, state: ProgressState, bounds: ProgressBounds, l10n: L10n): { parts: string[]; state: ProgressState } {
  const parts: string[] = [];
  const conversation = agent.lifecycle?.conversationState;
  if (agent.status !== state.status || conversation !== state.conversationState) {
    const lane = conversation ? ` · ${escapeMarkdown(oneLine(conversation, 40))}` : '';
    parts.push(`**${escapeMarkdown(statusWord(agent.status, l10n))}**${lane}`);
  }
  const history = agent.history ?? [];
  const position = (m: AgentMessage, i: number): number => m.sequence ?? i + 1;
  const fresh = history.filter((m, i) => position(m, i) > state.seen && m.role !== 'user');
  const shown = fresh.slice(-bounds.maxMessages);
  if (fresh.length > shown.length) parts.push(`_${escapeMarkdown(l10n.t('{0} more message(s) not shown here', fresh.length - shown.length))}_`);
  for (const m of shown) {
    const body = cut(messageBody(m), bounds.maxMessageChars);
    const text = escapeMarkdown(body.text).replace(/\n/g, '  \n> ');
    parts.push(`> ${roleMark(m.role, l10n)}${text}${body.cut ? ' …' : ''}`);
  }
  if (agent.status === 'error' && agent.lastError && agent.status !== state.status) {
    parts.push(escapeMarkdown(l10n.t('Last error: {0}', oneLine(agent.lastError, 300))));
  }
  const seen = history.reduce((max, m, i) => Math.max(max, position(m, i)), state.seen);
  return { parts, state: { status: agent.status, conversationState: conversation, seen } };
}
