// The app's test runs, group runs and automation runs (issue 22) sent while the answer fails
// after the request arrived and did its work (the connection reset, the answer held past the
// client's wait, a 502), each send in each way, and at the service's limit: each through the sender
// (src/run/sender.ts, its requests in sendPosts.ts) with the real client against the
// emulator's deployed profile, and told in the words the product shows for it (the Test
// Explorer's run: src/serviceTests/runner.ts → startFailureText; Run Now, Rename and Delete of a
// group: src/automations/runNow.ts, src/testGroups/serviceCommands.ts → failureNotice). The
// emulator's request log counts the requests and its state what they did: sent once, done once,
// the person told it may have arrived, nothing sent again on its own, and what they chose (the
// test, the branch, the automation, the group) named. A 409 is a refusal in words a person
// reads: one request, nothing started.
import * as assert from 'node:assert/strict';
import { describeApiError } from '../../../src/api/describe';
import { isApiError } from '../../../src/api/errors';
import { createClient } from '../../../src/api/client';
import type { AgentRunsApi } from '../../../src/api/contract';
import { failureNotice, type Notice } from '../../../src/run/common/sends/outcome';
import { plainL10n } from '../../../src/base/common/l10n';
import { RunLedger } from '../../../src/run/common/ledger/ledger';
import { startFailureText } from '../../../src/serviceTests/common/start';
import { FollowUpSends } from '../../../src/run/followUpSends';
import { Sender } from '../../../src/run/sender';
import * as sendPosts from '../../../src/run/sendPosts';
import { UnconfirmedStarts } from '../../../src/run/unconfirmedStarts';
import type { Emulator } from '../../emulator/index';
import { scenario, type Scenario } from '../registry';
import { admin, useEmulator } from '../support/emulatorFixture';
import { FAST_TIMEOUTS, RecordingStore } from '../support/pipeline';

const ADD = { testId: 'tst_todo_add', name: 'Add a todo' };
const FILTER = { testId: 'tst_todo_filter', name: 'Filter completed todos' };
const SMOKE = { groupId: 'tg_todo_smoke', name: 'Smoke' };
const AUTOMATION = { automationId: 'aut_todo_smoke', name: 'Run smoke tests' };
const BRANCH = 'live';
/** The Test Explorer's `from` (src/serviceTests/runner.ts). */
const EXPLORER = 'Test Explorer';

interface Setup {
  e: Emulator;
  client: AgentRunsApi;
  sender: Sender;
  /** What the sender logged (the output channel's lines). */
  log: string[];
  /** Requests the emulator received with this method on this path (no query). */
  count(method: string, path: RegExp): number;
}

async function setUp(e: Emulator): Promise<Setup> {
  await admin(e, 'PATCH', '/settings', { preset: 'deployed' });
  const client = createClient({ baseUrl: e.baseUrl, token: e.tokens.default, timeouts: FAST_TIMEOUTS });
  const store = new RecordingStore();
  const log: string[] = [];
  const sender = new Sender({
    client: () => Promise.resolve(client), ledger: () => new RunLedger(store, client.baseUrl), poller: { track: () => undefined, burst: () => undefined },
    starts: new UnconfirmedStarts(store), sends: new FollowUpSends(store), targetState: store,
    log: { info: (m) => void log.push(`info ${m}`), warn: (m) => void log.push(`warn ${m}`) },
  }, () => sendPosts);
  return {
    e, client, sender, log,
    count: (method, path) => e.requests.filter((r) => r.method === method && path.test(r.path.split('?')[0])).length,
  };
}

/** How the product describes an error (src/serviceTests/types.ts `describeError`, src/automations/entry.ts `describeWith`). */
const describeError = (e: unknown): string => (isApiError(e) ? describeApiError(e) : e instanceof Error ? e.message : String(e));

/** What the Test Explorer puts on the item and in the error notification for a start that was not acknowledged. */
function explorerSays(label: string, result: Awaited<ReturnType<Sender['startTestRun']>> | Awaited<ReturnType<Sender['startTestGroupRun']>>): string {
  assert.equal(result.kind, 'failed', `the sender answered ${result.kind}`);
  if (result.kind !== 'failed') return '';
  return startFailureText(plainL10n.t('“{0}”', label), result, describeError, plainL10n);
}

