import * as assert from 'node:assert/strict';
import type { AppTest, ServiceTestGroup, ServiceTestGroupMember } from '../../../src/api/testTypes';
import { plainL10n } from '../../../src/base/common/l10n';
import {
  appsToList, editTestsChoices, groupContextValue, groupRefOf, memberRow, mergeGroups, testIdsAfterEdit, unknownIdsMessage, unwritableMembers, markComponents, componentsUnsaid, unknownTestIds, withoutIds,
} from '../../../src/testGroups/common/serviceGroups';
import type { TestGroupRecord } from '../../../src/run/common/testGroupStore';

function local(groupId: string, over: Partial<TestGroupRecord> = {}): TestGroupRecord {
  return { groupId, name: `Local ${groupId}`, appId: 'app_todo', description: null, testCount: 2, testIds: ['t1', 't2'], files: ['a.test.ts'], createdAt: 1, ...over };
}
function svc(id: string, over: Partial<ServiceTestGroup> = {}): ServiceTestGroup {
  return { id, name: `Service ${id}`, testCount: 3, ...over };
}
const test = (id: string, over: Partial<AppTest> = {}): AppTest => ({ id, name: `Test ${id}`, isComponent: false, ...over });

describe('Test groups from the service: merged with the ones created here', () => {
  it('lists a group created here and listed by the service once, with the service\'s name and count and the local files', () => {
    const entries = mergeGroups([local('g1'), local('g2')], new Map([['app_todo', [svc('g2', { name: 'Renamed', testCount: 5 }), svc('g3')]]]));
    assert.deepEqual(entries.map((e) => e.groupId), ['g1', 'g2', 'g3']);
    const g2 = entries[1];
    assert.equal(g2?.name, 'Renamed');
    assert.equal(g2?.testCount, 5);
    assert.deepEqual(g2?.local?.files, ['a.test.ts']);
    assert.equal(groupContextValue(entries[0]), 'testGroup');
    assert.equal(groupContextValue(g2), 'testGroup;service;local');
    assert.equal(groupContextValue(entries[2]), 'testGroup;service');
    assert.equal(entries[2]?.appId, 'app_todo');
  });

  it('orders the service\'s other groups app by app, then by name, and lists a group two apps returned once', () => {
    const entries = mergeGroups([], new Map([
      ['app_b', [svc('x', { name: 'Zeta' }), svc('y', { name: 'Alpha' })]],
      ['app_a', [svc('x'), svc('z', { name: 'Beta' })]],
    ]));
    assert.deepEqual(entries.map((e) => `${e.appId}/${e.name}`), ['app_b/Alpha', 'app_b/Zeta', 'app_a/Beta']);
  });

  it('keeps a group created here that the service did not list (another app, or gone) as a local row', () => {
    const [e] = mergeGroups([local('g1', { description: 'mine' })], new Map([['app_todo', []]]));
    assert.equal(e?.service, undefined);
    assert.equal(e?.description, 'mine');
    assert.equal(groupContextValue(e), 'testGroup');
  });

  it('lists the configured app, then the apps of the groups created here, once each', () => {
    assert.deepEqual(appsToList(' app_todo ', [local('g1', { appId: 'app_x' }), local('g2'), local('g3', { appId: '' })]), ['app_todo', 'app_x']);
    assert.deepEqual(appsToList(undefined, []), []);
  });

  it('shows members of both versions: B\'s components are marked, A\'s membershipId members are plain tests', () => {
    const a: ServiceTestGroupMember = { testId: 't1', name: 'Login', membershipId: 'm1' };
    const b: ServiceTestGroupMember = { testId: 'c1', name: 'Sign in', isComponent: true };
    assert.deepEqual(memberRow(a, plainL10n), { label: 'Login', description: 't1', contextValue: 'testGroupMember' });
    assert.deepEqual(memberRow(b, plainL10n), { label: 'Sign in', description: 'component · c1', contextValue: 'testGroupMember;component' });
    assert.equal(memberRow({ testId: 't9', name: '  ' }, plainL10n).label, 't9');
  });
});

