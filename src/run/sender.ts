/**
 * Every POST, PUT and DELETE to the service, from every surface; the exactly-once rules live
 * here only (ESLint refuses the client's sending methods elsewhere):
 * - a start (a run's or a code review's) is in `UnconfirmedStarts` while under way;
 * - a follow-up takes the run's lock (`FollowUpSends`), and one to a code review is refused;
 * - a test run, group run or edit, automation run or branch sync takes its target's lock
 *   (`TargetSends`): `busy` while one is under way, `uncertain` after one may have arrived;
 * - a send that may have arrived is recorded as uncertain and never sent again on its own.
 * The POSTs load on the first send (sendPosts.ts, dist/send.js); `observeRead` runs on every read.
 */
import type { AgentRunsApi } from '../api/contract';
import type { CodeReviewStarted, StartCodeReviewRequest, SyncVersionRequest, VersionSync } from '../api/reviewTypes';
import type { Agent, AgentStarted, CreateTestGroupRequest, FollowUpAck, StartAgentRequest, TestGroupCreated } from '../api/types';
import type {
  AutomationRunQueued, StartTestGroupRunRequest, StartTestRunRequest, TestGroupRunStarted, TestRunStarted, UpdateTestGroupRequest,
} from '../api/testTypes';
import { Emitter, type Event } from '../base/common/events';
import type { TargetSends } from './common/sends/targetSends';
import type { MementoLike } from '../base/common/serialStore';
import type { L10n } from '../base/common/l10n';
import type { RunLedger } from './common/ledger/ledger';
import { conversationOf, runState } from './common/ledger/runState';
import type { Poller } from './common/polling/poller';
import type { FollowUpInput, FollowUpSends, PendingSend } from './followUpSends';
import type * as SendPosts from './sendPosts';
import type { UnconfirmedStarts } from './unconfirmedStarts';

export type { FollowUpInput };

export interface SenderDeps {
  /** The client for the configured service; undefined when there is none (told to the person unless `quiet`). */
  client(options: { quiet: boolean }): Promise<AgentRunsApi | undefined>;
  ledger(): RunLedger;
  readonly poller: Pick<Poller, 'track' | 'burst'>;
  readonly starts: UnconfirmedStarts;
  readonly sends: FollowUpSends;
  /**
   * Where the marks of the app's tests, groups, automations and branches are kept (workspace
   * state): `TargetSends` itself loads with the POSTs, keeping it out of the activation bundle.
   */
  readonly targetState: Pick<MementoLike, 'get' | 'update'>;
  /** The run's draft: emptied while its text is on its way, given back when nothing arrived. */
  readonly drafts?: { get(agentId: string): string | undefined; set(agentId: string, text: string | undefined): void };
  /** IDs of user messages with this text the run already has (they are not the one being sent). */
  knownUserMessageIds?(agentId: string, prompt: string): string[];
  readonly log: { info(message: string): void; warn(message: string): void; trace?(message: string): void };
  now?(): number;
  /** The words of what the sender records for the person (a code review's name); untranslated without. */
  readonly l10n?: L10n;
}

export interface SendOptions {
  /** Where the send came from, for the log. */
  from: string;
  /** Cancels the request; a cancel after the body left is a "may have arrived". */
  signal?: AbortSignal;
  /** The client to send with (else the current one). */
  client?: AgentRunsApi;
  /** Without a client, tell nobody (the caller says why in its own words). */
  quiet?: boolean;
}

/** Nothing was sent: there is no client (no base URL, no token, insecure URL declined). */
export interface NotConnected { readonly kind: 'notConnected' }

/** The request failed; `mayHaveArrived`: it may have taken effect, and was recorded as uncertain. */
export interface SendFailed { readonly kind: 'failed'; readonly error: unknown; readonly mayHaveArrived: boolean; readonly baseUrl: string }

export type StartResult = { readonly kind: 'started'; readonly run: AgentStarted; readonly baseUrl: string } | NotConnected | SendFailed;

export type FollowUpResult =
  | { readonly kind: 'sent'; readonly ack: FollowUpAck }
  /** Another send of this run is under way or may have arrived: nothing was sent. */
  | { readonly kind: 'busy'; readonly send: PendingSend }
  /** The run's conversation takes no follow-ups (a code review's): nothing was sent. */
  | { readonly kind: 'noFollowUps' }
  | NotConnected
  | SendFailed;

