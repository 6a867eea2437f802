/**
 * The sender's POSTs (src/run/sender.ts), their own bundle loaded on the first send (dist/send.js): the
 * only place outside src/api that calls the client's POST, PUT and DELETE methods.
 */
import { mayHaveArrived } from '../api/errors';
import type { CodeReviewStarted, StartCodeReviewRequest, SyncVersionRequest } from '../api/reviewTypes';
import type { AgentRunsApi } from '../api/contract';
import type { StartTestGroupRunRequest, StartTestRunRequest, UpdateTestGroupRequest } from '../api/testTypes';
import type { AgentStarted, CreateTestGroupRequest, StartAgentRequest } from '../api/types';
import { plainL10n } from '../base/common/l10n';
import { reviewPrompt } from './common/reviews';
import { TargetSends } from './common/sends/targetSends';
import { afterPost } from './afterPost';
import type {
  AutomationRunResult, Busy, CodeReviewResult, SenderDeps, FollowUpInput, FollowUpResult, NotConnected, ReviewLabels, SendFailed, SendOptions,
  StartResult, TargetLocks, TestGroupChangeResult, TestGroupResult, TestGroupRunResult, TestRunResult, Uncertain, VersionSyncResult,
} from './sender';

export { afterPost };

/**
 * `send` through its target's lock (see Sender.once): checked and taken before anything is
 * awaited; the mark is left `uncertain` only by a send that may have arrived, and cleared by any
 * other end.
 */
export async function throughLock<R extends { readonly kind: string; readonly mayHaveArrived?: boolean }>(
  d: SenderDeps, locks: TargetLocks, target: string, o: SendOptions, send: () => Promise<R>,
): Promise<R | Busy | Uncertain> {
  const marks = locks.marks ??= new TargetSends(d.targetState, () => now(d));
  const mark = marks.get(target);
  if (locks.underWay.has(target) || mark?.state === 'sending') {
    d.log.info(`Not sent from the ${o.from}: a send for ${target} is under way.`);
    return { kind: 'busy' };
  }
  if (mark) {
    d.log.info(`Not sent from the ${o.from}: a send for ${target} may have arrived (${new Date(mark.since).toISOString()}).`);
    return { kind: 'uncertain', since: mark.since };
  }
  locks.underWay.add(target);
  marks.begin(target);
  let arrived = false;
  try {
    const r = await send();
    arrived = r.kind === 'failed' && r.mayHaveArrived === true;
    return r;
  } finally {
    marks.end(target, arrived);
    locks.underWay.delete(target);
  }
}

export async function postStart(d: SenderDeps, request: StartAgentRequest, o: SendOptions): Promise<StartResult> {
  const client = o.client ?? await d.client({ quiet: o.quiet === true });
  if (!client) {
    return { kind: 'notConnected' };
  }
  const entry = d.starts.begin({ appId: request.appId, prompt: request.prompt, model: request.model, baseUrl: client.baseUrl });
  let run: AgentStarted;
  try {
    run = await client.startAgent(request, { signal: o.signal });
  } catch (error) {
    const arrived = mayHaveArrived(error);
    d.starts.end(entry, arrived ? 'mayExist' : 'notCreated');
    d.log.warn(`Start from the ${o.from} failed${arrived ? ' (it may have created a run)' : ''}: ${errorLine(error)}`);
    return { kind: 'failed', error, mayHaveArrived: arrived, baseUrl: client.baseUrl };
  }
  d.starts.end(entry, 'started');
  const ledger = d.ledger();
  if (ledger.baseUrl !== client.baseUrl) {
    d.log.warn(`Run ${run.agentId} was started on ${client.baseUrl}, but the run list now follows ${ledger.baseUrl}.`);
  }
  afterPost(ledger, d.poller, { kind: 'start', run, request }, now(d));
  d.log.info(`Started agent run ${run.agentId} from the ${o.from} on ${request.appId} with ${request.model} (${run.status}).`);
  return { kind: 'started', run, baseUrl: client.baseUrl };
}

