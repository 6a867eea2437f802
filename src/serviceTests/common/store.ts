/**
 * The service test runs shown, read only while active (at `burstMs`, backing off, holding on
 * `Retry-After`; ever less often with an unlisted status and no `completedAt`, as version A
 * sends none); no timer when none is. Each read hands over the steps ended since the last, once each.
 */
import type { RequestOptions } from '../../api/contract';
import { isApiError } from '../../api/errors';
import type { TestArtifact, TestGroupRunDetail, TestRunDetail, TestRunStep } from '../../api/testTypes';
import type { Clock } from '../../base/common/clock';
import { dormantDelay } from '../../run/common/polling/settings';
import type { L10n } from '../../base/common/l10n';
import { orderSteps, runOutcome, stepOutcome, type Outcome } from './outcomes';

export interface TestRunReads {
  getTestRun(runId: string, options?: RequestOptions): Promise<TestRunDetail>;
  getTestGroupRun(groupRunId: string, options?: RequestOptions): Promise<TestGroupRunDetail>;
}

export interface StepReport {
  readonly step: TestRunStep;
  readonly outcome: Outcome;
}

export interface TestRunUpdate {
  readonly runId: string;
  readonly detail: TestRunDetail;
  /** All the run's steps, in run order. */
  readonly steps: readonly TestRunStep[];
  /** The steps that ended since the last update, in run order, each reported once. */
  readonly finished: readonly StepReport[];
  readonly outcome: Outcome;
  /** The run's artifacts with an http(s) link, reported once (with the last update). */
  readonly artifacts: readonly TestArtifact[];
  /** The last update of this run: it ended. */
  readonly done: boolean;
}

export interface GroupRunUpdate {
  readonly groupRunId: string;
  readonly detail: TestGroupRunDetail;
  readonly outcome: Outcome;
  /** The child runs read with this update. */
  readonly children: readonly TestRunUpdate[];
  /** Child runs the service answered 404 for NOT_FOUND_TRIES times: no longer read (the group still is), each said once. */
  readonly lostChildren: readonly { readonly runId: string; readonly message: string }[];
  /** The group and every child run ended. */
  readonly done: boolean;
}

/** Why reading stopped before the run ended. */
export type ReadEnd =
  | { readonly kind: 'done' }
  /** The person stopped watching (the TestRun was cancelled) or the service changed. */
  | { readonly kind: 'stopped' }
  /** The service no longer knows the run, or refused the token: `message` says which. */
  | { readonly kind: 'lost'; readonly message: string };

export interface Sink<U> {
  update(u: U): void;
  end(e: ReadEnd): void;
}

export interface StoreOptions {
  /** The client; undefined when there is none (reading then ends the run as lost). */
  reads(): Promise<TestRunReads | undefined>;
  readonly clock: Clock;
  /** The fast cadence, the backoff cap and the background cadence dormant runs back off from (the poller's settings). */
  cadence(): { fastMs: number; maxBackoffMs: number; backgroundMs: number };
  readonly l10n: L10n;
  /** A failure in words (describeApiError). */
  describe(error: unknown): string;
  /** A 401: the extension's one "Set API Token" handling. */
  onUnauthorized?(error: unknown): void;
  /** A failed read, for the log. */
  onReadProblem?(id: string, message: string): void;
}

/** Reads of a run the service answers 404 right after its start before it is given up. */
export const NOT_FOUND_TRIES = 3;

interface ChildState { reported: Set<string>; artifactsSent: boolean; done: boolean; notFound: number }

interface Follow {
  readonly key: string;
  readonly id: string;
  readonly kind: 'test' | 'group';
  readonly sink: Sink<TestRunUpdate> | Sink<GroupRunUpdate>;
  due: number;
  failures: number;
  notFound: number;
  /** Reads in a row whose run (or group run) had a status nobody lists and no `completedAt`. */
  dormant: number;
  reading: boolean;
  ended: boolean;
  /** The test run's own state, or each child run's by its id. */
  readonly runs: Map<string, ChildState>;
  /** The group ended: its children get one more read each. */
  groupEnded: boolean;
}

