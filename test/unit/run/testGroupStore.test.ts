import * as assert from 'node:assert/strict';
import { MAX_GROUPS, MAX_STORED_IDS, TestGroupStore, reviveTestGroup, testGroupsKey, type TestGroupRecord } from '../../../src/run/common/testGroupStore';
import { MemoryStore } from '../fixtures/memoryStore';


const A = 'http://127.0.0.1:1/api/public/v1';
const B = 'https://other.example/api/public/v1';

function group(id: string, overrides: Partial<TestGroupRecord> = {}): TestGroupRecord {
  return {
    groupId: id, name: `Group ${id}`, appId: 'app-1', description: null, testCount: 2, testIds: ['T1', 'T2'],
    files: ['a.test.ts'], createdAt: 1000, ...overrides,
  };
}

describe('testGroups: store', () => {
  it('persists per base URL, newest first, and restores', async () => {
    const memento = new MemoryStore();
    const s1 = new TestGroupStore(memento, A);
    await s1.add(group('g1'));
    await s1.add(group('g2'));
    assert.deepEqual(s1.list().map((g) => g.groupId), ['g2', 'g1']);
    const s2 = new TestGroupStore(memento, A);
    assert.deepEqual(s2.list().map((g) => g.groupId), ['g2', 'g1']);
    assert.deepEqual(s2.get('g1'), group('g1'));
    assert.deepEqual(new TestGroupStore(memento, B).list(), []);
    assert.ok(memento.data.has(testGroupsKey(A)));
  });

  it('switches lists when the base URL changes and fires', async () => {
    const memento = new MemoryStore();
    const s = new TestGroupStore(memento, A);
    await s.add(group('a1'));
    let fired = 0;
    s.onDidChange(() => fired++);
    s.setBaseUrl(B);
    assert.equal(fired, 1);
    assert.deepEqual(s.list(), []);
    await s.add(group('b1'));
    s.setBaseUrl(A);
    assert.deepEqual(s.list().map((g) => g.groupId), ['a1']);
    s.setBaseUrl(A);
    assert.equal(fired, 3, 'no event when the base URL is the same');
  });

  it('a group created against a base URL that is no longer current goes to that list', async () => {
    const memento = new MemoryStore();
    const s = new TestGroupStore(memento, B);
    await s.add(group('late'), A);
    assert.deepEqual(s.list(), []);
    assert.deepEqual(new TestGroupStore(memento, A).list().map((g) => g.groupId), ['late']);
  });

  it('removes, replaces the same ID, and caps sizes', async () => {
    const memento = new MemoryStore();
    const s = new TestGroupStore(memento, A);
    await s.add(group('g1'));
    await s.add(group('g1', { name: 'renamed' }));
    assert.equal(s.list().length, 1);
    assert.equal(s.get('g1')?.name, 'renamed');
    assert.equal(await s.remove('g1'), true);
    assert.equal(await s.remove('g1'), false);
    for (let i = 0; i < MAX_GROUPS + 5; i++) await s.add(group(`g${i}`));
    assert.equal(s.list().length, MAX_GROUPS);
    const many = Array.from({ length: MAX_STORED_IDS + 10 }, (_, i) => `T${i}`);
    await s.add(group('big', { testIds: many, testCount: many.length }));
    assert.equal(s.get('big')?.testIds.length, MAX_STORED_IDS);
    assert.equal(s.get('big')?.testCount, MAX_STORED_IDS + 10);
  });

  it('survives corrupt state', () => {
    const memento = new MemoryStore();
    memento.data.set(testGroupsKey(A), { version: 1, groups: [null, 3, { name: 'no id' }, { groupId: 'ok', testIds: ['x', 2] }, { groupId: 'ok' }] });
    const s = new TestGroupStore(memento, A);
    assert.deepEqual(s.list().map((g) => g.groupId), ['ok']);
    assert.deepEqual(s.get('ok')?.testIds, []);
    memento.data.set(testGroupsKey(B), 'garbage');
    assert.deepEqual(new TestGroupStore(memento, B).list(), []);
    assert.equal(reviveTestGroup({ groupId: '' }), undefined);
    assert.equal(reviveTestGroup({ groupId: 'x', testIds: ['a'] })?.testCount, 1);
  });

  it('keys an unconfigured base URL separately', () => {
    assert.notEqual(testGroupsKey(undefined), testGroupsKey(A));
  });
});
