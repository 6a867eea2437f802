// An app's test groups read by ID where the service lists none, and a group's size in words (src/run/common/appTestGroups.ts).
import * as assert from 'node:assert/strict';
import type { ServiceTestGroupDetail } from '../../../src/api/testTypes';
import { plainL10n } from '../../../src/base/common/l10n';
import { groupsReadById, testCountText } from '../../../src/run/common/appTestGroups';
import type { TestGroupRecord } from '../../../src/run/common/testGroupStore';

function local(groupId: string, over: Partial<TestGroupRecord> = {}): TestGroupRecord {
  return { groupId, name: `Local ${groupId}`, appId: 'app_todo', description: null, testCount: 2, testIds: ['t1', 't2'], files: ['a.test.ts'], createdAt: 1, ...over };
}

describe('Test groups: a group\'s size in words', () => {
  it('says a group\'s size in words, one and many alike in both views', () => {
    assert.equal(testCountText(1, plainL10n), '1 test');
    assert.equal(testCountText(0, plainL10n), '0 tests');
    assert.equal(testCountText(12, plainL10n), '12 tests');
  });
});

describe('Test groups from the service: version A has no list, the groups created here are read by ID', () => {
  it('reads each of the app\'s groups created here, leaves out the ones the service no longer has (404), counts a complete member list', async () => {
    const asked: string[] = [];
    const notFound = new Error('404');
    const read = (id: string): Promise<ServiceTestGroupDetail> => {
      asked.push(id);
      if (id === 'gone') return Promise.reject(notFound);
      return Promise.resolve({ id, name: `S ${id}`, members: [{ testId: 't1' }, { testId: 't2' }], ...(id === 'short' ? { unreadMembers: 1 } : {}) });
    };
    const mine = [local('g1'), local('gone'), local('other', { appId: 'app_x' }), local('short')];
    const groups = await groupsReadById(read, mine, 'app_todo', (e) => e === notFound);
    assert.deepEqual(asked, ['g1', 'gone', 'short']);
    assert.deepEqual(groups.map((g) => [g.id, g.name, g.testCount, 'members' in g]), [['g1', 'S g1', 2, false], ['short', 'S short', undefined, false]]);
  });
  it('another failure fails the read (the rows shown stay as they were)', async () => {
    await assert.rejects(groupsReadById(() => Promise.reject(new Error('503')), [local('g1')], 'app_todo', () => false), /503/);
  });
});
