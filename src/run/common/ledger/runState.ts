/**
 * One truth per run: every surface reads `runState`, derived from the freshest read and the follow-ups
 * the service acknowledged (`acts`, from any window); these outrank any read that does not prove their
 * turn ended, and only gain evidence, so windows merge them as a set in any order. Pure.
 */
import { isDormant, isFinished, maxSequence, type Agent, type AgentLifecycle, type RunStatus } from '../../../api/types';
import type { LedgerEntry } from './record';

/**
 * How long an acknowledged follow-up may stay unproven before finished reads are believed
 * again. The service shows a follow-up within seconds; this only keeps a run whose service
 * never shows it from being followed for ever.
 */
export const FOLLOW_UP_WAIT_MS = 30 * 60_000;

/** Settled acts kept per run (as tombstones, so a stale copy cannot reopen them). */
const SETTLED_KEPT = 5;
/** Open acts kept per run (one per send; a run takes a handful at most). */
const OPEN_KEPT = 20;
const MAX_PROMPT_CHARS = 50_000;

/** A follow-up the service acknowledged, and what reads have shown of it since. */
export interface FollowUpAct {
  /** Unique across windows: acts are merged as a set by this. */
  readonly id: string;
  readonly prompt: string;
  /** When the acknowledgement came (this machine's clock, Unix ms). */
  readonly at: number;
  /** The status the acknowledgement gave. */
  readonly ackStatus: RunStatus;
  /**
   * The read facts the act must move past: the newest sequence known when it was sent, the
   * run's `updatedAt` then, and the completion of the finished turn it followed (none when the
   * run was still going: then the turn that ended next may be the one before it).
   */
  readonly before: { readonly completedAt?: number; readonly lastSequence?: number; readonly updatedAt?: number };
  /** The `sequence` of the prompt in the history (-1: seen without a sequence): it arrived. */
  readonly arrivedSeq?: number;
  /** The prompt's `createdAt` in the history (the service's clock): a completion before it is an earlier turn's. */
  readonly promptAt?: number;
  /** When a read settled it (its turn ended, or it was given up on). */
  readonly settledAt?: number;
}

/** What the state is derived from: a record, or as much of one as a caller holds. */
type Evidence = Pick<LedgerEntry, 'status'> & Partial<LedgerEntry>;

/** What kind of conversation a run is, and what that allows. */
export interface Conversation {
  /**
   * A code review's conversation: `kind` `code_review` (as the deployed service spells it, in
   * any case or separator), or a `reviewId` and no `kind` at all.
   */
  readonly codeReview: boolean;
  /** The service takes follow-ups to it (to a code review's it answers 409). */
  readonly takesFollowUps: boolean;
}

/**
 * The one rule of which conversations take follow-ups. Every surface (the Runs view's menus,
 * the panel's composer, the palette, the chat, the tools) and the sender read it through
 * `runState` (or, for a run that is not listed, from its read); none decides on its own.
 */
export function conversationOf(r: { readonly kind?: string; readonly reviewId?: string }): Conversation {
  const kind = typeof r.kind === 'string' ? r.kind.toLowerCase().replace(/[^a-z]/g, '') : '';
  const codeReview = kind === 'codereview' || (kind === '' && typeof r.reviewId === 'string' && r.reviewId.trim() !== '');
  return { codeReview, takesFollowUps: !codeReview };
}

export type RunOutcome = 'completed' | 'error' | 'ended';

/**
 * A run as every surface reads it (tree, status bar, alerts, panel header and tab, chat, tools,
 * exports): the record's documented fields, with the status and completion `runState` derives.
 */
export interface Run extends Conversation {
  readonly agentId?: string;
  /** The status every surface shows. */
  readonly status: RunStatus;
  /** Over, and no acknowledged follow-up unsettled: not polled, not counted active, announced once. */
  readonly finished: boolean;
  /** A status the reference does not list, without `completedAt`, and nothing pending: read slowly. */
  readonly dormant: boolean;
  /** How a finished run ended: `ended` for a status the reference does not list (`cancelled`). */
  readonly outcome?: RunOutcome;
  /** When it finished (only when it is). */
  readonly completedAt?: number;
  /** The newest unsettled follow-up, if any. */
  readonly followUp?: { readonly prompt: string; readonly at: number; readonly arrived: boolean };
  readonly kind?: string;
  readonly reviewId?: string;
  readonly appId?: string;
  readonly projectId?: string;
  readonly projectName?: string;
  readonly model?: string;
  readonly reasoningEffort?: string;
  readonly permission?: string;
  readonly permittedBranches?: string[];
  readonly createdAt?: number;
  readonly updatedAt?: number;
  /** The turn's failure (a failure of the turn before an unsettled follow-up is not shown). */
  readonly lastError?: string;
  readonly lifecycle?: AgentLifecycle;
}

