// Issue 21: a code review's start through the sender, with the real client against the
// emulator's deployed profile. Acknowledged (202): its conversation is listed as a run of kind
// code_review (with its reviewId, app, the review's name and model, source 'started') and
// followed. A send that may have arrived is "may have started" and never sent again; a 409 at
// the workspace's limit is a refusal, nothing recorded. The form's sending (reviews/common/submit.ts)
// on top of it: the launch form's words and buttons, the form kept.
import * as assert from 'node:assert/strict';
import { createClient, type AgentRunsApi } from '../../../src/api';
import { ApiError } from '../../../src/api/errors';
import type { StartCodeReviewRequest } from '../../../src/api/reviewTypes';
import { validateStartCodeReviewRequest } from '../../../src/api/validateReviews';
import { describeStartFailure, resumeOffer, type FailureActionId, type StartFailure } from '../../../src/run/common/startFailure';
import { plainL10n } from '../../../src/base/common/l10n';
import { RunLedger } from '../../../src/run/common/ledger/ledger';
import { emptyReviewForm } from '../../../src/reviews/common/form';
import { submitReview, type ReviewSubmitEnv } from '../../../src/reviews/common/submit';
import { FollowUpSends } from '../../../src/run/followUpSends';
import { Sender } from '../../../src/run/sender';
import * as sendPosts from '../../../src/run/sendPosts';
import { UnconfirmedStarts } from '../../../src/run/unconfirmedStarts';
import { SEED, startEmulator, type Emulator } from '../../emulator/index';
import { adminOk } from '../../emulator/testing';
import { MemoryStore } from '../fixtures/memoryStore';

const START_REFUSED = 'The workspace is running as many agent runs as its plan allows. Wait for a run to finish (see the active runs in the Runs view), then start again.';
/** Completed versions of app_todo's seed (a review compares completed versions only). */
const FROM = 'ver_todo_004';
const TO = 'ver_todo_010';