export type CodeReviewResult = { readonly kind: 'started'; readonly review: CodeReviewStarted; readonly prompt: string; readonly baseUrl: string } | NotConnected | SendFailed;

/** How the picked versions are shown, for the name the review is listed under (reviews/common/form.ts `reviewPrompt`). */
export interface ReviewLabels {
  fromVersionLabel?: string;
  toVersionLabel?: string;
}

export type TestGroupResult = { readonly kind: 'created'; readonly group: TestGroupCreated; readonly baseUrl: string } | NotConnected | SendFailed;

/** Another send for the same target (test, group, automation) is under way: nothing was sent. */
export interface Busy { readonly kind: 'busy' }

/** A send for the same target began at `since` and may have reached the service: nothing was sent. */
export interface Uncertain { readonly kind: 'uncertain'; readonly since: number }

type Sent<R> = R | Busy | Uncertain | NotConnected | SendFailed;
export type TestRunResult = Sent<{ readonly kind: 'started'; readonly started: TestRunStarted; readonly baseUrl: string }>;
export type TestGroupRunResult = Sent<{ readonly kind: 'started'; readonly started: TestGroupRunStarted; readonly baseUrl: string }>;
/** A group's `PUT` or `DELETE`, acknowledged. */
export type TestGroupChangeResult = Sent<{ readonly kind: 'done'; readonly baseUrl: string }>;
export type AutomationRunResult = Sent<{ readonly kind: 'queued'; readonly queued: AutomationRunQueued; readonly baseUrl: string }>;
/** A branch's sync, answered (done, failed or still running: its `status`). */
export type VersionSyncResult = Sent<{ readonly kind: 'answered'; readonly sync: VersionSync; readonly baseUrl: string }>;

/** The target locks: the sends under way in this window, and the marks kept in workspace state (made on the first send). */
export interface TargetLocks { readonly underWay: Set<string>; marks?: TargetSends }

/** The sender's POSTs (src/run/sendPosts.ts): dist/send.js in the extension (extension.ts), the module itself in tests. */
export type SendPostsModule = typeof SendPosts;

export class Sender {
  /** The targets with a send under way (`test:<id>`, `group:<id>`, …) and their marks. */
  private readonly locks: TargetLocks = { underWay: new Set<string>() };
  private readonly groupsChanged = new Emitter<{ readonly groupId?: string }>();
  /**
   * A test group was created, changed or deleted through the sender (or may have been: the send
   * may have reached the service), so a list of groups kept elsewhere (the Test Explorer's)
   * reads again instead of showing what it read before.
   */
  readonly onDidChangeTestGroups: Event<{ readonly groupId?: string }> = this.groupsChanged.event;

  constructor(private readonly d: SenderDeps, private readonly posts: () => SendPostsModule) {}

  /**
   * `send`, unless one for `target` is under way (then `busy`) or an earlier one may have arrived
   * and its mark has not ended (then `uncertain`); either way nothing is sent (`throughLock`).
   */
  private once<R extends { readonly kind: string; readonly mayHaveArrived?: boolean }>(target: string, o: SendOptions, send: (posts: SendPostsModule) => Promise<R>): Promise<R | Busy | Uncertain> {
    const posts = this.posts();
    return posts.throughLock(this.d, this.locks, target, o, () => send(posts));
  }

  /** `POST /test-runs`, once; `busy` while a run of the same test is being started; `uncertain` after one may have arrived. */
  startTestRun(request: StartTestRunRequest, o: SendOptions): Promise<TestRunResult> {
    return this.once(`test:${request.testId}`, o, (p) => p.postTestRun(this.d, request, o));
  }

  /** `POST /test-group-runs`, once; `busy` while a run of the same group is being started; `uncertain` after one may have arrived. */
  startTestGroupRun(request: StartTestGroupRunRequest, o: SendOptions): Promise<TestGroupRunResult> {
    return this.once(`groupRun:${request.groupId}`, o, (p) => p.postTestGroupRun(this.d, request, o));
  }

  /** `PUT /test-groups/{id}`, once; `busy` while the group is being changed or deleted. */
  updateTestGroup(groupId: string, request: UpdateTestGroupRequest, o: SendOptions): Promise<TestGroupChangeResult> {
    return this.changed(groupId, this.once(`group:${groupId}`, o, (p) => p.putTestGroup(this.d, groupId, request, o)));
  }