describe('Test groups from the service: Edit Tests', () => {
  const tests = [test('t1'), test('t2'), test('c1', { isComponent: true }), test('t3')];
  const detail = { members: [{ testId: 't2' }, { testId: 'c1', isComponent: true }, { testId: 'gone', name: 'Archived' }] };

  it('offers the app\'s tests but no component, current members checked, a member no longer listed kept checked', () => {
    const choices = editTestsChoices(tests, detail, plainL10n);
    assert.deepEqual(choices.map((c) => [c.testId, c.picked]), [['t1', false], ['t2', true], ['t3', false], ['gone', true]]);
    assert.match(choices[3].description, /not listed/);
  });

  it('keeps the group\'s order and its components, which were not offered, and adds new picks at the end in the order offered', () => {
    const choices = editTestsChoices(tests, detail, plainL10n);
    assert.deepEqual(testIdsAfterEdit(choices, new Set(['t3', 't1']), detail, tests), ['c1', 't1', 't3']);
    // A's members do not say isComponent: the app's list tells.
    assert.deepEqual(testIdsAfterEdit(choices, new Set(['t2']), { members: [{ testId: 't2' }, { testId: 'c1', membershipId: 'm' }] }, tests), ['t2', 'c1']);
  });

  it('an ordered group (the "Sign in" component first, then tests against the app\'s listing order) stays in its order', () => {
    const ordered = { members: [{ testId: 'c1', membershipId: 'm1' }, { testId: 't3', membershipId: 'm2' }, { testId: 't1', membershipId: 'm3' }] };
    const choices = editTestsChoices(tests, ordered, plainL10n);
    assert.deepEqual(testIdsAfterEdit(choices, new Set(['t3', 't1', 't2']), ordered, tests), ['c1', 't3', 't1', 't2']);
    assert.deepEqual(testIdsAfterEdit(choices, new Set(['t1']), ordered, tests), ['c1', 't1']);
  });
});

describe('Create Test Group from File(s): the IDs checked against the app\'s tests', () => {
  it('finds the IDs the app does not list (tests and components both count as known), once each, in order', () => {
    const tests = [test('t1'), test('c1', { isComponent: true })];
    assert.deepEqual(unknownTestIds(['x', 't1', 'c1', 'y', 'x'], tests), ['x', 'y']);
    assert.deepEqual(unknownTestIds(['t1'], tests), []);
    assert.deepEqual(withoutIds(['x', 't1', 'y', 'c1'], ['x', 'y']), ['t1', 'c1']);
  });

  it('names the unknown IDs, at most five', () => {
    assert.equal(unknownIdsMessage(['x'], 3, 'app_todo', plainL10n), '1 of the 3 test IDs is not a test of app app_todo: x.');
    assert.equal(unknownIdsMessage(['a', 'b', 'c', 'd', 'e', 'f', 'g'], 9, 'app_todo', plainL10n), '7 of the 9 test IDs are not tests of app app_todo: a, b, c, d, e and 2 more.');
  });

  it('reads the group a command names: an entry, { groupId }, or the ID', () => {
    assert.deepEqual(groupRefOf({ groupId: ' g1 ', appId: 'app_todo', name: 'Smoke' }), { groupId: 'g1', appId: 'app_todo', name: 'Smoke' });
    assert.deepEqual(groupRefOf('g2'), { groupId: 'g2' });
    assert.equal(groupRefOf({ groupId: '' }), undefined);
    assert.equal(groupRefOf(undefined), undefined);
  });
});

describe('Test groups from the service: a member list read short is never written back', () => {
  const m = (testId: string): ServiceTestGroupMember => ({ testId, membershipId: `m_${testId}` });
  it('refuses a list that was not a list, members without a test ID, and a count the list does not match', () => {
    assert.match(unwritableMembers({ members: [], unreadMembers: 'list', testCount: 3 }, 'Smoke', plainL10n) ?? '', /answer for the test group “Smoke” has no list of its tests.*Nothing was sent: the group keeps its tests/);
    assert.match(unwritableMembers({ members: [m('t2')], unreadMembers: 1 }, 'Smoke', plainL10n) ?? '', /^1 of the tests of “Smoke” could not be read \(no test ID\)\. Nothing was sent/);
    assert.match(unwritableMembers({ members: [m('t1')], testCount: 2 }, 'Smoke', plainL10n) ?? '', /says “Smoke” has 2 tests but listed 1 of them/);
  });
  it('lets a complete list be written, an empty group included', () => {
    assert.equal(unwritableMembers({ members: [m('t1'), m('t2')], testCount: 2 }, 'Smoke', plainL10n), undefined);
    assert.equal(unwritableMembers({ members: [m('t1')] }, 'Smoke', plainL10n), undefined);
    assert.equal(unwritableMembers({ members: [], testCount: 0 }, 'Empty', plainL10n), undefined);
  });
});

describe('Test groups from the service: components among A\'s and C\'s members, which do not say', () => {
  it('marks them from the app\'s tests; a member the app does not list, or one that says, stays as it was', () => {
    const detail = { id: 'g', members: [{ testId: 'c1', membershipId: 'm1' }, { testId: 't1', membershipId: 'm2' }, { testId: 'gone' }, { testId: 't2', isComponent: true }] };
    assert.equal(componentsUnsaid(detail), true);
    const marked = markComponents(detail, [test('c1', { isComponent: true }), test('t1'), test('t2')]);
    assert.deepEqual(marked.members.map((m) => [m.testId, m.isComponent]), [['c1', true], ['t1', false], ['gone', undefined], ['t2', true]]);
    assert.equal(memberRow(marked.members[0], plainL10n).contextValue, 'testGroupMember;component');
    assert.equal(componentsUnsaid({ members: [{ testId: 't', isComponent: false }] }), false);
  });
});
