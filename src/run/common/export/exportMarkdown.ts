/**
 * Run exports as Markdown: the whole run (`toMarkdown`, or streamed from disk by
 * `writeMarkdown`) and one message for "open in editor" (`messageToMarkdown`). Pure: no
 * `vscode`, no DOM. Only the allow-listed fields of exportFields.ts are written.
 */
import type { Agent, AgentMessage, JsonValue } from '../../../api/types';
import { attachmentLine, toolParametersView } from '../transcript/parts';
import type { TranscriptSnapshot } from '../transcript/transcript';
import { DEFAULT_EXPORT_LABELS, type ExportLabels, type ExportOptions } from './exportLabels';
import { EXPORT_CHUNK, GapMarks, infoOf, iso, pickMessage, pickRun, type ExportInfo, type ExportSink, type ExportTranscript } from './exportFields';

function fill(template: string, ...args: (string | number)[]): string {
  return template.replace(/\{(\d+)\}/g, (m, i: string) => {
    const v = args[Number(i)];
    return v === undefined ? m : String(v);
  });
}

/** Text for one Markdown table cell or heading: one line, pipes and markup escaped. */
function inline(s: string): string {
  return s
    .replace(/[\r\n]+/g, ' ')
    .replace(/([\\`*_[\]<>|#])/g, '\\$1')
    .slice(0, 10_000);
}

/** A fence longer than any backtick run inside `s`. */
function fenced(s: string, lang = ''): string {
  let longest = 0;
  for (const m of s.matchAll(/`+/g)) {
    longest = Math.max(longest, m[0].length);
  }
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${s}${s.endsWith('\n') ? '' : '\n'}${fence}`;
}

function prettyJson(raw: JsonValue): { text: string; lang: string } {
  const view = toolParametersView(raw);
  return { text: view.text, lang: view.json ? 'json' : '' };
}

/** The Markdown before the messages: title, run table, last error, lifecycle, transcript notices. */
function markdownHead(run: Agent, info: ExportInfo, L: ExportLabels, now: number, gapsInline: boolean): string[] {
  const r = pickRun(run);
  const lines: string[] = [];
  lines.push(`# ${inline(fill(L.title, r.agentId ?? ''))}`, '');
  const exported = iso(now);
  if (exported) {
    lines.push(`_${inline(fill(L.exportedAt, exported))}_`, '');
  }
  const rows: [string, string | undefined][] = [
    [L.agentId, r.agentId],
    [L.status, r.status],
    [L.app, r.appId],
    [L.project, r.projectName ?? r.projectId],
    [L.model, r.model],
    [L.effort, r.reasoningEffort],
    [L.permission, r.permission],
    [L.branches, r.permittedBranches?.join(', ')],
    [L.created, iso(r.createdAt)],
    [L.updated, iso(r.updatedAt)],
    [L.completed, iso(r.completedAt)],
  ];
  lines.push('| | |', '|---|---|');
  for (const [label, value] of rows) {
    if (value !== undefined && value !== '') {
      lines.push(`| ${inline(label)} | ${inline(value)} |`);
    }
  }
  lines.push('');
  if (r.lastError) {
    lines.push(`## ${inline(L.lastError)}`, '', fenced(r.lastError), '');
  }
  if (r.lifecycle) {
    const lc = r.lifecycle;
    lines.push(`## ${inline(L.lifecycle)}`, '');
    if (lc.conversationState) lines.push(`- ${inline(L.conversationState)}: ${inline(lc.conversationState)}`);
    if (lc.sandboxState) lines.push(`- ${inline(L.sandboxState)}: ${inline(lc.sandboxState)}`);
    if (lc.queuedTurnCount !== undefined) lines.push(`- ${inline(L.queuedTurns)}: ${lc.queuedTurnCount}`);
    lines.push('');
  }
  lines.push(`## ${inline(L.transcript)}`, '');
  // Gaps are said where they are; this line only covers missing messages no message marks.
  if (info.earlierMessagesUnavailable && !gapsInline) {
    lines.push(`> ${inline(fill(L.earlierUnavailable, info.missingMessageCount))}`, '');
  }
  const prunedAt = iso(info.prunedAt);
  if (prunedAt) {
    lines.push(`> ${inline(fill(L.pruned, prunedAt))}`, '');
  }
  if (info.droppedMessageCount > 0) {
    lines.push(`> ${inline(fill(L.dropped, info.droppedMessageCount))}`, '');
  }
  return lines;
}

function markdownMessage(message: AgentMessage, L: ExportLabels, gapBefore = 0): string[] {
  const m = pickMessage(message);
  const head = [m.role ?? '?'];
  const when = iso(m.createdAt);
  if (when) head.push(when);
  if (m.sequence !== undefined) head.push(`#${m.sequence}`);
  const lines = gapBefore > 0 ? [`> ${inline(fill(L.gap, gapBefore))}`, ''] : [];
  lines.push(`### ${inline(head.join(' · '))}`, '');
  return lines.concat(messageBody(m, L));
}

/** A message's content (the agent's own Markdown, kept as written), tool call and attachments. */
function messageBody(m: AgentMessage, L: ExportLabels): string[] {
  const lines: string[] = [];
  if (m.content) {
    lines.push(m.content, '');
  }
  if (m.toolName !== undefined || m.toolParameters !== undefined) {
    lines.push(`**${inline(L.toolCall)}:** \`${(m.toolName ?? '').replace(/`/g, "'").replace(/[\r\n]+/g, ' ')}\``, '');
    if (m.toolParameters !== undefined && m.toolParameters !== '') {
      const p = prettyJson(m.toolParameters);
      lines.push(fenced(p.text, p.lang), '');
    }
  }
  if (m.attachments && m.attachments.length > 0) {
    lines.push(`**${inline(L.attachments)}:**`, '', ...m.attachments.map((a) => `- ${inline(attachmentLine(a))}`), '');
  }
  return lines;
}

