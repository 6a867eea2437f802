// From Test Explorer items to what the test-ID scanner reads (src/base/common/testItems.ts).
import * as assert from 'node:assert/strict';
import { groupByFile, idsFromLabels, isTestItemsArgument, leadingAnnotationStart } from '../../../src/base/common/testItems';

describe('Test Explorer items', () => {
  it('widens a range over the annotation comments just above it, not over code or blank lines', () => {
    const lines = ['const x = 1;', '', '  /** @testId CHK-001 */', '  // more', '  it("a", () => {'];
    assert.equal(leadingAnnotationStart(lines, 4), 2);
    assert.equal(leadingAnnotationStart(['foo();', '@testId("A")', 'def test_a():'], 2), 1);
    assert.equal(leadingAnnotationStart(['foo();', 'it("b")'], 1), 1);
  });

  it('groups items by file in the order given and keeps label IDs unique', () => {
    const g = groupByFile([
      { file: 'b', startLine: 5, endLine: 6, label: 'x' }, { file: 'a', startLine: 1, endLine: 2, label: 'y' },
      { file: 'b', startLine: 1, endLine: 2, label: 'z' }, { label: 'no file' },
    ]);
    assert.deepEqual(g.files.map((f) => f.file), ['b', 'a']);
    assert.deepEqual(g.files[0]?.spans, [{ startLine: 5, endLine: 6 }, { startLine: 1, endLine: 2 }]);
    assert.deepEqual(g.withoutRange.map((i) => i.label), ['no file']);
    assert.deepEqual(idsFromLabels([' A ', 'B', 'A', '']), ['A', 'B']);
    assert.ok(isTestItemsArgument({ kind: 'agentRuns.testItems', idSource: 'scan', items: [{ label: 'a' }] }));
    assert.ok(!isTestItemsArgument({ kind: 'agentRuns.testItems', idSource: 'guess', items: [] }));
  });
});
