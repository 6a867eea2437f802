import * as assert from 'node:assert/strict';
import { ApiError, type ApiErrorKind } from '../../../src/api/errors';
import { isUnauthorizedReport } from '../../../src/connection/common/unauthorizedState';
import { describeStartFailure, mayRunExist, unauthorizedReport, type FailureActionId } from '../../../src/run/common/startFailure';
import { plainL10n as l10n } from '../../../src/base/common/l10n';

const TOKEN = 'agr_vgVM0TmuaGrhZz5JnDQtFEvfOSwjDfmvxfjCUqIM';
const ctx = { model: 'openai/gpt-5', appId: 'app_todo', userEmail: 'dev@example.com', secrets: [TOKEN] };

function err(kind: ApiErrorKind, extra: Partial<ConstructorParameters<typeof ApiError>[0]> = {}): ApiError {
  return new ApiError({ kind, message: `client says ${kind}.`, mayHaveReachedServer: true, ...extra });
}

const ids = (f: { actions: { id: FailureActionId }[] }): FailureActionId[] => f.actions.map((a) => a.id);

describe('launch failure messages', () => {
  const cases: Array<[ApiErrorKind, Partial<ConstructorParameters<typeof ApiError>[0]>, RegExp, FailureActionId[]]> = [
    ['invalid_input', { mayHaveReachedServer: false, message: 'prompt is empty: write what the agent should do.' }, /prompt is empty/, ['edit']],
    ['invalid_base_url', { mayHaveReachedServer: false }, /agentRuns\.baseUrl/, ['openSettings', 'retry', 'edit']],
    ['unauthorized', { status: 401 }, /401.*Set a valid token/, ['setToken', 'retry', 'edit']],
    ['plan_required', { status: 402, code: 'api_access_required' }, /plan does not include API access/, ['retry', 'edit']],
    ['insufficient_credits', { status: 402, code: 'insufficient_paid_credits' }, /paid credits.*connected-provider model/, ['chooseModel', 'retry', 'edit']],
    ['user_email_required', { status: 400, code: 'user_email_required' }, /needs the email/, ['changeEmail', 'chooseModel', 'edit']],
    ['user_not_workspace_member', { status: 403 }, /dev@example\.com is not a member.*openai \(model openai\/gpt-5\)/, ['changeEmail', 'chooseModel', 'edit']],
    ['missing_provider_credentials', { status: 403 }, /dev@example\.com has no active credentials for openai \(model openai\/gpt-5\)/, ['retry', 'changeEmail', 'chooseModel', 'edit']],
    ['rate_limited', { status: 429, retryAfterMs: 12_500 }, /Try again in 13 seconds/, ['retry', 'edit']],
    ['not_found', { status: 404, serverMessage: 'App app_todo was not found.' }, /App app_todo was not found/, ['edit', 'openSettings']],
    ['client', { status: 400, serverMessage: 'appId is malformed' }, /refused the request \(400\): appId is malformed/, ['edit', 'retry']],
    ['server', { status: 503 }, /error \(503\).*may have been created/, ['trackRun', 'retry', 'edit', 'showLogs']],
    ['timeout', {}, /did not answer in time.*may have been created/, ['trackRun', 'retry', 'edit', 'showLogs']],
    ['network', { mayHaveReachedServer: false, message: 'Connection refused by 127.0.0.1:9.' }, /Could not reach the service: Connection refused/, ['retry', 'edit', 'openSettings']],
    ['network', { mayHaveReachedServer: true, message: 'The connection was reset.' }, /connection broke.*may have been created/, ['trackRun', 'retry', 'edit', 'showLogs']],
    ['invalid_response', { status: 200 }, /could not be read.*may have been created/, ['trackRun', 'retry', 'edit', 'showLogs']],
    ['cross_origin_redirect', { status: 302, mayHaveReachedServer: false }, /agentRuns\.baseUrl/, ['openSettings', 'edit']],
    ['aborted', { mayHaveReachedServer: false }, /cancelled before anything was sent/, ['retry', 'edit']],
    ['aborted', { mayHaveReachedServer: true }, /cancelled.*may have been created/, ['trackRun', 'retry', 'edit']],
  ];
  for (const [kind, extra, message, actions] of cases) {
    it(`${kind}${extra.mayHaveReachedServer === undefined ? '' : ` (reached: ${String(extra.mayHaveReachedServer)})`}: says what to do and offers ${actions.join(', ')}`, () => {
      const f = describeStartFailure(err(kind, extra), ctx, l10n);
      assert.match(f.message, message);
      assert.deepEqual(ids(f), actions);
      // Every failure keeps the form: Edit is always there.
      assert.ok(ids(f).includes('edit'));
    });
  }

  it('every ApiError kind is covered', () => {
    const kinds = new Set(cases.map((c) => c[0]));
    const all: ApiErrorKind[] = ['invalid_input', 'invalid_base_url', 'unauthorized', 'plan_required', 'insufficient_credits', 'user_email_required', 'user_not_workspace_member', 'missing_provider_credentials', 'not_found', 'client', 'rate_limited', 'server', 'network', 'timeout', 'invalid_response', 'cross_origin_redirect', 'aborted'];
    assert.deepEqual(all.filter((k) => !kinds.has(k)), []);
  });

  it('says "in a moment" when the service gave no Retry-After', () => {
    assert.match(describeStartFailure(err('rate_limited', { status: 429 }), ctx, l10n).message, /in a moment/);
  });

  it('a 4xx is a refusal (the run does not exist); timeouts, resets, 5xx and bad bodies may have created it', () => {
    assert.equal(mayRunExist(err('rate_limited', { status: 429 })), false);
    assert.equal(mayRunExist(err('unauthorized', { status: 401 })), false);
    assert.equal(mayRunExist(err('timeout')), true);
    assert.equal(mayRunExist(err('server', { status: 500 })), true);
    assert.equal(mayRunExist(err('network', { mayHaveReachedServer: false })), false);
    assert.equal(mayRunExist(new Error('boom')), true);
    const t = describeStartFailure(err('timeout'), ctx, l10n);
    assert.equal(t.mayExist, true);
    assert.equal(t.actions.find((a) => a.id === 'retry')?.label, 'Retry Anyway');
    assert.equal(describeStartFailure(err('rate_limited', { status: 429 }), ctx, l10n).actions.find((a) => a.id === 'retry')?.label, 'Retry');
  });

  it('never shows the token, even when the error text carries it', () => {
    const leaky = [
      err('client', { status: 400, serverMessage: `Bad token ${TOKEN} for app` }),
      err('network', { mayHaveReachedServer: false, message: `connect failed: Authorization: Bearer ${TOKEN}` }),
      err('invalid_input', { message: `prompt contains ${TOKEN}` }),
      err('invalid_response', { message: `body: {"token":"${TOKEN.slice(0, 30)}"}` }),
      err('not_found', { serverMessage: `${TOKEN.slice(0, 20)}\u0000${TOKEN.slice(20)}` }),
      new Error(`unexpected ${TOKEN}`),
    ];
    for (const e of leaky) {
      const f = describeStartFailure(e, ctx, l10n);
      assert.ok(!f.message.includes(TOKEN), f.message);
      assert.ok(!f.message.includes(TOKEN.slice(4, 20)), f.message);
      assert.match(f.message, /\[redacted\]/);
    }
  });

  it('names the provider generically when the model id has no provider prefix', () => {
    const f = describeStartFailure(err('missing_provider_credentials', { status: 403 }), { ...ctx, model: 'gpt5' }, l10n);
    assert.match(f.message, /the provider of model gpt5/);
    const g = describeStartFailure(err('user_not_workspace_member', { status: 403 }), { ...ctx, userEmail: undefined }, l10n);
    assert.match(g.message, /The user email is not a member/);
  });

  it('marks user_email_required so the flow can ask once', () => {
    assert.equal(describeStartFailure(err('user_email_required', { status: 400 }), ctx, l10n).needsEmail, true);
    assert.equal(describeStartFailure(err('client', { status: 400 }), ctx, l10n).needsEmail, false);
  });

  it('a token that went missing before sending says so, without claiming the service refused it', () => {
    const f = describeStartFailure(err('unauthorized', { mayHaveReachedServer: false, message: 'No API token is set.' }), ctx, l10n);
    assert.match(f.message, /No API token is set for this service, so the run was not started/);
    assert.doesNotMatch(f.message, /401|refused/);
    assert.deepEqual(ids(f), ['setToken', 'retry', 'edit']);
    assert.equal(f.mayExist, false);
  });
});

