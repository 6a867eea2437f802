// The per-app lists under the Runs view's app rows (run/common/appRowReads.ts), which the code review
// and automation rows share: one node per app, one read at a time, a read asked for during
// another done once after it, answers from before another service or token dropped.
import * as assert from 'node:assert/strict';
import { AppRowReads, type AppRowNode } from '../../../src/run/common/appRowReads';
import type { AppRef } from '../../../src/run/common/rows';

class Node implements AppRowNode {
  state: AppRowNode['state'] = { kind: 'unread' };
  stale = false;
  taken: string[] = [];
  constructor(public parent: AppRef) {}
  get appId(): string { return this.parent.key; }
  forget(): void {
    this.state = { kind: 'unread' };
    this.stale = false;
    this.taken = [];
  }
}

/** Reads answered by hand, in the order the test chooses. */
function harness() {
  const waiting: Array<{ appId: string; answer: (v: string) => void }> = [];
  let renders = 0;
  const lists = new AppRowReads<Node>({
    make: (app) => new Node(app),
    read: (node) => new Promise<string>((resolve) => waiting.push({ appId: node.appId, answer: resolve })).then((v) => () => {
      node.taken.push(v);
      node.state = { kind: 'listed' };
    }),
    refreshTree: () => { renders++; },
  });
  const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
  return { lists, waiting, renders: () => renders, tick };
}

describe('core: AppRowReads (the per-app lists under the Runs view\'s app rows)', () => {
  it('one node per app key, its parent the app\'s row of now', () => {
    const { lists } = harness();
    const a = lists.root({ key: 'app_a' });
    const again = { key: 'app_a' };
    assert.equal(lists.root(again), a);
    assert.equal(a.parent, again);
    assert.notEqual(lists.root({ key: 'app_b' }), a);
  });

  it('reads when first shown, once however often asked while the read is under way', async () => {
    const { lists, waiting, tick } = harness();
    const node = lists.root({ key: 'app_a' });
    const first = lists.pending(node);
    assert.ok(first);
    assert.equal(lists.pending(node), first);
    await tick();
    assert.equal(waiting.length, 1);
    waiting[0].answer('one');
    await first;
    assert.deepEqual(node.taken, ['one']);
    assert.equal(lists.pending(node), undefined, 'nothing to wait on once listed');
  });

  it('a refresh asked during a read reads once more after it (what changed may have come after the read left)', async () => {
    const { lists, waiting, tick, renders } = harness();
    const node = lists.root({ key: 'app_a' });
    const first = lists.pending(node)!;
    await tick();
    const before = renders();
    void lists.refresh('app_a');
    void lists.refresh();
    waiting[0].answer('old');
    await first;
    await tick();
    assert.equal(waiting.length, 2, 'one more read, not two');
    waiting[1].answer('new');
    await tick();
    await tick();
    assert.deepEqual(node.taken, ['old', 'new']);
    assert.ok(renders() > before, 'the tree was told to render again');
  });

  it('refresh without an app reads only the lists read before; an unknown app reads nothing', async () => {
    const { lists, waiting, tick } = harness();
    const a = lists.root({ key: 'app_a' });
    lists.root({ key: 'app_b' });
    void lists.pending(a);
    await tick();
    waiting[0].answer('a');
    await tick();
    await lists.refresh('app_zzz');
    void lists.refresh();
    await tick();
    assert.deepEqual(waiting.map((w) => w.appId), ['app_a', 'app_a']);
  });

  it('forgetAll: an answer from before is dropped, the node starts over, the tree renders again if anything was shown', async () => {
    const { lists, waiting, tick, renders } = harness();
    const node = lists.root({ key: 'app_a' });
    const read = lists.pending(node)!;
    await tick();
    const before = renders();
    lists.forgetAll();
    assert.equal(renders(), before + 1);
    waiting[0].answer('from the other service');
    await read;
    assert.deepEqual(node.taken, []);
    assert.equal(node.state.kind, 'unread');
    lists.forgetAll();
    assert.equal(renders(), before + 1, 'nothing shown: no render');
  });
});
