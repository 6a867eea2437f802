// Code reviews listed without their ID (version C, issue 31): every list item is shown, and a row
// opens a review only when its ID is known here, matched by number without a guess.
import * as assert from 'node:assert/strict';
import type { CodeReviewDetail, CodeReviewListItem } from '../../../src/api/reviewTypes';
import { parseCodeReviewLists } from '../../../src/api/parseReviews';
import {
  KNOWN_REVIEWS_MAX, knownFromDetail, rememberReview, reviewIdOf, reviewKey, reviewPrompt, reviveKnownReviews, trackedMatchesRow, type KnownReview,
} from '../../../src/run/common/reviews';
import { ReviewsNode, knownChildren, type ReviewGroupNode, type ReviewNode } from '../../../src/reviews/common/nodes';
import { plainL10n } from '../../../src/base/common/l10n';
import { presentReview } from '../../../src/reviews/common/presentation';

const APP = 'app_todo';
/** A version C list item: no id, nulls where C allows them. */
const C_ITEM = {
  sequence: 3, mergeId: 'mrg_3', status: 'open', title: null, description: null, fromVersion: 'feature/dark-mode', toVersion: 'main',
  fromVersionLabel: 'Dark mode', toVersionLabel: null, requestedByName: null, requestedByEmail: 'dev@example.com', requestedByImage: null,
  linearIssueId: null, linearIssueIdentifier: null, provider: 'claude', model: 'claude-opus-4.6', createdAt: 1_765_000_000_000, updatedAt: 1_765_000_000_000,
  completedAt: null, mergedAt: null, closedAt: null,
};

