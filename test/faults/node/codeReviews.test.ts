// "Start Code Review…" sent while the connection or the service fails after the request
// arrived, and at the workspace's concurrent-agent limit (issue 21): the form's own sending
// (src/reviews/common/submit.ts) through the sender (src/run/sender.ts, its POST in
// sendPosts.ts) with the real client against the emulator's deployed profile. The emulator's
// request log counts the POSTs and its state counts the reviews: the request is sent once, the
// review exists once, the person is told it may have started (and the Runs view shows it so),
// and nothing is repeated unless the person clicks Retry Anyway. A 409 is a refusal: one POST,
// the limit's words, nothing listed, everything typed kept.
import * as assert from 'node:assert/strict';
import { createClient } from '../../../src/api/client';
import type { AgentRunsApi } from '../../../src/api/contract';
import { validateStartCodeReviewRequest } from '../../../src/api/validateReviews';
import { describeStartFailure, resumeOffer, type FailureActionId, type StartFailure } from '../../../src/run/common/startFailure';
import { plainL10n } from '../../../src/base/common/l10n';
import { RunLedger } from '../../../src/run/common/ledger/ledger';
import { emptyReviewForm, type ReviewForm } from '../../../src/reviews/common/form';
import { submitReview, type ReviewSubmitEnv, type ReviewSubmitUi } from '../../../src/reviews/common/submit';
import { FollowUpSends } from '../../../src/run/followUpSends';
import { Sender } from '../../../src/run/sender';
import * as sendPosts from '../../../src/run/sendPosts';
import { UnconfirmedStarts } from '../../../src/run/unconfirmedStarts';
import type { Emulator, FaultRule } from '../../emulator/index';
import { scenario, type Scenario } from '../registry';
import { admin, useEmulator } from '../support/emulatorFixture';
import { FAST_TIMEOUTS, RecordingStore } from '../support/pipeline';

const START_REFUSED = 'The workspace is running as many agent runs as its plan allows. Wait for a run to finish (see the active runs in the Runs view), then start again.';

/** The person: clicks what the script says on each failure message, and remembers what was shown. */
class Person implements ReviewSubmitUi {
  readonly shown: StartFailure[] = [];
  readonly commands: string[] = [];
  constructor(private readonly clicks: (FailureActionId | undefined)[]) {}
  askEmail(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }
  showFailure(f: StartFailure): Promise<FailureActionId | undefined> {
    this.shown.push(f);
    return Promise.resolve(this.clicks.shift());
  }
  runCommand(a: string): Promise<void> {
    this.commands.push(a);
    return Promise.resolve();
  }
}

interface Setup {
  e: Emulator;
  client: AgentRunsApi;
  ledger: RunLedger;
  starts: UnconfirmedStarts;
  env: ReviewSubmitEnv;
  posts(): number;
  reviewsTitled(title: string): number;
}

async function setUp(e: Emulator): Promise<Setup> {
  await admin(e, 'PATCH', '/settings', { preset: 'deployed' });
  const client = createClient({ baseUrl: e.baseUrl, token: e.tokens.default, timeouts: FAST_TIMEOUTS });
  const store = new RecordingStore();
  const ledger = new RunLedger(store, client.baseUrl);
  const starts = new UnconfirmedStarts(store);
  const sender = new Sender({
    client: () => Promise.resolve(client), ledger: () => ledger, poller: { track: () => undefined, burst: () => undefined },
    starts, sends: new FollowUpSends(store), targetState: store, log: { info: () => undefined, warn: () => undefined },
  }, () => sendPosts);
  const env: ReviewSubmitEnv = {
    l10n: plainL10n,
    validate: (r) => validateStartCodeReviewRequest(r),
    start: async (request) => {
      const r = await sender.startCodeReview(request, { from: 'code review form', client });
      if (r.kind === 'started') return r.review;
      throw r.kind === 'failed' ? r.error : new Error('not connected');
    },
    describe: (err, ctx) => describeStartFailure(err, ctx, plainL10n),
    resume: resumeOffer(plainL10n),
    modelNeedsEmail: () => false,
    rememberModelNeedsEmail: () => Promise.resolve(),
    defaultEmail: () => Promise.resolve(undefined),
    secrets: () => Promise.resolve([e.tokens.default]),
  };
  return {
    e, client, ledger, starts, env,
    posts: () => e.requests.filter((r) => r.method === 'POST' && r.path.split('?')[0].endsWith('/code-reviews')).length,
    reviewsTitled: (title) => [...e.state.codeReviews.values()].filter((r) => r.title === title).length,
  };
}