  /** `DELETE /test-groups/{id}`, once; `busy` while the group is being changed or deleted. */
  deleteTestGroup(groupId: string, o: SendOptions): Promise<TestGroupChangeResult> {
    return this.changed(groupId, this.once(`group:${groupId}`, o, (p) => p.removeTestGroup(this.d, groupId, o)));
  }

  /** `POST /versions/sync`, once; `busy` while the same branch of the app is being synced from here. */
  syncVersion(request: SyncVersionRequest, o: SendOptions): Promise<VersionSyncResult> {
    return this.once(`sync:${request.appId}:${request.version}`, o, (p) => p.postVersionSync(this.d, request, o));
  }

  /** `POST /automations/{id}/run`, once; `busy` while the same automation is being run. */
  runAutomation(automationId: string, o: SendOptions): Promise<AutomationRunResult> {
    return this.once(`automation:${automationId}`, o, (p) => p.postAutomationRun(this.d, automationId, o));
  }

  /** `POST /agents`, once; listed and followed when acknowledged, recorded as "may have started" when it may have arrived. */
  start(request: StartAgentRequest, o: SendOptions): Promise<StartResult> {
    return this.posts().postStart(this.d, request, o);
  }

  /**
   * `POST /agents/{id}/messages` through the run's lock (`busy`; with `resend`, the person's resend of that
   * one); `noFollowUps` for a conversation that takes none, which `read` tells for a run not listed.
   */
  followUp(agentId: string, input: FollowUpInput, o: SendOptions & { resend?: boolean; read?: Pick<Agent, 'kind' | 'reviewId'> }): Promise<FollowUpResult> {
    const record = this.d.ledger().get(agentId);
    const conversation = record ? runState(record) : conversationOf(o.read ?? {});
    if (!conversation.takesFollowUps) {
      this.d.log.info(`Follow-up to ${agentId} from the ${o.from} not sent: its conversation (a code review) takes no follow-ups.`);
      return Promise.resolve({ kind: 'noFollowUps' });
    }
    return this.posts().postFollowUp(this.d, agentId, input, o);
  }

  /**
   * `POST /code-reviews`, once; like a start: registered while under way, "may have started" when
   * it may have arrived, and once acknowledged its conversation is listed (kind `code_review`,
   * with its `reviewId`) and followed.
   */
  startCodeReview(request: StartCodeReviewRequest, o: SendOptions & { labels?: ReviewLabels }): Promise<CodeReviewResult> {
    return this.posts().postCodeReview(this.d, request, o);
  }

  /** `POST /test-groups`, once; never sent again on its own. */
  createTestGroup(request: CreateTestGroupRequest, o: SendOptions): Promise<TestGroupResult> {
    return this.changed(undefined, this.posts().postTestGroup(this.d, request, o));
  }

  /** Tells the lists of groups when `send` changed a group or may have (not when nothing was sent). */
  private async changed<R extends { readonly kind: string; readonly mayHaveArrived?: boolean }>(groupId: string | undefined, send: Promise<R>): Promise<R> {
    const r = await send;
    if (r.kind === 'done' || r.kind === 'created' || (r.kind === 'failed' && r.mayHaveArrived === true)) {
      this.groupsChanged.fire(groupId === undefined ? {} : { groupId });
    }
    return r;
  }

  /**
   * A read of a listed run, before the ledger takes it in: a follow-up that may have arrived is
   * found in its history, and from then on its turn is awaited like an acknowledged one.
   */
  observeRead(agentId: string, agent: Agent): void {
    const found = this.d.sends.observe(agentId, agent.history);
    if (found) {
      this.d.ledger().recordFollowUp(agentId, {
        prompt: found.prompt, ackStatus: 'queued', arrivedSeq: found.sequence, before: found.before, permission: found.permission, permittedBranches: found.permittedBranches,
      }, this.d.now?.() ?? Date.now());
    }
  }

  /** Gives up an `uncertain` follow-up: its text goes back to the draft (ahead of anything typed since). */
  discardFollowUp(agentId: string): string | undefined {
    const text = this.d.sends.discard(agentId);
    if (text !== undefined && this.d.drafts) {
      const typed = this.d.drafts.get(agentId) ?? '';
      this.d.drafts.set(agentId, typed.trim() === '' ? text : `${text}\n\n${typed}`);
    }
    return text;
  }
}