describe('code reviews without IDs (version C)', () => {
  it('matches a list item by its number to the one known review of that app, never by a guess', () => {
    const item: CodeReviewListItem = { sequence: 3, mergeId: 'mrg_3' };
    const known: KnownReview[] = [
      { reviewId: 'rev_other_app', appId: 'app_other', sequence: 3 },
      { reviewId: 'rev_3', appId: APP, sequence: 3 },
      { reviewId: 'rev_5', appId: APP, sequence: 5 },
    ];
    assert.equal(reviewIdOf(item, APP, known), 'rev_3');
    assert.equal(reviewIdOf({ id: 'rev_listed', sequence: 3 }, APP, known), 'rev_listed', 'versions A and B: the list\'s own id');
    assert.equal(reviewIdOf({ sequence: 4 }, APP, known), undefined, 'no known review with that number');
    assert.equal(reviewIdOf({ mergeId: 'mrg_3' }, APP, [{ reviewId: 'rev_m', appId: APP, mergeId: 'mrg_3' }]), 'rev_m', 'by mergeId without a number');
    assert.equal(reviewIdOf(item, APP, [...known, { reviewId: 'rev_3b', appId: APP, sequence: 3 }]), undefined, 'two known reviews with one number: none');
    assert.equal(reviewIdOf(item, APP, [{ reviewId: 'rev_3', appId: APP, sequence: 3, mergeId: 'mrg_other' }]), undefined, 'a contradicting mergeId');
    assert.equal(reviewIdOf(item, APP, [{ reviewId: 'rev_3', sequence: 3 }]), undefined, 'a review of an unknown app is not matched');
    assert.equal(reviewIdOf({}, APP, known), undefined, 'an item with nothing to match');
  });

  it('keeps items apart by id, else number, else mergeId; one with none of them is never merged with another', () => {
    assert.equal(reviewKey({ id: 'rev_1', sequence: 1 }), 'id:rev_1');
    assert.equal(reviewKey({ sequence: 1, mergeId: 'm' }), 'seq:1');
    assert.equal(reviewKey({ mergeId: 'm' }), 'merge:m');
    assert.equal(reviewKey({ title: 'x' }), undefined);
  });

  it('the Runs view\'s rows: every item of the list, the known one opens, the others say so and offer tracking', () => {
    const lists = parseCodeReviewLists({ open: [C_ITEM, { ...C_ITEM, sequence: 2, mergeId: 'mrg_2', title: 'Timeouts', createdAt: 1_764_000_000_000 }, { title: 'bare' }], merged: null, closed: [] });
    assert.equal(lists.open.length, 3, 'no item dropped for its missing id');
    const node = new ReviewsNode({ key: APP });
    node.take(lists, [{ reviewId: 'rev_3', appId: APP, sequence: 3 }]);
    const [open] = knownChildren(node) as ReviewGroupNode[];
    const rows = knownChildren(open) as ReviewNode[];
    assert.deepEqual(rows.map((r) => [r.reviewId, r.sequence]), [['rev_3', 3], [undefined, 2], [undefined, undefined]]);
    assert.deepEqual(rows[0].openArgs(), { reviewId: 'rev_3', appId: APP });
    assert.equal(rows[1].openArgs(), undefined);
    assert.deepEqual(rows[1].trackArgs(), { appId: APP, sequence: 2, mergeId: 'mrg_2', title: 'Timeouts', fromRow: true });
    assert.equal(node.review('rev_3'), rows[0]);
    assert.deepEqual([...node.listedIds()], ['rev_3']);

    const known = presentReview(rows[0].item, 1_765_000_100_000, plainL10n, rows[0].reviewId);
    assert.equal(known.label, '#3 Dark mode → main', 'a null title: the branches compared');
    assert.equal(known.contextValue, 'codeReview');
    assert.ok(known.details.some(([k, v]) => k === 'Review ID' && v === 'rev_3'));
    assert.ok(known.details.some(([k, v]) => k === 'Requested by' && v === 'dev@example.com'), 'the email when the name is null');
    const unknown = presentReview(rows[1].item, 1_765_000_100_000, plainL10n, rows[1].reviewId);
    assert.equal(unknown.label, '#2 Timeouts');
    assert.equal(unknown.contextValue, 'codeReviewUnknown');
    assert.match(unknown.description ?? '', /^ID not known here · /);
    assert.ok(unknown.warnings.some((w) => /cannot be opened here.*track it by its review ID/.test(w)));

    // Read again: the same elements, the tracked one now known.
    node.take(lists, [{ reviewId: 'rev_3', appId: APP, sequence: 3 }, { reviewId: 'rev_2', appId: APP, sequence: 2 }]);
    const again = knownChildren(knownChildren(node)[0]) as ReviewNode[];
    assert.equal(again[1], rows[1], 'the element is kept across reads');
    assert.equal(again[1].reviewId, 'rev_2');
  });

  it('remembers what a detail read says; stored values are checked, the newest kept within the bound', () => {
    const detail: CodeReviewDetail = { reviewId: 'rev_3', review: { sequence: 3, mergeId: 'mrg_3' }, changes: [], comments: [], tests: [], reviewComments: [] };
    assert.deepEqual(knownFromDetail(detail, APP), { reviewId: 'rev_3', appId: APP, sequence: 3, mergeId: 'mrg_3' });
    let list = rememberReview([], { reviewId: 'rev_3', appId: APP });
    list = rememberReview(list, { reviewId: 'rev_3', sequence: 3 });
    assert.deepEqual(list, [{ reviewId: 'rev_3', appId: APP, sequence: 3 }], 'facts are added, not lost');
    assert.deepEqual(reviveKnownReviews([{ reviewId: ' rev_1 ', sequence: 1.5, appId: 7 }, null, { reviewId: '' }, 'x', { reviewId: 'rev_2', mergeId: 'm' }]),
      [{ reviewId: 'rev_1' }, { reviewId: 'rev_2', mergeId: 'm' }]);
    assert.deepEqual(reviveKnownReviews({ not: 'a list' }), []);
    let many: KnownReview[] = [];
    for (let i = 0; i < KNOWN_REVIEWS_MAX + 5; i++) many = rememberReview(many, { reviewId: `rev_${i}` });
    assert.equal(many.length, KNOWN_REVIEWS_MAX);
    assert.equal(many[0].reviewId, 'rev_5');
  });

  it('an ID tracked from a row is tied to it only when the review read does not contradict the row', () => {
    assert.equal(trackedMatchesRow({ reviewId: 'rev_3', sequence: 3 }, { sequence: 3 }), true);
    assert.equal(trackedMatchesRow({ reviewId: 'rev_3' }, { sequence: 3 }), true, 'the read says no number: the person\'s word stands');
    assert.equal(trackedMatchesRow({ reviewId: 'rev_5', sequence: 5 }, { sequence: 3 }), false);
    assert.equal(trackedMatchesRow({ reviewId: 'rev_3', sequence: 3, mergeId: 'a' }, { sequence: 3, mergeId: 'b' }), false);
  });
});

describe('a code review\'s name (issue 21)', () => {
  it('names the review by its title, else "Code review <from> → <to>" with the versions\' labels where known', () => {
    assert.equal(reviewPrompt({ title: '  Timeouts  ', fromVersion: 'a', toVersion: 'b' }, plainL10n), 'Timeouts');
    assert.equal(reviewPrompt({ title: ' ', fromVersion: 'ver_4', toVersion: 'ver_10' }, plainL10n), 'Code review ver_4 → ver_10');
    assert.equal(reviewPrompt({ fromVersion: 'ver_4', toVersion: 'ver_10', fromVersionLabel: 'Main #4', toVersionLabel: '' }, plainL10n), 'Code review Main #4 → ver_10');
  });
});
