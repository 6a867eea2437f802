/**
 * Starts that may have reached the service without the run's ID (a reload, timeout or cut after the body
 * left): never re-sent on its own nor forgotten, shown in the Runs view until dismissed or listed. In
 * workspace state (global state would show another window's live start as cut); the fault suite drives it.
 */
import { Emitter, type Disposable, type Event } from '../base/common/events';

export interface StartMemento {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

export const UNCONFIRMED_STARTS_KEY = 'agentRuns.unconfirmedStarts.v1';
const MAX_STARTS = 20;
const MAX_PROMPT_CHARS = 50_000;

export interface UnconfirmedStart {
  id: string;
  /** `sending`: the POST is under way in this window. `uncertain`: it may have created a run. */
  state: 'sending' | 'uncertain';
  appId: string;
  prompt: string;
  model: string;
  baseUrl: string;
  since: number;
}

export type StartEnd =
  /** The service answered with the run. */
  | 'started'
  /** Certainly not created (refused, or never sent). */
  | 'notCreated'
  /** May have been created (timeout, cut connection, 5xx, unreadable answer). */
  | 'mayExist';

export class UnconfirmedStarts {
  private readonly starts = new Map<string, UnconfirmedStart>();
  private readonly changes = new Emitter<void>();
  readonly onDidChange: Event<void> = this.changes.event;
  private counter = 0;

  constructor(
    private readonly memento: StartMemento,
    private readonly now: () => number = Date.now,
  ) {
    let recovered = false;
    for (const s of revive(memento.get<unknown>(UNCONFIRMED_STARTS_KEY))) {
      if (s.state === 'sending') {
        // This window was reloaded while the POST was under way.
        s.state = 'uncertain';
        recovered = true;
      }
      this.starts.set(s.id, s);
    }
    if (recovered) {
      this.persist();
    }
  }

  /** Right before `POST /agents`: returns the entry's ID for `end`. */
  begin(start: Omit<UnconfirmedStart, 'id' | 'state' | 'since'>): string {
    const since = this.now();
    const id = `${since.toString(36)}-${(this.counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    this.starts.set(id, { ...start, prompt: start.prompt.slice(0, MAX_PROMPT_CHARS), id, state: 'sending', since });
    this.persist();
    return id;
  }

  end(id: string, how: StartEnd): void {
    const s = this.starts.get(id);
    if (!s) {
      return;
    }
    if (how === 'mayExist') {
      this.starts.set(id, { ...s, state: 'uncertain' });
    } else {
      this.starts.delete(id);
    }
    this.persist();
    this.changes.fire();
  }

  /** The starts to show, newest first. */
  uncertain(): UnconfirmedStart[] {
    return [...this.starts.values()].filter((s) => s.state === 'uncertain').sort((a, b) => b.since - a.since);
  }

  dismiss(id: string): void {
    if (this.starts.delete(id)) {
      this.persist();
      this.changes.fire();
    }
  }

  /** A run entered the list (tracked by ID, say): the uncertain starts it answers are settled. */
  settledBy(run: { appId?: string; prompt?: string }): void {
    const prompt = run.prompt?.trim();
    if (!prompt || !run.appId) {
      return;
    }
    const matches = this.uncertain().filter((s) => s.appId === run.appId && s.prompt.trim() === prompt);
    for (const s of matches) {
      this.starts.delete(s.id);
    }
    if (matches.length > 0) {
      this.persist();
      this.changes.fire();
    }
  }

  dispose(): void {
    this.changes.dispose();
  }

  private persist(): void {
    const kept = [...this.starts.values()].sort((a, b) => b.since - a.since).slice(0, MAX_STARTS);
    void this.memento.update(UNCONFIRMED_STARTS_KEY, kept.length > 0 ? kept : undefined);
  }
}

function revive(raw: unknown): UnconfirmedStart[] {
  if (!Array.isArray(raw)) {
    return [];
  }
  const out: UnconfirmedStart[] = [];
  for (const v of raw) {
    if (typeof v !== 'object' || v === null) {
      continue;
    }
    const r = v as Record<string, unknown>;
    const text = (k: string): string | undefined => (typeof r[k] === 'string' ? r[k] : undefined);
    const id = text('id');
    const appId = text('appId');
    const prompt = text('prompt');
    if (!id || !appId || prompt === undefined || typeof r.since !== 'number' || (r.state !== 'sending' && r.state !== 'uncertain')) {
      continue;
    }
    out.push({ id, state: r.state, appId, prompt, model: text('model') ?? '', baseUrl: text('baseUrl') ?? '', since: r.since });
  }
  return out;
}

export { firstWords } from './common/firstWords';

/** A run entering the list (in any window) settles the uncertain starts it answers, whether or not the Runs view was built. */
export function settleStartsOnRuns(
  starts: () => UnconfirmedStarts,
  ledgers: { onDidChangeRuns: Event<{ readonly agentIds: readonly string[] }>; readonly current: { get(agentId: string): { appId?: string; prompt?: string } | undefined } },
): Disposable {
  return ledgers.onDidChangeRuns((change) => {
    for (const id of change.agentIds) {
      const record = ledgers.current.get(id);
      if (record) {
        starts().settledBy(record);
      }
    }
  });
}