/** The open (unsettled) acts, oldest first. */
export function openFollowUps(r: Pick<LedgerEntry, 'acts'>): FollowUpAct[] {
  return (r.acts ?? []).filter((a) => a.settledAt === undefined);
}

/** The one derivation of a run's state from its record. */
export function runState(r: Evidence): Run {
  return { ...fieldsOf(r), ...stateOf(r) };
}

function stateOf(r: Evidence): Omit<Run, keyof ReturnType<typeof fieldsOf>> {
  const conversation = conversationOf(r);
  const open = openFollowUps(r);
  const newest = open[open.length - 1];
  if (newest) {
    const arrived = open.some((a) => a.arrivedSeq !== undefined);
    // A finished read does not end a follow-up it does not prove ended: the acknowledged state stays.
    const status = isFinished(r) ? shownWhilePending(newest, arrived) : r.status;
    return { ...conversation, status, finished: false, dormant: false, followUp: { prompt: newest.prompt, at: newest.at, arrived: newest.arrivedSeq !== undefined } };
  }
  const finished = isFinished(r);
  if (!finished) {
    return { ...conversation, status: r.status, finished: false, dormant: isDormant(r) };
  }
  const outcome: RunOutcome = r.status === 'completed' ? 'completed' : r.status === 'error' ? 'error' : 'ended';
  return { ...conversation, status: r.status, finished: true, dormant: false, outcome, completedAt: r.completedAt };
}

/** The record's documented fields, only those it has (a JSON of the run holds no `undefined`). */
function fieldsOf(r: Evidence): Pick<Run, 'agentId' | 'kind' | 'reviewId' | 'appId' | 'projectId' | 'projectName' | 'model' | 'reasoningEffort' | 'permission' | 'permittedBranches' | 'createdAt' | 'updatedAt' | 'lastError' | 'lifecycle'> {
  const lifecycle = r.conversationState !== undefined || r.sandboxState !== undefined || r.queuedTurnCount !== undefined || r.lastLifecycleEventAt !== undefined
    ? stripUndefined({ conversationState: r.conversationState, sandboxState: r.sandboxState, queuedTurnCount: r.queuedTurnCount, lastLifecycleEventAt: r.lastLifecycleEventAt })
    : undefined;
  return stripUndefined({
    agentId: r.agentId,
    kind: r.kind,
    reviewId: r.reviewId,
    appId: r.appId,
    projectId: r.projectId,
    projectName: r.projectName,
    model: r.model,
    reasoningEffort: r.reasoningEffort,
    permission: r.permission,
    permittedBranches: r.permittedBranches,
    createdAt: r.createdAt ?? r.addedAt,
    updatedAt: r.updatedAt,
    // A failure of the turn before an unsettled follow-up is not this turn's.
    lastError: openFollowUps(r).length > 0 ? undefined : r.lastError,
    lifecycle,
  });
}

export function stripUndefined<T extends object>(o: T): T {
  const out = {} as T;
  for (const [k, v] of Object.entries(o)) {
    if (v !== undefined) {
      (out as Record<string, unknown>)[k] = v;
    }
  }
  return out;
}

function shownWhilePending(act: FollowUpAct, arrived: boolean): RunStatus {
  if (arrived) {
    return 'running';
  }
  return act.ackStatus === 'queued' || act.ackStatus === 'running' ? act.ackStatus : 'queued';
}

/** Over and not waiting for an acknowledged follow-up (the one "finished" rule). */
export function isFinishedRun(r: Evidence): boolean {
  return stateOf(r).finished;
}

