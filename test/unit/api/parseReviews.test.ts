import * as assert from 'node:assert/strict';
import {
  ApiError, parseCodeReviewDetail, parseCodeReviewLists, parseCodeReviewStarted, parseVersionPage, parseVersionSync,
} from '../../../src/api';
import {
  DETAIL_A, LIST_ITEM_A, LIST_ITEM_B_MERGED, REVIEW_AGENT, REVIEW_ITEM_CHANGE, REVIEW_ITEM_TEST, THREAD_COMMENT,
  THREAD_DELETED, VERSION_COMPLETED, VERSION_PENDING,
} from '../fixtures/reviewPayloads';

function refused(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof ApiError && e.kind === 'invalid_response' && message.test(e.message));
}

/** `value` without the keys whose value is `null` (what "null is absent" leaves). */
function withoutNulls<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)) as Partial<T>;
}

describe('api: code review and version parsers', () => {
  describe('parseCodeReviewLists', () => {
    it('reads every list item field of version A and B (cursor provider), nulls absent', () => {
      const lists = parseCodeReviewLists({ open: [LIST_ITEM_A], merged: [LIST_ITEM_B_MERGED], closed: [] });
      assert.deepEqual(lists.open, [withoutNulls(LIST_ITEM_A)]);
      assert.deepEqual(lists.merged, [withoutNulls(LIST_ITEM_B_MERGED)]);
      assert.equal(lists.merged[0].provider, 'cursor');
      assert.equal(lists.merged[0].mergedAt, 1_760_000_200_000);
      assert.deepEqual(lists.closed, []);
      assert.ok(!('completedAt' in lists.open[0]), 'null completedAt is absent, not present-but-undefined');
    });

    it('keeps unknown values, ignores unknown fields, drops wrong-typed ones, skips non-objects, keeps id-less items (version C)', () => {
      const lists = parseCodeReviewLists({
        open: [
          { ...LIST_ITEM_A, status: 'archived', provider: 'mistral', futureField: { x: 1 }, sequence: '7', title: 42 },
          'rev_x', null, 17, ['nested'], { title: 'no id' }, { id: '' }, { id: 'rev_min' },
        ],
        merged: 'not a list',
        extra: [LIST_ITEM_A],
      });
      assert.equal(lists.open.length, 4);
      const [item, noId, emptyId, minimal] = lists.open;
      assert.deepEqual(noId, { title: 'no id' });
      assert.deepEqual(emptyId, {}, 'an empty id is no id');
      assert.equal(item.status, 'archived');
      assert.equal(item.provider, 'mistral');
      assert.equal(item.sequence, undefined);
      assert.equal(item.title, undefined);
      assert.ok(!('futureField' in item));
      assert.deepEqual(minimal, { id: 'rev_min' });
      assert.deepEqual(lists.merged, []);
      assert.deepEqual(lists.closed, [], 'a missing list is empty');
    });

    it('refuses a body that is not an object', () => {
      refused(() => parseCodeReviewLists([LIST_ITEM_A]), /code review list was not a JSON object/);
      refused(() => parseCodeReviewLists(null), /not a JSON object/);
    });
  });

  describe('parseCodeReviewDetail', () => {
    it('reads the review, its items, the thread (deleted comment without body) and the agent through parseAgent', () => {
      const d = parseCodeReviewDetail(DETAIL_A);
      assert.equal(d.reviewId, 'rev_a1');
      assert.deepEqual(d.review, withoutNulls(LIST_ITEM_A));
      assert.deepEqual(d.changes, [withoutNulls(REVIEW_ITEM_CHANGE)]);
      assert.deepEqual(d.comments, []);
      assert.deepEqual(d.tests, [withoutNulls(REVIEW_ITEM_TEST)]);
      assert.equal(d.tests[0].priority, undefined, 'priority null is absent');
      assert.deepEqual(d.reviewComments, [withoutNulls(THREAD_COMMENT), withoutNulls(THREAD_DELETED)]);
      assert.equal(d.reviewComments[1].body, undefined);
      assert.equal(d.reviewComments[1].isDeleted, true);
      assert.deepEqual(d.reviewComments[1].imageUrls, []);
      assert.equal(d.agent?.agentId, 'ag_rev_1');
      assert.equal(d.agent?.kind, 'code_review');
      assert.equal(d.agent?.reviewId, 'rev_a1');
      assert.equal(d.agent?.reasoningEffort, undefined);
      assert.deepEqual(d.agent?.history?.[1], { id: 'm2', sequence: 2, role: 'tool', toolName: 'read_file', toolParameters: { path: 'src/login.ts' }, createdAt: 1_760_000_001_000 });
      assert.deepEqual(d.agent?.lifecycle, { conversationState: 'running_turn', sandboxState: 'online', queuedTurnCount: 0 });
    });

    it('version B: a cursor review with unknown priority, state and author kind kept as sent', () => {
      const d = parseCodeReviewDetail({
        ...DETAIL_A, reviewId: 'rev_b2', review: LIST_ITEM_B_MERGED,
        comments: [{ ...REVIEW_ITEM_CHANGE, id: 'cmt_1', type: 'comment', priority: 'critical', state: 'dismissed', createdBy: 'bot' }],
      });
      assert.equal(d.review.provider, 'cursor');
      assert.deepEqual([d.comments[0].type, d.comments[0].priority, d.comments[0].state, d.comments[0].createdBy], ['comment', 'critical', 'dismissed', 'bot']);
    });

    it('skips malformed items and comments, drops wrong-typed fields, keeps only string image URLs', () => {
      const d = parseCodeReviewDetail({
        reviewId: 'rev_1',
        changes: [null, 'chg', { title: 'no id' }, { ...REVIEW_ITEM_CHANGE, priority: 3, createdAt: 'yesterday' }],
        comments: { id: 'not a list' },
        tests: null,
        reviewComments: [{ ...THREAD_DELETED, isDeleted: 'yes', imageUrls: ['https://a.example/1.png', 7, null] }, 5],
      });
      assert.equal(d.changes.length, 1);
      assert.equal(d.changes[0].priority, undefined);
      assert.equal(d.changes[0].createdAt, undefined);
      assert.deepEqual([d.comments, d.tests], [[], []]);
      assert.equal(d.reviewComments.length, 1);
      assert.equal(d.reviewComments[0].isDeleted, undefined);
      assert.deepEqual(d.reviewComments[0].imageUrls, ['https://a.example/1.png']);
    });

    it('a review without id (version C) is kept; without a usable agent the agent is absent', () => {
      for (const agent of [undefined, null, 'ag_1', { status: 'running' }]) {
        const d = parseCodeReviewDetail({ reviewId: 'rev_1', review: { title: 'no id', sequence: 3 }, agent });
        assert.equal(d.reviewId, 'rev_1');
        assert.deepEqual(d.review, { title: 'no id', sequence: 3 });
        assert.ok(!('agent' in d), `agent ${JSON.stringify(agent)} is absent`);
      }
    });

    it('takes the review\'s id when reviewId is missing; refuses a detail with neither', () => {
      assert.equal(parseCodeReviewDetail({ review: { id: 'rev_9' } }).reviewId, 'rev_9');
      refused(() => parseCodeReviewDetail({ reviewId: null, review: null, agent: REVIEW_AGENT }), /code review had no reviewId/);
      refused(() => parseCodeReviewDetail('rev_1'), /not a JSON object/);
    });
  });

  describe('parseCodeReviewStarted', () => {
    it('reads the 202 body, a missing status is queued, unknown status kept', () => {
      assert.deepEqual(
        parseCodeReviewStarted({ reviewId: 'rev_1', agentId: 'ag_1', kind: 'code_review', status: 'queued', createdAt: 5, extra: true }),
        { reviewId: 'rev_1', agentId: 'ag_1', kind: 'code_review', status: 'queued', createdAt: 5 },
      );
      assert.deepEqual(parseCodeReviewStarted({ reviewId: 'rev_1', agentId: 'ag_1', status: null, kind: null }), { reviewId: 'rev_1', agentId: 'ag_1', status: 'queued' });
      assert.equal(parseCodeReviewStarted({ reviewId: 'r', agentId: 'a', status: 'provisioning' }).status, 'provisioning');
    });

    it('refuses a body without either id', () => {
      refused(() => parseCodeReviewStarted({ agentId: 'ag_1' }), /had no reviewId/);
      refused(() => parseCodeReviewStarted({ reviewId: 'rev_1', agentId: 12 }), /had an invalid agentId/);
    });
  });

  describe('parseVersionPage', () => {
    it('reads every field; times in milliseconds from the Ms fields', () => {
      const page = parseVersionPage({ versions: [VERSION_COMPLETED, VERSION_PENDING], nextCursor: 'cur_2' });
      assert.deepEqual(page, {
        versions: [
          {
            versionId: 'ver_101', version: 'main', versionDisplay: 'main@101', stage: 'completed', syncSource: 'automatic',
            lastChange: 'Add the login page', createdAt: 1_760_000_000_000, syncedAt: 1_760_000_060_000, completedAt: 1_760_000_120_000,
            fileSha256: 'ab'.repeat(32), fileSizeBytes: 123_456,
          },
          { versionId: 'ver_102', version: 'main', versionDisplay: 'main@102', stage: 'pending', syncSource: 'manual', createdAt: 1_760_000_400_000 },
        ],
        nextCursor: 'cur_2',
      });
    });

    it('reads ISO strings alone, milliseconds in the plain fields, and drops unreadable times', () => {
      const iso = { versionId: 'v1', createdAt: '2025-10-09T08:53:20.000Z' };
      const ms = { versionId: 'v2', createdAt: 1_760_000_000_000, syncedAt: '1760000060000' };
      const bad = { versionId: 'v3', createdAt: 'last tuesday', createdAtMs: 'x', completedAt: true };
      const page = parseVersionPage({ versions: [iso, ms, bad] });
      assert.deepEqual(page.versions, [
        { versionId: 'v1', createdAt: 1_760_000_000_000 },
        { versionId: 'v2', createdAt: 1_760_000_000_000, syncedAt: 1_760_000_060_000 },
        { versionId: 'v3' },
      ]);
      assert.ok(!('nextCursor' in page));
    });

    it('keeps unknown stages, skips id-less elements, an empty or null cursor ends the list', () => {
      const page = parseVersionPage({ versions: [{ versionId: 'v1', stage: 'archiving', syncSource: 'webhook' }, { version: 'main' }, 'v2'], nextCursor: '' });
      assert.deepEqual(page, { versions: [{ versionId: 'v1', stage: 'archiving', syncSource: 'webhook' }] });
      assert.deepEqual(parseVersionPage({ versions: null, nextCursor: null }), { versions: [] });
      refused(() => parseVersionPage([VERSION_COMPLETED]), /version list was not a JSON object/);
    });
  });

  describe('version C', () => {
    it('a version item: numeric lastChange, appVersion for version, nulls absent', () => {
      const page = parseVersionPage({
        versions: [
          { versionId: 'ver_1', appVersion: 'main', versionDisplay: 'Main', stage: 'completed', syncSource: 'manual', lastChange: 1_765_000_000_000, createdAt: '2026-12-06T10:00:00.000Z', createdAtMs: 1_765_015_200_000, syncedAt: null, syncedAtMs: null, completedAt: null, completedAtMs: null },
          { versionId: 'ver_2', version: 'main', appVersion: 'other', lastChange: Number.NaN },
        ],
        nextCursor: null,
      });
      assert.deepEqual(page, {
        versions: [
          { versionId: 'ver_1', version: 'main', versionDisplay: 'Main', stage: 'completed', syncSource: 'manual', lastChange: 1_765_000_000_000, createdAt: 1_765_015_200_000 },
          { versionId: 'ver_2', version: 'main' },
        ],
      });
    });

    it('a sync answer: status, stage, the version it creates, the branch (appVersion an alias), why it failed; with the HTTP status and Retry-After', () => {
      assert.deepEqual(parseVersionSync({ ok: true, status: 'in_progress', stage: 'pending', versionId: 'ver_9', appVersion: 'feature/dark-mode', message: 'Sync started', extra: 1 }, { httpStatus: 202, retryAfterMs: 2_000 }),
        { ok: true, status: 'in_progress', stage: 'pending', versionId: 'ver_9', version: 'feature/dark-mode', message: 'Sync started', httpStatus: 202, retryAfterMs: 2_000 });
      assert.deepEqual(parseVersionSync({ ok: false, status: 'failed', versionId: '', version: null, error: 'Branch \'x\' was not found in the app' }),
        { ok: false, status: 'failed', error: 'Branch \'x\' was not found in the app' });
      refused(() => parseVersionSync('done'), /not a JSON object/);
    });
  });
});
