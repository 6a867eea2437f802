/**
 * What the run panel posts, without `vscode`: a session's `init`, then an `update` with only what
 * changed. Each transcript read is merged once into the shared store before this hears of it
 * (run/common/polling/runReads.ts); a session only remembers the instance and revision it showed.
 */
import type { Run } from '../../run/common/ledger/runState';
import { LifecycleTracker, latestTime } from './lifecycle';
import {
  cutText,
  MAX_WIRE_CONTENT_CHARS,
  PROTOCOL_VERSION,
  toWireMessage,
  type ActivityView,
  type Freshness,
  type InitMessage,
  type PanelHeader,
  type TranscriptInfo,
  type UpdateMessage,
  type WebviewStrings,
  type WireMessage,
} from './protocol';
import type { Transcript, TranscriptEntry } from '../../run/common/transcript/transcript';

/** What the host knows about a run right now: the run as its one state shows it, and how fresh that is. */
export interface Shown {
  run: Run;
  /** Omitted means live. */
  freshness?: Freshness;
  /** When the user last marked this run seen (Unix ms); draws a "new since" divider. */
  lastSeenAt?: number;
}

const MAX_HEADER_BRANCHES = 1_000;

/** Header fields for the webview: documented fields only, type-checked and length-capped. */
export function buildHeader(run: Run | undefined, agentId: string): PanelHeader {
  const h: PanelHeader = { agentId: cutText(agentId, 1_000) };
  if (!run) {
    return h;
  }
  const s = (v: unknown, max = 1_000) => (typeof v === 'string' && v.length > 0 ? cutText(v, max) : undefined);
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= 8.64e15 ? v : undefined);
  const set = <K extends keyof PanelHeader>(k: K, v: PanelHeader[K] | undefined) => {
    if (v !== undefined) {
      h[k] = v;
    }
  };
  set('status', s(run.status, 200));
  set('kind', s(run.kind, 200));
  set('appId', s(run.appId));
  set('projectId', s(run.projectId));
  set('projectName', s(run.projectName));
  set('reviewId', s(run.reviewId));
  set('model', s(run.model, 200));
  set('reasoningEffort', s(run.reasoningEffort, 200));
  set('permission', s(run.permission, 200));
  if (Array.isArray(run.permittedBranches)) {
    h.permittedBranches = run.permittedBranches
      .filter((b): b is string => typeof b === 'string')
      .slice(0, MAX_HEADER_BRANCHES)
      .map((b) => cutText(b, 255));
  }
  set('createdAt', n(run.createdAt));
  set('updatedAt', n(run.updatedAt));
  set('completedAt', n(run.completedAt));
  set('lastError', s(run.lastError, MAX_WIRE_CONTENT_CHARS));
  // What the conversation allows is the run state's one rule, not the page's to work out.
  if (run.codeReview) h.codeReview = true;
  if (!run.takesFollowUps) h.noFollowUps = true;
  return h;
}

export interface RunObserverDeps {
  getRun(agentId: string): Shown | undefined;
  transcript(agentId: string): Transcript;
  now(): number;
  /** Runs followed at once; the least recently observed go first (never a pinned one). */
  maxRuns?: number;
  isPinned?(agentId: string): boolean;
}

interface Watched {
  lifecycle: LifecycleTracker;
  /** Local time of the last observed change (new/changed message or lifecycle move). */
  lastChangeAt?: number;
  /** Transcript revision at the previous observation. */
  lastRevision?: number;
  observedOnce: boolean;
}

/** Lifecycle lanes and activity of the runs shown in this session. */
export class RunObserver {
  private readonly runs = new Map<string, Watched>();

  constructor(private readonly deps: RunObserverDeps) {}

  has(agentId: string): boolean {
    return this.runs.has(agentId);
  }

  private state(agentId: string): Watched {
    let s = this.runs.get(agentId);
    if (s) {
      this.runs.delete(agentId);
    } else {
      s = { lifecycle: new LifecycleTracker(), observedOnce: false };
    }
    this.runs.set(agentId, s);
    const max = this.deps.maxRuns ?? 50;
    if (this.runs.size > max) {
      for (const id of [...this.runs.keys()]) {
        if (this.runs.size <= max) {
          break;
        }
        if (id !== agentId && !this.deps.isPinned?.(id)) {
          this.runs.delete(id);
        }
      }
    }
    return s;
  }

  /** Takes the host's latest data for a run into the lifecycle lanes and the activity clock (the transcript is already merged). */
  observe(agentId: string): void {
    const run = this.deps.getRun(agentId);
    if (!run) {
      return;
    }
    const s = this.state(agentId);
    const now = this.deps.now();
    const transcript = this.deps.transcript(agentId);
    const lifecycleChanged = s.lifecycle.observe(
      { lifecycle: run.run.lifecycle, status: run.run.status, completedAt: run.run.completedAt },
      now,
    );
    const moved = s.lastRevision !== undefined && s.lastRevision !== transcript.revision;
    s.lastRevision = transcript.revision;
    if (s.observedOnce && (moved || lifecycleChanged)) {
      s.lastChangeAt = now;
    }
    s.observedOnce = true;
  }

  lifecycle(agentId: string): LifecycleTracker {
    return this.state(agentId).lifecycle;
  }