/** A new act for a follow-up the service just acknowledged; `id` must be unique (see `actId`). */
export function followUpAct(id: string, prompt: string, ackStatus: RunStatus, r: { completedAt?: number; lastSequence?: number; updatedAt?: number }, at: number, arrivedSeq?: number): FollowUpAct {
  const before: { completedAt?: number; lastSequence?: number; updatedAt?: number } = {};
  if (r.completedAt !== undefined) before.completedAt = r.completedAt;
  if (r.lastSequence !== undefined) before.lastSequence = r.lastSequence;
  if (r.updatedAt !== undefined) before.updatedAt = r.updatedAt;
  const act: { -readonly [K in keyof FollowUpAct]: FollowUpAct[K] } = { id, prompt: prompt.slice(0, MAX_PROMPT_CHARS), at, ackStatus, before };
  if (arrivedSeq !== undefined) act.arrivedSeq = arrivedSeq;
  return act;
}

let counter = 0;
/** An ID no other act of any window has: the time, a counter and randomness. */
export function actId(now: number): string {
  counter = (counter + 1) % 1_000_000;
  return `${now.toString(36)}-${counter.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * What one read proves about each follow-up: its arrival (its prompt in the history, after what was
 * known at the send), then the end of its turn (`turnEnded`). The same array when nothing changed.
 */
export function observeFollowUps(acts: readonly FollowUpAct[] | undefined, agent: Agent, now: number): readonly FollowUpAct[] | undefined {
  if (!acts || acts.length === 0) {
    return acts;
  }
  let changed = false;
  const next = acts.map((act) => {
    if (act.settledAt !== undefined) {
      return act;
    }
    // A send found in the history arrives with its sequence only: its time is read here.
    const found = act.arrivedSeq === undefined ? findPrompt(act, agent) : act.promptAt === undefined ? promptTime(act.arrivedSeq, agent) : undefined;
    const arrived: FollowUpAct = found ? { ...act, arrivedSeq: found.sequence, ...(found.createdAt !== undefined ? { promptAt: found.createdAt } : {}) } : act;
    const ended = turnEnded(arrived, agent);
    const givenUp = now - act.at >= FOLLOW_UP_WAIT_MS && isFinished(agent);
    if (arrived === act && !ended && !givenUp) {
      return act;
    }
    changed = true;
    return ended || givenUp ? { ...arrived, settledAt: now } : arrived;
  });
  return changed ? next : acts;
}

/** The time of the prompt already found at `sequence`, when this read shows it with one. */
function promptTime(sequence: number, agent: Agent): { sequence: number; createdAt: number } | undefined {
  const m = sequence >= 0 ? agent.history?.find((x) => x.sequence === sequence && x.role === 'user') : undefined;
  return m && typeof m.createdAt === 'number' && Number.isFinite(m.createdAt) ? { sequence, createdAt: m.createdAt } : undefined;
}

function findPrompt(act: FollowUpAct, agent: Agent): { sequence: number; createdAt?: number } | undefined {
  const wanted = act.prompt.trim();
  const after = act.before.lastSequence;
  for (const m of agent.history ?? []) {
    if (m.role !== 'user' || typeof m.content !== 'string' || m.content.trim() !== wanted) {
      continue;
    }
    const createdAt = typeof m.createdAt === 'number' && Number.isFinite(m.createdAt) ? m.createdAt : undefined;
    if (m.sequence === undefined || !Number.isSafeInteger(m.sequence)) {
      return { sequence: -1, createdAt };
    }
    if (after === undefined || m.sequence > after) {
      return { sequence: m.sequence, createdAt };
    }
  }
  return undefined;
}

/**
 * The follow-up's turn is over: the run finished with nothing queued, its completion later than the one
 * the follow-up followed (sent while the run was going: after its prompt, or after the read it was sent on).
 */
function turnEnded(act: FollowUpAct, agent: Agent): boolean {
  if (!isFinished(agent) || (agent.lifecycle?.queuedTurnCount ?? 0) > 0) {
    return false;
  }
  const seq = act.arrivedSeq;
  // A copy of the run older than the prompt (its history stops before it) proves nothing of its turn.
  if (seq !== undefined && seq >= 0 && (maxSequence(agent.history) ?? -1) < seq) {
    return false;
  }
  const done = agent.completedAt;
  // Without `completedAt` a reply after the prompt is believed; with it, a reply is not enough: a
  // replica's fresher history shows the turn's first replies beside the previous turn's `completed`.
  if (done === undefined) {
    return seq !== undefined && seq >= 0 && (agent.history ?? []).some((m) => m.role !== 'user' && m.sequence !== undefined && Number.isSafeInteger(m.sequence) && m.sequence > seq);
  }
  if (act.promptAt !== undefined && done < act.promptAt) {
    return false;
  }
  // Not before the prompt is seen: the window's last read may be older than the run it sent
  // to, and a completion it never saw (the turn before) is then later than the one it knew.
  if (seq === undefined) {
    return false;
  }
  const before = act.before.completedAt;
  if (before !== undefined) {
    return done > before;
  }
  if (act.promptAt !== undefined) {
    return true;
  }
  // Messages without times: a finished read written after the going state the follow-up was sent on
  // (a service does not sit finished with a turn queued); a re-opened run read right after is taken as ended.
  const written = agent.updatedAt ?? done;
  return act.before.updatedAt === undefined || written > act.before.updatedAt;
}

/**
 * Two windows' acts of one run as one set: by ID, each act with the evidence of both (arrival
 * and settlement only ever get added). Bounded: the newest settled ones are kept as tombstones.
 */
export function mergeFollowUps(mine: readonly FollowUpAct[] | undefined, theirs: readonly FollowUpAct[] | undefined): readonly FollowUpAct[] | undefined {
  if (!theirs || theirs.length === 0) return mine;
  if (!mine || mine.length === 0) return theirs;
  const byId = new Map<string, FollowUpAct>();
  for (const a of [...mine, ...theirs]) {
    const b = byId.get(a.id);
    byId.set(a.id, b ? combine(b, a) : a);
  }
  return bound([...byId.values()].sort((x, y) => x.at - y.at));
}

function combine(a: FollowUpAct, b: FollowUpAct): FollowUpAct {
  const out: { -readonly [K in keyof FollowUpAct]: FollowUpAct[K] } = { ...a };
  const arrived = a.arrivedSeq ?? b.arrivedSeq;
  if (arrived !== undefined) out.arrivedSeq = arrived;
  const promptAt = a.promptAt ?? b.promptAt;
  if (promptAt !== undefined) out.promptAt = promptAt;
  const settled = a.settledAt ?? b.settledAt;
  if (settled !== undefined) out.settledAt = settled;
  return out;
}

/** Keeps every open act (up to a bound) and the newest settled ones. */
export function bound(acts: readonly FollowUpAct[]): readonly FollowUpAct[] {
  const open = acts.filter((a) => a.settledAt === undefined).slice(-OPEN_KEPT);
  const settled = acts.filter((a) => a.settledAt !== undefined).slice(-SETTLED_KEPT);
  return [...settled, ...open].sort((x, y) => x.at - y.at);
}

/** Acts read back from storage: only well-formed ones (a lock or a pending turn is never invented). */
export function reviveFollowUps(raw: unknown): FollowUpAct[] | undefined {
  if (!Array.isArray(raw)) {
    return undefined;
  }
  const out: FollowUpAct[] = [];
  for (const v of raw) {
    if (typeof v !== 'object' || v === null) continue;
    const o = v as Record<string, unknown>;
    if (typeof o.id !== 'string' || o.id === '' || typeof o.prompt !== 'string' || !finite(o.at)) continue;
    const b = typeof o.before === 'object' && o.before !== null ? (o.before as Record<string, unknown>) : {};
    const act = followUpAct(o.id, o.prompt, typeof o.ackStatus === 'string' ? o.ackStatus : 'queued',
      { completedAt: finite(b.completedAt) ? b.completedAt : undefined, lastSequence: finite(b.lastSequence) ? b.lastSequence : undefined, updatedAt: finite(b.updatedAt) ? b.updatedAt : undefined },
      o.at, finite(o.arrivedSeq) ? o.arrivedSeq : undefined);
    const revived: FollowUpAct = finite(o.promptAt) ? { ...act, promptAt: o.promptAt } : act;
    out.push(finite(o.settledAt) ? { ...revived, settledAt: o.settledAt } : revived);
  }
  return out.length > 0 ? [...bound(out)] : undefined;
}

function finite(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

