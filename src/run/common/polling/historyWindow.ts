/**
 * Reading a run whose history the service caps (`historyLimit`): a window sized to what the run wrote
 * lately, so a poll costs about what is new, widened back to the last message taken in when some were
 * left out. What lies beyond the maximum is gone: the transcript records the gap. Pure.
 */
import { maxSequence, type Agent, type AgentMessage, type HistoryLimitParam } from '../../../api/types';

/** The smallest window asked for: the newest message (to see it change) and one more. */
export const MIN_WINDOW = 2;
/** Without a documented maximum, the widest window asked for. */
export const FALLBACK_MAX_WINDOW = 500;
/** Reads of one poll, widening included. */
const MAX_REQUESTS = 3;

/** Reads the run asking for `limit` recent messages; `undefined`: no parameter (the service's default). */
export type WindowedGet = (limit: number | undefined) => Promise<Agent>;

export interface WindowedRead {
  readonly agent: Agent;
  /** The window of each request made, in order (`undefined`: none sent). */
  readonly limits: readonly (number | undefined)[];
  /**
   * The last answer held only new messages and either filled the widest window or did not reach
   * back to the last one seen (see `outran`): the run writes faster than it is read, and what it
   * writes before the next read may already be out of reach. Read it again soon.
   */
  readonly full: boolean;
}

export class HistoryWindows {
  /** New messages per run at the latest read: the next window's size. */
  private readonly recent = new Map<string, number>();

  /**
   * One poll of one run. `lastSequence`: the highest taken in (undefined: the widest window); `param`
   * undefined: no window is sent (the schema has none); `reachBackTo`: widen once to reach that far back.
   */
  async read(agentId: string, lastSequence: number | undefined, param: HistoryLimitParam | undefined, get: WindowedGet, reachBackTo?: number): Promise<WindowedRead> {
    if (!param) {
      const agent = await get(undefined);
      return { agent, limits: [undefined], full: outran(agent.history, lastSequence) };
    }
    const max = param.maximum ?? FALLBACK_MAX_WINDOW;
    const limits: number[] = [];
    let limit = lastSequence === undefined ? max : clamp(Math.ceil((this.recent.get(agentId) ?? 0) * 1.5) + MIN_WINDOW, max);
    const reach = lastSequence === undefined || reachBackTo === undefined ? lastSequence : Math.min(lastSequence, reachBackTo);
    const earlier: AgentMessage[][] = [];
    let agent: Agent;
    for (;;) {
      limits.push(limit);
      agent = await get(limit);
      const wanted = windowNeeded(agent.history, limit, reach);
      if (wanted === undefined || limit >= max || limits.length >= MAX_REQUESTS) {
        break;
      }
      earlier.push(agent.history ?? []);
      limit = clamp(Math.max(wanted, limit * 2), max);
    }
    const full = outran(agent.history, lastSequence, limit, max);
    if (earlier.length > 0) {
      agent = { ...agent, history: union(earlier, agent.history ?? []) };
    }
    const newest = maxSequence(agent.history, lastSequence);
    if (newest !== undefined && lastSequence !== undefined) {
      this.recent.set(agentId, Math.max(0, newest - lastSequence));
    }
    return { agent, limits, full };
  }

  forget(agentId: string): void {
    this.recent.delete(agentId);
  }
}

/**
 * The window that would have reached back to `lastSequence` + 1, or undefined when this
 * answer is complete: fewer messages than asked for, or the oldest one follows what was seen.
 * Messages arriving between two requests are allowed for with a little slack.
 */
export function windowNeeded(history: readonly AgentMessage[] | undefined, limit: number, lastSequence: number | undefined): number | undefined {
  if (!history || history.length < limit || lastSequence === undefined) {
    return undefined;
  }
  let oldest: number | undefined;
  for (const m of history) {
    const s = m.sequence;
    if (s !== undefined && Number.isSafeInteger(s)) {
      oldest = oldest === undefined ? s : Math.min(oldest, s);
    }
  }
  // A sequence no run could reach (2^53−1 among 1…29) sizes nothing.
  const newest = maxSequence(history, lastSequence);
  if (oldest === undefined || newest === undefined || oldest <= lastSequence + 1) {
    return undefined;
  }
  const span = newest - lastSequence;
  return span + Math.ceil(span / 4) + MIN_WINDOW;
}

/**
 * The run outruns its reads: every message is new, and the answer does not reach back to the one after
 * `lastSequence` or filled the widest window; a small window that came back just full does not count.
 */
export function outran(history: readonly AgentMessage[] | undefined, lastSequence: number | undefined, limit?: number, max?: number): boolean {
  if (!history || history.length === 0) {
    return false;
  }
  let oldest: number | undefined;
  for (const m of history) {
    const s = m.sequence;
    if (s === undefined || !Number.isSafeInteger(s)) {
      continue;
    }
    if (lastSequence !== undefined && s <= lastSequence) {
      return false;
    }
    oldest = oldest === undefined ? s : Math.min(oldest, s);
  }
  const gap = lastSequence !== undefined && oldest !== undefined && oldest > lastSequence + 1;
  return gap || (limit !== undefined && max !== undefined && limit >= max && history.length >= limit);
}

/**
 * The latest answer's history plus what only an earlier, narrower answer of the same poll had
 * (normally nothing: the wider window holds it; but nothing once received is thrown away).
 */
function union(earlier: readonly AgentMessage[][], latest: readonly AgentMessage[]): AgentMessage[] {
  const key = (m: AgentMessage): string | undefined => (m.id !== undefined ? `id:${m.id}` : m.sequence !== undefined ? `seq:${m.sequence}` : undefined);
  const seen = new Set(latest.map(key).filter((k) => k !== undefined));
  const extra: AgentMessage[] = [];
  for (const list of earlier) {
    for (const m of list) {
      const k = key(m);
      if (k === undefined || !seen.has(k)) {
        extra.push(m);
        if (k !== undefined) seen.add(k);
      }
    }
  }
  return extra.length === 0 ? [...latest] : [...extra, ...latest];
}

function clamp(n: number, max: number): number {
  return Math.max(1, Math.min(max, Math.max(MIN_WINDOW, Math.round(n))));
}
