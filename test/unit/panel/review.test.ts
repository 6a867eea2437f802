import * as assert from 'node:assert/strict';
import { parseCodeReviewDetail } from '../../../src/api/parseReviews';
import type { CodeReviewDetail, ReviewComment } from '../../../src/api/reviewTypes';
import { parseExtensionMessage, parseWebviewMessage } from '../../../src/panel/common/protocol';
import { ReviewFeed, type ReviewFeedDeps } from '../../../src/panel/common/reviewFeed';
import { buildReviewView, MAX_REVIEW_ITEMS, MAX_REVIEW_TEXT, threadOrder } from '../../../src/panel/common/reviewView';
import { DETAIL_A } from '../fixtures/reviewPayloads';

const detail = (): CodeReviewDetail => parseCodeReviewDetail(structuredClone(DETAIL_A));
const comment = (id: string, parentId: string | undefined, createdAt: number, extra: Partial<ReviewComment> = {}): ReviewComment =>
  ({ id, createdAt, body: `body ${id}`, ...(parentId !== undefined ? { parentId } : {}), ...extra });

describe('panel: a code review above its conversation (issue 21)', () => {
  it('shows the review\'s facts, its lists and its thread, replies under their parent, a deleted comment without its body', () => {
    const v = buildReviewView(detail());
    assert.equal(v.reviewId, 'rev_a1');
    assert.equal(v.changes.length, 1);
    assert.equal(v.tests[0].title, 'Log in with an expired session');
    assert.equal(v.tests[0].by, 'user');
    assert.equal(v.tests[0].byEmail, 'ada@example.com');
    assert.deepEqual(v.counts, { changes: 1, comments: 0, tests: 1, thread: 2 });
    assert.deepEqual(v.thread.map((c) => [c.id, c.depth, c.deleted ?? false, c.body]), [['cm_1', 0, false, 'Why Lax and not Strict?'], ['cm_2', 1, true, undefined]]);
    assert.deepEqual(v.thread[0].links, ['https://img.example.com/shot.png']);
    assert.equal(v.thread[1].edited, true);
    const r = parseExtensionMessage({ type: 'review', review: v });
    assert.ok(r.ok, 'the page takes it');
  });

  it('keeps only http(s) image links, cuts long text and long lists, and counts what it cut', () => {
    const d = detail();
    d.reviewComments = [comment('c1', undefined, 1, { imageUrls: ['javascript:alert(1)', 'data:image/png;base64,AA', 'file:///etc/passwd', 'http://ok.example/a.png'], body: 'x'.repeat(MAX_REVIEW_TEXT * 2) })];
    d.changes = Array.from({ length: MAX_REVIEW_ITEMS + 5 }, (_, i) => ({ id: `ch${i}`, title: '<script>alert(1)</script>' }));
    const v = buildReviewView(d);
    assert.deepEqual(v.thread[0].links, ['http://ok.example/a.png']);
    assert.ok((v.thread[0].body ?? '').length <= MAX_REVIEW_TEXT);
    assert.equal(v.changes.length, MAX_REVIEW_ITEMS);
    assert.equal(v.counts.changes, MAX_REVIEW_ITEMS + 5);
    assert.equal(v.changes[0].title, '<script>alert(1)</script>', 'kept as text: the page never parses it');
    assert.ok(parseExtensionMessage({ type: 'review', review: v }).ok);
  });

  it('orders the thread oldest first with each reply after its parent; an orphan is a top-level comment; a cycle is shown once', () => {
    const order = threadOrder([comment('b', undefined, 20), comment('r2', 'a', 15), comment('a', undefined, 10), comment('r1', 'a', 12), comment('rr', 'r1', 13), comment('o', 'gone', 5), comment('x', 'y', 30), comment('y', 'x', 31)]);
    assert.deepEqual(order.map((c) => `${c.id}:${c.depth}`), ['o:0', 'a:0', 'r1:1', 'rr:2', 'r2:1', 'b:0', 'x:0', 'y:1']);
  });

  it('the page asks for a refresh with a message the extension accepts, nothing more', () => {
    assert.ok(parseWebviewMessage({ type: 'refreshReview' }).ok);
    assert.equal(parseWebviewMessage({ type: 'refreshReview', reviewId: 'x' }).ok, false);
  });
});

describe('panel: when a code review is read', () => {
  function harness(fail = false) {
    let now = 0;
    const timers: { at: number; fn: () => void }[] = [];
    const reads: number[] = [];
    const posts: { review?: unknown; problem?: string }[] = [];
    const deps: ReviewFeedDeps = {
      read: () => {
        reads.push(now);
        return fail ? Promise.reject(new Error('503 from the service')) : Promise.resolve(detail());
      },
      post: (m) => posts.push(m),
      describe: (e) => (e instanceof Error ? e.message : String(e)),
      now: () => now,
      setTimeout: (fn, ms) => {
        const t = { at: now + ms, fn };
        timers.push(t);
        return t;
      },
      clearTimeout: (t) => {
        const i = timers.indexOf(t as { at: number; fn: () => void });
        if (i >= 0) timers.splice(i, 1);
      },
    };
    const advance = async (ms: number) => {
      now += ms;
      for (const t of timers.filter((x) => x.at <= now)) {
        timers.splice(timers.indexOf(t), 1);
        t.fn();
      }
      await new Promise((r) => setImmediate(r));
    };
    return { feed: new ReviewFeed('rev_a1', deps, 10_000), reads, posts, advance, timers };
  }

  it('reads when the page is ready, then at most once per 10 s while the run changes, once more when it ends, and never while nothing changes', async () => {
    const h = harness();
    h.feed.runChanged('running|1|1', false); // what the page was built with
    h.feed.ready();
    await h.advance(0);
    assert.deepEqual(h.reads, [0]);
    assert.equal(h.posts.length, 1);
    h.feed.runChanged('running|2|2', false);
    h.feed.runChanged('running|3|3', false);
    await h.advance(5_000);
    assert.deepEqual(h.reads, [0], 'not before 10 s since the last read');
    await h.advance(5_000);
    assert.deepEqual(h.reads, [0, 10_000], 'one read for both changes');
    await h.advance(60_000);
    h.feed.runChanged('running|3|3', false);
    await h.advance(60_000);
    assert.deepEqual(h.reads, [0, 10_000], 'an unchanged run reads nothing');
    h.feed.runChanged('completed|4|4', true);
    await h.advance(0);
    assert.equal(h.reads.length, 3, 'read at once when the run ended');
    h.feed.runChanged('completed|5|5', true);
    await h.advance(10_000);
    assert.equal(h.reads.length, 4);
    await h.feed.refresh();
    assert.equal(h.reads.length, 5, 'Refresh reads');
  });

  it('a failed read says why and keeps the last good review; a page built again gets it at once', async () => {
    const h = harness(true);
    h.feed.ready();
    await h.advance(0);
    assert.deepEqual(h.posts, [{ type: 'review', problem: '503 from the service' }]);
    const ok = harness();
    ok.feed.ready();
    await ok.advance(0);
    ok.feed.ready();
    assert.ok((ok.posts[1] as { review?: unknown }).review, 'the last review is posted before the new read answers');
  });
});
