import * as assert from 'node:assert/strict';
import { LifecycleTracker, laneDurations, latestTime, stallCheck } from '../../../src/panel/common/lifecycle';

const T0 = Date.UTC(2025, 0, 1, 9, 0, 0);
const s = (n: number) => n * 1_000;

describe('lifecycle: time in state', () => {
  it('accumulates time per state from successive observations', () => {
    const t = new LifecycleTracker();
    t.observe({ status: 'queued', lifecycle: { conversationState: 'waiting', sandboxState: 'starting' } }, T0);
    t.observe({ status: 'running', lifecycle: { conversationState: 'thinking', sandboxState: 'starting' } }, T0 + s(10));
    t.observe({ status: 'running', lifecycle: { conversationState: 'thinking', sandboxState: 'ready' } }, T0 + s(25));
    t.observe({ status: 'running', lifecycle: { conversationState: 'waiting', sandboxState: 'ready' } }, T0 + s(40));

    const now = T0 + s(50);
    assert.equal(t.timeInState('conversation', 'waiting', now), s(10) + s(10));
    assert.equal(t.timeInState('conversation', 'thinking', now), s(30));
    assert.equal(t.timeInState('sandbox', 'starting', now), s(25));
    assert.equal(t.timeInState('sandbox', 'ready', now), s(25));
    assert.equal(t.timeInState('sandbox', 'never-seen', now), 0);

    const v = t.view();
    assert.equal(v.conversation.current, 'waiting');
    assert.equal(v.conversation.currentSince, T0 + s(40));
    assert.deepEqual(v.conversation.segments, [
      { state: 'waiting', totalMs: s(10) },
      { state: 'thinking', totalMs: s(30) },
    ]);
    // The webview's view of the same numbers.
    assert.deepEqual(laneDurations(v.conversation, now), [
      { state: 'waiting', ms: s(20), current: true },
      { state: 'thinking', ms: s(30), current: false },
    ]);
  });

  it('places a change at lastLifecycleEventAt when it lies between two observations', () => {
    const t = new LifecycleTracker();
    t.observe({ lifecycle: { conversationState: 'a', lastLifecycleEventAt: T0 - s(5) } }, T0);
    assert.equal(t.view().conversation.currentSince, T0 - s(5), 'first sight: since the event');
    t.observe({ lifecycle: { conversationState: 'b', lastLifecycleEventAt: T0 + s(12) } }, T0 + s(30));
    assert.equal(t.timeInState('conversation', 'a', T0 + s(30)), s(17));
    assert.equal(t.timeInState('conversation', 'b', T0 + s(30)), s(18));
    // A server clock ahead of ours is not trusted: the observation time is used.
    t.observe({ lifecycle: { conversationState: 'c', lastLifecycleEventAt: T0 + s(999) } }, T0 + s(40));
    assert.equal(t.timeInState('conversation', 'b', T0 + s(40)), s(28));
    assert.equal(t.view().lastLifecycleEventAt, T0 + s(999));
  });

  it('stops the clock when the run ends and restarts it on a follow-up', () => {
    const t = new LifecycleTracker();
    t.observe({ status: 'running', lifecycle: { sandboxState: 'busy' } }, T0);
    t.observe({ status: 'completed', completedAt: T0 + s(20), lifecycle: { sandboxState: 'busy' } }, T0 + s(30));
    assert.equal(t.view().endedAt, T0 + s(20));
    assert.equal(t.timeInState('sandbox', 'busy', T0 + s(3_600)), s(20), 'no time accrues after the end');
    t.observe({ status: 'running', lifecycle: { sandboxState: 'busy' } }, T0 + s(100));
    assert.equal(t.view().endedAt, undefined);
    assert.equal(t.timeInState('sandbox', 'busy', T0 + s(110)), s(30));
  });

  it('tracks queued turns, ignores junk and bounds the number of states', () => {
    const t = new LifecycleTracker();
    assert.equal(t.observe({ lifecycle: { queuedTurnCount: 2 } }, T0), true);
    assert.equal(t.view().queuedTurnCount, 2);
    assert.equal(t.observe({ lifecycle: { queuedTurnCount: 2 } }, T0 + 1), false, 'nothing changed');
    t.observe({ lifecycle: { queuedTurnCount: -1, conversationState: '' } }, T0 + 2);
    assert.equal(t.view().queuedTurnCount, 2, 'a negative count is ignored');
    for (let i = 0; i < 500; i++) {
      t.observe({ lifecycle: { conversationState: `state-${i}` } }, T0 + 10 + i);
    }
    assert.ok(t.view().conversation.segments.length <= 100);
  });

  it('flags a stall only while running and idle long enough', () => {
    const now = T0 + 15 * 60_000;
    assert.deepEqual(stallCheck({ status: 'running', lastActivityAt: T0, now, stallAfterMs: 10 * 60_000 }), { stalled: true, idleMs: 15 * 60_000 });
    assert.equal(stallCheck({ status: 'running', lastActivityAt: now - 60_000, now, stallAfterMs: 10 * 60_000 }).stalled, false);
    assert.equal(stallCheck({ status: 'completed', lastActivityAt: T0, now, stallAfterMs: 60_000 }).stalled, false);
    assert.equal(stallCheck({ status: 'running', lastActivityAt: undefined, now, stallAfterMs: 60_000 }).stalled, false);
    assert.equal(latestTime(undefined, T0, NaN, T0 + 5, Infinity), T0 + 5);
  });
});
