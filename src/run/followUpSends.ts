/**
 * Follow-ups being sent, per run, kept by the extension (a hidden webview forgets its own guard): `send()`
 * refuses while another send of the run is under way or may have arrived. In workspace state, not global
 * (another window's live send would look cut): a `sending` entry found at activation becomes `uncertain`.
 */
import { isApiError, mayHaveArrived } from '../api/errors';
import type { L10n } from '../base/common/l10n';
import { isPermission, type AgentMessage, type FollowUpAck, type Permission } from '../api/types';
import { Emitter, type Event } from '../base/common/events';

/**
 * A follow-up being sent, or that may have been sent. `sending`: the POST is under way.
 * `uncertain`: it may have reached the service but no answer came (timeout, cut connection,
 * reload mid-send); a read clears it once the prompt shows in the history. Absent: idle.
 */
export interface PendingSend {
  state: 'sending' | 'uncertain';
  prompt: string;
  /** When the send started (Unix ms). */
  since: number;
}

/** The part of `vscode.Memento` used here. */
export interface SendMemento {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

export const FOLLOW_UP_SENDS_KEY = 'agentRuns.followUpSends.v1';

const MAX_SENDS = 50;

/**
 * How long a send that may have arrived is looked for in reads, even of a finished run (a slow queue, a
 * lagging replica; this machine's clock only); after it, the person resends or discards it.
 */
export const UNCERTAIN_READ_MS = 10 * 60_000;

export interface FollowUpInput {
  prompt: string;
  permission?: Permission;
  permittedBranches?: string[];
}

interface StoredSend extends PendingSend {
  since: number;
  permission?: FollowUpInput['permission'];
  permittedBranches?: string[];
  /** IDs of user messages with the same text already known when the send began (not this send). */
  knownIds?: string[];
  /** The newest message `sequence` known when the send began: the prompt shows after it. */
  afterSequence?: number;
  /** The run's `completedAt` (when finished) and `updatedAt` when the send began, for its act once found. */
  beforeCompletedAt?: number;
  beforeUpdatedAt?: number;
}

/** An `uncertain` follow-up a read found in the history: it arrived (its turn is not over yet). */
export interface FoundSend {
  prompt: string;
  /** Its `sequence` in the history (-1 without one). */
  sequence: number;
  /** The run's facts when it was sent (see FollowUpRecord.before). */
  before: { completedAt?: number; lastSequence?: number; updatedAt?: number };
  permission?: FollowUpInput['permission'];
  permittedBranches?: string[];
}

export type SendOutcome =
  | { kind: 'sent'; ack: FollowUpAck }
  /** Another send of this run is under way or may have arrived: nothing was sent. */
  | { kind: 'busy'; send: PendingSend }
  /** `post` found nothing to send with (no client): the run is free again. */
  | { kind: 'notSent' }
  /** `mayHaveArrived`: the run keeps an `uncertain` send; otherwise the run is free again. */
  | { kind: 'failed'; error: unknown; mayHaveArrived: boolean };

export interface SendOptions {
  /** The person chose to send an `uncertain` follow-up again, knowing it may have arrived. */
  resend?: boolean;
  /** IDs of user messages with the same text the run already has (so they are not taken for this one). */
  knownIds?: readonly string[];
  /** The newest message `sequence` the run is known to have: the prompt, when it arrives, comes after it. */
  afterSequence?: number;
  /** The run's `completedAt` (when finished) and `updatedAt` as known now, kept for the act once the prompt is found. */
  before?: { completedAt?: number; updatedAt?: number };
}

export class FollowUpSends {
  private readonly sends = new Map<string, StoredSend>();
  private readonly changes = new Emitter<string>();
  /** Fires with the agentId whenever a run's send state changed. */
  readonly onDidChange: Event<string> = this.changes.event;

  constructor(
    private readonly memento: SendMemento,
    private readonly now: () => number = Date.now,
  ) {
    let recovered = false;
    for (const [agentId, send] of revive(memento.get<unknown>(FOLLOW_UP_SENDS_KEY))) {
      // Nothing of this session sends yet: a `sending` entry is a POST cut by a reload.
      if (send.state === 'sending') {
        send.state = 'uncertain';
        recovered = true;
      }
      this.sends.set(agentId, send);
    }
    if (recovered) {
      this.persist();
    }
  }

