// Issue 20 §1: the deployed service answers 409 to a start at the workspace's concurrent-agent
// limit, and to a follow-up at that limit or to a conversation that takes no follow-ups (a code
// review's). Each says which and what to do, the prompt is kept, and a 409 is a refusal: never
// "may have started" or "may have arrived".
import * as assert from 'node:assert/strict';
import type { AgentRunsApi } from '../../../src/api';
import { ApiError, conflictCause } from '../../../src/api/errors';
import { type RunLedger } from '../../../src/run/common/ledger/ledger';
import { describeStartFailure, type ExternalAction } from '../../../src/run/common/startFailure';
import { emptyForm } from '../../../src/launch/common/form';
import { submitLaunch, type SubmitEnv, type SubmitUi } from '../../../src/launch/common/submit';
import { plainL10n } from '../../../src/base/common/l10n';
import { followUpConflict } from '../../../src/run/common/refusals';
import { type FollowUpSends } from '../../../src/run/followUpSends';
import { type Sender } from '../../../src/run/sender';
import { type UnconfirmedStarts } from '../../../src/run/unconfirmedStarts';
import { SEED, startEmulator, type Emulator } from '../../emulator/index';
import { senderRig } from './senderRig';

const START_REFUSED = 'The workspace is running as many agent runs as its plan allows. Wait for a run to finish (see the active runs in the Runs view), then start again.';
const FOLLOW_UP_AT_LIMIT = /as many agent runs as its plan allows, so the follow-up was not sent\. Wait for a run to finish \(see the active runs in the Runs view\), then send it again; your text is kept\./;
const CODE_REVIEW = 'This conversation (a code review) does not take follow-ups. Start a new run instead.';

function conflict(body: { code?: string; reason?: string; serverMessage?: string }, status = 409): ApiError {
  return new ApiError({ kind: 'client', status, message: `The service refused the request (${status}).`, mayHaveReachedServer: true, ...body });
}

describe('409: which refusal, from an undocumented body (issue 20 §1)', () => {
  it('a code, reason or text about concurrency or a limit is the limit; one about follow-ups, a kind or a review is the other', () => {
    const cases: Array<[Parameters<typeof conflict>[0], ReturnType<typeof conflictCause>]> = [
      [{ code: 'concurrent_agent_limit' }, 'concurrency'],
      [{ code: 'agent_limit_reached' }, 'concurrency'],
      [{ code: 'too_many_running_agents' }, 'concurrency'],
      [{ reason: 'plan_concurrency' }, 'concurrency'],
      [{ serverMessage: 'The workspace reached its concurrent agent limit.' }, 'concurrency'],
      [{ code: 'follow_ups_not_supported' }, 'noFollowUps'],
      [{ code: 'unsupported_agent_kind' }, 'noFollowUps'],
      [{ code: 'code_review_conversation' }, 'noFollowUps'],
      [{ serverMessage: 'This conversation does not accept follow-up messages.' }, 'noFollowUps'],
      // The code decides before the text; a field pointing both ways decides nothing.
      [{ code: 'concurrency_limit', serverMessage: 'Follow-ups are refused for now.' }, 'concurrency'],
      [{ code: 'follow_up_limit', serverMessage: 'This conversation kind does not take follow-ups.' }, 'noFollowUps'],
      [{ code: 'conflict', serverMessage: 'Conflict.' }, undefined],
      [{}, undefined],
    ];
    for (const [body, cause] of cases) {
      assert.equal(conflictCause(conflict(body)), cause, JSON.stringify(body));
    }
    assert.equal(conflictCause(conflict({ code: 'concurrent_agent_limit' }, 429)), undefined, 'only a 409');
    assert.equal(conflictCause(new Error('409')), undefined);
  });

  it('a follow-up 409 that does not say which: a code review\'s is "no follow-ups", any other run\'s the limit', () => {
    const unclear = conflict({ code: 'conflict' });
    assert.equal(followUpConflict(unclear, { codeReview: true }, plainL10n)?.message, CODE_REVIEW);
    assert.equal(followUpConflict(unclear, { codeReview: true }, plainL10n)?.cause, 'noFollowUps');
    assert.match(followUpConflict(unclear, { codeReview: false }, plainL10n)?.message ?? '', FOLLOW_UP_AT_LIMIT);
    assert.match(followUpConflict(unclear, undefined, plainL10n)?.message ?? '', FOLLOW_UP_AT_LIMIT);
    // What the answer says wins over the kind.
    assert.equal(followUpConflict(conflict({ code: 'concurrent_agent_limit' }), { codeReview: true }, plainL10n)?.cause, 'concurrency');
    assert.equal(followUpConflict(conflict({ code: 'follow_ups_not_supported' }), { codeReview: false }, plainL10n)?.message,
      'This conversation does not take follow-ups (the service answered 409). Start a new run instead.');
    assert.equal(followUpConflict(conflict({ code: 'concurrent_agent_limit' }, 400), undefined, plainL10n), undefined);
  });

  it('a start 409: the limit, what to do, Show Runs with Retry and Edit; not "may have been created"', () => {
    const f = describeStartFailure(conflict({ serverMessage: 'Conflict' }), { model: 'hosted/fast', appId: 'app_todo', secrets: [] }, plainL10n);
    assert.equal(f.message, START_REFUSED);
    assert.deepEqual(f.actions.map((a) => a.id), ['showRuns', 'retry', 'edit']);
    assert.deepEqual([f.mayExist, f.actions[0].label], [false, 'Show Runs']);
  });

  it('the launch form: Show Runs shows the Runs view and the failure again, the form kept; Retry sends it again', async () => {
    const form = { ...emptyForm({ appId: 'app_todo', model: 'hosted/fast' }), prompt: 'Add a login page' };
    const commands: ExternalAction[] = [];
    const shown: string[] = [];
    const clicks = ['showRuns', 'retry'] as const;
    let starts = 0;
    const env: SubmitEnv = {
      l10n: plainL10n,
      validate: (r) => r,
      start: () => (++starts === 1 ? Promise.reject(conflict({ code: 'concurrent_agent_limit' })) : Promise.resolve({ agentId: 'ag_1', status: 'queued' })),
      modelNeedsEmail: () => false,
      rememberModelNeedsEmail: () => Promise.resolve(),
      defaultEmail: () => Promise.resolve(undefined),
      secrets: () => Promise.resolve([]),
    };
    let click = 0;
    const ui: SubmitUi = {
      confirmAllowEdits: () => Promise.resolve(true),
      askEmail: () => Promise.resolve(undefined),
      showFailure: (failure) => {
        shown.push(failure.message);
        return Promise.resolve(clicks[click++]);
      },
      runCommand: (a) => {
        commands.push(a);
        return Promise.resolve();
      },
    };
    const out = await submitLaunch(form, env, ui);
    assert.deepEqual(commands, ['showRuns']);
    assert.deepEqual(shown, [START_REFUSED, START_REFUSED], 'the failure comes back after the Runs view, with its Retry');
    assert.equal(out.kind, 'started');
    assert.equal(out.form.prompt, 'Add a login page');
    assert.equal(starts, 2);
  });
});

