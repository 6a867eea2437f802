// An app's branches for the branch steps (issue 31): gathered from what was read and used,
// merged (an id and its label are one branch), ordered, remembered; and a branch's sync followed
// until it completed or failed, bounded, Retry-After honoured.
import * as assert from 'node:assert/strict';
import type { VersionSync } from '../../../src/api/reviewTypes';
import { parseCodeReviewLists } from '../../../src/api/parseReviews';
import {
  KNOWN_BRANCHES_MAX, branchesFromReviews, branchesFromVersions, branchesToRemember, branchShown, isMainBranch, knownBranchesKey, mergeBranches,
  orderBranches, reviveKnownBranches, type KnownBranch,
} from '../../../src/run/common/branches/known';
import { SYNC_LIMITS, followSync, nextSyncDelay, syncFailureText, syncPhase, type SyncIo } from '../../../src/run/common/branches/sync';
import { plainL10n } from '../../../src/base/common/l10n';

describe('known branches', () => {
  it('merges sightings: a branch\'s id and label are one branch, the versions\' id wins, sources and last use kept', () => {
    let known = mergeBranches([], [{ name: 'Dark mode', source: 'reviews' }, { name: 'main', source: 'settings' }]);
    known = mergeBranches(known, [{ name: 'feature/dark-mode', label: 'Dark mode', source: 'reviews' }]);
    // A page of versions names the branch id only (its versionDisplay may be the version's: "Main #4").
    known = mergeBranches(known, branchesFromVersions([{ versionId: 'v2', version: 'main', versionDisplay: 'Main #4' }]));
    known = mergeBranches(known, [{ name: 'main', label: 'Main', source: 'reviews' }, { name: 'Main', source: 'used', usedAt: 10 }, { name: 'main', source: 'used', usedAt: 5 }]);
    assert.deepEqual(known, [
      { name: 'feature/dark-mode', label: 'Dark mode', sources: ['reviews'] },
      { name: 'main', label: 'Main', sources: ['settings', 'versions', 'reviews', 'used'], usedAt: 10 },
    ]);
    // Known separately by id and by label, then seen together: one entry.
    const two = mergeBranches([{ name: 'fix/login', sources: ['used'], usedAt: 3 }, { name: 'Login fix', sources: ['reviews'] }], [{ name: 'fix/login', label: 'Login fix', source: 'versions' }]);
    assert.deepEqual(two, [{ name: 'fix/login', label: 'Login fix', sources: ['used', 'reviews', 'versions'], usedAt: 3 }]);
    assert.deepEqual(mergeBranches([], [{ name: ' ', source: 'used' }, { name: 'a\nb', source: 'used' }]), [], 'blank and multi-line names are no branch');
  });

  it('orders: used most recently first, then the setting\'s in its order, then as first seen', () => {
    const b = (name: string, usedAt?: number): KnownBranch => ({ name, sources: [], ...(usedAt !== undefined ? { usedAt } : {}) });
    const ordered = orderBranches([b('c'), b('a'), b('old', 1), b('new', 9), b('main'), b('z')], ['main', 'z']);
    assert.deepEqual(ordered.map((x) => x.name), ['new', 'old', 'main', 'z', 'c', 'a']);
  });

  it('reviews: version C items name their branches (labels first); A/B items (with id) compare version ids and name none', () => {
    const lists = parseCodeReviewLists({
      open: [
        { sequence: 1, fromVersion: 'feature/dark-mode', toVersion: 'main', fromVersionLabel: 'Dark mode', toVersionLabel: null },
        { sequence: 2, fromVersion: 'ver_todo_003', toVersion: 'fix/x' },
        { id: 'rev_a', fromVersion: 'ver_todo_002', toVersion: 'ver_todo_004', fromVersionLabel: 'Main #2', toVersionLabel: 'Main #4' },
      ],
    });
    assert.deepEqual(branchesFromReviews(lists, new Set(['ver_todo_003'])).map((s) => s.name), ['Dark mode', 'main', 'fix/x']);
  });

  it('stores at most the bound, the used ones first; revives only what is well-formed', () => {
    const many: KnownBranch[] = Array.from({ length: KNOWN_BRANCHES_MAX + 10 }, (_, i) => ({ name: `b${i}`, sources: ['versions'] }));
    many.push({ name: 'used', sources: ['used'], usedAt: 1 });
    const kept = branchesToRemember(many);
    assert.equal(kept.length, KNOWN_BRANCHES_MAX);
    assert.ok(kept.some((x) => x.name === 'used'));
    assert.deepEqual(reviveKnownBranches([{ name: 'main', label: 'Main', sources: ['used', 'bogus'], usedAt: 4 }, { name: '' }, 'x', null, { name: 'a', label: 'a' }]),
      [{ name: 'main', label: 'Main', sources: ['used'], usedAt: 4 }, { name: 'a', sources: [] }]);
    assert.deepEqual(reviveKnownBranches('nope'), []);
    assert.equal(knownBranchesKey('https://x/api/public/v1', 'app_1'), 'agentRuns.branches.v1:https://x/api/public/v1:app_1');
    assert.equal(branchShown({ name: 'main', label: 'Main' }), 'Main (main)');
    assert.equal(isMainBranch({ name: 'trunk', label: 'Main' }), true);
    assert.equal(isMainBranch({ name: 'feature/main-menu' }), false);
  });
});

