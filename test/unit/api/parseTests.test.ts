import * as assert from 'node:assert/strict';
import {
  ApiError, parseAppTestDetail, parseAppTests, parseAutomationRunQueued, parseAutomations, parseServiceTestGroupDetail,
  parseServiceTestGroups, parseTestGroupRunDetail, parseTestGroupRunStarted, parseTestRunDetail, parseTestRunStarted,
} from '../../../src/api';
import { parseOk } from '../../../src/api/parseTests';
import {
  AUTOMATION_CRON, AUTOMATION_MANUAL, COMPONENT_B, GROUP_DETAIL_A, GROUP_DETAIL_B, GROUP_LIST_B, GROUP_RUN_DETAIL_B,
  RUN_DETAIL_A, RUN_DETAIL_B, TEST_A, TEST_DETAIL_A, TEST_DETAIL_B,
} from '../fixtures/testPayloads';

function refused(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof ApiError && e.kind === 'invalid_response' && message.test(e.message));
}

/** `value` without the keys whose value is `null` (what "null is absent" leaves). */
function withoutNulls<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)) as Partial<T>;
}

describe('api: the app\'s tests, test runs, test groups and automations (both published versions)', () => {
  describe('tests (§3)', () => {
    it('lists tests (A) and components (B), every field, nulls absent', () => {
      const tests = parseAppTests({ tests: [TEST_A, COMPONENT_B] });
      assert.deepEqual(tests, [withoutNulls(TEST_A), withoutNulls(COMPONENT_B)]);
      assert.equal(tests[1].isComponent, true);
      assert.equal(tests[1].timeoutMinutes, 10);
    });

    it('C: description, viewportPreset and both test-user ids null are absent', () => {
      assert.deepEqual(parseAppTests({ tests: [{ id: 't', name: 'Add', description: null, isComponent: false, viewportPreset: null, liveTestUserId: null, testVersionTestUserId: null, createdAt: 1, updatedAt: 2 }] }), [
        { id: 't', name: 'Add', isComponent: false, createdAt: 1, updatedAt: 2 },
      ]);
    });

    it('keeps going past odd elements: no id, not an object, wrong-typed fields dropped, unknown values kept', () => {
      const tests = parseAppTests({
        tests: [null, 'test_x', { name: 'no id' }, { id: '' }, { id: 't1', name: 42, isComponent: 'yes', viewportPreset: 'watch', createdAt: 'soon', extra: { a: 1 } }],
      });
      assert.deepEqual(tests, [{ id: 't1', isComponent: false, viewportPreset: 'watch' }]);
      assert.deepEqual(parseAppTests({ tests: null }), []);
      assert.deepEqual(parseAppTests({}), []);
      refused(() => parseAppTests([TEST_A]), /test list was not a JSON object/);
    });

    it('version A: flat steps read into stepType (step → test, component), sorted by position', () => {
      const t = parseAppTestDetail(TEST_DETAIL_A);
      assert.equal(t.projectId, 'proj_1');
      assert.ok(!('archivedAt' in t));
      assert.deepEqual(t.steps.map((s) => [s.id, s.position, s.stepType]), [['st_1', 0, 'test'], ['st_2', 1, 'component'], ['st_3', 2, 'test']]);
      assert.deepEqual(t.steps[1], { id: 'st_2', position: 1, stepType: 'component', componentId: 'cmp_signin' });
      assert.deepEqual(t.steps[0], { id: 'st_1', position: 0, stepType: 'test', instruction: 'Open the home page', onFailure: 'stop' });
    });

    it('version B: the graph (condition, both branches, component) with its keys and tips; layout numbers ignored', () => {
      const t = parseAppTestDetail(TEST_DETAIL_B);
      assert.equal(t.timeoutMinutes, 15);
      assert.deepEqual(t.steps.map((s) => [s.stepType, s.graphNodeKey, s.parentGraphNodeKey, s.parentConditionOutcome]), [
        ['test', 'n1', undefined, undefined], ['condition', 'n2', 'n1', undefined], ['test', 'n3', 'n2', 'met'],
        ['test', 'n4', 'n2', 'not_met'], ['component', 'n5', 'n3', undefined],
      ]);
      assert.equal(t.steps[0].tips, 'Wait for the banner');
      assert.ok(!('x' in t.steps[0]));
      assert.deepEqual([t.steps[4].componentId, t.steps[4].componentName], ['cmp_signin', 'Sign in']);
    });

    it('odd steps: no position keeps its place, an unknown type is kept, a reference without a type is a component', () => {
      const t = parseAppTestDetail({
        id: 't', steps: [{ id: 'a', position: 1, kind: 'loop' }, { id: 'b' }, { id: 'c', position: 0, componentId: 'cmp' }, { position: 2 }, 7],
      });
      assert.deepEqual(t.steps.map((s) => [s.id, s.position, s.stepType]), [['c', 0, 'component'], ['a', 1, 'loop'], ['b', 2, 'test']]);
      assert.equal(t.isComponent, false);
      refused(() => parseAppTestDetail({ name: 'x', steps: [] }), /test had no id/);
    });
  });

  describe('test runs (§5)', () => {
    it('version A: every run and step field; the step spelling `cancelled` is kept, the raw status too', () => {
      const d = parseTestRunDetail(RUN_DETAIL_A);
      assert.deepEqual(d.run, { ...withoutNulls(RUN_DETAIL_A.run), rawStatus: 'error', artifacts: [] });
      assert.deepEqual(d.test, { id: 'test_login', name: 'Log in' });
      assert.deepEqual(d.steps.map((s) => [s.id, s.status, s.rawStatus]), [['rs_1', 'passed', 'passed'], ['rs_2', 'error', 'error'], ['rs_3', 'cancelled', 'cancelled']]);
      assert.deepEqual(d.steps[1], {
        id: 'rs_2', position: 1, sourceKind: 'component', sourceComponentId: 'cmp_signin', sourceComponentName: 'Sign in',
        instruction: 'Click "Log in"', onFailure: 'stop', status: 'error', rawStatus: 'error', comment: 'Nothing happened.',
        completedAt: 1_760_000_002_000, artifacts: [{ label: 'screenshot.png', url: 'https://cdn.example.com/a/screenshot.png', kind: 'image' }],
      });
    });

    it('version B: steps in the order they run, graph fields, counts (numbers only), run artifacts', () => {
      const d = parseTestRunDetail(RUN_DETAIL_B);
      assert.deepEqual(d.steps.map((s) => [s.id, s.order, s.status]), [['rb_1', 0, 'passed'], ['rb_2', 1, 'passed'], ['rb_3', 2, 'skipped'], ['rb_4', 3, 'warning']]);
      assert.equal(d.steps[1].conditionResult, 'not_met');
      assert.deepEqual(d.steps[1].dependsOnStepIds, ['rb_1']);
      assert.deepEqual([d.steps[2].stepType, d.steps[2].parentGraphNodeKey, d.steps[2].parentConditionOutcome], ['test', 'n2', 'met']);
      assert.deepEqual(d.steps[2].artifacts, [], 'null artifacts are none');
      assert.deepEqual(d.run.counts, { passed: 2, warning: 1, skipped: 1 });
      assert.deepEqual(d.run.artifacts, [{ label: 'video', url: 'https://cdn.example.com/run.webm', kind: 'video' }]);
      assert.deepEqual([d.run.status, d.run.testName, d.run.environment, d.run.timeoutMinutes, d.run.appBaseUrl], ['warning', 'Cart', 'live', 15, 'https://todo.example.com']);
      assert.ok(!('groupRunId' in d.run) && !('nextPendingStepId' in d.run));
    });

    it('run statuses: `cancelled` read as `canceled`; step statuses: `canceled` read as `cancelled`; raw kept, unknown kept', () => {
      const d = parseTestRunDetail({
        run: { id: 'r', status: 'cancelled' },
        steps: [{ id: 'a', status: 'canceled' }, { id: 'b', status: ' Passed ' }, { id: 'c', status: 'flaky' }, { id: 'd' }, { id: 'e', status: 3 }],
      });
      assert.deepEqual([d.run.status, d.run.rawStatus], ['canceled', 'cancelled']);
      assert.deepEqual(d.steps.map((s) => [s.status, s.rawStatus]), [['cancelled', 'canceled'], ['passed', ' Passed '], ['flaky', 'flaky'], ['pending', undefined], ['pending', undefined]]);
      const same = parseTestRunDetail({ run: { id: 'r', status: 'canceled' }, steps: [] });
      assert.deepEqual([same.run.status, same.run.rawStatus], ['canceled', 'canceled']);
      const none = parseTestRunDetail({ run: { id: 'r' } });
      assert.deepEqual([none.run.status, 'rawStatus' in none.run, none.steps], ['queued', false, []]);
    });

    it('artifacts of undocumented shape: only http(s) links kept, a name or the link\'s last segment as label', () => {
      const d = parseTestRunDetail({
        run: { id: 'r', artifacts: { url: 'https://cdn.example.com/logs/run%201.txt' } },
        steps: [{
          id: 's', artifacts: [
            'https://cdn.example.com/x/shot.png',
            'javascript:alert(1)',
            { title: 'Trace', href: 'file:///etc/passwd' },
            { label: 'Line\nbreak', downloadUrl: 'http://cdn.example.com/t.zip', mimeType: 'application/zip' },
            { url: 'https://cdn.example.com/' },
            { size: 12 },
            null, 5,
          ],
        }],
      });
      assert.deepEqual(d.run.artifacts, [{ label: 'run 1.txt', url: 'https://cdn.example.com/logs/run%201.txt' }]);
      assert.deepEqual(d.steps[0].artifacts, [
        { label: 'shot.png', url: 'https://cdn.example.com/x/shot.png' },
        { label: 'Trace' },
        { label: 'Line break', url: 'http://cdn.example.com/t.zip', kind: 'application/zip' },
        { label: 'cdn.example.com', url: 'https://cdn.example.com/' },
      ]);
    });

    it('C: the nullable run fields absent when null; the assigned test user kept, null (no login) absent', () => {
      const nulls = { branchCacheId: null, model: null, summary: null, groupRunId: null, startedAt: null, completedAt: null, appBaseUrl: null, bubbleAppName: null, assignedTestUser: null };
      const d = parseTestRunDetail({ run: { id: 'r', status: 'queued', branchId: 'main', branchDisplay: 'Main', environment: 'test', ...nulls }, test: null, steps: [] });
      assert.deepEqual(d, { run: { id: 'r', status: 'queued', rawStatus: 'queued', branchId: 'main', branchDisplay: 'Main', environment: 'test', artifacts: [] }, steps: [] });
      const as = parseTestRunDetail({ run: { id: 'r', status: 'running', bubbleAppName: 'todo', assignedTestUser: { id: 'tu_1', name: 'Tess', email: null, database: 'test', extra: 1 } }, steps: [] });
      assert.deepEqual([as.run.assignedTestUser, as.run.bubbleAppName], [{ id: 'tu_1', name: 'Tess', database: 'test' }, 'todo']);
      assert.equal('assignedTestUser' in parseTestRunDetail({ run: { id: 'r', assignedTestUser: { name: 'no id' } }, steps: [] }).run, false);
      const g = parseTestGroupRunDetail({ run: { id: 'g', status: 'running', branchId: null, branchDisplay: null, branchCacheId: null, startedAt: null, completedAt: null }, childRuns: [{ id: 'c', testId: 't', status: 'queued', branchId: null, completedAt: null }] });
      assert.deepEqual(g, { run: { id: 'g', status: 'running', rawStatus: 'running' }, childRuns: [{ id: 'c', testId: 't', status: 'queued', rawStatus: 'queued' }] });
    });

    it('a run detail without its run is refused; a test of the wrong shape is absent', () => {
      refused(() => parseTestRunDetail({ steps: [] }), /test run had no run/);
      refused(() => parseTestRunDetail({ run: { status: 'passed' } }), /test run's run had no id/);
      assert.equal(parseTestRunDetail({ run: { id: 'r' }, test: 'test_x' }).test, undefined);
      assert.equal(parseTestRunDetail({ run: { id: 'r' }, test: { name: 'no id' } }).test, undefined);
    });

    it('a group run and its child runs (B counts), statuses normalised', () => {
      const d = parseTestGroupRunDetail(GROUP_RUN_DETAIL_B);
      assert.deepEqual(d.run, { ...withoutNulls(GROUP_RUN_DETAIL_B.run), rawStatus: 'running' });
      assert.deepEqual(d.childRuns.map((c) => [c.id, c.status, c.testName]), [['trun_1', 'passed', 'Log in'], ['trun_3', 'queued', 'Cart']]);
      assert.ok(!('startedAt' in d.childRuns[1]));
      const odd = parseTestGroupRunDetail({ run: { id: 'g', status: 'Cancelled' }, childRuns: [{ id: 'c', status: 'cancelled' }, { status: 'passed' }] });
      assert.deepEqual([odd.run.status, odd.childRuns.map((c) => c.status)], ['canceled', ['canceled']]);
      refused(() => parseTestGroupRunDetail({ childRuns: [] }), /test group run had no run/);
    });

    it('starts: runId / groupRunId (else `id`); none is refused', () => {
      assert.deepEqual(parseTestRunStarted({ runId: 'trun_9' }), { runId: 'trun_9' });
      assert.deepEqual(parseTestRunStarted({ id: 'trun_9', status: 'queued' }), { runId: 'trun_9' });
      assert.deepEqual(parseTestGroupRunStarted({ groupRunId: 'grun_9' }), { groupRunId: 'grun_9' });
      refused(() => parseTestRunStarted({ runId: 7 }), /had no runId/);
      refused(() => parseTestGroupRunStarted({}), /had no groupRunId/);
    });
  });

  describe('test groups (§4)', () => {
    it('the list (B) with counts', () => {
      assert.deepEqual(parseServiceTestGroups(GROUP_LIST_B), GROUP_LIST_B.groups.map(withoutNulls));
      assert.deepEqual(parseServiceTestGroups({ groups: [{ name: 'no id' }, { groupId: 'g2', testCount: '3' }] }), [{ id: 'g2' }]);
    });

    it('a group\'s members: A with membershipId, B with isComponent', () => {
      const a = parseServiceTestGroupDetail(GROUP_DETAIL_A);
      assert.deepEqual(a.members, [withoutNulls(GROUP_DETAIL_A.members[0])]);
      assert.equal(a.members[0].membershipId, 'mem_1');
      assert.deepEqual([a.id, a.projectId, 'archivedAt' in a], ['grp_smoke', 'proj_1', false]);
      const b = parseServiceTestGroupDetail(GROUP_DETAIL_B);
      assert.deepEqual(b.members.map((m) => [m.testId, m.isComponent, 'membershipId' in m]), [['test_login', false, false], ['cmp_signin', true, false]]);
      const odd = parseServiceTestGroupDetail({ groupId: 'g', members: [{ name: 'no testId' }, { testId: 't', isComponent: 'no' }] });
      assert.deepEqual(odd, { id: 'g', members: [{ testId: 't' }], unreadMembers: 1 });
      refused(() => parseServiceTestGroupDetail({ name: 'x' }), /test group had no id/);
    });

    it('members null, missing or not a list, or a member with a null testId: the list is marked incomplete, never read as empty', () => {
      for (const members of [null, undefined, 'x', { testId: 't' }]) {
        const g = parseServiceTestGroupDetail({ id: 'g', name: 'Smoke', testCount: 2, members });
        assert.deepEqual([g.members, g.unreadMembers], [[], 'list'], JSON.stringify(members));
      }
      const nullId = parseServiceTestGroupDetail({ id: 'g', members: [{ testId: null, membershipId: 'm1' }, { testId: 't2', membershipId: 'm2' }, 7] });
      assert.deepEqual([nullId.members.map((m) => m.testId), nullId.unreadMembers], [['t2'], 2]);
      assert.equal('unreadMembers' in parseServiceTestGroupDetail({ id: 'g', members: [] }), false, 'an empty list is read as empty');
    });

    it('C\'s nullable group and member fields: description, archivedAt null; members with membershipId', () => {
      const c = parseServiceTestGroupDetail({
        id: 'g', projectId: 'p', name: 'Smoke', description: null, testCount: 1, archivedAt: null, createdAt: 1, updatedAt: 2,
        members: [{ membershipId: 'm1', testId: 't1', name: 'Login', description: null, liveTestUserId: null, testVersionTestUserId: null, updatedAt: 3 }],
      });
      assert.deepEqual(c, { id: 'g', projectId: 'p', name: 'Smoke', testCount: 1, createdAt: 1, updatedAt: 2, members: [{ membershipId: 'm1', testId: 't1', name: 'Login', updatedAt: 3 }] });
    });

    it('PUT/DELETE answers: { ok: true }, or nothing, is done; ok: false is not', () => {
      assert.doesNotThrow(() => parseOk({ ok: true }));
      assert.doesNotThrow(() => parseOk({}));
      assert.doesNotThrow(() => parseOk(undefined));
      refused(() => parseOk({ ok: false }), /without confirming/);
      refused(() => parseOk('ok'), /not a JSON object/);
    });
  });

  describe('automations (§6)', () => {
    it('every field; enabled and canRunManually false unless said; action kinds in order, unknown kept', () => {
      const list = parseAutomations({ automations: [AUTOMATION_MANUAL, AUTOMATION_CRON, { id: 'a3', actionKinds: ['run_tests', 7, 'teleport'], canRunManually: 'true' }] });
      assert.deepEqual(list[0], withoutNulls(AUTOMATION_MANUAL));
      assert.deepEqual(list[1], AUTOMATION_CRON);
      assert.deepEqual(list[2], { id: 'a3', enabled: false, actionKinds: ['run_tests', 'teleport'], canRunManually: false });
    });

    it('C: createdByName null is absent; the run status a free string kept as sent', () => {
      assert.deepEqual(parseAutomations({ automations: [{ id: 'a', name: 'Nightly', enabled: true, triggerKind: 'cron', actionKinds: ['run_tests'], canRunManually: false, createdByName: null, lastRunAt: null, lastRunError: null }] }), [
        { id: 'a', name: 'Nightly', enabled: true, triggerKind: 'cron', actionKinds: ['run_tests'], canRunManually: false },
      ]);
      assert.equal(parseAutomationRunQueued({ automationId: 'a', status: 'Accepted for later', queuedAt: 1 }, 'a').status, 'Accepted for later');
    });

    it('a run queued: the status kept as sent, the time as a number or a date, the id asked for when left out', () => {
      assert.deepEqual(parseAutomationRunQueued({ automationId: 'auto_1', status: 'queued', queuedAt: 5 }, 'auto_1'), { automationId: 'auto_1', status: 'queued', queuedAt: 5 });
      assert.deepEqual(parseAutomationRunQueued({ status: 'accepted', queuedAt: '2026-01-01T00:00:00Z' }, 'auto_1'), { automationId: 'auto_1', status: 'accepted', queuedAt: Date.UTC(2026, 0, 1) });
    });
  });
});
