/**
 * Run exports as Markdown or JSON. Pure: no `vscode`, no DOM.
 *
 * Only run data is emitted, and only through an allow-list of documented fields: whatever
 * else an Agent object carries (an unknown field, something the glue attached) never reaches
 * the file. The functions never see a token; the panel that calls them does not have one.
 */
import type { Agent, AgentLifecycle, AgentMessage } from '../../api/types';
import type { TranscriptSnapshot } from '../transcript/transcript';
import type { L10n } from '../l10n';

/** Labels for the Markdown export; the panel passes localized ones. */
export interface ExportLabels {
  title: string;
  status: string;
  app: string;
  project: string;
  model: string;
  effort: string;
  permission: string;
  branches: string;
  created: string;
  updated: string;
  completed: string;
  agentId: string;
  lastError: string;
  lifecycle: string;
  conversationState: string;
  sandboxState: string;
  queuedTurns: string;
  transcript: string;
  toolCall: string;
  attachments: string;
  earlierUnavailable: string;
  /** Shown where messages are missing, before the message after the gap. */
  gap: string;
  dropped: string;
  pruned: string;
  noMessages: string;
  exportedAt: string;
}

export const DEFAULT_EXPORT_LABELS: ExportLabels = {
  title: 'Agent run {0}',
  status: 'Status',
  app: 'App ID',
  project: 'Project',
  model: 'Model',
  effort: 'Reasoning effort',
  permission: 'Permission',
  branches: 'Permitted branches',
  created: 'Created',
  updated: 'Updated',
  completed: 'Completed',
  agentId: 'Agent ID',
  lastError: 'Last error',
  lifecycle: 'Lifecycle',
  conversationState: 'Conversation state',
  sandboxState: 'Sandbox state',
  queuedTurns: 'Queued turns',
  transcript: 'Transcript',
  toolCall: 'Tool call',
  attachments: 'Attachments',
  earlierUnavailable: 'Earlier messages were no longer available from the service; about {0} are missing.',
  gap: 'About {0} messages here are no longer available from the service.',
  dropped: '{0} older messages were dropped from the local cache.',
  pruned: 'The saved transcript was pruned on {0} to stay under the disk limit for saved transcripts (agentRuns.transcripts.maxDiskMB).',
  noMessages: 'No messages.',
  exportedAt: 'Exported {0}',
};

/** The labels in the editor's language. */
export function exportLabels(l10n: L10n): ExportLabels {
  const P = '{0}';
  return {
    title: l10n.t('Agent run {0}', P),
    status: l10n.t('Status'),
    app: l10n.t('App ID'),
    project: l10n.t('Project'),
    model: l10n.t('Model'),
    effort: l10n.t('Reasoning effort'),
    permission: l10n.t('Permission'),
    branches: l10n.t('Permitted branches'),
    created: l10n.t('Created'),
    updated: l10n.t('Updated'),
    completed: l10n.t('Completed'),
    agentId: l10n.t('Agent ID'),
    lastError: l10n.t('Last error'),
    lifecycle: l10n.t('Lifecycle'),
    conversationState: l10n.t('Conversation state'),
    sandboxState: l10n.t('Sandbox state'),
    queuedTurns: l10n.t('Queued turns'),
    transcript: l10n.t('Transcript'),
    toolCall: l10n.t('Tool call'),
    attachments: l10n.t('Attachments'),
    earlierUnavailable: l10n.t('Earlier messages were no longer available from the service; about {0} are missing.', P),
    gap: l10n.t('About {0} messages here are no longer available from the service.', P),
    dropped: l10n.t('{0} older messages were dropped from the local cache.', P),
    pruned: l10n.t('The saved transcript was pruned on {0} to stay under the disk limit for saved transcripts (agentRuns.transcripts.maxDiskMB).', P),
    noMessages: l10n.t('No messages.'),
    exportedAt: l10n.t('Exported {0}', P),
  };
}

export interface ExportOptions {
  labels?: Partial<ExportLabels>;
  /** Export time (Unix ms); defaults to now. */
  now?: number;
}

const RUN_FIELDS = [
  'agentId',
  'kind',
  'status',
  'appId',
  'projectId',
  'projectName',
  'reviewId',
  'model',
  'reasoningEffort',
  'permission',
  'permittedBranches',
  'createdAt',
  'updatedAt',
  'completedAt',
  'lastError',
] as const;
type ExportedRun = Partial<Pick<Agent, (typeof RUN_FIELDS)[number]>> & { lifecycle?: AgentLifecycle };

function pickRun(run: Agent): ExportedRun {
  const out: Record<string, unknown> = {};
  for (const k of RUN_FIELDS) {
    const v: unknown = run[k];
    if (k === 'permittedBranches') {
      if (Array.isArray(v)) {
        out[k] = v.filter((b): b is string => typeof b === 'string');
      }
    } else if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) {
      out[k] = v;
    }
  }
  const lc = run.lifecycle;
  if (lc && typeof lc === 'object') {
    const l: AgentLifecycle = {};
    if (typeof lc.conversationState === 'string') l.conversationState = lc.conversationState;
    if (typeof lc.sandboxState === 'string') l.sandboxState = lc.sandboxState;
    if (typeof lc.queuedTurnCount === 'number' && Number.isFinite(lc.queuedTurnCount)) l.queuedTurnCount = lc.queuedTurnCount;
    if (typeof lc.lastLifecycleEventAt === 'number' && Number.isFinite(lc.lastLifecycleEventAt)) {
      l.lastLifecycleEventAt = lc.lastLifecycleEventAt;
    }
    out.lifecycle = l;
  }
  return out;
}

