import * as assert from 'node:assert/strict';
import type { CodeReviewListItem, CodeReviewLists } from '../../../src/api/reviewTypes';
import { plainL10n } from '../../../src/base/common/l10n';
import {
  ReviewNode, ReviewsNode, knownChildren, reviewsAppIdOf, type ReviewGroupNode, type ReviewTreeNode,
} from '../../../src/reviews/common/nodes';
import {
  conversationPhase, groupDescription, presentReview, reviewIcon, reviewRequester,
} from '../../../src/reviews/common/presentation';
import { groupReviews, reviewLabel, reviewVersions } from '../../../src/run/common/reviews';

const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
const HOUR = 3_600_000;

function review(id: string, over: Partial<CodeReviewListItem> = {}): CodeReviewListItem {
  return { id, status: 'open', createdAt: NOW - HOUR, ...over };
}

function lists(over: Partial<CodeReviewLists> = {}): CodeReviewLists {
  return { open: [], merged: [], closed: [], ...over };
}

describe('Code reviews in the Runs view: labels, descriptions, icons', () => {
  it('labels a review "#<sequence>" and its title, else the branches or versions compared, else its ID; titles are made plain and cut', () => {
    assert.equal(reviewLabel(review('rev_1', { title: 'Settings page', sequence: 4 }), plainL10n), '#4 Settings page');
    assert.equal(reviewLabel(review('rev_1', { title: '  \u202e ', sequence: 4 }), plainL10n), '#4 Review rev_1');
    assert.equal(reviewLabel(review('rev_1'), plainL10n), 'Review rev_1');
    // Version C: no id, a null title.
    assert.equal(reviewLabel({ sequence: 3, fromVersion: 'feature/x', toVersion: 'main', toVersionLabel: 'Main' }, plainL10n), '#3 feature/x → Main');
    assert.equal(reviewLabel({}, plainL10n), '? → ?');
    const long = reviewLabel(review('rev_1', { title: 'x'.repeat(200) }), plainL10n);
    assert.equal(long.length, 60);
    assert.ok(long.endsWith('…'));
  });

  it('names the versions compared by their labels, else their IDs', () => {
    assert.equal(reviewVersions(review('r', { fromVersion: 'ver_1', toVersion: 'ver_2', fromVersionLabel: 'main #12', toVersionLabel: 'main #14' })), 'main #12 → main #14');
    assert.equal(reviewVersions(review('r', { fromVersion: 'ver_1', toVersion: 'ver_2', toVersionLabel: 'main #14' })), 'ver_1 → main #14');
    assert.equal(reviewVersions(review('r')), '? → ?');
  });

  it('says who asked: the name, else the email', () => {
    assert.equal(reviewRequester(review('r', { requestedByName: 'Ada Lovelace', requestedByEmail: 'ada@example.com' })), 'Ada Lovelace');
    assert.equal(reviewRequester(review('r', { requestedByEmail: 'ada@example.com' })), 'ada@example.com');
    assert.equal(reviewRequester(review('r')), undefined);
  });

  it('describes versions (when the title does not) · who asked · age, with the conversation first when it is under way or failed', () => {
    assert.equal(presentReview(review('r', { fromVersionLabel: 'v1', toVersionLabel: 'v2', requestedByName: 'Ada', createdAt: NOW - 2 * HOUR }), NOW, plainL10n).description, 'Ada · 2 h');
    const base = { title: 'T', fromVersionLabel: 'v1', toVersionLabel: 'v2', requestedByName: 'Ada', createdAt: NOW - 2 * HOUR };
    assert.equal(presentReview(review('r', base), NOW, plainL10n).description, 'v1 → v2 · Ada · 2 h');
    assert.equal(presentReview(review('r', { ...base, conversationStatus: 'running_turn' }), NOW, plainL10n).description, 'reviewing · v1 → v2 · Ada · 2 h');
    assert.equal(presentReview(review('r', { ...base, conversationStatus: 'errored' }), NOW, plainL10n).description, 'failed · v1 → v2 · Ada · 2 h');
    assert.equal(presentReview(review('r', { ...base, requestedByName: undefined, createdAt: undefined }), NOW, plainL10n).description, 'v1 → v2');
  });

  it('picks the icon from the conversation (starting, active, failed) before the review\'s status', () => {
    assert.equal(conversationPhase(review('r', { conversationStatus: 'draft' })), 'starting');
    assert.equal(conversationPhase(review('r', { conversationStatus: 'ready', conversationErrorCode: 'agent_error' })), 'failed');
    assert.equal(conversationPhase(review('r', { conversationStatus: 'ready' })), undefined);
    assert.equal(reviewIcon(review('r', { conversationStatus: 'running_turn', status: 'merged' })).id, 'loading~spin');
    assert.equal(reviewIcon(review('r', { conversationStatus: 'errored' })).id, 'error');
    assert.equal(reviewIcon(review('r', { conversationStatus: 'draft' })).id, 'clock');
    assert.equal(reviewIcon(review('r', { status: 'open' })).id, 'git-pull-request');
    assert.equal(reviewIcon(review('r', { status: 'merged' })).id, 'git-merge');
    assert.equal(reviewIcon(review('r', { status: 'closed' })).id, 'git-pull-request-closed');
    assert.equal(reviewIcon(review('r', { status: 'superseded' })).id, 'git-pull-request');
  });

  it('lists status, model, conversation, versions, who asked and every time in the tooltip', () => {
    const p = presentReview(review('rev_9', {
      status: 'merged', model: 'hosted/pro', provider: 'claude', conversationStatus: 'ready', fromVersion: 'ver_1', fromVersionLabel: 'main #1',
      toVersion: 'ver_2', requestedByName: 'Ada', requestedByEmail: 'ada@example.com', completedAt: NOW - HOUR / 2, mergedAt: NOW - HOUR / 4,
    }), NOW, plainL10n);
    const rows = new Map(p.details);
    assert.equal(rows.get('Status'), 'merged');
    assert.equal(rows.get('Model'), 'hosted/pro (claude)');
    assert.equal(rows.get('Conversation'), 'ready');
    assert.equal(rows.get('From'), 'main #1 (ver_1)');
    assert.equal(rows.get('To'), 'ver_2');
    assert.equal(rows.get('Requested by'), 'Ada <ada@example.com>');
    assert.equal(rows.get('Review ID'), 'rev_9');
    for (const label of ['Created', 'Completed', 'Merged']) assert.ok(rows.has(label), label);
    assert.ok(!rows.has('Closed'));
    assert.equal(p.contextValue, 'codeReview');
    assert.deepEqual(p.warnings, []);
    const failed = presentReview(review('r', { conversationStatus: 'errored', conversationErrorCode: 'agent_error' }), NOW, plainL10n);
    assert.equal(new Map(failed.details).get('Conversation'), 'errored (agent_error)');
    assert.equal(failed.warnings.length, 1);
  });
});

