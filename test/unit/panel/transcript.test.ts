import * as assert from 'node:assert/strict';
import type { AgentMessage } from '../../../src/api/types';
import { hashString } from '../../../src/run/common/transcript/message';
import { Transcript } from '../../../src/run/common/transcript/transcript';
import { TranscriptStore } from '../../../src/run/common/transcript/store';

const T0 = Date.UTC(2025, 0, 1);

function message(seq: number, over: Partial<AgentMessage> = {}): AgentMessage {
  return {
    id: `m${seq}`,
    sequence: seq,
    role: seq % 2 === 0 ? 'user' : 'assistant',
    content: `message ${seq}`,
    createdAt: T0 + seq * 1_000,
    ...over,
  };
}

function range(from: number, to: number, over: Partial<AgentMessage> = {}): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (let i = from; i < to; i++) {
    out.push(message(i, over));
  }
  return out;
}

function shuffle<T>(list: T[], seed = 42): T[] {
  const a = [...list];
  let s = seed;
  for (let i = a.length - 1; i > 0; i--) {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = s % (i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

const seqs = (t: Transcript) => t.snapshot().entries.map((e) => e.sequence);

describe('transcript: merge', () => {
  it('merges 5,000 messages in any order into sequence order, once', () => {
    const t = new Transcript();
    const history = range(1, 5_001);
    const started = process.hrtime.bigint();
    const r = t.merge(shuffle(history));
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    console.log(`      merge of 5,000 shuffled messages: ${ms.toFixed(1)} ms`);
    assert.equal(r.added.length, 5_000);
    assert.equal(r.changed.length, 0);
    assert.deepEqual(seqs(t), history.map((m) => m.sequence));
    assert.deepEqual(r.added.map((e) => e.sequence), history.map((m) => m.sequence), 'added in transcript order');
    assert.equal(new Set(t.snapshot().entries.map((e) => e.key)).size, 5_000, 'unique keys');
    assert.equal(r.earlierMessagesUnavailable, false);

    // The same history again: nothing to post.
    const again = t.merge(history);
    assert.equal(again.added.length, 0);
    assert.equal(again.changed.length, 0);
  });

  it('returns exactly the added and changed messages of a poll', () => {
    const t = new Transcript();
    t.merge(range(1, 101));
    const next = range(1, 104);
    next[49] = message(50, { content: 'message 50 (edited)' });
    next[99] = message(100, { content: 'message 100, streaming more text' });
    const r = t.merge(next);
    assert.deepEqual(r.added.map((e) => e.key), ['id:m101', 'id:m102', 'id:m103']);
    assert.deepEqual(r.changed.map((e) => e.key), ['id:m50', 'id:m100']);
    assert.equal(t.get('id:m50')?.message.content, 'message 50 (edited)');
    assert.equal(t.get('id:m50')?.arrival, 49, 'a changed message keeps its arrival');
  });

  it('keeps messages the service stopped returning (recent-only history)', () => {
    const t = new Transcript();
    t.merge(range(1, 51));
    const r = t.merge(range(41, 61));
    assert.equal(r.added.length, 10);
    assert.equal(t.size, 60);
    assert.deepEqual(seqs(t), range(1, 61).map((m) => m.sequence));
    assert.equal(r.earlierMessagesUnavailable, false, 'no gap: nothing missing');
  });

  it('flags earlier messages as unavailable when the first poll starts late or a poll leaves a gap', () => {
    const late = new Transcript();
    const r1 = late.merge(range(200, 221));
    assert.equal(r1.earlierMessagesUnavailable, true);
    assert.equal(r1.missingMessageCount, 199);
    assert.equal(r1.gapsChanged, true);

    const gap = new Transcript();
    gap.merge(range(1, 11));
    const r2 = gap.merge(range(15, 20));
    assert.equal(r2.earlierMessagesUnavailable, true);
    assert.equal(r2.missingMessageCount, 4);
    assert.deepEqual(seqs(gap), [...range(1, 11), ...range(15, 20)].map((m) => m.sequence));

    // The gap closes when the missing messages turn up after all.
    const r3 = gap.merge(range(11, 15));
    assert.equal(r3.earlierMessagesUnavailable, false);
    assert.equal(r3.missingMessageCount, 0);
    assert.deepEqual(r3.added.map((e) => e.sequence), [11, 12, 13, 14]);
    assert.deepEqual(seqs(gap), range(1, 20).map((m) => m.sequence));

    // Sequences starting at 0 or 1 both count as complete.
    assert.equal(new Transcript().merge(range(0, 3)).earlierMessagesUnavailable, false);
  });

  it('falls back to sequence, then a content hash, for messages without an id', () => {
    const t = new Transcript();
    const noId = (seq: number | undefined, content: string, createdAt?: number): AgentMessage => ({
      role: 'assistant',
      content,
      ...(seq !== undefined ? { sequence: seq } : {}),
      ...(createdAt !== undefined ? { createdAt } : {}),
    });
    t.merge([noId(1, 'a'), noId(undefined, 'same', T0), noId(undefined, 'same', T0), noId(undefined, 'other', T0 + 1)]);
    const keys = t.snapshot().entries.map((e) => e.key);
    assert.equal(keys[0], 'seq:1');
    assert.equal(keys.filter((k) => k.startsWith('hash:')).length, 3, 'two identical id-less messages stay two');
    const r = t.merge([noId(1, 'a, grown'), noId(undefined, 'same', T0), noId(undefined, 'same', T0), noId(undefined, 'other', T0 + 1)]);
    assert.equal(r.added.length, 0);
    assert.deepEqual(r.changed.map((e) => e.key), ['seq:1']);
    assert.equal(hashString('x'), hashString('x'));
    assert.notEqual(hashString('x'), hashString('y'));
  });

  it('keeps the first key when a message gains an id later', () => {
    const t = new Transcript();
    t.merge([{ sequence: 3, role: 'assistant', content: 'partial' }]);
    const r = t.merge([{ id: 'late-id', sequence: 3, role: 'assistant', content: 'partial and more' }]);
    assert.equal(r.added.length, 0);
    assert.deepEqual(r.changed.map((e) => e.key), ['seq:3']);
    assert.equal(t.size, 1);
    // Found by its id from now on.
    assert.equal(t.merge([{ id: 'late-id', sequence: 3, role: 'assistant', content: 'partial and more' }]).changed.length, 0);
  });

  it('orders by sequence, then createdAt, then arrival, and re-sorts when a sequence changes', () => {
    const t = new Transcript();
    t.merge([
      { id: 'c', createdAt: T0 + 3 },
      { id: 'b', sequence: 2 },
      { id: 'a', sequence: 1, createdAt: T0 + 9 },
      { id: 'd', createdAt: T0 + 1 },
      { id: 'e' },
      { id: 'f' },
    ]);
    assert.deepEqual(t.snapshot().entries.map((e) => e.key), ['id:a', 'id:b', 'id:d', 'id:c', 'id:e', 'id:f']);
    t.merge([{ id: 'f', sequence: 0 }]);
    assert.equal(t.snapshot().entries[0].key, 'id:f');
  });

  it('skips malformed items and wrong-typed fields, but keeps attachments of any shape', () => {
    const t = new Transcript();
    const r = t.merge([null, 42, 'text', [], { id: 'ok', sequence: 'x', content: 7, attachments: ['a', 3], createdAt: Infinity }] as unknown[]);
    assert.equal(r.added.length, 1);
    assert.deepEqual(t.get('id:ok')?.message, { id: 'ok', attachments: ['a', 3] });
    assert.equal(t.merge(undefined).added.length, 0);
  });

  it('bounds memory: evicts the oldest, counts them, and does not take them in again', () => {
    const t = new Transcript({ maxMessages: 1_000 });
    const r1 = t.merge(range(1, 1_201));
    assert.equal(t.size, 1_000);
    assert.equal(r1.droppedMessageCount, 200);
    assert.equal(r1.added.length, 1_000, 'the evicted ones are not reported as added');
    assert.equal(seqs(t)[0], 201);
    assert.equal(r1.earlierMessagesUnavailable, false, 'evicted is not "unavailable"');
    // The service keeps returning the whole history: no churn.
    const r2 = t.merge(range(1, 1_202));
    assert.deepEqual(r2.added.map((e) => e.sequence), [1_201]);
    assert.deepEqual(r2.evicted, ['id:m201']);
    assert.equal(r2.droppedMessageCount, 201);

    const big = new Transcript({ maxTotalChars: 10_000 });
    big.merge(range(1, 6, { content: 'x'.repeat(3_000) }));
    assert.ok(big.size <= 3 && big.size >= 2, `kept ${big.size}`);
  });

  it('reports changes since a revision, whoever merged', () => {
    const t = new Transcript({ maxMessages: 10 });
    t.merge(range(1, 6));
    const rev = t.revision;
    assert.deepEqual(t.changesSince(rev), { entries: [], evicted: [], revision: rev, complete: true });
    t.merge([...range(1, 6), message(3, { content: 'changed' }), ...range(6, 13)]);
    const c = t.changesSince(rev);
    assert.deepEqual(c.entries.map((e) => e.key), ['id:m3', 'id:m6', 'id:m7', 'id:m8', 'id:m9', 'id:m10', 'id:m11', 'id:m12']);
    assert.deepEqual(c.evicted, ['id:m1', 'id:m2']);
    assert.equal(c.revision, t.revision);
    assert.ok(c.complete);
  });

  it('keeps a bounded set of runs in a store', () => {
    const store = new TranscriptStore(2);
    const a = store.get('a');
    store.get('b');
    assert.equal(store.get('a'), a, 'same instance while kept');
    store.get('c');
    assert.ok(store.has('a') && store.has('c') && !store.has('b'), 'least recently used goes first');
  });

  it('marks a gap at the message after it, and takes the mark back (as a change) when the gap is filled', () => {
    const t = new Transcript();
    t.merge(range(1, 4));
    const r1 = t.merge(range(10, 12));
    const gapAt = t.snapshot().entries.filter((e) => e.gapBefore !== undefined).map((e) => [e.sequence, e.gapBefore]);
    assert.deepEqual(gapAt, [[10, 6]]);
    assert.deepEqual(r1.added.map((e) => [e.sequence, e.gapBefore]), [[10, 6], [11, undefined]]);
    const before = t.revision;
    const r2 = t.merge(range(4, 10));
    assert.deepEqual(t.snapshot().entries.filter((e) => e.gapBefore !== undefined), []);
    assert.ok(r2.changed.some((e) => e.sequence === 10 && e.gapBefore === undefined), 'the message after the old gap is sent again');
    assert.ok(t.changesSince(before).entries.some((e) => e.sequence === 10));
  });

  it('a history that starts late carries the gap on its first message', () => {
    const t = new Transcript();
    t.merge(range(41, 43));
    assert.deepEqual(t.snapshot().entries.map((e) => e.gapBefore), [40, undefined]);
  });
});