/** What Run Now, Rename or Delete shows for an answer that was not "done"/"queued". */
function noticeFor(answer: { kind: string; error?: unknown; mayHaveArrived?: boolean }, what: string): Notice {
  assert.equal(answer.kind, 'failed', `the sender answered ${answer.kind}`);
  const notice = failureNotice(answer as { kind: 'failed'; error: unknown; mayHaveArrived: boolean }, what, describeError, plainL10n);
  assert.ok(notice, 'nothing told');
  return notice;
}

/** A while in which nothing may be sent again on its own (a negative can only be watched for a while). */
const watch = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 300));

function sinks(s: Scenario, t: Setup, told: string): void {
  s.sink('what the person is told', told);
  s.sink('the output channel', t.log.join('\n'));
}


describe('faults: the app\'s test runs, group runs, automation runs and group changes are sent once, cut or refused (issue 22)', function () {
  this.timeout(30_000);
  const emu = useEmulator();

  /** One of the sends, as the scenarios below cut it after its request arrived. */
  interface CutSend {
    /** The request as the person would name it, e.g. "POST /test-runs". */
    readonly request: string;
    readonly what: string;
    /** The emulator's rule path and the request log's path. */
    readonly rulePath: string;
    readonly method: 'POST' | 'PUT' | 'DELETE';
    send(t: Setup): Promise<{ kind: string; mayHaveArrived?: boolean; error?: unknown }>;
    /** What the person is told, from the product's own words. */
    told(t: Setup, answer: Awaited<ReturnType<CutSend['send']>>): string;
    /** The target named in the words. */
    readonly named: RegExp;
    /** The work the request did, exactly once (the cut came after it). */
    doneOnce(t: Setup): void;
    /** The output channel's line, when the sender logs one naming the target. */
    readonly logged?: string;
  }

  const noticeText = (what: string) => (_t: Setup, answer: Awaited<ReturnType<CutSend['send']>>): string => {
    const notice = noticeFor(answer, what);
    assert.equal(notice.severity, 'warning');
    return notice.text;
  };

  const SENDS: readonly CutSend[] = [
    {
      request: 'POST /test-runs', what: 'Run Test (Test Explorer)', rulePath: '^/test-runs$', method: 'POST',
      send: (t) => t.sender.startTestRun({ testId: ADD.testId, branchId: BRANCH }, { from: EXPLORER }),
      told: (_t, r) => explorerSays(ADD.name, r as Awaited<ReturnType<Sender['startTestRun']>>),
      named: /The start of “Add a todo” may have reached the service; it was not sent again\. Look in the service before starting it again/,
      doneOnce: (t) => assert.equal([...t.e.state.testRuns.values()].filter((r) => r.testId === ADD.testId).length, 1, 'the run does not exist exactly once'),
      logged: `warn Starting a run of test ${ADD.testId} on ${BRANCH} from the ${EXPLORER} failed (it may have arrived; it is not sent again)`,
    },
    {
      request: 'POST /test-group-runs', what: 'Run Group (Test Explorer)', rulePath: '^/test-group-runs$', method: 'POST',
      send: (t) => t.sender.startTestGroupRun({ groupId: SMOKE.groupId, branchId: BRANCH }, { from: EXPLORER }),
      told: (_t, r) => explorerSays(`Group: ${SMOKE.name}`, r as Awaited<ReturnType<Sender['startTestGroupRun']>>),
      named: /The start of “Group: Smoke” may have reached the service; it was not sent again\. Look in the service before starting it again/,
      doneOnce: (t) => assert.equal([...t.e.state.groupRuns.values()].filter((g) => g.groupId === SMOKE.groupId).length, 1, 'the group run does not exist exactly once'),
      logged: `warn Starting a run of test group ${SMOKE.groupId} on ${BRANCH} from the ${EXPLORER} failed (it may have arrived; it is not sent again)`,
    },
    {
      request: 'POST /automations/{id}/run', what: 'Run Now (automation)', rulePath: `^/automations/${AUTOMATION.automationId}/run$`, method: 'POST',
      send: (t) => t.sender.runAutomation(AUTOMATION.automationId, { from: 'Runs view' }),
      told: noticeText(plainL10n.t('Running the automation “{0}”', AUTOMATION.name)),
      named: /^Running the automation “Run smoke tests”: the request may have reached the service, but no answer confirmed it \(/,
      doneOnce: (t) => assert.notEqual(t.e.state.automations.get(AUTOMATION.automationId)?.queuedAt ?? null, null, 'the cut request did not reach the service (the scenario tests nothing)'),
    },
    {
      request: 'PUT /test-groups/{id}', what: 'Rename (a service test group)', rulePath: `^/test-groups/${SMOKE.groupId}$`, method: 'PUT',
      send: (t) => t.sender.updateTestGroup(SMOKE.groupId, { name: 'Smoke checks', testIds: [ADD.testId, FILTER.testId], description: 'Quick checks before a release.' }, { from: 'Test Groups view' }),
      told: noticeText(plainL10n.t('Renaming the test group “{0}”', SMOKE.name)),
      named: /^Renaming the test group “Smoke”: the request may have reached the service, but no answer confirmed it \(/,
      doneOnce: (t) => assert.equal(t.e.state.testGroups.get(SMOKE.groupId)?.name, 'Smoke checks', 'the cut request did not reach the service'),
    },
    {
      request: 'DELETE /test-groups/{id}', what: 'Delete (a service test group)', rulePath: `^/test-groups/${SMOKE.groupId}$`, method: 'DELETE',
      send: (t) => t.sender.deleteTestGroup(SMOKE.groupId, { from: 'Test Groups view' }),
      told: noticeText(plainL10n.t('Deleting the test group “{0}”', SMOKE.name)),
      named: /^Deleting the test group “Smoke”: the request may have reached the service, but no answer confirmed it \(/,
      doneOnce: (t) => assert.notEqual(t.e.state.testGroups.get(SMOKE.groupId)?.archivedAt ?? null, null, 'the cut request did not reach the service (the group is not archived)'),
    },
  ];

  /** After the emulator's handler did the work: how the answer fails to come through. */
  const CUTS = [
    { how: 'the connection resets after {request} arrived', rule: { passThrough: true, reset: true }, cause: /interrupted|reset|closed/i },
    { how: 'the answer to {request} is held past the client\'s wait', rule: { passThrough: true, delayMs: FAST_TIMEOUTS.headersMs + 1_500 }, cause: /did not answer within/ },
    { how: 'a 502 answers {request} after the work was done', rule: { passThrough: true, status: 502 }, cause: /502/ },
  ] as const;

  for (const cut of CUTS) {
    for (const x of SENDS) {
      const how = cut.how.replace('{request}', x.request);
      scenario('no-duplicates', `${x.what}: ${how}: one request, done once, "may have reached the service" with its cause, nothing re-sent`, async (s) => {
        const t = await setUp(emu());
        const path = new RegExp(x.rulePath.replace(/^\^\//, '/'));
        const sent = (): number => t.count(x.method, path);
        try {
          t.e.inject({ method: x.method, path: x.rulePath, times: 1, ...cut.rule });
          const answer = await x.send(t);
          s.duplicatePosts(sent() - 1, `${sent()} ${x.request} for one ${x.what}`);
          assert.equal(answer.kind === 'failed' && answer.mayHaveArrived, true, `not "may have arrived": ${JSON.stringify(answer)}`);
          const said = x.told(t, answer);
          assert.match(said, x.named, 'the target and "may have reached the service" are not said');
          assert.match(said, cut.cause, 'the cause is not said');
          x.doneOnce(t);
          if (x.logged) assert.ok(t.log.some((l) => l.startsWith(x.logged!)), `the output channel does not name the target:\n${t.log.join('\n')}`);
          await watch();
          s.duplicatePosts(sent() - 1, `${sent()} ${x.request} once the failure was told`);
          // Only the person's next action sends again: the sender holds no lock on the target any more.
          t.e.inject({ method: x.method, path: x.rulePath, times: 1, status: 409 });
          assert.notEqual((await x.send(t)).kind, 'busy', 'the lock outlived the failure');
          sinks(s, t, said);
        } finally {
          await t.client.dispose();
        }
      });
    }
  }

  /** A run the workspace is busy with (the manual clock keeps it active), and the limit at 1. */
  async function atTheLimit(t: Setup): Promise<void> {
    await t.client.startTestRun({ testId: FILTER.testId, branchId: BRANCH });
    await admin(t.e, 'PUT', '/test-run-limit', { limit: 1 });
  }

  const LIMIT_WORDS = 'was not started: the workspace is running as many test runs as its plan allows. Wait for one to finish, then run it again.';

  scenario('no-duplicates', 'Run Test at the workspace\'s concurrent test-run limit (409): one POST, the limit in words (not a code), nothing started', async (s) => {
    const t = await setUp(emu());
    try {
      await atTheLimit(t);
      const before = t.count('POST', /\/test-runs$/);
      const result = await t.sender.startTestRun({ testId: ADD.testId, branchId: BRANCH }, { from: EXPLORER });
      s.duplicatePosts(t.count('POST', /\/test-runs$/) - before - 1, `${t.count('POST', /\/test-runs$/) - before} POST /test-runs for one Run at the limit`);
      assert.deepEqual(t.e.requests.filter((r) => r.method === 'POST').slice(-1).map((r) => r.status), [409]);
      assert.equal(result.kind === 'failed' && result.mayHaveArrived, false, 'a refusal is not "may have arrived"');
      const said = explorerSays(ADD.name, result);
      assert.equal(said, `“Add a todo” ${LIMIT_WORDS}`);
      assert.equal([...t.e.state.testRuns.values()].filter((r) => r.testId === ADD.testId).length, 0);
      await watch();
      s.duplicatePosts(t.count('POST', /\/test-runs$/) - before - 1, `${t.count('POST', /\/test-runs$/) - before} POST /test-runs once the refusal was told`);
      sinks(s, t, said);
    } finally {
      await t.client.dispose();
    }
  });

  scenario('no-duplicates', 'Run Group at the workspace\'s concurrent test-run limit (409): one POST, the limit in words (not a code), nothing started', async (s) => {
    const t = await setUp(emu());
    try {
      await atTheLimit(t);
      const result = await t.sender.startTestGroupRun({ groupId: SMOKE.groupId, branchId: BRANCH }, { from: EXPLORER });
      s.duplicatePosts(t.count('POST', /\/test-group-runs$/) - 1, `${t.count('POST', /\/test-group-runs$/)} POST /test-group-runs for one Run Group at the limit`);
      assert.deepEqual(t.e.requests.filter((r) => r.method === 'POST').slice(-1).map((r) => r.status), [409]);
      assert.equal(result.kind === 'failed' && result.mayHaveArrived, false, 'a refusal is not "may have arrived"');
      const said = explorerSays(`Group: ${SMOKE.name}`, result);
      assert.equal(said, `“Group: Smoke” ${LIMIT_WORDS}`);
      assert.equal(t.e.state.groupRuns.size, 0);
      await watch();
      s.duplicatePosts(t.count('POST', /\/test-group-runs$/) - 1, `${t.count('POST', /\/test-group-runs$/)} POST /test-group-runs once the refusal was told`);
      sinks(s, t, said);
    } finally {
      await t.client.dispose();
    }
  });

  scenario('no-duplicates', 'Run Now while the automation\'s run is still under way (409, one run at a time): one POST, the service\'s words (not its code), nothing queued again', async (s) => {
    const t = await setUp(emu());
    const path = new RegExp(`/automations/${AUTOMATION.automationId}/run$`);
    try {
      await t.client.runAutomation(AUTOMATION.automationId);
      const queuedAt = t.e.state.automations.get(AUTOMATION.automationId)?.queuedAt;
      const before = t.count('POST', path);
      const answer = await t.sender.runAutomation(AUTOMATION.automationId, { from: 'Runs view' });
      s.duplicatePosts(t.count('POST', path) - before - 1, `${t.count('POST', path) - before} POST /automations/{id}/run for one Run Now while one runs`);
      assert.deepEqual(t.e.requests.filter((r) => r.method === 'POST').slice(-1).map((r) => r.status), [409]);
      assert.equal(answer.kind === 'failed' && answer.mayHaveArrived, false, 'a refusal is not "may have arrived"');
      const notice = noticeFor(answer, plainL10n.t('Running the automation “{0}”', AUTOMATION.name));
      assert.deepEqual(notice, { severity: 'error', text: 'Running the automation “Run smoke tests”: the service refused: "Run smoke tests" is already running; wait for it to finish.' });
      assert.equal(t.e.state.automations.get(AUTOMATION.automationId)?.queuedAt, queuedAt, 'queued again');
      await watch();
      s.duplicatePosts(t.count('POST', path) - before - 1, `${t.count('POST', path) - before} POST /automations/{id}/run once the refusal was told`);
      sinks(s, t, notice.text);
    } finally {
      await t.client.dispose();
    }
  });
});
