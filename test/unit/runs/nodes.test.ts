import * as assert from 'node:assert/strict';
import type { LedgerEntry } from '../../../src/run/common/ledger/ledger';
import { plainL10n } from '../../../src/base/common/l10n';
import { AppNode, RowNode, RunsTreeModel, agentIdOf, type TreeNode } from '../../../src/runs/common/nodes';
import { groupByApp } from '../../../src/runs/common/presentation';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const MIN = 60_000;

function run(agentId: string, minutesAgo: number, over: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    agentId,
    source: 'tracked',
    addedAt: NOW - minutesAgo * MIN,
    createdAt: NOW - minutesAgo * MIN,
    status: 'completed',
    appId: 'app_todo',
    unread: false,
    ...over,
  };
}

const names = (nodes: TreeNode[]) => nodes.map((n) => (n instanceof AppNode ? `app:${n.key}` : `run:${n.agentId}`));

describe('Runs tree model: stable elements, re-render only what changed', () => {
  function built(runs: LedgerEntry[]) {
    const model = new RunsTreeModel();
    const roots = model.roots(() => groupByApp(runs, plainL10n));
    return { model, roots, update: (next: LedgerEntry[], changed: string[] = []) => model.update(groupByApp(next, plainL10n), new Set(changed)) };
  }

  it('builds the groups on first use, newest first, one node per run', () => {
    const { model, roots } = built([run('a', 3), run('b', 1), run('c', 2, { appId: 'app_shop' })]);
    assert.deepEqual(names(roots), ['app:app_todo', 'app:app_shop']);
    assert.deepEqual(names(model.children(roots[0])), ['run:b', 'run:a']);
    assert.equal(model.run('c')?.parent, roots[1]);
  });

  it('re-renders only the run whose record changed, keeping every element', () => {
    const runs = [run('a', 3), run('b', 1, { status: 'running' })];
    const { model, roots, update } = built(runs);
    const b = model.run('b');
    const refresh = update([runs[0], { ...runs[1], model: 'm2' }], ['b']);
    assert.equal(refresh.all, false);
    assert.deepEqual(names(refresh.nodes), ['run:b']);
    assert.equal(model.run('b'), b, 'the element was replaced');
    assert.equal(b?.record.model, 'm2');
    assert.deepEqual(model.roots(() => []).map((app, i) => app === roots[i]), [true]);
  });

  it('takes a record replaced without a change event in silently', () => {
    const runs = [run('a', 3)];
    const { model, update } = built(runs);
    const refresh = update([{ ...runs[0], lastCheckedAt: NOW }]);
    assert.deepEqual(refresh, { all: false, nodes: [] });
    assert.equal(model.run('a')?.record.lastCheckedAt, NOW);
  });

  it('several run changes of one batch re-render those rows only', () => {
    const runs = [run('a', 3), run('b', 2), run('s', 1, { appId: 'app_shop' })];
    const { update } = built(runs);
    const refresh = update([{ ...runs[0], model: 'x' }, runs[1], { ...runs[2], model: 'y' }], ['a', 's']);
    assert.equal(refresh.all, false);
    assert.deepEqual(names(refresh.nodes).sort(), ['run:a', 'run:s']);
  });

  // A group re-rendered alone would re-read all its rows anyway, and only a full refresh
  // cancels a read of rows under way in the extension host.
  it('a run added to a shown group re-renders the tree, keeping the elements already there', () => {
    const runs = [run('a', 3), run('s', 2, { appId: 'app_shop' })];
    const { model, roots, update } = built(runs);
    assert.deepEqual(names(roots), ['app:app_shop', 'app:app_todo']);
    const a = model.run('a');
    assert.deepEqual(update([run('n', 4), ...runs], ['n']), { all: true, nodes: [] });
    assert.deepEqual(names(model.children(roots[1])), ['run:a', 'run:n']);
    assert.equal(model.run('a'), a);
    assert.deepEqual(model.roots(() => []).map((app, i) => app === roots[i]), [true, true]);
  });

  it('a run that finishes re-renders the tree (its group counts active runs)', () => {
    const runs = [run('a', 3, { status: 'running' }), run('b', 1)];
    const { update } = built(runs);
    assert.equal(update([{ ...runs[0], status: 'completed' }, runs[1]], ['a']).all, true);
  });

  it('the project name, once known, re-renders the tree (the group shows it)', () => {
    const runs = [run('a', 3)];
    const { update } = built(runs);
    assert.equal(update([{ ...runs[0], projectName: 'Todo' }], ['a']).all, true);
  });

  it('a run moving to another app keeps its element, under its new group', () => {
    const runs = [run('a', 4), run('b', 3), run('s', 2, { appId: 'app_shop' }), run('t', 1, { appId: 'app_shop' })];
    const { model, update } = built(runs);
    const b = model.run('b');
    assert.equal(update([runs[0], { ...runs[1], appId: 'app_shop' }, runs[2], runs[3]], ['b']).all, true);
    assert.equal(model.run('b'), b);
    assert.equal(b?.parent, model.roots(() => []).find((app) => app.key === 'app_shop'));
    assert.deepEqual(names(model.children(b!.parent)), ['run:t', 'run:s', 'run:b']);
  });

  it('a new, removed or reordered group re-renders everything; removed runs are forgotten', () => {
    const runs = [run('a', 3), run('s', 2, { appId: 'app_shop' })];
    const { model, update } = built(runs);
    assert.equal(update([...runs, run('z', 1, { appId: 'app_new' })], ['z']).all, true);
    assert.equal(update(runs, []).all, true);
    // app_todo's newest run is now newer than app_shop's: the groups swap places.
    assert.equal(update([...runs, run('n', 1)], ['n']).all, true);
    update([run('n', 1), runs[0]], []);
    assert.equal(model.run('s'), undefined);
    assert.deepEqual(names(model.roots(() => [])), ['app:app_todo']);
  });

  it('a model VS Code has not asked for has nothing to re-render, and clear() forgets the shape', () => {
    const model = new RunsTreeModel();
    assert.deepEqual(model.update(groupByApp([run('a', 1)], plainL10n), new Set(['a'])), { all: false, nodes: [] });
    assert.equal(model.built, true);
    model.clear();
    assert.equal(model.built, false);
    assert.equal(model.run('a'), undefined);
  });

  it('run commands accept the stable run element', () => {
    const { model } = built([run('a', 1)]);
    const node = model.run('a');
    assert.ok(node instanceof RowNode);
    assert.equal(agentIdOf(node), 'a');
  });
});
