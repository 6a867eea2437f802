import * as assert from 'node:assert/strict';
import { ApiError } from '../../../src/api/errors';
import type { UnauthorizedReport } from '../../../src/connection/common/unauthorizedReport';
import { RejectionState, isUnauthorizedReport } from '../../../src/connection/common/unauthorizedState';

const A = 'https://a.example.com/api/public/v1';
const B = 'https://b.example.com/api/public/v1';

function err401(): ApiError {
  return new ApiError({ kind: 'unauthorized', status: 401, message: 'The token was refused (401).', mayHaveReachedServer: true });
}

function prompted(baseUrl: string, error: unknown = err401()): UnauthorizedReport {
  return { type: 'agentRuns.unauthorizedReport', error, baseUrl, prompted: true };
}

function setup(): { state: RejectionState; clock: { now: number } } {
  const clock = { now: 1_000 };
  return { state: new RejectionState(() => clock.now), clock };
}

describe('the shared 401 gate (RejectionState)', () => {
  it('polling: the first 401 rejects the token and prompts; later background 401s are silent', () => {
    const { state } = setup();
    const first = state.report(A, err401());
    assert.deepEqual({ changed: first.changed, prompt: first.prompt }, { changed: true, prompt: true });
    assert.equal(state.isRejected(A), true);
    for (let i = 0; i < 3; i++) {
      const again = state.report(A, err401());
      assert.deepEqual({ changed: again.changed, prompt: again.prompt }, { changed: false, prompt: false });
    }
  });

  it('a command the person just ran always says why, even when the token is already known to be rejected', () => {
    const { state } = setup();
    state.report(A, err401());
    assert.equal(state.report(A, err401(), { interactive: true }).prompt, true);
  });

  it('the launch flow (prompted report): polling pauses, no prompt from the gate, and none on the 401s polling gets next', () => {
    const { state } = setup();
    const e = err401();
    const launch = state.report(A, prompted(A, e));
    assert.deepEqual({ changed: launch.changed, prompt: launch.prompt }, { changed: true, prompt: false });
    assert.equal(launch.error, e, 'the 401 itself is logged, not the report');
    assert.equal(state.isRejected(A), true);
    assert.equal(state.report(A, err401()).prompt, false);
  });

  it('a prompted report while the token is already rejected adds nothing, even from a command', () => {
    const { state } = setup();
    state.report(A, err401());
    const d = state.report(A, prompted(A), { interactive: true });
    assert.deepEqual({ changed: d.changed, prompt: d.prompt }, { changed: false, prompt: false });
  });

  it('a report about another base URL than the current one changes nothing', () => {
    const { state } = setup();
    const d = state.report(B, prompted(A));
    assert.equal(d.ignored, 'another base URL');
    assert.equal(d.changed, false);
    assert.equal(state.isRejected(A), false);
    assert.equal(state.isRejected(B), false);
  });

  it('without a base URL nothing is recorded', () => {
    const { state } = setup();
    assert.equal(state.report(undefined, err401()).ignored, 'no base URL');
    assert.equal(state.rejectedBaseUrl, undefined);
  });

  it('a new token for that base URL lifts it; a token for another one does not', () => {
    const { state } = setup();
    state.report(A, prompted(A));
    assert.equal(state.tokenChanged(B), false);
    assert.equal(state.isRejected(A), true);
    assert.equal(state.tokenChanged(A), true);
    assert.equal(state.isRejected(A), false);
    // Rejected again, it prompts again: it is a new token that failed.
    assert.equal(state.report(A, err401()).prompt, true);
  });

  it('another base URL lifts it (and the same one does not)', () => {
    const { state } = setup();
    state.report(A, err401());
    assert.equal(state.baseUrlChanged(A), false);
    assert.equal(state.baseUrlChanged(B), true);
    assert.equal(state.isRejected(A), false);
  });

  it('a success with the same token lifts it, but only for a request sent after the 401', () => {
    const { state, clock } = setup();
    clock.now = 5_000;
    state.report(A, prompted(A));
    assert.equal(state.accepted(A, 4_990), false, 'a request already in flight proves nothing');
    assert.equal(state.accepted(B, 5_100), false, 'another service');
    assert.equal(state.isRejected(A), true);
    assert.equal(state.accepted(A, 5_100), true);
    assert.equal(state.isRejected(A), false);
    assert.equal(state.accepted(A, 5_200), false, 'nothing left to lift');
  });

  it('recognises a report by its shape only (it crosses bundles), and nothing else as one', () => {
    assert.equal(isUnauthorizedReport(prompted(A)), true);
    assert.equal(isUnauthorizedReport({ type: 'agentRuns.unauthorizedReport', error: err401(), baseUrl: A, prompted: false }), true);
    assert.equal(isUnauthorizedReport(err401()), false);
    assert.equal(isUnauthorizedReport({ type: 'agentRuns.unauthorizedReport', baseUrl: A }), false);
    assert.equal(isUnauthorizedReport({ type: 'other', baseUrl: A, prompted: true }), false);
    assert.equal(isUnauthorizedReport(undefined), false);
    assert.equal(isUnauthorizedReport('agentRuns.unauthorizedReport'), false);
  });

  it('an unprompted report behaves like the bare error, for its own base URL only', () => {
    const { state } = setup();
    const d = state.report(A, { type: 'agentRuns.unauthorizedReport', error: err401(), baseUrl: A, prompted: false });
    assert.deepEqual({ changed: d.changed, prompt: d.prompt }, { changed: true, prompt: true });
  });
});