  activity(agentId: string, run: Run | undefined, stallAfterMs: number): ActivityView {
    const s = this.state(agentId);
    const newest = this.deps.transcript(agentId).last()?.createdAt;
    const a: ActivityView = { stallAfterMs };
    const last = latestTime(run?.lifecycle?.lastLifecycleEventAt, run?.updatedAt, newest, s.lastChangeAt);
    if (last !== undefined) {
      a.lastActivityAt = last;
    }
    return a;
  }
}

export interface SessionDeps {
  getRun(agentId: string): Shown | undefined;
  transcript(agentId: string): Transcript;
  observer: RunObserver;
  stallAfterMs: number;
  locale: string;
  isMac: boolean;
  strings(): WebviewStrings;
  draft(agentId: string): string;
}

/** An entry as the page gets it, with the gap before it (the page shows it there). */
function wire(e: TranscriptEntry): WireMessage {
  const w = toWireMessage(e.key, e.arrival, e.message);
  if (e.sequence !== undefined && e.sequence !== e.message.sequence) {
    w.orderSequence = e.sequence;
  }
  if (e.gapBefore !== undefined && e.gapBefore > 0) {
    w.gapBefore = e.gapBefore;
  }
  return w;
}

function info(t: Transcript): TranscriptInfo {
  const s = t.snapshotInfo();
  return {
    earlierMessagesUnavailable: s.earlierMessagesUnavailable,
    missingMessageCount: s.missingMessageCount,
    droppedMessageCount: s.droppedMessageCount,
  };
}

/** One webview session of a run panel: an `init`, then updates relative to what it was sent. */
export class PanelSession {
  /** JSON of the parts last sent, so only changed parts are sent again. */
  private last = { header: '', lifecycle: '', activity: '', freshness: '', transcript: '' };
  private shown: { transcript: Transcript; revision: number } | undefined;

  constructor(
    readonly agentId: string,
    private readonly deps: SessionDeps,
  ) {}

  init(): InitMessage {
    const { deps, agentId } = this;
    const run = deps.getRun(agentId);
    const transcript = deps.transcript(agentId);
    const snapshot = transcript.snapshot();
    this.shown = { transcript, revision: transcript.revision };
    const header = buildHeader(run?.run, agentId);
    const lifecycle = deps.observer.lifecycle(agentId).view();
    const activity = deps.observer.activity(agentId, run?.run, deps.stallAfterMs);
    const freshness: Freshness = run?.freshness ?? { state: 'live' };
    const tInfo = info(transcript);
    const message: InitMessage = {
      type: 'init',
      protocol: PROTOCOL_VERSION,
      agentId: cutText(agentId, 1_000),
      locale: deps.locale.slice(0, 64) || 'en',
      isMac: deps.isMac,
      strings: deps.strings(),
      header,
      lifecycle,
      activity,
      freshness,
      transcript: tInfo,
      messages: snapshot.entries.map(wire),
      draft: deps.draft(agentId),
      maxContentChars: MAX_WIRE_CONTENT_CHARS,
    };
    const seen = run?.lastSeenAt;
    if (typeof seen === 'number') {
      const idx = snapshot.entries.findIndex((e) => typeof e.createdAt === 'number' && e.createdAt > seen);
      // Only worth a divider when something before it was seen.
      if (idx > 0) {
        message.firstUnseenKey = snapshot.entries[idx].key;
      }
    }
    this.last = {
      header: JSON.stringify(header),
      lifecycle: JSON.stringify(lifecycle),
      activity: JSON.stringify(activity),
      freshness: JSON.stringify(freshness),
      transcript: JSON.stringify(tInfo),
    };
    return message;
  }

  /**
   * What changed since the last post, or undefined; a fresh `init` when the page must start over
   * (transcript instance replaced, or evictions further back than the log remembers).
   */
  update(): UpdateMessage | InitMessage | undefined {
    const { deps, agentId } = this;
    const run = deps.getRun(agentId);
    if (!run) {
      return undefined;
    }
    const transcript = deps.transcript(agentId);
    if (!this.shown || this.shown.transcript !== transcript) {
      return this.init();
    }
    const changes = transcript.changesSince(this.shown.revision);
    if (!changes.complete) {
      return this.init();
    }
    this.shown.revision = changes.revision;

    const update: UpdateMessage = { type: 'update' };
    const diff = <K extends keyof typeof this.last>(key: K, value: unknown): boolean => {
      const json = JSON.stringify(value);
      if (json === this.last[key]) {
        return false;
      }
      this.last[key] = json;
      return true;
    };
    const header = buildHeader(run.run, agentId);
    if (diff('header', header)) {
      update.header = header;
    }
    const lifecycle = deps.observer.lifecycle(agentId).view();
    if (diff('lifecycle', lifecycle)) {
      update.lifecycle = lifecycle;
    }
    const activity = deps.observer.activity(agentId, run.run, deps.stallAfterMs);
    if (diff('activity', activity)) {
      update.activity = activity;
    }
    const freshness: Freshness = run.freshness ?? { state: 'live' };
    if (diff('freshness', freshness)) {
      update.freshness = freshness;
    }
    const tInfo = info(transcript);
    if (diff('transcript', tInfo)) {
      update.transcript = tInfo;
    }
    const messages: WireMessage[] = changes.entries.map(wire);
    if (messages.length > 0) {
      update.messages = messages;
    }
    if (changes.evicted.length > 0) {
      update.removedKeys = changes.evicted;
    }
    return Object.keys(update).length > 1 ? update : undefined;
  }
}