  get(agentId: string): PendingSend | undefined {
    const s = this.sends.get(agentId);
    return s ? { state: s.state, prompt: s.prompt, since: s.since } : undefined;
  }

  /** What an `uncertain` send sent, for the person's deliberate resend. */
  input(agentId: string): FollowUpInput | undefined {
    const s = this.sends.get(agentId);
    if (!s) {
      return undefined;
    }
    const input: FollowUpInput = { prompt: s.prompt };
    if (s.permission) {
      input.permission = s.permission;
    }
    if (s.permittedBranches) {
      input.permittedBranches = [...s.permittedBranches];
    }
    return input;
  }

  /**
   * The run has a send that may have arrived, made less than `UNCERTAIN_READ_MS` ago, whose
   * prompt no read has shown yet: it is read on even when finished, so a prompt that shows late
   * still settles it.
   */
  awaiting(agentId: string): boolean {
    const s = this.sends.get(agentId);
    return s?.state === 'uncertain' && this.now() - s.since < UNCERTAIN_READ_MS;
  }

  /** Runs with an `uncertain` send, to be read until the prompt shows up in their history. */
  uncertain(): string[] {
    return [...this.sends].filter(([, s]) => s.state === 'uncertain').map(([id]) => id);
  }

  /**
   * The run's lock, checked here only: POSTs the follow-up through `post` unless the run already
   * has a send under way or one that may have arrived (then `busy`, unless this is the person's
   * deliberate resend of it). `post` resolving to `undefined` sent nothing (`notSent`).
   */
  async send(agentId: string, input: FollowUpInput, post: (input: FollowUpInput) => Promise<FollowUpAck | undefined>, options: SendOptions = {}): Promise<SendOutcome> {
    const current = this.sends.get(agentId);
    if (current && !(options.resend && current.state === 'uncertain')) {
      return { kind: 'busy', send: { state: current.state, prompt: current.prompt, since: current.since } };
    }
    const entry: StoredSend = { ...input, state: 'sending', since: this.now() };
    if (options.knownIds && options.knownIds.length > 0) {
      entry.knownIds = options.knownIds.slice(0, 100);
    }
    if (options.afterSequence !== undefined && Number.isSafeInteger(options.afterSequence)) {
      entry.afterSequence = options.afterSequence;
    }
    if (options.before?.completedAt !== undefined) entry.beforeCompletedAt = options.before.completedAt;
    if (options.before?.updatedAt !== undefined) entry.beforeUpdatedAt = options.before.updatedAt;
    this.set(agentId, entry);
    try {
      const ack = await post(input);
      this.set(agentId, undefined);
      return ack ? { kind: 'sent', ack } : { kind: 'notSent' };
    } catch (error) {
      const arrived = mayHaveArrived(error);
      if (this.sends.get(agentId) === entry) {
        this.set(agentId, arrived ? { ...entry, state: 'uncertain' } : undefined);
      }
      return { kind: 'failed', error, mayHaveArrived: arrived };
    }
  }

  /** The person gave up an `uncertain` send: returns its text (for the draft); nothing is sent. */
  discard(agentId: string): string | undefined {
    const s = this.sends.get(agentId);
    if (!s || s.state !== 'uncertain') {
      return undefined;
    }
    this.set(agentId, undefined);
    return s.prompt;
  }

  /**
   * A read of the run: an `uncertain` send whose prompt is in the history, after the sequence known at the
   * send (the service's clock may be off by any amount), arrived: it is cleared, and its turn awaited.
   */
  observe(agentId: string, history: readonly AgentMessage[] | undefined): FoundSend | undefined {
    const s = this.sends.get(agentId);
    if (!s || s.state !== 'uncertain' || !history) {
      return undefined;
    }
    const found = history.find((m) => m.role === 'user'
      && typeof m.content === 'string' && m.content.trim() === s.prompt.trim()
      && !(m.id !== undefined && s.knownIds?.includes(m.id))
      && (s.afterSequence === undefined || m.sequence === undefined || m.sequence > s.afterSequence));
    if (!found) {
      return undefined;
    }
    this.set(agentId, undefined);
    const sequence = found.sequence !== undefined && Number.isSafeInteger(found.sequence) ? found.sequence : -1;
    const before: FoundSend['before'] = {};
    if (s.beforeCompletedAt !== undefined) before.completedAt = s.beforeCompletedAt;
    if (s.afterSequence !== undefined) before.lastSequence = s.afterSequence;
    if (s.beforeUpdatedAt !== undefined) before.updatedAt = s.beforeUpdatedAt;
    return { prompt: s.prompt, sequence, before, permission: s.permission, permittedBranches: s.permittedBranches };
  }