function form(title: string): ReviewForm {
  return { ...emptyReviewForm({ appId: 'app_todo' }), fromVersion: 'ver_todo_004', toVersion: 'ver_todo_010', title, description: 'What changed: the request timeouts.', focusAreas: 'error handling' };
}

function sinks(s: Scenario, person: Person): void {
  s.sink('code review failure message', person.shown.map((f) => f.message).join('\n'));
  s.sink('code review failure buttons', person.shown.flatMap((f) => f.actions.map((a) => a.label)).join('|'));
}

interface CutCase {
  title: string;
  rule: Omit<FaultRule, 'method' | 'path'>;
  says: RegExp;
}

const CUTS: CutCase[] = [
  { title: 'the connection resets after the service took the request', rule: { passThrough: true, reset: true }, says: /connection broke/ },
  { title: 'the service starts the review but answers after the headers timeout', rule: { passThrough: true, delayMs: 4_000 }, says: /did not answer in time/ },
  { title: 'the service starts the review, then a proxy answers 502', rule: { passThrough: true, status: 502 }, says: /had an error \(502\)/ },
];

describe('faults: a code review\'s start is POSTed once, cut or refused (issue 21)', function () {
  this.timeout(30_000);
  const emu = useEmulator();

  for (const c of CUTS) {
    scenario('no-duplicates', `Start Code Review: ${c.title}: one POST, one review, "may have started" + Track Run by ID, nothing re-sent, form kept`, async (s) => {
      const t = await setUp(emu());
      const title = `Timeouts review ${Math.random().toString(36).slice(2)}`;
      const person = new Person([undefined]);
      try {
        t.e.inject({ method: 'POST', path: '^/code-reviews$', ...c.rule, times: 1 });
        const outcome = await submitReview(form(title), t.env, person);
        // Counted first, so a resend is measured even when an assertion below stops the scenario.
        s.duplicatePosts(t.posts() - 1, `${t.posts()} POST /code-reviews for one click`);
        assert.deepEqual(outcome.kind === 'stopped' ? [outcome.reason, outcome.form] : outcome.kind, ['dismissed', form(title)], 'the form was not kept whole');
        assert.equal(t.reviewsTitled(title), 1, 'the review does not exist exactly once');
        assert.equal(person.shown.length, 1);
        const failure = person.shown[0];
        assert.equal(failure.mayExist, true);
        assert.match(failure.message, c.says);
        assert.match(failure.message, /may have been created/);
        assert.deepEqual(failure.actions.slice(0, 2).map((a) => a.label), ['Track Run by ID', 'Retry Anyway']);
        assert.deepEqual(t.starts.uncertain().map((u) => u.prompt), [title], 'not shown as "may have started" in the Runs view');
        assert.deepEqual(t.ledger.all(), [], 'listed as started though nothing acknowledged it');
        await new Promise((resolve) => setTimeout(resolve, 300));
        s.duplicatePosts(t.posts() - 1, `${t.posts()} POST /code-reviews once the failure was shown`);
        sinks(s, person);
      } finally {
        await t.client.dispose();
      }
    });
  }

  scenario('no-duplicates', 'Start Code Review at the workspace\'s concurrent-agent limit (409): one POST, the limit\'s words, nothing listed, the form kept', async (s) => {
    const t = await setUp(emu());
    const title = `One review too many ${Math.random().toString(36).slice(2)}`;
    const person = new Person([undefined]);
    try {
      const busy = await t.client.startCodeReview({ appId: 'app_todo', fromVersion: 'ver_todo_002', toVersion: 'ver_todo_004' });
      await admin(t.e, 'PATCH', `/agents/${busy.agentId}`, { status: 'running' });
      await admin(t.e, 'PATCH', '/workspaces/ws_acme', { concurrentAgentLimit: 1 });
      const before = t.posts();
      const outcome = await submitReview(form(title), t.env, person);
      s.duplicatePosts(t.posts() - before - 1, `${t.posts() - before} POST /code-reviews for one click at the limit`);
      assert.deepEqual(t.e.requests.filter((r) => r.method === 'POST').slice(-1).map((r) => r.status), [409]);
      assert.deepEqual(outcome.kind === 'stopped' ? outcome.form : outcome.kind, form(title), 'what was typed was not kept');
      assert.deepEqual(person.shown.map((f) => [f.message, f.mayExist, f.actions.map((a) => a.id)]), [[START_REFUSED, false, ['showRuns', 'retry', 'edit']]]);
      assert.equal(t.reviewsTitled(title), 0);
      assert.deepEqual([t.ledger.all(), t.starts.uncertain()], [[], []], 'a refused start is listed, or shown as "may have started"');
      sinks(s, person);
    } finally {
      await t.client.dispose();
    }
  });
});