/** Like `postStart`: the review's conversation is what is listed, under the review's name. */
export async function postCodeReview(d: SenderDeps, request: StartCodeReviewRequest, o: SendOptions & { labels?: ReviewLabels }): Promise<CodeReviewResult> {
  const client = o.client ?? await d.client({ quiet: o.quiet === true });
  if (!client) {
    return { kind: 'notConnected' };
  }
  const prompt = reviewPrompt({ ...request, ...o.labels }, d.l10n ?? plainL10n);
  const entry = d.starts.begin({ appId: request.appId, prompt, model: request.model ?? '', baseUrl: client.baseUrl });
  let review: CodeReviewStarted;
  try {
    review = await client.startCodeReview(request, { signal: o.signal });
  } catch (error) {
    const arrived = mayHaveArrived(error);
    d.starts.end(entry, arrived ? 'mayExist' : 'notCreated');
    d.log.warn(`Code review start from the ${o.from} failed${arrived ? ' (it may have started)' : ''}: ${errorLine(error)}`);
    return { kind: 'failed', error, mayHaveArrived: arrived, baseUrl: client.baseUrl };
  }
  d.starts.end(entry, 'started');
  const ledger = d.ledger();
  if (ledger.baseUrl !== client.baseUrl) {
    d.log.warn(`Code review ${review.reviewId} was started on ${client.baseUrl}, but the run list now follows ${ledger.baseUrl}.`);
  }
  afterPost(ledger, d.poller, { kind: 'codeReview', review, request, prompt }, now(d));
  d.log.info(`Started code review ${review.reviewId} (conversation ${review.agentId}) from the ${o.from} on ${request.appId}, ${request.fromVersion} → ${request.toVersion} (${review.status}).`);
  return { kind: 'started', review, prompt, baseUrl: client.baseUrl };
}

/**
 * The run's lock is checked and taken by `sends.send` alone, before the client is asked for: a
 * busy run says so even when offline (a follow-up is on its way; nothing would be sent anyway).
 */
export async function postFollowUp(d: SenderDeps, agentId: string, input: FollowUpInput, o: SendOptions & { resend?: boolean }): Promise<FollowUpResult> {
  // What the follow-up's turn must move past: the run as known now, before anything is sent.
  const before = d.ledger().followUpBaseline(agentId);
  let client: AgentRunsApi | undefined;
  let kept: string | undefined;
  let clientError: { error: unknown } | undefined;
  const outcome = await d.sends.send(agentId, input, async (i) => {
    // The lock is ours: from here the text lives in the send entry, not in the draft.
    kept = d.drafts?.get(agentId);
    d.drafts?.set(agentId, undefined);
    try {
      client = o.client ?? await d.client({ quiet: o.quiet === true });
    } catch (error) {
      clientError = { error };
    }
    if (!client) {
      return undefined;
    }
    return client.sendFollowUp(agentId, {
      prompt: i.prompt,
      ...(i.permission ? { permission: i.permission } : {}),
      ...(i.permittedBranches && i.permittedBranches.length > 0 ? { permittedBranches: i.permittedBranches } : {}),
    }, { signal: o.signal });
  }, {
    resend: o.resend,
    knownIds: d.knownUserMessageIds?.(agentId, input.prompt),
    afterSequence: before?.lastSequence,
    before,
  });
  if (outcome.kind === 'busy') {
    return outcome;
  }
  if (outcome.kind === 'notSent') {
    d.drafts?.set(agentId, kept);
    if (clientError) {
      throw clientError.error;
    }
    return { kind: 'notConnected' };
  }
  if (outcome.kind === 'sent') {
    d.log.info(`Follow-up sent to ${agentId} from the ${o.from}; the run is ${outcome.ack.status}.`);
    d.log.trace?.(`Follow-up text for ${agentId}: ${input.prompt}`);
    afterPost(d.ledger(), d.poller, {
      kind: 'followUp', agentId, ack: outcome.ack, prompt: input.prompt, permission: input.permission, permittedBranches: input.permittedBranches, before,
    }, now(d));
    return outcome;
  }
  d.log.warn(`Follow-up to ${agentId} from the ${o.from} failed${outcome.mayHaveArrived ? ' (it may have arrived)' : ''}: ${errorLine(outcome.error)}`);
  if (outcome.mayHaveArrived) {
    // Read the run fast for a while: its history says whether the prompt arrived.
    d.poller.burst(agentId);
  } else if ((d.drafts?.get(agentId) ?? '').trim() === '') {
    d.drafts?.set(agentId, input.prompt);
  }
  return { kind: 'failed', error: outcome.error, mayHaveArrived: outcome.mayHaveArrived, baseUrl: client?.baseUrl ?? '' };
}

export async function postTestGroup(d: SenderDeps, request: CreateTestGroupRequest, o: SendOptions): Promise<TestGroupResult> {
  const client = o.client ?? await d.client({ quiet: o.quiet === true });
  if (!client) {
    return { kind: 'notConnected' };
  }
  try {
    const group = await client.createTestGroup(request, { signal: o.signal });
    d.log.info(`Created test group ${group.groupId} from the ${o.from} (${request.testIds?.length ?? 0} test IDs) for app ${request.appId}.`);
    return { kind: 'created', group, baseUrl: client.baseUrl };
  } catch (error) {
    const arrived = mayHaveArrived(error);
    d.log.warn(`Creating a test group from the ${o.from} failed${arrived ? ' (it may have been created)' : ''}: ${errorLine(error)}`);
    return { kind: 'failed', error, mayHaveArrived: arrived, baseUrl: client.baseUrl };
  }
}