/** A clock that moves only when slept on. */
function io(reads: Array<VersionSync | Error>, options: { stopAt?: number } = {}): SyncIo & { slept: number[]; asked: string[] } {
  let now = 0;
  const slept: number[] = [];
  const asked: string[] = [];
  return {
    slept, asked,
    now: () => now,
    sleep: (ms) => {
      slept.push(ms);
      now += ms;
      return Promise.resolve(options.stopAt === undefined || slept.length < options.stopAt);
    },
    read: (versionId) => {
      asked.push(versionId);
      const next = reads.shift();
      if (next === undefined) throw new Error('read more than expected');
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
    retryAfterOf: (e) => (e instanceof Error && e.message === 'slow down' ? 7_000 : undefined),
  };
}

describe('a branch\'s sync', () => {
  it('reads where a sync stands from its status, else its stage, else the HTTP status', () => {
    assert.equal(syncPhase({ status: 'completed' }), 'completed');
    assert.equal(syncPhase({ status: 'failed', error: 'x' }), 'failed');
    assert.equal(syncPhase({ status: 'in_progress' }), 'running');
    assert.equal(syncPhase({ stage: 'indexing' }), 'running');
    assert.equal(syncPhase({ stage: 'failed' }), 'failed');
    assert.equal(syncPhase({ httpStatus: 202 }), 'running');
    assert.equal(syncPhase({ status: 'queued_somewhere', httpStatus: 200 }), 'unknown');
  });

  it('a 200 that completed or failed is the end: nothing is read', async () => {
    const t = io([]);
    assert.equal((await followSync({ status: 'completed', versionId: 'v9', httpStatus: 200 }, t)).kind, 'completed');
    assert.equal((await followSync({ status: 'failed', versionId: 'v9', error: 'Branch \'x\' was not found in the app' }, t)).kind, 'failed');
    assert.deepEqual(t.asked, []);
  });

  it('a 202 is followed at growing waits, Retry-After honoured, until it completed', async () => {
    const t = io([{ status: 'in_progress', stage: 'stored', retryAfterMs: 4_000 }, { status: 'in_progress', stage: 'indexing' }, { status: 'completed', stage: 'completed', versionId: 'v9' }]);
    const out = await followSync({ status: 'in_progress', stage: 'pending', versionId: 'v9', httpStatus: 202 }, t);
    assert.equal(out.kind, 'completed');
    assert.deepEqual(t.asked, ['v9', 'v9', 'v9']);
    assert.deepEqual(t.slept, [1_000, 4_000, 2_250], 'first wait, then the service\'s Retry-After, then growing again');
  });

  it('a read that fails is asked again (its Retry-After honoured) up to a bound; a status read without a version keeps the one asked about', async () => {
    const t = io([new Error('slow down'), { status: 'in_progress' }, { status: 'completed' }]);
    const out = await followSync({ status: 'in_progress', versionId: 'v9' }, t);
    assert.equal(out.kind, 'completed');
    assert.equal(out.sync.versionId, 'v9');
    assert.equal(t.slept[1], 7_000);
    const failing = io([new Error('a'), new Error('b'), new Error('c')]);
    const lost = await followSync({ status: 'in_progress', versionId: 'v9' }, failing);
    assert.equal(lost.kind, 'readFailed');
    assert.equal(failing.asked.length, SYNC_LIMITS.maxFailedReads);
  });

  it('stops when the person stops waiting, after the time bound, or when there is no version to ask about', async () => {
    assert.equal((await followSync({ status: 'in_progress', versionId: 'v9' }, io([{ status: 'in_progress' }], { stopAt: 2 }))).kind, 'stopped');
    const forever = io(Array.from({ length: 500 }, () => ({ status: 'in_progress' })));
    const out = await followSync({ status: 'in_progress', versionId: 'v9' }, forever);
    assert.equal(out.kind, 'stillRunning');
    assert.ok(forever.slept.reduce((a, b) => a + b, 0) <= SYNC_LIMITS.maxWaitMs);
    assert.equal((await followSync({ status: 'in_progress' }, io([]))).kind, 'unknown', 'a 202 without a versionId cannot be followed');
    assert.equal(nextSyncDelay(0, 3_600_000), SYNC_LIMITS.maxRetryAfterMs, 'an absurd Retry-After is cut');
    assert.equal(nextSyncDelay(40, undefined), SYNC_LIMITS.maxDelayMs);
  });

  it('a failed sync says why, in the service\'s words made one line', () => {
    assert.equal(syncFailureText('feature/x', { status: 'failed', error: 'Branch \'feature/x\'\nwas not found in the app', message: 'Sync failed' }, plainL10n),
      'The sync of branch feature/x failed: Branch \'feature/x\' was not found in the app');
    assert.equal(syncFailureText('b', { status: 'failed', message: 'Export timed out' }, plainL10n), 'The sync of branch b failed: Export timed out');
    assert.equal(syncFailureText('b', { status: 'failed' }, plainL10n), 'The sync of branch b failed; the service gave no reason.');
  });
});
