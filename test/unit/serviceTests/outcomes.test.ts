import * as assert from 'node:assert/strict';
import { ApiError } from '../../../src/api/errors';
import type { TestRunStatus, TestStepStatus } from '../../../src/api/testTypes';
import { plainL10n } from '../../../src/base/common/l10n';
import { orderSteps, runOutcome, stepOutcome, stepTree, type StepNode, type StepShape } from '../../../src/serviceTests/common/outcomes';
import { failedServiceTest, startFailureText } from '../../../src/serviceTests/common/start';
import { branchKey, isLive } from '../../../src/run/common/branches/testBranch';

const l = plainL10n;

function outline(nodes: readonly StepNode[], depth = 0): string[] {
  return nodes.flatMap((n) => [`${'  '.repeat(depth)}${n.label}${n.description ? ` (${n.description})` : ''}`, ...outline(n.children, depth + 1)]);
}

describe('serviceTests: statuses, steps and words', () => {
  it('maps the six run statuses onto the Testing API, keeping the service word', () => {
    const cases: [TestRunStatus, string | undefined, string, boolean, RegExp | undefined][] = [
      ['queued', undefined, 'queued', false, undefined],
      ['running', undefined, 'running', false, undefined],
      ['passed', undefined, 'passed', true, undefined],
      ['warning', undefined, 'passed', true, /“warning”/],
      ['error', undefined, 'failed', true, /“error”/],
      ['canceled', 'canceled', 'skipped', true, /“canceled”/],
      ['canceled', 'cancelled', 'skipped', true, /“cancelled”/],
    ];
    for (const [status, rawStatus, verdict, final, message] of cases) {
      const o = runOutcome({ status, ...(rawStatus ? { rawStatus } : {}) }, l);
      assert.equal(o.verdict, verdict, status);
      assert.equal(o.final, final, status);
      if (message) assert.match(o.message ?? '', message);
      else assert.equal(o.message, undefined);
    }
    // An unlisted status ends a run only with completedAt.
    // Until then it is dormant: still running, read ever less often, and said so.
    const paused = runOutcome({ status: 'paused' }, l);
    assert.deepEqual([paused.verdict, paused.final, paused.dormant], ['running', false, true]);
    assert.match(paused.message ?? '', /“paused”, a status this extension does not know/);
    const ended = runOutcome({ status: 'timed_out', completedAt: 5 }, l);
    assert.equal(ended.verdict, 'errored');
    assert.match(ended.message ?? '', /“timed_out”/);
  });

  it('maps a step\'s statuses: a warning is a pass that says so, a cancel a skip that says which', () => {
    const v = (status: TestStepStatus, comment?: string) => stepOutcome({ status, ...(comment ? { comment } : {}) }, l);
    assert.deepEqual(v('pending'), { verdict: 'queued', final: false });
    assert.deepEqual(v('passed'), { verdict: 'passed', final: true });
    assert.deepEqual(v('passed', 'ok'), { verdict: 'passed', final: true, message: 'ok' });
    assert.equal(v('warning').verdict, 'passed');
    assert.equal(v('warning').message, 'Warning (the service says “warning”).');
    assert.equal(v('error', 'Cart empty').message, 'Failed (the service says “error”).\nCart empty');
    assert.equal(v('error').verdict, 'failed');
    assert.equal(v('skipped').verdict, 'skipped');
    assert.equal(v('cancelled').verdict, 'skipped');
    assert.match(v('cancelled').message ?? '', /^Cancelled \(the service says “cancelled”\)/);
    assert.equal(stepOutcome({ status: 'blocked' }, l).final, false);
    assert.equal(stepOutcome({ status: 'blocked', completedAt: 1 }, l).verdict, 'errored');
  });

  it('orders steps by B\'s order, else position', () => {
    const ids = orderSteps([{ id: 'c', position: 2, order: 1 }, { id: 'a', position: 0 }, { id: 'b', position: 1, order: 2 }]).map((s) => s.id);
    assert.deepEqual(ids, ['a', 'c', 'b']);
    assert.deepEqual(orderSteps([{ id: 'y', position: 1 }, { id: 'x', position: 0 }]).map((s) => s.id), ['x', 'y']);
  });

  it('shows a condition with both branches, and names component references', () => {
    const steps: StepShape[] = [
      { id: 's1', position: 0, stepType: 'test', instruction: 'Open the app', graphNodeKey: 'n1' },
      { id: 's2', position: 1, stepType: 'condition', instruction: 'A cookie banner shows', graphNodeKey: 'n2', parentGraphNodeKey: 'n1' },
      { id: 's3', position: 2, stepType: 'test', instruction: 'Accept cookies', graphNodeKey: 'n3', parentGraphNodeKey: 'n2', parentConditionOutcome: 'met' },
      { id: 's4', position: 3, stepType: 'test', instruction: 'Check the footer', graphNodeKey: 'n4', parentGraphNodeKey: 'n2', parentConditionOutcome: 'not_met' },
      { id: 's5', position: 4, stepType: 'test', instruction: 'Close it', graphNodeKey: 'n5', parentGraphNodeKey: 'n3' },
      { id: 's6', position: 5, stepType: 'component', componentId: 'cmp_login', componentName: 'Log in', graphNodeKey: 'n6', parentGraphNodeKey: 'n1' },
      { id: 's7', position: 6, sourceKind: 'component', sourceComponentName: 'Log in', instruction: 'Type the password' },
    ];
    assert.deepEqual(outline(stepTree(steps, l)), [
      'Open the app',
      'If: A cookie banner shows',
      '  if met',
      '    Accept cookies',
      '    Close it',
      '  if not met',
      '    Check the footer',
      'Component: Log in',
      'Type the password (from component Log in)',
    ]);
    // Version A: flat steps, in position order.
    assert.deepEqual(outline(stepTree([{ id: 'b', position: 1, instruction: 'Two' }, { id: 'a', position: 0, instruction: 'One' }], l)), ['One', 'Two']);
  });

  it('says what a failed start means: may have arrived (never resent), the 409\'s reason, else the error', () => {
    const describe = (e: unknown) => (e instanceof Error ? e.message : String(e));
    assert.match(startFailureText('“Checkout”', { error: new Error('socket hang up'), mayHaveArrived: true }, describe, l), /may have reached the service; it was not sent again/);
    const conflict = new ApiError({ kind: 'client', status: 409, message: 'Conflict', reason: 'Concurrent test run limit reached (2)', mayHaveReachedServer: true });
    assert.equal(startFailureText('“Checkout”', { error: conflict, mayHaveArrived: false }, describe, l), '“Checkout” was not started: the workspace is running as many test runs as its plan allows. Wait for one to finish, then run it again.');
    // The deployed shape: a code in \`code\` and \`reason\`, the sentence in \`error\`.
    const coded = new ApiError({ kind: 'client', status: 409, message: 'Conflict', code: 'concurrency_limit', reason: 'workspace_concurrent_test_run_limit_reached', serverMessage: 'Workspace "Acme" has 2 active test runs, its limit (2).', mayHaveReachedServer: true });
    assert.match(startFailureText('“Checkout”', { error: coded, mayHaveArrived: false }, describe, l), /^“Checkout” was not started: the workspace is running as many test runs/);
    // Another 409: the service's words, not its code.
    const other = new ApiError({ kind: 'client', status: 409, message: 'Conflict', reason: 'branch_locked', serverMessage: 'The branch is being synced.', mayHaveReachedServer: true });
    assert.equal(startFailureText('“Checkout”', { error: other, mayHaveArrived: false }, describe, l), 'The service refused to start “Checkout”: The branch is being synced.');
    assert.equal(startFailureText('“Checkout”', { error: new Error('bad'), mayHaveArrived: false }, describe, l), '“Checkout” was not started: bad');
  });

  it('remembers the branch per base URL and app; "live" is told apart', () => {
    assert.equal(branchKey('http://h/api', 'app_todo'), 'agentRuns.testBranch.v1:http://h/api:app_todo');
    assert.ok(isLive(' Live '));
    assert.ok(!isLive('main'));
  });

  it('builds Ask Agent to Fix from the failed steps, their comments and the summary', () => {
    const t = failedServiceTest({
      name: 'Checkout', appId: 'app_todo', runId: 'tr_1', branch: 'main', summary: 'The cart stayed empty.',
      steps: [
        { id: 'a', position: 0, status: 'passed', instruction: 'Open', artifacts: [] },
        { id: 'b', position: 1, status: 'warning', instruction: 'Add an item', comment: 'slow', artifacts: [] },
        { id: 'c', position: 2, status: 'error', instruction: 'Pay', comment: 'Pay button missing', details: 'Use the test card', artifacts: [] },
        { id: 'd', position: 3, status: 'cancelled', instruction: 'See receipt', artifacts: [] },
      ],
    }, l);
    assert.equal(t.name, 'Checkout');
    assert.match(t.message, /Service test run tr_1 of app app_todo on branch main\./);
    assert.match(t.message, /- Add an item\n {2}Warning \(the service says “warning”\)\.\n {2}slow/);
    assert.match(t.message, /- Pay\n {2}Details: Use the test card\n {2}Failed \(the service says “error”\)\.\n {2}Pay button missing/);
    assert.match(t.message, /- See receipt\n {2}Cancelled/);
    assert.doesNotMatch(t.message, /- Open/);
    assert.match(t.message, /Summary of the run:\nThe cart stayed empty\./);
  });
});
