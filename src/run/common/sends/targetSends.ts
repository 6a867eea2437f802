/**
 * The sender's marks for the app's tests, groups, automations and branches: a send under way, or one that
 * may have arrived. In workspace state so a reload does not forget them (a `sending` mark found before this
 * window sent anything was cut by a reload: `uncertain`); a mark ends after UNCERTAIN_TARGET_MS.
 */
import type { MementoLike } from '../../../base/common/serialStore';

export const TARGET_SENDS_KEY = 'agentRuns.targetSends.v1';

/**
 * How long a target stays `uncertain`: a repeated tool call or a second click comes within a
 * minute, and by two minutes the lists the person would check have been read again.
 */
export const UNCERTAIN_TARGET_MS = 2 * 60_000;

/** A `sending` mark older than this is not a live send (the client's timeouts end one well before). */
const SENDING_MAX_MS = 10 * 60_000;

const MAX_TARGETS = 50;

export interface TargetMark {
  /** `sending`: under way (in this window or another); `uncertain`: it may have reached the service. */
  readonly state: 'sending' | 'uncertain';
  /** When the send began (what the person is told). */
  readonly since: number;
  /** When the mark ends on its own. */
  readonly until: number;
}

export class TargetSends {
  constructor(private readonly memento: Pick<MementoLike, 'get' | 'update'>, private readonly now: () => number = Date.now) {
    const marks = this.read();
    // Nothing of this session sends yet: a `sending` mark is a send cut by a reload.
    if ([...marks.values()].some((m) => m.state === 'sending')) {
      const until = this.now() + UNCERTAIN_TARGET_MS;
      this.write(new Map([...marks].map(([t, m]) => [t, m.state === 'sending' ? { state: 'uncertain', since: m.since, until } : m])));
    }
  }

  /** The target's mark, if it has one that has not ended. */
  get(target: string): TargetMark | undefined {
    return this.read().get(target);
  }

  /** Right before the request leaves. */
  begin(target: string): void {
    const since = this.now();
    this.put(target, { state: 'sending', since, until: since + SENDING_MAX_MS });
  }

  /** The send ended: `mayHaveArrived` keeps the target `uncertain` for `UNCERTAIN_TARGET_MS`; anything else clears it. */
  end(target: string, mayHaveArrived: boolean): void {
    const since = this.get(target)?.since ?? this.now();
    this.put(target, mayHaveArrived ? { state: 'uncertain', since, until: this.now() + UNCERTAIN_TARGET_MS } : undefined);
  }

  private put(target: string, mark: TargetMark | undefined): void {
    const marks = this.read();
    if (mark) marks.set(target, mark);
    else marks.delete(target);
    this.write(marks);
  }

  private write(marks: Map<string, TargetMark>): void {
    const kept = [...marks].sort((a, b) => b[1].since - a[1].since).slice(0, MAX_TARGETS);
    void this.memento.update(TARGET_SENDS_KEY, kept.length > 0 ? Object.fromEntries(kept) : undefined);
  }

  /** The stored marks that make sense and have not ended; anything else is dropped (a mark is never invented). */
  private read(): Map<string, TargetMark> {
    const raw = this.memento.get<unknown>(TARGET_SENDS_KEY);
    const marks = new Map<string, TargetMark>();
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return marks;
    const now = this.now();
    for (const [target, v] of Object.entries(raw as Record<string, unknown>)) {
      if (typeof v !== 'object' || v === null) continue;
      const r = v as Record<string, unknown>;
      if ((r.state !== 'sending' && r.state !== 'uncertain') || typeof r.since !== 'number' || typeof r.until !== 'number' || !(r.until > now)) continue;
      marks.set(target, { state: r.state, since: r.since, until: r.until });
    }
    return marks;
  }
}
