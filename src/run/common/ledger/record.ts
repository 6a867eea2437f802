/**
 * A run as the ledger keeps it, and how a stored copy is read back. Pure data helpers; the
 * ledger class (ledger.ts) owns the map and the storage.
 */
import type { RunStatus } from '../../../api/types';
import { reviveFollowUps, followUpAct, type FollowUpAct } from './runState';

export { isFinishedRun, stripUndefined } from './runState';

/** The subset of vscode.Memento the ledger needs. */
export interface KeyValueStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

export type RunSource = 'started' | 'tracked';

/** What the ledger stores: the reads' evidence plus its bookkeeping (acts, unread, errors); surfaces read `Run` (runState.ts). */
export interface LedgerEntry {
  agentId: string;
  source: RunSource;
  /** When the run entered the ledger (Unix ms). */
  addedAt: number;
  status: RunStatus;
  /** The conversation's `kind` as read (`agent`, `code_review`): what it allows is `runState`'s to say. */
  kind?: string;
  /** A code review's ID, set on its conversation. */
  reviewId?: string;
  appId?: string;
  projectId?: string;
  projectName?: string;
  /** The initial prompt as the user typed it (for the label, "clone" and exports). */
  prompt?: string;
  model?: string;
  reasoningEffort?: string;
  permission?: string;
  permittedBranches?: string[];
  completionWebhookUrl?: string;
  userEmail?: string;
  lastError?: string;
  queuedTurnCount?: number;
  conversationState?: string;
  sandboxState?: string;
  createdAt?: number;
  updatedAt?: number;
  completedAt?: number;
  /** Number of history messages seen in the latest poll (for unread counts). */
  messageCount?: number;
  /** Last successful read of the run (Unix ms). */
  lastCheckedAt?: number;
  /** Last time a read showed something new (Unix ms). */
  lastChangeAt?: number;
  /** Last time the user looked at the run (opened its panel). */
  seenAt?: number;
  /** Something changed since the user last looked. */
  unread: boolean;
  /** The last polling failure, user-facing, cleared by the next success. */
  pollError?: string;
  /**
   * Follow-ups the service acknowledged, open until a read proves their turn ended (see
   * runState.ts): until then a read that still says `completed` is stale, not a completion.
   * Merged across windows as a set; `status` and `completedAt` above stay what was read.
   */
  acts?: readonly FollowUpAct[];
  /** `lifecycle.lastLifecycleEventAt` of the latest read. */
  lastLifecycleEventAt?: number;
  /** The highest message `sequence` taken in so far: where the next read's history window must reach back to. */
  lastSequence?: number;
  /**
   * The completion a "run finished" notification was shown for (its `completedAt`, else
   * `updatedAt`), by any window: windows share the ledger, so each completion is announced once.
   */
  finishNotifiedFor?: number;
}

/** What can pre-fill the launch form: a ledger record ("Clone Run") or any subset of its fields. */
export type LaunchPrefill = Partial<Pick<LedgerEntry,
  'appId' | 'prompt' | 'model' | 'reasoningEffort' | 'permission' | 'permittedBranches' | 'completionWebhookUrl' | 'userEmail'>>;


/** The run's sort time: when it was created on the service, else when we learned of it. */
export function runTime(r: LedgerEntry): number {
  return r.createdAt ?? r.addedAt;
}


/** How recent what a record knows is: its latest read, look or change. */
export function freshness(r: LedgerEntry): number {
  return Math.max(r.addedAt, r.lastCheckedAt ?? 0, r.lastChangeAt ?? 0, r.seenAt ?? 0);
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const STRING_FIELDS = [
  'kind', 'reviewId', 'appId', 'projectId', 'projectName', 'prompt', 'model', 'reasoningEffort', 'permission',
  'completionWebhookUrl', 'userEmail', 'lastError', 'conversationState', 'sandboxState', 'pollError',
] as const;
const NUMBER_FIELDS = [
  'queuedTurnCount', 'createdAt', 'updatedAt', 'completedAt', 'messageCount', 'lastCheckedAt', 'lastChangeAt', 'seenAt',
  'lastSequence', 'finishNotifiedFor', 'lastLifecycleEventAt',
] as const;

/** Rebuilds a record from stored JSON, keeping only well-typed fields. */
export function reviveRecord(item: unknown): LedgerEntry | undefined {
  if (!isRecord(item) || typeof item.agentId !== 'string' || item.agentId === '') {
    return undefined;
  }
  const r: LedgerEntry = {
    agentId: item.agentId,
    source: item.source === 'started' ? 'started' : 'tracked',
    addedAt: typeof item.addedAt === 'number' && Number.isFinite(item.addedAt) ? item.addedAt : 0,
    status: typeof item.status === 'string' ? item.status : 'queued',
    unread: item.unread === true,
  };
  for (const k of STRING_FIELDS) {
    const v = item[k];
    if (typeof v === 'string') {
      r[k] = v;
    }
  }
  for (const k of NUMBER_FIELDS) {
    const v = item[k];
    if (typeof v === 'number' && Number.isFinite(v)) {
      r[k] = v;
    }
  }
  if (Array.isArray(item.permittedBranches) && item.permittedBranches.every((b) => typeof b === 'string')) {
    r.permittedBranches = item.permittedBranches;
  }
  const acts = reviveFollowUps(item.acts) ?? legacyAct(item, r);
  if (acts) {
    r.acts = acts;
  }
  return r;
}


export function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => x === b[i]);
  }
  return a === b;
}

/** A pending follow-up as an earlier version stored it (one prompt and its time) becomes an act. */
function legacyAct(item: Record<string, unknown>, r: LedgerEntry): FollowUpAct[] | undefined {
  const { pendingFollowUpPrompt: prompt, pendingFollowUpAt: at } = item;
  if (typeof prompt !== 'string' || typeof at !== 'number' || !Number.isFinite(at)) {
    return undefined;
  }
  return [followUpAct(`legacy-${r.agentId}-${at}`, prompt, r.status, { completedAt: r.completedAt, lastSequence: r.lastSequence }, at)];
}
