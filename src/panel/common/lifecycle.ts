/**
 * Lifecycle lanes from successive observations of a run: the service sends only the current
 * (undocumented) states and `lastLifecycleEventAt`, so a change is placed at that time when it lies
 * between two observations, else at the observation. Unknown states are kept as sent.
 */
import { isFinished, type AgentLifecycle, type RunStatus } from '../../api/types';
import type { LaneView, LifecycleView } from './protocol';

export type LaneName = 'conversation' | 'sandbox';

interface Lane {
  current?: string;
  currentSince?: number;
  /** Closed time per state, in order of first appearance. */
  totals: Map<string, number>;
}

/** The run as `runState` derives it: `completedAt` only when it is finished (the one rule, runState.ts). */
export interface LifecycleObservation {
  lifecycle?: AgentLifecycle;
  status?: RunStatus;
  completedAt?: number;
}

const MAX_STATES_PER_LANE = 100;
const MAX_STATE_CHARS = 200;

function validTime(t: unknown): t is number {
  return typeof t === 'number' && Number.isFinite(t) && Math.abs(t) <= 8.64e15;
}

function validState(s: unknown): string | undefined {
  return typeof s === 'string' && s.length > 0 ? s.slice(0, MAX_STATE_CHARS) : undefined;
}

export class LifecycleTracker {
  private readonly lanes: Record<LaneName, Lane> = {
    conversation: { totals: new Map() },
    sandbox: { totals: new Map() },
  };
  private lastObservedAt: number | undefined;
  private queuedTurnCount: number | undefined;
  private lastLifecycleEventAt: number | undefined;
  private endedAt: number | undefined;

  /**
   * Records what the run looked like at `observedAt` (local clock, Unix ms). Returns whether
   * anything shown in the lanes changed.
   */
  observe(obs: LifecycleObservation, observedAt: number): boolean {
    const before = JSON.stringify(this.view());
    const lc = obs.lifecycle;
    const eventAt = validTime(lc?.lastLifecycleEventAt) ? lc.lastLifecycleEventAt : undefined;
    const prev = this.lastObservedAt;
    const lower = prev ?? Number.NEGATIVE_INFINITY;
    // The service's clock may differ from ours: only trust its event time inside the window
    // in which the change must have happened.
    const changeAt = eventAt !== undefined && eventAt >= lower && eventAt <= observedAt ? eventAt : observedAt;

    if (this.endedAt !== undefined && obs.status !== undefined && !isFinished(obs)) {
      // A follow-up re-opened the run: close the time up to the end, count again from now.
      for (const lane of Object.values(this.lanes)) {
        if (lane.current !== undefined && lane.currentSince !== undefined) {
          const spent = Math.max(0, this.endedAt - lane.currentSince);
          lane.totals.set(lane.current, (lane.totals.get(lane.current) ?? 0) + spent);
          lane.currentSince = Math.max(changeAt, this.endedAt);
        }
      }
      this.endedAt = undefined;
    }
    if (this.endedAt === undefined) {
      this.step('conversation', validState(lc?.conversationState), changeAt);
      this.step('sandbox', validState(lc?.sandboxState), changeAt);
    }

    // Safe integers only: the webview's schema refuses anything else, and with it the whole message.
    if (typeof lc?.queuedTurnCount === 'number' && Number.isSafeInteger(lc.queuedTurnCount) && lc.queuedTurnCount >= 0) {
      this.queuedTurnCount = lc.queuedTurnCount;
    } else if (lc && !('queuedTurnCount' in lc)) {
      this.queuedTurnCount = undefined;
    }
    if (eventAt !== undefined) {
      this.lastLifecycleEventAt = eventAt;
    }
    if (this.endedAt === undefined && isFinished(obs)) {
      const c = validTime(obs.completedAt) && obs.completedAt >= lower && obs.completedAt <= observedAt ? obs.completedAt : observedAt;
      this.endedAt = c;
    }
    this.lastObservedAt = Math.max(observedAt, prev ?? observedAt);
    return JSON.stringify(this.view()) !== before;
  }

  private step(name: LaneName, state: string | undefined, at: number): void {
    const lane = this.lanes[name];
    if (state === lane.current) {
      return;
    }
    if (lane.current !== undefined && lane.currentSince !== undefined) {
      const spent = Math.max(0, at - lane.currentSince);
      lane.totals.set(lane.current, (lane.totals.get(lane.current) ?? 0) + spent);
    }
    if (state !== undefined && !lane.totals.has(state) && lane.totals.size >= MAX_STATES_PER_LANE) {
      // A service inventing a new state per poll would otherwise grow this without bound.
      lane.current = undefined;
      lane.currentSince = undefined;
      return;
    }
    lane.current = state;
    lane.currentSince = state === undefined ? undefined : Math.max(at, lane.currentSince ?? at);
    if (state !== undefined && !lane.totals.has(state)) {
      lane.totals.set(state, 0);
    }
  }

  /** Total time in `state` on `lane` up to `now` (the open interval counts until the run ended). */
  timeInState(lane: LaneName, state: string, now: number): number {
    const l = this.lanes[lane];
    let t = l.totals.get(state) ?? 0;
    if (l.current === state && l.currentSince !== undefined) {
      t += Math.max(0, (this.endedAt ?? now) - l.currentSince);
    }
    return t;
  }

  view(): LifecycleView {
    const lane = (l: Lane): LaneView => {
      const v: LaneView = { segments: [...l.totals].map(([state, totalMs]) => ({ state, totalMs })) };
      if (l.current !== undefined) {
        v.current = l.current;
      }
      if (l.currentSince !== undefined) {
        v.currentSince = l.currentSince;
      }
      return v;
    };
    const out: LifecycleView = { conversation: lane(this.lanes.conversation), sandbox: lane(this.lanes.sandbox) };
    if (this.queuedTurnCount !== undefined) {
      out.queuedTurnCount = this.queuedTurnCount;
    }
    if (this.lastLifecycleEventAt !== undefined) {
      out.lastLifecycleEventAt = this.lastLifecycleEventAt;
    }
    if (this.endedAt !== undefined) {
      out.endedAt = this.endedAt;
    }
    return out;
  }
}

/** Time in each state of a lane view up to `now`: what the webview shows. */
export function laneDurations(lane: LaneView, now: number, endedAt?: number): { state: string; ms: number; current: boolean }[] {
  return lane.segments.map((s) => {
    const current = s.state === lane.current;
    const open = current && lane.currentSince !== undefined ? Math.max(0, (endedAt ?? now) - lane.currentSince) : 0;
    return { state: s.state, ms: s.totalMs + open, current };
  });
}

export interface StallInput {
  status?: RunStatus;
  /** Newest sign of life (Unix ms). */
  lastActivityAt?: number;
  now: number;
  stallAfterMs: number;
}

/** A running run with no activity for `stallAfterMs` is stalled; `idleMs` says for how long. */
export function stallCheck(input: StallInput): { stalled: boolean; idleMs: number } {
  if (input.status !== 'running' || !validTime(input.lastActivityAt)) {
    return { stalled: false, idleMs: 0 };
  }
  const idleMs = Math.max(0, input.now - input.lastActivityAt);
  return { stalled: idleMs >= input.stallAfterMs, idleMs };
}

/** The newest of the given times, ignoring missing and invalid ones. */
export function latestTime(...times: (number | undefined)[]): number | undefined {
  let best: number | undefined;
  for (const t of times) {
    if (validTime(t) && (best === undefined || t > best)) {
      best = t;
    }
  }
  return best;
}