describe('a code review\'s start through the sender (issue 21)', function () {
  this.timeout(20_000);
  let emu: Emulator;
  let client: AgentRunsApi;
  let ledger: RunLedger;
  let starts: UnconfirmedStarts;
  let sender: Sender;
  let followed: string[];
  const review = (over: Partial<StartCodeReviewRequest> = {}): StartCodeReviewRequest => ({ appId: SEED.apps.todo, fromVersion: FROM, toVersion: TO, ...over });
  const posts = (): number => emu.requests.filter((r) => r.method === 'POST' && r.path.split('?')[0].endsWith('/code-reviews')).length;

  before(async () => {
    emu = await startEmulator({ preset: 'deployed', settings: { staleReadMs: null, staleStatusAfterFollowUpMs: null } });
  });
  after(() => emu.close());
  beforeEach(() => {
    emu.reset();
    client = createClient({ baseUrl: emu.baseUrl, token: emu.tokens.default });
    const store = new MemoryStore();
    ledger = new RunLedger(store, client.baseUrl);
    starts = new UnconfirmedStarts(store);
    followed = [];
    sender = new Sender({
      client: () => Promise.resolve(client),
      ledger: () => ledger,
      poller: { track: (id) => void followed.push(`track ${id}`), burst: (id) => void followed.push(`burst ${id}`) },
      starts,
      sends: new FollowUpSends(store), targetState: store,
      log: { info: () => undefined, warn: () => undefined },
    }, () => sendPosts);
  });
  afterEach(() => client.dispose());

  it('202: one POST; its conversation listed as a code_review run (reviewId, app, name, model, started) and followed; no "may have started"', async () => {
    const r = await sender.startCodeReview(review({ model: 'hosted/auto' }), { from: 'test', quiet: true, labels: { fromVersionLabel: 'Main #4', toVersionLabel: 'Main #10' } });
    assert.equal(r.kind, 'started');
    const { review: started } = r;
    assert.equal(posts(), 1);
    const record = ledger.get(started.agentId);
    assert.deepEqual(
      { kind: record?.kind, reviewId: record?.reviewId, appId: record?.appId, prompt: record?.prompt, model: record?.model, source: record?.source, status: record?.status },
      { kind: 'code_review', reviewId: started.reviewId, appId: SEED.apps.todo, prompt: 'Code review Main #4 → Main #10', model: 'hosted/auto', source: 'started', status: 'queued' },
    );
    assert.deepEqual(followed, [`track ${started.agentId}`, `burst ${started.agentId}`]);
    assert.deepEqual(starts.uncertain(), []);
    assert.equal(emu.state.codeReviews.get(started.reviewId)?.agentId, started.agentId);
  });

  it('its title names it when given', async () => {
    const r = await sender.startCodeReview(review({ title: 'Timeouts' }), { from: 'test', quiet: true });
    assert.equal(r.kind === 'started' ? ledger.get(r.review.agentId)?.prompt : r.kind, 'Timeouts');
  });

  it('cut after the body arrived: "may have started" (the review\'s name), nothing listed, one POST, never sent again; the review exists', async () => {
    emu.inject({ method: 'POST', path: '^/code-reviews$', passThrough: true, reset: true });
    const r = await sender.startCodeReview(review({ title: 'Cut review' }), { from: 'test', quiet: true });
    assert.equal(r.kind === 'failed' && r.mayHaveArrived, true);
    assert.deepEqual(starts.uncertain().map((s) => [s.appId, s.prompt]), [[SEED.apps.todo, 'Cut review']]);
    assert.deepEqual(ledger.all(), [], 'nothing acknowledged it');
    assert.equal(emu.state.codeReviews.size, [...emu.state.codeReviews.values()].filter((x) => x.title !== 'Cut review').length + 1, 'the service did start it');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(posts(), 1, 'nothing sent it again');
  });

  it('409 at the workspace\'s limit: refused, one POST, not "may have started", nothing listed', async () => {
    const busy = await client.startCodeReview(review());
    await adminOk(emu.adminUrl, 'PATCH', `/agents/${busy.agentId}`, { status: 'running' });
    await adminOk(emu.adminUrl, 'PATCH', '/workspaces/ws_acme', { concurrentAgentLimit: 1 });
    const before = posts();
    const r = await sender.startCodeReview(review({ title: 'One too many' }), { from: 'test', quiet: true });
    assert.equal(r.kind, 'failed');
    assert.equal(r.kind === 'failed' && r.mayHaveArrived, false);
    assert.equal(posts() - before, 1);
    assert.deepEqual(starts.uncertain(), []);
    assert.deepEqual(ledger.all(), []);
    assert.equal(describeStartFailure(r.kind === 'failed' ? r.error : undefined, { model: '', appId: SEED.apps.todo, secrets: [] }, plainL10n).message, START_REFUSED);
  });

  describe('the form\'s sending (reviews/common/submit.ts) through the sender', () => {
    function env(over: Partial<ReviewSubmitEnv> = {}): ReviewSubmitEnv {
      return {
        l10n: plainL10n,
        validate: (r) => validateStartCodeReviewRequest(r),
        start: async (request) => {
          const r = await sender.startCodeReview(request, { from: 'test', quiet: true });
          if (r.kind === 'started') return r.review;
          throw r.kind === 'failed' ? r.error : new Error('not connected');
        },
        describe: (err, ctx) => describeStartFailure(err, ctx, plainL10n),
        resume: resumeOffer(plainL10n),
        modelNeedsEmail: () => false,
        rememberModelNeedsEmail: () => Promise.resolve(),
        defaultEmail: () => Promise.resolve(undefined),
        secrets: () => Promise.resolve([emu.tokens.default]),
        ...over,
      };
    }
    function person(clicks: (FailureActionId | undefined)[]): { shown: StartFailure[]; commands: string[]; askEmail(): Promise<string | undefined>; showFailure(f: StartFailure): Promise<FailureActionId | undefined>; runCommand(a: string): Promise<void> } {
      const shown: StartFailure[] = [];
      const commands: string[] = [];
      return {
        shown, commands,
        askEmail: () => Promise.resolve(undefined),
        showFailure: (f) => {
          shown.push(f);
          return Promise.resolve(clicks.shift());
        },
        runCommand: (a) => {
          commands.push(a);
          return Promise.resolve();
        },
      };
    }
    const form = { ...emptyReviewForm({ appId: SEED.apps.todo }), fromVersion: FROM, toVersion: TO, title: 'Form review', focusAreas: 'timeouts' };

    it('409: the limit\'s words with Show Runs, Retry and Edit; dismissed, the form comes back whole; one POST', async () => {
      const busy = await client.startCodeReview({ appId: SEED.apps.todo, fromVersion: FROM, toVersion: TO });
      await adminOk(emu.adminUrl, 'PATCH', `/agents/${busy.agentId}`, { status: 'running' });
      await adminOk(emu.adminUrl, 'PATCH', '/workspaces/ws_acme', { concurrentAgentLimit: 1 });
      const before = posts();
      const p = person([undefined]);
      const out = await submitReview(form, env(), p);
      assert.deepEqual(out.kind === 'stopped' ? [out.reason, out.form] : out.kind, ['dismissed', form]);
      assert.deepEqual(p.shown.map((f) => [f.message, f.actions.map((a) => a.id), f.mayExist]), [[START_REFUSED, ['showRuns', 'retry', 'edit'], false]]);
      assert.equal(posts() - before, 1);
      assert.deepEqual(ledger.all(), []);
    });

    it('a cut after arrival: "may have been created" with Track Run by ID first; not sent again unless the person clicks Retry Anyway', async () => {
      emu.inject({ method: 'POST', path: '^/code-reviews$', passThrough: true, reset: true, times: 1 });
      const p = person(['trackRun']);
      const out = await submitReview(form, env(), p);
      assert.deepEqual(out.kind === 'stopped' ? out.reason : out.kind, 'tracked');
      assert.equal(p.shown[0].mayExist, true);
      assert.match(p.shown[0].message, /may have been created/);
      assert.deepEqual(p.shown[0].actions.slice(0, 2).map((a) => a.label), ['Track Run by ID', 'Retry Anyway']);
      assert.deepEqual(p.commands, ['trackRun']);
      assert.equal(posts(), 1);
      assert.deepEqual(starts.uncertain().map((s) => s.prompt), ['Form review']);
    });

    it('the model is checked against the service\'s list before anything is sent; Edit re-opens the review with everything kept', async () => {
      const p = person(['edit']);
      const out = await submitReview({ ...form, model: 'hosted/nope' }, env({ validate: (r) => validateStartCodeReviewRequest(r, { knownModels: ['hosted/auto'] }) }), p);
      assert.deepEqual(out.kind === 'edit' ? [out.step, out.form.model, out.form.title] : out.kind, ['review', 'hosted/nope', 'Form review']);
      assert.match(p.shown[0].message, /not offered by the service/);
      assert.equal(posts(), 0);
    });

    it('a service that asks for the user email (400 user_email_required) is asked once; the email given is sent once more', async () => {
      let asked = 0;
      const sent: (string | undefined)[] = [];
      const e = env({
        start: (request) => {
          sent.push(request.userEmail);
          if (request.userEmail === undefined) {
            throw new ApiError({ kind: 'user_email_required', status: 400, message: 'userEmail is required', mayHaveReachedServer: true });
          }
          return Promise.resolve({ reviewId: 'rev_1', agentId: 'agt_1', status: 'queued' as const });
        },
      });
      const out = await submitReview(form, e, { ...person([]), askEmail: () => { asked++; return Promise.resolve('dev@acme.example'); } });
      assert.equal(out.kind, 'started');
      assert.deepEqual([asked, sent], [1, [undefined, 'dev@acme.example']]);
    });
  });
});