describe('launch: what a 401 tells the shared gate', () => {
  const BASE = 'https://agents.example.com/api/public/v1';

  it('a 401 the service answered becomes a report the gate recognises, for the base URL it was sent to, prompted by the flow', () => {
    const e = err('unauthorized', { status: 401 });
    const report = unauthorizedReport(e, BASE);
    assert.ok(report);
    assert.ok(isUnauthorizedReport(report));
    assert.equal(report.error, e);
    assert.equal(report.baseUrl, BASE);
    assert.equal(report.prompted, true);
  });

  it('"prompted" is true to its word: the failure shown for that 401 offers Set API Token, Retry and Edit', () => {
    const e = err('unauthorized', { status: 401 });
    assert.ok(unauthorizedReport(e, BASE));
    assert.deepEqual(ids(describeStartFailure(e, ctx, l10n)), ['setToken', 'retry', 'edit']);
  });

  it('nothing else is reported: a missing token, other refusals, failures that are not ApiErrors', () => {
    const others: unknown[] = [
      err('unauthorized', { mayHaveReachedServer: false }),
      err('client', { status: 403 }),
      err('rate_limited', { status: 429 }),
      err('server', { status: 500 }),
      err('network'),
      new Error('401'),
      { kind: 'unauthorized', status: 401 },
      undefined,
    ];
    for (const e of others) assert.equal(unauthorizedReport(e, BASE), undefined, String(e));
  });
});
