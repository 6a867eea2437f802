import * as assert from 'node:assert/strict';
import { ApiError, type ApiErrorKind } from '../../../src/api/errors';
import type { AgentStarted, StartAgentRequest } from '../../../src/api/types';
import { refusedValue, type FailureActionId, type StartFailure } from '../../../src/run/common/startFailure';
import { acknowledgeRefusal, activeRefusals, addRefusal, cloneForm, emptyForm, firstProblem, reviveForm, type LaunchForm } from '../../../src/launch/common/form';
import { submitLaunch, type SubmitEnv, type SubmitUi } from '../../../src/launch/common/submit';
import { plainL10n } from '../../../src/base/common/l10n';

function apiError(kind: ApiErrorKind, status: number): ApiError {
  return new ApiError({ kind, status, message: `${kind}.`, mayHaveReachedServer: true });
}

const base = (over: Partial<LaunchForm> = {}): LaunchForm => ({
  ...emptyForm({ appId: 'app_todo', model: 'provider/claude' }), prompt: 'Fix the login bug', userEmail: 'ex@other.org', ...over,
});

/** One failed start, then the person walks away (the form becomes a draft). */
async function failOnce(error: Error, form: LaunchForm): Promise<Awaited<ReturnType<typeof submitLaunch>>> {
  const env: SubmitEnv = {
    l10n: plainL10n,
    validate: (r: StartAgentRequest) => r,
    start: (): Promise<AgentStarted> => Promise.reject(error),
    modelNeedsEmail: () => false,
    rememberModelNeedsEmail: () => Promise.resolve(),
    defaultEmail: () => Promise.resolve(undefined),
    secrets: () => Promise.resolve([]),
  };
  const ui: SubmitUi = {
    confirmAllowEdits: () => Promise.resolve(true),
    askEmail: () => Promise.resolve(undefined),
    showFailure: (_f: StartFailure): Promise<FailureActionId | undefined> => Promise.resolve(undefined),
    runCommand: () => Promise.resolve(),
  };
  return submitLaunch(form, env, ui);
}

describe('launch: a value the service refused is marked when the form comes back', () => {
  it('403 user_not_workspace_member: the email is the refused value, carried by the outcome', async () => {
    const out = await failOnce(apiError('user_not_workspace_member', 403), base());
    assert.equal(out.kind, 'stopped');
    assert.deepEqual(out.kind === 'stopped' ? out.refused : undefined, {
      step: 'userEmail', value: 'ex@other.org', reason: 'not a member of the token\'s workspace, 403 user_not_workspace_member',
    });
  });

  it('which field each refusal is about; failures that refuse no value mark nothing', () => {
    const sent = { appId: 'app_todo', model: 'hosted/fast', userEmail: 'a@b.c' };
    assert.equal(refusedValue(apiError('missing_provider_credentials', 403), sent, plainL10n)?.step, 'userEmail');
    assert.equal(refusedValue(apiError('insufficient_credits', 402), sent, plainL10n)?.value, 'hosted/fast');
    assert.equal(refusedValue(apiError('not_found', 404), sent, plainL10n)?.value, 'app_todo');
    assert.equal(refusedValue(apiError('user_not_workspace_member', 403), { ...sent, userEmail: undefined }, plainL10n), undefined);
    assert.equal(refusedValue(apiError('rate_limited', 429), sent, plainL10n), undefined);
    assert.equal(refusedValue(new Error('x'), sent, plainL10n), undefined);
  });

  it('a restored draft with the refused email (now for another app) cannot start until the email was looked at', () => {
    const saved = { ...base({ appId: 'app_other' }), refused: [{ step: 'userEmail', value: 'ex@other.org', reason: 'not a member' }] };
    const restored = reviveForm(JSON.parse(JSON.stringify(saved)));
    assert.ok(restored);
    assert.equal(activeRefusals(restored).length, 1);
    const problem = firstProblem(restored, plainL10n);
    assert.equal(problem?.step, 'userEmail');
    assert.match(problem?.message ?? '', /refused ex@other\.org last time \(not a member\)/);
    // Looking at the field (accepting it, changed or not) settles the mark.
    const looked = acknowledgeRefusal(restored, 'userEmail');
    assert.equal(firstProblem(looked, plainL10n), undefined);
    assert.equal(looked.refused, undefined);
    assert.equal(activeRefusals(restored).length, 1, 'acknowledging returns a new form');
    // Another value in the field: the mark no longer applies.
    assert.equal(firstProblem({ ...cloneForm(restored), userEmail: 'member@acme.dev' }, plainL10n), undefined);
    // Accepting another step leaves it.
    assert.equal(acknowledgeRefusal(restored, 'appId').refused?.length, 1);
  });

  it('the mark goes on the form (and so into its draft); a newer refusal of the same field replaces the older', () => {
    const first = addRefusal(base(), { step: 'userEmail', value: 'ex@other.org', reason: 'not a member' });
    const second = addRefusal(addRefusal(first, { step: 'model', value: 'provider/claude', reason: 'credits' }), { step: 'userEmail', value: 'ex@other.org', reason: 'no credentials' });
    assert.deepEqual(second.refused?.map((r) => [r.step, r.reason]), [['model', 'credits'], ['userEmail', 'no credentials']]);
    assert.equal(addRefusal(first, undefined), first);
    assert.equal(base().refused, undefined);
    const draft = reviveForm(JSON.parse(JSON.stringify({ ...second })));
    assert.equal(draft?.refused?.length, 2);
  });

  it('stored refusals that make no sense are dropped', () => {
    const restored = reviveForm({ ...base(), refused: [{ step: 'prompt', value: 'x', reason: 'y' }, { step: 'model' }, 'junk'] });
    assert.equal(restored?.refused, undefined);
  });
});