  /** The run left the list: its send state goes with it. */
  forget(agentId: string): void {
    if (this.sends.has(agentId)) {
      this.set(agentId, undefined);
    }
  }

  dispose(): void {
    this.changes.dispose();
  }

  private set(agentId: string, send: StoredSend | undefined): void {
    if (send) {
      this.sends.set(agentId, send);
    } else {
      this.sends.delete(agentId);
    }
    this.persist();
    this.changes.fire(agentId);
  }

  private persist(): void {
    const kept = [...this.sends].sort((a, b) => b[1].since - a[1].since).slice(0, MAX_SENDS);
    void this.memento.update(FOLLOW_UP_SENDS_KEY, kept.length > 0 ? Object.fromEntries(kept) : undefined);
  }
}

/** Stored entries that still make sense; anything else is dropped (a lock must never be invented). */
function revive(raw: unknown): [string, StoredSend][] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return [];
  }
  const out: [string, StoredSend][] = [];
  for (const [agentId, v] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof v !== 'object' || v === null) {
      continue;
    }
    const r = v as Record<string, unknown>;
    if ((r.state !== 'sending' && r.state !== 'uncertain') || typeof r.prompt !== 'string' || r.prompt.trim() === '' || typeof r.since !== 'number') {
      continue;
    }
    const send: StoredSend = { state: r.state, prompt: r.prompt, since: r.since };
    if (isPermission(r.permission)) {
      send.permission = r.permission;
    }
    if (Array.isArray(r.permittedBranches)) {
      send.permittedBranches = r.permittedBranches.filter((b): b is string => typeof b === 'string');
    }
    if (Array.isArray(r.knownIds)) {
      send.knownIds = r.knownIds.filter((k): k is string => typeof k === 'string');
    }
    if (typeof r.afterSequence === 'number' && Number.isSafeInteger(r.afterSequence)) {
      send.afterSequence = r.afterSequence;
    }
    if (typeof r.beforeCompletedAt === 'number' && Number.isFinite(r.beforeCompletedAt)) {
      send.beforeCompletedAt = r.beforeCompletedAt;
    }
    if (typeof r.beforeUpdatedAt === 'number' && Number.isFinite(r.beforeUpdatedAt)) {
      send.beforeUpdatedAt = r.beforeUpdatedAt;
    }
    out.push([agentId, send]);
  }
  return out;
}

export type FollowUpFailureAction =
  /** Open the run, whose history shows whether the follow-up arrived. */
  | 'openRun'
  /** Send it again knowing it may have arrived (the person's choice, never ours). */
  | 'resend'
  /** Nothing arrived: the same follow-up once more. */
  | 'retry'
  | 'edit'
  /** A follow-up keeps the run's model: another model means another run. */
  | 'cloneRun';

export interface FollowUpFailure {
  message: string;
  actions: FollowUpFailureAction[];
}

/**
 * What a failed follow-up tells the person and offers. `detail` is the client's one-line text.
 * A request that may have arrived never offers a bare Retry: only a deliberate "Resend Anyway"
 * next to "check the run"; a refusal for credits offers what a follow-up can change.
 */
export function describeFollowUpFailure(error: unknown, arrived: boolean, detail: string, l10n: L10n): FollowUpFailure {
  if (arrived) {
    return {
      message: l10n.t('The follow-up may have reached the service, but no answer came ({0}). It is not sent again on its own: the run is read to see whether it arrived.', detail.replace(/[.\s]+$/, '')),
      actions: ['openRun', 'resend'],
    };
  }
  if (isApiError(error) && error.kind === 'insufficient_credits') {
    return {
      message: l10n.t('The workspace has too few paid credits to continue this run on its service-hosted model (402 insufficient_paid_credits). A follow-up keeps the run\'s model: add credits in the service\'s web interface and send it again, or clone the run with a connected-provider model.'),
      actions: ['cloneRun', 'retry', 'edit'],
    };
  }
  if (isApiError(error) && error.kind === 'unauthorized') {
    // The shared 401 gate asks for a new token, once.
    return { message: detail, actions: [] };
  }
  return { message: detail, actions: ['retry', 'edit'] };
}
