// The words after a send of the Test Groups view or Run Now (src/run/common/sends/outcome.ts).
import * as assert from 'node:assert/strict';
import { ApiError } from '../../../src/api/errors';
import { plainL10n } from '../../../src/base/common/l10n';
import { failureNotice, refusalReason } from '../../../src/run/common/sends/outcome';

const describeErr = (e: unknown): string => (e instanceof Error ? e.message : String(e));

describe('Sends of the Test Groups view and Run Now: what the person is told', () => {
  const conflict = new ApiError({ kind: 'client', status: 409, reason: 'automation_not_manual', serverMessage: 'Only manual automations can be run', message: 'The service refused (409).', mayHaveReachedServer: true });
  const cut = new ApiError({ kind: 'network', message: 'The connection was cut.', mayHaveReachedServer: true });

  it('a 409 or 400 gives the service\'s reason: its words, not a code', () => {
    assert.equal(refusalReason(conflict, describeErr), 'Only manual automations can be run');
    const worded = new ApiError({ kind: 'client', status: 409, reason: 'Only one run at a time', serverMessage: 'Conflict', message: 'x', mayHaveReachedServer: true });
    assert.equal(refusalReason(worded, describeErr), 'Only one run at a time');
    const coded = new ApiError({ kind: 'client', status: 409, reason: 'automation_run_in_progress', message: 'The service refused (409).', mayHaveReachedServer: true });
    assert.equal(refusalReason(coded, describeErr), 'automation_run_in_progress', 'a code is better than nothing');
    const bad = new ApiError({ kind: 'client', status: 400, serverMessage: 'testIds must not be empty', message: 'x', mayHaveReachedServer: true });
    assert.deepEqual(failureNotice({ kind: 'failed', error: bad, mayHaveArrived: false }, 'Saving “Smoke”', describeErr, plainL10n), { severity: 'error', text: 'Saving “Smoke”: the service refused: testIds must not be empty' });
    assert.equal(refusalReason(cut, describeErr), undefined);
  });

  it('may have arrived: said, and that it is not sent again', () => {
    const n = failureNotice({ kind: 'failed', error: cut, mayHaveArrived: true }, 'Running “Nightly”', describeErr, plainL10n);
    assert.equal(n?.severity, 'warning');
    assert.match(n?.text ?? '', /may have reached the service, but no answer confirmed it \(.+\)\. It is not sent again/);
    assert.ok(n?.text.includes(`(${describeErr(cut)})`), `the cause is said: ${n?.text ?? ''}`);
  });

  it('busy sends nothing more; done, queued and not connected need no notice here', () => {
    assert.match(failureNotice({ kind: 'busy' }, 'Deleting “Smoke”', describeErr, plainL10n)?.text ?? '', /already under way; nothing more was sent/);
    assert.deepEqual(failureNotice({ kind: 'uncertain', since: new Date(2026, 0, 2, 15, 30).getTime() }, 'Deleting “Smoke”', describeErr, plainL10n), {
      severity: 'warning', text: 'Deleting “Smoke”: not sent. An earlier request may have reached the service at 15:30; check it before sending again.',
    });
    assert.equal(failureNotice({ kind: 'queued' }, 'x', describeErr, plainL10n), undefined);
    assert.equal(failureNotice({ kind: 'notConnected' }, 'x', describeErr, plainL10n), undefined);
    assert.equal(failureNotice({ kind: 'failed', error: new Error('boom'), mayHaveArrived: false }, 'Deleting “Smoke”', describeErr, plainL10n)?.text, 'Deleting “Smoke” failed: boom');
  });
});