function pickMessage(m: AgentMessage): AgentMessage {
  const out: AgentMessage = {};
  if (typeof m.id === 'string') out.id = m.id;
  if (typeof m.sequence === 'number' && Number.isFinite(m.sequence)) out.sequence = m.sequence;
  if (typeof m.role === 'string') out.role = m.role;
  if (typeof m.content === 'string') out.content = m.content;
  if (typeof m.toolName === 'string') out.toolName = m.toolName;
  if (typeof m.toolParameters === 'string') out.toolParameters = m.toolParameters;
  if (Array.isArray(m.attachments)) out.attachments = m.attachments.filter((a): a is string => typeof a === 'string');
  if (typeof m.createdAt === 'number' && Number.isFinite(m.createdAt)) out.createdAt = m.createdAt;
  return out;
}

function iso(ts: number | undefined): string | undefined {
  return typeof ts === 'number' && Number.isFinite(ts) && Math.abs(ts) <= 8.64e15 ? new Date(ts).toISOString() : undefined;
}

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

function prettyJson(raw: string): { text: string; lang: string } {
  try {
    const v: unknown = JSON.parse(raw);
    if (v !== null && typeof v === 'object') {
      return { text: JSON.stringify(v, null, 2), lang: 'json' };
    }
  } catch {
    // Shown as sent.
  }
  return { text: raw, lang: '' };
}

/** The transcript figures an export states before the messages. */
export interface ExportInfo {
  readonly earlierMessagesUnavailable: boolean;
  readonly missingMessageCount: number;
  readonly droppedMessageCount: number;
  /** When the saved transcript was pruned for disk space (Unix ms). */
  readonly prunedAt?: number;
}

/** A transcript read a chunk at a time (from disk), for the streaming exports. */
export interface ExportTranscript extends ExportInfo {
  chunks(size: number): AsyncIterable<readonly AgentMessage[]>;
}

/** Where a streaming export writes; it resolves when the text may be followed by more. */
export interface ExportSink {
  write(text: string): Promise<void>;
}

const CHUNK = 500;

/**
 * Messages missing before each message of a transcript read from disk, worked out from gaps in
 * `sequence` the way the in-memory transcript marks them (`gapBefore`), so a streamed export
 * says where a gap is just as the panel does. Before the first message only when nothing was
 * dropped locally (then the "dropped" line says it).
 */
class GapMarks {
  private prev: number | undefined;
  constructor(private readonly leadCounts: boolean) {}

  before(m: AgentMessage): number {
    const s = m.sequence;
    if (typeof s !== 'number' || !Number.isSafeInteger(s)) return 0;
    const gap = this.prev === undefined ? (this.leadCounts && s > 1 ? s - 1 : 0) : Math.max(0, s - this.prev - 1);
    this.prev = s;
    return gap;
  }
}

function infoOf(t: TranscriptSnapshot): ExportInfo {
  return { earlierMessagesUnavailable: t.earlierMessagesUnavailable, missingMessageCount: t.missingMessageCount, droppedMessageCount: t.droppedMessageCount };
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
    if (m.toolParameters) {
      const p = prettyJson(m.toolParameters);
      lines.push(fenced(p.text, p.lang), '');
    }
  }
  if (m.attachments && m.attachments.length > 0) {
    lines.push(`**${inline(L.attachments)}:**`, '', ...m.attachments.map((a) => `- ${inline(a)}`), '');
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
  for await (const chunk of transcript.chunks(CHUNK)) {
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

/** The JSON document around the messages: the text before them and after them. */
function jsonFrame(run: Agent, info: ExportInfo, now: number): [string, string] {
  const hole = '\u0000messages\u0000';
  const transcript: Record<string, unknown> = {
    earlierMessagesUnavailable: info.earlierMessagesUnavailable,
    missingMessageCount: info.missingMessageCount,
    droppedMessageCount: info.droppedMessageCount,
  };
  const prunedAt = iso(info.prunedAt);
  if (prunedAt) {
    transcript.prunedAt = prunedAt;
  }
  transcript.messages = hole;
  const doc = { format: 'agent-runs.run-export', version: 1, exportedAt: iso(now), run: pickRun(run), transcript };
  const [before, after] = JSON.stringify(doc, null, 2).split(JSON.stringify(hole));
  return [before, `${after}\n`];
}

/** One message as an item of the messages array (indented as JSON.stringify(doc, null, 2) does). */
function jsonItem(m: AgentMessage, first: boolean, gapBefore = 0): string {
  const item = gapBefore > 0 ? { gapBefore, ...pickMessage(m) } : pickMessage(m);
  return `${first ? '' : ','}\n      ${JSON.stringify(item, null, 2).replace(/\n/g, '\n      ')}`;
}

/** The run and its transcript as JSON (documented fields only). */
export function toJson(run: Agent, transcript: TranscriptSnapshot, options: ExportOptions = {}): string {
  const [before, after] = jsonFrame(run, infoOf(transcript), options.now ?? Date.now());
  const items = transcript.entries.map((e, i) => jsonItem(e.message, i === 0, e.gapBefore)).join('');
  return `${before}[${items}${items ? '\n    ' : ''}]${after}`;
}

/** toJson for a transcript read from disk: a valid JSON document written a chunk at a time. */
export async function writeJson(sink: ExportSink, run: Agent, transcript: ExportTranscript, options: ExportOptions = {}): Promise<number> {
  const [before, after] = jsonFrame(run, transcript, options.now ?? Date.now());
  await sink.write(`${before}[`);
  const gaps = new GapMarks(transcript.droppedMessageCount === 0);
  let count = 0;
  for await (const chunk of transcript.chunks(CHUNK)) {
    let text = '';
    for (const m of chunk) {
      text += jsonItem(m, count++ === 0, gaps.before(m));
    }
    await sink.write(text);
  }
  await sink.write(`${count > 0 ? '\n    ' : ''}]${after}`);
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
