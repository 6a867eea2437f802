// Which test user a test runs as, and the runs that will fail before they start because of it.
import * as assert from 'node:assert/strict';
import { parseTestUsers } from '../../../src/api/parseTests';
import type { TestUser } from '../../../src/api/testTypes';
import { plainL10n } from '../../../src/base/common/l10n';
import { checkTestUser, environmentOf, runsAsDescription, userProblem } from '../../../src/run/common/testUsers';

const users: TestUser[] = [
  { id: 'tu_test', name: 'Tess', database: 'test', isDisabled: false },
  { id: 'tu_live', name: 'Liv', database: 'live', isDisabled: false },
  { id: 'tu_off', name: 'Dee', database: 'test', isDisabled: true },
];

describe('serviceTests: test users', () => {
  it('reads C\'s { testUsers } and A/B\'s bare array alike, nullable fields absent, isDisabled false unless said', () => {
    const item = { id: 'tu_1', name: 'Tess', description: null, email: null, database: 'test', isDisabled: false, createdAt: 5, extra: 1 };
    const want = [{ id: 'tu_1', name: 'Tess', database: 'test', isDisabled: false, createdAt: 5 }];
    assert.deepEqual(parseTestUsers({ testUsers: [item] }), want);
    assert.deepEqual(parseTestUsers([item]), want);
    assert.deepEqual(parseTestUsers([{ id: 'tu_2', isDisabled: 'yes' }, { name: 'no id' }, 3]), [{ id: 'tu_2', isDisabled: false }]);
    assert.deepEqual(parseTestUsers({ testUsers: null }), []);
  });

  it('a branch run signs in as the test-version user, a live run as the live one; none assigned is no login, not a problem', () => {
    const a = { testVersionTestUserId: 'tu_test', liveTestUserId: 'tu_live' };
    assert.equal(environmentOf('feature/x'), 'test');
    assert.equal(environmentOf(' Live '), 'live');
    assert.deepEqual(checkTestUser(a, 'test', users), { kind: 'ok', user: users[0] });
    assert.deepEqual(checkTestUser(a, 'live', users), { kind: 'ok', user: users[1] });
    assert.deepEqual(checkTestUser({}, 'live', users), { kind: 'none' });
    assert.equal(userProblem('Share', checkTestUser({}, 'test', users), 'test', plainL10n), undefined);
    assert.equal(runsAsDescription('Adds one', a, users, plainL10n), 'branch: Tess · live: Liv · Adds one');
    assert.equal(runsAsDescription(undefined, { testVersionTestUserId: 'tu_off' }, users, plainL10n), 'branch: Dee (disabled) · live: no login');
  });

  it('disabled, missing and wrong-database users are problems that say which and why; unread users are not judged', () => {
    const p = (a: { testVersionTestUserId?: string; liveTestUserId?: string }, env: 'test' | 'live', list: TestUser[] | 'unread' = users): string | undefined => userProblem('“Share a list”', checkTestUser(a, env, list === 'unread' ? undefined : list), env, plainL10n);
    assert.equal(p({ testVersionTestUserId: 'tu_off' }, 'test'), '“Share a list”: its test user for branches, Dee, is disabled.');
    assert.equal(p({ liveTestUserId: 'tu_gone' }, 'live'), '“Share a list”: its live test user (tu_gone) is not among the app’s test users.');
    assert.equal(p({ liveTestUserId: 'tu_test' }, 'live'), '“Share a list”: its live test user, Tess, signs in to the test database, not the live one.');
    assert.equal(p({ testVersionTestUserId: 'tu_live' }, 'test'), '“Share a list”: its test user for branches, Liv, signs in to the live database, not the test one.');
    assert.equal(p({ testVersionTestUserId: 'tu_off' }, 'test', 'unread'), undefined);
    assert.equal(runsAsDescription(undefined, { testVersionTestUserId: 'tu_off' }, undefined, plainL10n), 'branch: user tu_off · live: no login');
  });
});
