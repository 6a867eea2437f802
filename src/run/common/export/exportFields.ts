/**
 * What the Markdown and JSON exports share: the field allow-list, the transcript figures, the chunked
 * streaming and the gap marks of a transcript read from disk. Pure.
 */
import { attachmentsOf, toolParametersOf } from '../../../api/json';
import type { Agent, AgentLifecycle, AgentMessage } from '../../../api/types';
import type { TranscriptSnapshot } from '../transcript/transcript';

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
type ExportedFields = Partial<Pick<Agent, (typeof RUN_FIELDS)[number]>> & { lifecycle?: AgentLifecycle };

/** The run's documented fields only, each of the type it is documented with. */
export function pickRun(run: Agent): ExportedFields {
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

/**
 * The message's documented fields only, each of the type it is documented with; tool parameters
 * and attachments as JSON whatever their shape (an object of arguments, attachment objects).
 */
export function pickMessage(m: AgentMessage): AgentMessage {
  const out: AgentMessage = {};
  if (typeof m.id === 'string') out.id = m.id;
  if (typeof m.sequence === 'number' && Number.isFinite(m.sequence)) out.sequence = m.sequence;
  if (typeof m.role === 'string') out.role = m.role;
  if (typeof m.content === 'string') out.content = m.content;
  if (typeof m.toolName === 'string') out.toolName = m.toolName;
  const toolParameters = toolParametersOf(m.toolParameters);
  if (toolParameters !== undefined) out.toolParameters = toolParameters;
  const attachments = attachmentsOf(m.attachments);
  if (attachments !== undefined) out.attachments = attachments;
  if (typeof m.createdAt === 'number' && Number.isFinite(m.createdAt)) out.createdAt = m.createdAt;
  return out;
}

/** A timestamp (Unix ms) as ISO 8601; undefined when it is not a valid time. */
export function iso(ts: number | undefined): string | undefined {
  return typeof ts === 'number' && Number.isFinite(ts) && Math.abs(ts) <= 8.64e15 ? new Date(ts).toISOString() : undefined;
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

/** Messages a streaming export reads from disk at a time. */
export const EXPORT_CHUNK = 500;

/**
 * Messages missing before each message of a transcript read from disk, from gaps in `sequence` as the
 * in-memory transcript marks them, so an export shows gaps where the panel does (before the first
 * message only when nothing was dropped: the "dropped" line says that).
 */
export class GapMarks {
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

/** The transcript figures of an in-memory transcript. */
export function infoOf(t: TranscriptSnapshot): ExportInfo {
  return { earlierMessagesUnavailable: t.earlierMessagesUnavailable, missingMessageCount: t.missingMessageCount, droppedMessageCount: t.droppedMessageCount };
}
