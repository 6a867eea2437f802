/**
 * Run exports as Markdown or JSON. Pure: no `vscode`, no DOM.
 *
 * Only run data is emitted, and only through an allow-list of documented fields: whatever
 * else an Agent object carries (an unknown field, something the glue attached) never reaches
 * the file. The functions never see a token; the panel that calls them does not have one.
 */
import type { Agent, AgentLifecycle, AgentMessage } from '../../api/types';
import type { TranscriptSnapshot } from '../transcript/transcript';

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
  noMessages: 'No messages.',
  exportedAt: 'Exported {0}',
};

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

/** The run and its transcript as a Markdown document. */
export function toMarkdown(run: Agent, transcript: TranscriptSnapshot, options: ExportOptions = {}): string {
  const L: ExportLabels = { ...DEFAULT_EXPORT_LABELS, ...options.labels };
  const r = pickRun(run);
  const lines: string[] = [];
  lines.push(`# ${inline(fill(L.title, r.agentId ?? ''))}`, '');
  const exported = iso(options.now ?? Date.now());
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
  // Gaps are said where they are (below); this line only covers one no message marks.
  if (transcript.earlierMessagesUnavailable && !transcript.entries.some((e) => (e.gapBefore ?? 0) > 0)) {
    lines.push(`> ${inline(fill(L.earlierUnavailable, transcript.missingMessageCount))}`, '');
  }
  if (transcript.droppedMessageCount > 0) {
    lines.push(`> ${inline(fill(L.dropped, transcript.droppedMessageCount))}`, '');
  }
  if (transcript.entries.length === 0) {
    lines.push(L.noMessages, '');
  }
  for (const e of transcript.entries) {
    if (e.gapBefore !== undefined && e.gapBefore > 0) {
      lines.push(`> ${inline(fill(L.gap, e.gapBefore))}`, '');
    }
    const m = pickMessage(e.message);
    const head = [m.role ?? '?'];
    const when = iso(m.createdAt);
    if (when) head.push(when);
    if (m.sequence !== undefined) head.push(`#${m.sequence}`);
    lines.push(`### ${inline(head.join(' · '))}`, '');
    if (m.content) {
      // The agent's own Markdown, kept as written.
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
      lines.push(`**${inline(L.attachments)}:**`, '');
      for (const a of m.attachments) {
        lines.push(`- ${inline(a)}`);
      }
      lines.push('');
    }
  }
  return lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}

/** The run and its transcript as JSON (documented fields only). */
export function toJson(run: Agent, transcript: TranscriptSnapshot, options: ExportOptions = {}): string {
  const doc = {
    format: 'agent-runs.run-export',
    version: 1,
    exportedAt: iso(options.now ?? Date.now()),
    run: pickRun(run),
    transcript: {
      earlierMessagesUnavailable: transcript.earlierMessagesUnavailable,
      missingMessageCount: transcript.missingMessageCount,
      droppedMessageCount: transcript.droppedMessageCount,
      messages: transcript.entries.map((e) => (e.gapBefore ? { gapBefore: e.gapBefore, ...pickMessage(e.message) } : pickMessage(e.message))),
    },
  };
  return JSON.stringify(doc, null, 2) + '\n';
}

/** One message as a Markdown document, for "open in editor" (the full text, never cut). */
export function messageToMarkdown(message: AgentMessage, options: ExportOptions = {}): string {
  const L: ExportLabels = { ...DEFAULT_EXPORT_LABELS, ...options.labels };
  const m = pickMessage(message);
  const head = [m.role ?? '?'];
  const when = iso(m.createdAt);
  if (when) head.push(when);
  if (m.sequence !== undefined) head.push(`#${m.sequence}`);
  const lines = [`<!-- ${head.join(' · ').replace(/-->/g, '--&gt;')} -->`, ''];
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
  return lines.join('\n').trimEnd() + '\n';
}
