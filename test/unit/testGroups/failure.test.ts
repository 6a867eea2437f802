import * as assert from 'node:assert/strict';
import { ApiError, type ApiErrorKind } from '../../../src/api/errors';
import { isUnauthorizedReport, RejectionState } from '../../../src/connection/common/unauthorizedState';
import { createFailureActions, unauthorizedReport, type CreateFailureAction } from '../../../src/testGroups/common/failure';

const BASE = 'https://agents.example.com/api/public/v1';

function err(kind: ApiErrorKind, extra: Partial<ConstructorParameters<typeof ApiError>[0]> = {}): ApiError {
  return new ApiError({ kind, message: `client says ${kind}.`, mayHaveReachedServer: true, ...extra });
}

describe('test groups: what a failed POST /test-groups offers', () => {
  const cases: Array<[string, unknown, CreateFailureAction[] | undefined]> = [
    ['a refused token (401)', err('unauthorized', { status: 401 }), ['setToken', 'retry', 'edit']],
    ['a token missing before sending', err('unauthorized', { mayHaveReachedServer: false }), ['setToken', 'retry', 'edit']],
    ['a request refused before sending', err('invalid_input', { mayHaveReachedServer: false }), ['edit']],
    ['a refused app ID (4xx)', err('client', { status: 400 }), ['edit', 'retry']],
    ['not found', err('not_found', { status: 404 }), ['edit', 'retry']],
    ['rate limited', err('rate_limited', { status: 429 }), ['retry', 'edit']],
    ['a server error', err('server', { status: 503 }), ['retry', 'edit', 'showLogs']],
    ['a timeout', err('timeout'), ['retry', 'edit', 'showLogs']],
    ['a network failure', err('network'), ['retry', 'edit', 'showLogs']],
    ['an unreadable answer', err('invalid_response', { status: 200 }), ['retry', 'edit', 'showLogs']],
    ['something that is not an ApiError', new Error('boom'), ['retry', 'edit']],
    ['a cancelled request (nothing to say)', err('aborted'), undefined],
  ];
  for (const [what, error, actions] of cases) {
    it(`${what}: ${actions ? actions.join(', ') : 'no message'}`, () => {
      assert.deepEqual(createFailureActions(error), actions);
    });
  }
});

describe('test groups: what a 401 tells the shared gate', () => {
  it('a 401 the service answered becomes a report the gate recognises, for the base URL it was sent to, prompted by the flow', () => {
    const e = err('unauthorized', { status: 401 });
    const report = unauthorizedReport(e, BASE);
    assert.ok(report);
    assert.ok(isUnauthorizedReport(report));
    assert.deepEqual(report, { type: 'agentRuns.unauthorizedReport', error: e, baseUrl: BASE, prompted: true });
  });

  it('"prompted" is true to its word: the failure shown for that 401 offers Set API Token, Retry and Edit', () => {
    const e = err('unauthorized', { status: 401 });
    assert.ok(unauthorizedReport(e, BASE));
    assert.deepEqual(createFailureActions(e), ['setToken', 'retry', 'edit']);
  });

  it('the gate pauses polling and stays silent, for a new and for an already rejected token: one prompt, the flow\'s own', () => {
    const state = new RejectionState(() => 0);
    const first = state.report(BASE, unauthorizedReport(err('unauthorized', { status: 401 }), BASE));
    assert.equal(first.changed, true);
    assert.equal(first.prompt, false);
    const again = state.report(BASE, unauthorizedReport(err('unauthorized', { status: 401 }), BASE), { interactive: true });
    assert.equal(again.prompt, false);
    assert.equal(state.isRejected(BASE), true);
  });
});