export interface Following {
  readonly id: string;
  stop(): void;
}

function httpLinks(artifacts: readonly TestArtifact[]): TestArtifact[] {
  return artifacts.filter((a) => a.url !== undefined && /^https?:\/\//i.test(a.url));
}

export class TestRunStore {
  private readonly follows = new Map<string, Follow>();
  private timer: unknown;
  private timerAt = Infinity;
  private disposed = false;
  /** Requests sent, for the bench and the tests. */
  requests = 0;

  constructor(private readonly o: StoreOptions) {}

  /** Runs being read. */
  get active(): number {
    return this.follows.size;
  }

  followTest(runId: string, sink: Sink<TestRunUpdate>): Following {
    return this.add('test', runId, sink);
  }

  followGroup(groupRunId: string, sink: Sink<GroupRunUpdate>): Following {
    return this.add('group', groupRunId, sink);
  }

  /** Stops every read (another service, or the feature turned off); each sink hears `stopped`. */
  stopAll(): void {
    for (const f of [...this.follows.values()]) this.end(f, { kind: 'stopped' });
  }

  dispose(): void {
    this.stopAll();
    this.disposed = true;
  }

  private add(kind: 'test' | 'group', id: string, sink: Sink<TestRunUpdate> | Sink<GroupRunUpdate>): Following {
    const key = `${kind}:${id}`;
    const previous = this.follows.get(key);
    if (previous) this.end(previous, { kind: 'stopped' });
    const f: Follow = { key, id, kind, sink, due: this.o.clock.now(), failures: 0, notFound: 0, dormant: 0, reading: false, ended: false, runs: new Map(), groupEnded: false };
    this.follows.set(key, f);
    this.arm();
    return { id, stop: () => this.end(f, { kind: 'stopped' }) };
  }

  private end(f: Follow, e: ReadEnd): void {
    if (f.ended) return;
    f.ended = true;
    if (this.follows.get(f.key) === f) this.follows.delete(f.key);
    this.arm();
    f.sink.end(e);
  }

  /** One timer for the earliest due run; none when nothing is active. */
  private arm(): void {
    if (this.disposed) return;
    let next = Infinity;
    for (const f of this.follows.values()) if (!f.reading) next = Math.min(next, f.due);
    if (next === this.timerAt) return;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = next;
    if (next === Infinity) return;
    this.timer = this.o.clock.setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.tick();
    }, Math.max(0, next - this.o.clock.now()));
  }

  private tick(): void {
    const now = this.o.clock.now();
    for (const f of this.follows.values()) {
      if (!f.reading && f.due <= now) void this.read(f);
    }
    this.arm();
  }

  private async read(f: Follow): Promise<void> {
    f.reading = true;
    try {
      const reads = await this.o.reads();
      if (f.ended) return;
      if (!reads) {
        this.end(f, { kind: 'lost', message: this.o.l10n.t('Not connected to the service: the run is no longer read.') });
        return;
      }
      if (f.kind === 'test') await this.readTest(f, reads);
      else await this.readGroup(f, reads);
      f.failures = 0;
      f.notFound = 0;
      // A run the service leaves in a status nobody lists, without an end time, backs off as a dormant agent run does.
      const { fastMs, backgroundMs } = this.o.cadence();
      f.due = this.o.clock.now() + Math.max(fastMs, dormantDelay(f.dormant, backgroundMs));
    } catch (error) {
      this.failed(f, error);
    } finally {
      f.reading = false;
      if (!f.ended) this.arm();
    }
  }

  private failed(f: Follow, error: unknown): void {
    if (f.ended) return;
    const message = this.o.describe(error);
    this.o.onReadProblem?.(f.id, message);
    const status = isApiError(error) ? error.status : undefined;
    if (status === 401) {
      this.o.onUnauthorized?.(error);
      this.end(f, { kind: 'lost', message });
      return;
    }
    if (status === 404 && ++f.notFound >= NOT_FOUND_TRIES) {
      this.end(f, { kind: 'lost', message: this.o.l10n.t('The service no longer knows run {0}: {1}', f.id, message) });
      return;
    }
    f.failures++;
    const { fastMs, maxBackoffMs } = this.o.cadence();
    const backoff = Math.min(maxBackoffMs, fastMs * 2 ** Math.min(f.failures, 16));
    const hold = isApiError(error) && error.retryAfterMs !== undefined ? error.retryAfterMs : 0;
    f.due = this.o.clock.now() + Math.max(backoff, hold);
  }

  private get(reads: TestRunReads, runId: string): Promise<TestRunDetail> {
    this.requests++;
    return reads.getTestRun(runId);
  }

  private update(runId: string, detail: TestRunDetail, state: ChildState): TestRunUpdate {
    const steps = orderSteps(detail.steps);
    const finished: StepReport[] = [];
    for (const step of steps) {
      const outcome = stepOutcome(step, this.o.l10n);
      if (outcome.final && !state.reported.has(step.id)) {
        state.reported.add(step.id);
        finished.push({ step, outcome });
      }
    }
    const outcome = runOutcome(detail.run, this.o.l10n);
    const done = outcome.final;
    const artifacts = done && !state.artifactsSent ? httpLinks(detail.run.artifacts) : [];
    if (done) state.artifactsSent = true;
    state.done = done;
    return { runId, detail, steps, finished, outcome, artifacts, done };
  }

  private async readTest(f: Follow, reads: TestRunReads): Promise<void> {
    const detail = await this.get(reads, f.id);
    if (f.ended) return;
    let state = f.runs.get(f.id);
    if (!state) f.runs.set(f.id, state = { reported: new Set(), artifactsSent: false, done: false, notFound: 0 });
    const u = this.update(f.id, detail, state);
    f.dormant = u.outcome.dormant === true ? f.dormant + 1 : 0;
    (f.sink as Sink<TestRunUpdate>).update(u);
    if (u.done) this.end(f, { kind: 'done' });
  }

  private async readGroup(f: Follow, reads: TestRunReads): Promise<void> {
    this.requests++;
    const detail = await reads.getTestGroupRun(f.id);
    if (f.ended) return;
    const outcome = runOutcome(detail.run, this.o.l10n);
    f.dormant = outcome.dormant === true ? f.dormant + 1 : 0;
    const lastLook = f.groupEnded;
    if (outcome.final) f.groupEnded = true;
    const children: TestRunUpdate[] = [];
    const lostChildren: { runId: string; message: string }[] = [];
    for (const child of detail.childRuns) {
      let state = f.runs.get(child.id);
      if (!state) f.runs.set(child.id, state = { reported: new Set(), artifactsSent: false, done: false, notFound: 0 });
      // A child still queued has nothing to show yet; once it ran, it is read until it ended.
      if (state.done || (child.status === 'queued' && !outcome.final)) continue;
      let read: TestRunDetail;
      try {
        read = await this.get(reads, child.id);
      } catch (error) {
        // One child the service no longer knows is that child's end, not the group's.
        if (!isApiError(error) || error.status !== 404) throw error;
        if (f.ended) return;
        const message = this.o.describe(error);
        this.o.onReadProblem?.(child.id, message);
        if (++state.notFound >= NOT_FOUND_TRIES) {
          state.done = true;
          lostChildren.push({ runId: child.id, message: this.o.l10n.t('The service no longer knows run {0}: {1}', child.id, message) });
        }
        continue;
      }
      if (f.ended) return;
      state.notFound = 0;
      children.push(this.update(child.id, read, state));
    }
    // A group that ended is read once more for children that had not: then it is done whatever they say.
    const done = outcome.final && (lastLook || detail.childRuns.every((c) => f.runs.get(c.id)?.done === true));
    (f.sink as Sink<GroupRunUpdate>).update({ groupRunId: f.id, detail, outcome, children, lostChildren, done });
    if (done) this.end(f, { kind: 'done' });
  }
}