describe('Code reviews in the Runs view: groups and elements', () => {
  it('groups Open, Merged, Closed (non-empty only), newest first whatever order the service sent', () => {
    const groups = groupReviews(lists({
      closed: [review('c1', { status: 'closed' })],
      open: [review('o_old', { createdAt: NOW - 3 * HOUR }), review('o_new', { createdAt: NOW - HOUR })],
    }));
    assert.deepEqual(groups.map((g) => [g.status, g.reviews.map((r) => r.id)]), [['open', ['o_new', 'o_old']], ['closed', ['c1']]]);
  });

  it('shows a review that moved between lists while the service answered once', () => {
    const groups = groupReviews(lists({ open: [review('r1')], merged: [review('r1', { status: 'merged' }), review('r2')] }));
    assert.deepEqual(groups.map((g) => g.reviews.map((r) => r.id)), [['r1'], ['r2']]);
  });

  it('says when a group holds only the newest reviews asked for', () => {
    assert.equal(groupDescription(3, plainL10n, 50), '3');
    assert.equal(groupDescription(50, plainL10n, 50), 'newest 50');
  });

  const app = { key: 'app_todo' };
  const names = (nodes: ReviewTreeNode[]): string[] => nodes.map((n) => (n.kind === 'codeReviewGroup' ? n.status : n.kind === 'codeReview' ? n.reviewId ?? `?${n.key}` : n.kind));

  it('keeps one element per review across reads, updated in place; drops those no longer listed', () => {
    const node = new ReviewsNode(app);
    assert.deepEqual(knownChildren(node), [], 'nothing before the first read');
    node.take(lists({ open: [review('r1', { title: 'One' }), review('r2', { createdAt: NOW - 2 * HOUR })] }));
    const [open] = knownChildren(node) as ReviewGroupNode[];
    assert.deepEqual(names(knownChildren(open)), ['r1', 'r2']);
    const r1 = node.review('r1');
    assert.ok(r1 instanceof ReviewNode);
    node.take(lists({ merged: [review('r1', { status: 'merged', title: 'One, merged' })] }));
    assert.deepEqual(names(knownChildren(node)), ['merged']);
    assert.equal(node.review('r1'), r1, 'the same element');
    assert.equal(r1.title, 'One, merged');
    assert.equal(r1.parent.status, 'merged');
    assert.equal(node.review('r2'), undefined);
    assert.deepEqual([...node.listedIds()], ['r1']);
  });

  it('shows "No code reviews yet" for empty lists, and forgets everything for another service', () => {
    const node = new ReviewsNode(app);
    node.take(lists());
    assert.deepEqual(knownChildren(node), [node.none]);
    assert.equal(node.none.problem, undefined);
    node.forget();
    assert.equal(node.state.kind, 'unread');
    assert.deepEqual(knownChildren(node), []);
  });

  it('gives the open command exactly { reviewId, appId, title }, and the element carries them too', () => {
    const node = new ReviewsNode(app);
    node.take(lists({ open: [review('r1', { title: 'One' }), review('r2')] }));
    assert.deepEqual(node.review('r1')?.openArgs(), { reviewId: 'r1', appId: 'app_todo', title: 'One' });
    assert.deepEqual(node.review('r2')?.openArgs(), { reviewId: 'r2', appId: 'app_todo' });
    const r1 = node.review('r1')!;
    assert.deepEqual([r1.reviewId, r1.appId, r1.title], ['r1', 'app_todo', 'One']);
  });

  it('reads the app a refresh is for from a review element, an app row, { appId } or the ID', () => {
    const node = new ReviewsNode(app);
    assert.equal(reviewsAppIdOf(node), 'app_todo');
    assert.equal(reviewsAppIdOf({ kind: 'app', key: 'app_shop' }), 'app_shop');
    assert.equal(reviewsAppIdOf({ kind: 'app', key: '' }), undefined);
    assert.equal(reviewsAppIdOf({ appId: ' app_x ' }), 'app_x');
    assert.equal(reviewsAppIdOf('app_y'), 'app_y');
    assert.equal(reviewsAppIdOf(undefined), undefined);
    assert.equal(reviewsAppIdOf(7), undefined);
  });
});