/**
 * One request of the app's tests, groups or automations: sent once with the client, logged
 * (`what` names it), never sent again on its own; a failure says whether it may have arrived.
 */
async function sendOnce<T>(d: SenderDeps, o: SendOptions, what: string, send: (client: AgentRunsApi) => Promise<T>, said: (value: T) => string): Promise<{ value: T; baseUrl: string } | NotConnected | SendFailed> {
  const client = o.client ?? await d.client({ quiet: o.quiet === true });
  if (!client) {
    return { kind: 'notConnected' };
  }
  try {
    const value = await send(client);
    d.log.info(`${said(value)} from the ${o.from}.`);
    return { value, baseUrl: client.baseUrl };
  } catch (error) {
    const arrived = mayHaveArrived(error);
    d.log.warn(`${what} from the ${o.from} failed${arrived ? ' (it may have arrived; it is not sent again)' : ''}: ${errorLine(error)}`);
    return { kind: 'failed', error, mayHaveArrived: arrived, baseUrl: client.baseUrl };
  }
}

export async function postTestRun(d: SenderDeps, request: StartTestRunRequest, o: SendOptions): Promise<TestRunResult> {
  const r = await sendOnce(d, o, `Starting a run of test ${request.testId} on ${request.branchId}`, (c) => c.startTestRun(request, { signal: o.signal }),
    (s) => `Started test run ${s.runId} of test ${request.testId} on ${request.branchId}`);
  return 'value' in r ? { kind: 'started', started: r.value, baseUrl: r.baseUrl } : r;
}

export async function postTestGroupRun(d: SenderDeps, request: StartTestGroupRunRequest, o: SendOptions): Promise<TestGroupRunResult> {
  const r = await sendOnce(d, o, `Starting a run of test group ${request.groupId} on ${request.branchId}`, (c) => c.startTestGroupRun(request, { signal: o.signal }),
    (s) => `Started group run ${s.groupRunId} of test group ${request.groupId} on ${request.branchId}`);
  return 'value' in r ? { kind: 'started', started: r.value, baseUrl: r.baseUrl } : r;
}

export async function putTestGroup(d: SenderDeps, groupId: string, request: UpdateTestGroupRequest, o: SendOptions): Promise<TestGroupChangeResult> {
  const r = await sendOnce(d, o, `Updating test group ${groupId}`, (c) => c.updateTestGroup(groupId, request, { signal: o.signal }),
    () => `Updated test group ${groupId} (${request.testIds.length} test IDs)`);
  return 'value' in r ? { kind: 'done', baseUrl: r.baseUrl } : r;
}

export async function removeTestGroup(d: SenderDeps, groupId: string, o: SendOptions): Promise<TestGroupChangeResult> {
  const r = await sendOnce(d, o, `Deleting test group ${groupId}`, (c) => c.deleteTestGroup(groupId, { signal: o.signal }), () => `Deleted test group ${groupId}`);
  return 'value' in r ? { kind: 'done', baseUrl: r.baseUrl } : r;
}

export async function postAutomationRun(d: SenderDeps, automationId: string, o: SendOptions): Promise<AutomationRunResult> {
  const r = await sendOnce(d, o, `Running automation ${automationId}`, (c) => c.runAutomation(automationId, { signal: o.signal }),
    (q) => `Queued a run of automation ${q.automationId}${q.status !== undefined ? ` (${q.status})` : ''}`);
  return 'value' in r ? { kind: 'queued', queued: r.value, baseUrl: r.baseUrl } : r;
}

export async function postVersionSync(d: SenderDeps, request: SyncVersionRequest, o: SendOptions): Promise<VersionSyncResult> {
  const r = await sendOnce(d, o, `Syncing branch ${request.version} of app ${request.appId}`, (c) => c.syncVersion(request, { signal: o.signal }),
    (s) => `Sync of branch ${request.version} of app ${request.appId} answered ${s.status ?? s.stage ?? 'without a status'}${s.versionId !== undefined ? ` (version ${s.versionId})` : ''}`);
  return 'value' in r ? { kind: 'answered', sync: r.value, baseUrl: r.baseUrl } : r;
}

function now(d: SenderDeps): number {
  return d.now?.() ?? Date.now();
}

/** A failure for the log: the client's one-line text (never the token: ApiError messages are redacted). */
function errorLine(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'kind' in error && 'message' in error) {
    const e = error as { kind: unknown; status?: unknown; message: unknown };
    return `${String(e.kind)}${typeof e.status === 'number' ? ` ${e.status}` : ''}: ${String(e.message)}`;
  }
  return error instanceof Error ? error.message : String(error);
}