/**
 * The Markdown text as pieces arrive: runs of three or more newlines become two and trailing
 * whitespace goes, exactly as over the whole document. Trailing whitespace is held back until
 * more text follows, so no run of newlines is ever split across what was given out.
 */
class MarkdownText {
  private held = '';

  /** `lines` joined with newlines, as the next part of the document. */
  push(lines: readonly string[]): string {
    const text = (this.held + lines.join('\n') + '\n').replace(/\n{3,}/g, '\n\n');
    const end = text.search(/\s*$/);
    this.held = text.slice(end);
    return text.slice(0, end);
  }

  end(): string {
    this.held = '';
    return '\n';
  }
}

/** The run and its transcript as a Markdown document. */
export function toMarkdown(run: Agent, transcript: TranscriptSnapshot, options: ExportOptions = {}): string {
  const L: ExportLabels = { ...DEFAULT_EXPORT_LABELS, ...options.labels };
  const out = new MarkdownText();
  const marked = transcript.entries.some((e) => (e.gapBefore ?? 0) > 0);
  let text = out.push(markdownHead(run, infoOf(transcript), L, options.now ?? Date.now(), marked));
  if (transcript.entries.length === 0) {
    text += out.push([L.noMessages, '']);
  }
  for (const e of transcript.entries) {
    text += out.push(markdownMessage(e.message, L, e.gapBefore));
  }
  return text + out.end();
}

/** toMarkdown for a transcript read from disk, written a chunk at a time. */
export async function writeMarkdown(sink: ExportSink, run: Agent, transcript: ExportTranscript, options: ExportOptions = {}): Promise<number> {
  const L: ExportLabels = { ...DEFAULT_EXPORT_LABELS, ...options.labels };
  const out = new MarkdownText();
  const gaps = new GapMarks(transcript.droppedMessageCount === 0);
  await sink.write(out.push(markdownHead(run, transcript, L, options.now ?? Date.now(), transcript.missingMessageCount > 0)));
  let count = 0;
  for await (const chunk of transcript.chunks(EXPORT_CHUNK)) {
    let text = '';
    for (const m of chunk) {
      text += out.push(markdownMessage(m, L, gaps.before(m)));
    }
    count += chunk.length;
    await sink.write(text);
  }
  await sink.write((count === 0 ? out.push([L.noMessages, '']) : '') + out.end());
  return count;
}

/** One message as a Markdown document, for "open in editor" (the full text, never cut). */
export function messageToMarkdown(message: AgentMessage, options: ExportOptions = {}): string {
  const L: ExportLabels = { ...DEFAULT_EXPORT_LABELS, ...options.labels };
  const m = pickMessage(message);
  const head = [m.role ?? '?'];
  const when = iso(m.createdAt);
  if (when) head.push(when);
  if (m.sequence !== undefined) head.push(`#${m.sequence}`);
  const lines = [`<!-- ${head.join(' · ').replace(/-->/g, '--&gt;')} -->`, '', ...messageBody(m, L)];
  return lines.join('\n').trimEnd() + '\n';
}