describe('409 through the sender, with the real client against the emulator (issue 20 §1)', function () {
  this.timeout(20_000);
  let emu: Emulator;
  let client: AgentRunsApi;
  let ledger: RunLedger;
  let starts: UnconfirmedStarts;
  let sends: FollowUpSends;
  let drafts: Map<string, string>;
  let sender: Sender;
  const limitBody = JSON.stringify({ error: 'The workspace reached its concurrent agent limit.', code: 'concurrent_agent_limit' });

  before(async () => {
    emu = await startEmulator();
  });
  after(() => emu.close());
  beforeEach(() => {
    emu.reset();
    ({ client, ledger, starts, sends, drafts, sender } = senderRig(emu));
  });
  afterEach(() => client.dispose());

  it('a start refused at the limit reached the service and was refused: not recorded as "may have started", nothing listed', async () => {
    emu.inject({ method: 'POST', path: '^/agents$', status: 409, body: limitBody });
    const r = await sender.start({ appId: SEED.apps.todo, prompt: 'One too many', model: 'hosted/fast' }, { from: 'test', quiet: true });
    assert.equal(r.kind, 'failed');
    assert.equal(r.kind === 'failed' && r.mayHaveArrived, false);
    assert.equal(r.kind === 'failed' && conflictCause(r.error), 'concurrency');
    assert.deepEqual(starts.uncertain(), [], 'not "may have started"');
    assert.deepEqual(ledger.all(), []);
  });

  it('a follow-up refused with 409: not "may have arrived", the lock free, the text back in the draft, nothing recorded', async () => {
    const started = await sender.start({ appId: SEED.apps.todo, prompt: 'Busy workspace', model: 'hosted/fast' }, { from: 'test', quiet: true });
    const id = started.kind === 'started' ? started.run.agentId : '';
    emu.inject({ method: 'POST', path: `^/agents/${id}/messages$`, status: 409, body: limitBody });
    drafts.set(id, 'And then the docs');
    const r = await sender.followUp(id, { prompt: 'And then the docs' }, { from: 'test', quiet: true });
    assert.equal(r.kind, 'failed');
    assert.equal(r.kind === 'failed' && r.mayHaveArrived, false);
    assert.match(followUpConflict(r.kind === 'failed' ? r.error : undefined, undefined, plainL10n)?.message ?? '', FOLLOW_UP_AT_LIMIT);
    assert.equal(sends.get(id), undefined, 'the lock is free: it can be sent again');
    assert.equal(drafts.get(id), 'And then the docs', 'the prompt is kept');
    assert.equal(ledger.get(id)?.acts, undefined);
  });
});
