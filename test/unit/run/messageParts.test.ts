import * as assert from 'node:assert/strict';
import { attachmentsOf, asJson, sameJson, toolParametersOf } from '../../../src/api/json';
import { attachmentLine, attachmentView, toolParametersLine, toolParametersView } from '../../../src/run/common/transcript/parts';
import { normalizeMessage, sameMessage, sizeOf } from '../../../src/run/common/transcript/message';

describe('message parts: tool parameters and attachments in any shape', () => {
  it('shows object tool parameters as indented JSON, a JSON string indented too, other strings as sent', () => {
    assert.deepEqual(toolParametersView({ path: 'a.ts', n: 2 }), { text: '{\n  "path": "a.ts",\n  "n": 2\n}', json: true });
    assert.deepEqual(toolParametersView('{"q":1}'), { text: '{\n  "q": 1\n}', json: true });
    assert.deepEqual(toolParametersView('grep -n foo'), { text: 'grep -n foo', json: false });
    assert.deepEqual(toolParametersView(42), { text: '42', json: true });
    assert.equal(toolParametersLine({ path: 'a.ts' }), '{"path":"a.ts"}');
    assert.equal(toolParametersLine('x y'), 'x y');
  });

  it('makes a chip of whatever an attachment carries, and compact JSON of an unknown shape', () => {
    assert.deepEqual(attachmentView('a.png'), { label: 'a.png' });
    assert.deepEqual(attachmentView({ type: 'file', name: 'r.html', url: 'https://f.example/r', mimeType: 'text/html' }), { label: 'r.html', url: 'https://f.example/r', type: 'file' });
    assert.deepEqual(attachmentView({ type: 'linear_issue', identifier: 'ENG-1', title: 'Bug', url: 'https://l.example/1' }), { label: 'ENG-1', url: 'https://l.example/1', type: 'linear_issue', title: 'Bug' });
    assert.deepEqual(attachmentView({ url: 'https://x.example/y' }), { label: 'https://x.example/y', url: 'https://x.example/y' });
    assert.deepEqual(attachmentView({ weird: [1, 2] }), { label: '{"weird":[1,2]}', raw: true });
    assert.deepEqual(attachmentView(3), { label: '3', raw: true });
    assert.equal(attachmentLine({ identifier: 'ENG-1', title: 'Bug', type: 'linear_issue', url: 'https://l.example/1' }), 'ENG-1 — Bug (linear_issue) <https://l.example/1>');
  });

  it('keeps JSON values, drops null parameters and null attachments, compares deeply', () => {
    assert.equal(toolParametersOf(null), undefined);
    assert.deepEqual(toolParametersOf({ a: [1, null] }), { a: [1, null] });
    assert.deepEqual(attachmentsOf([null, 'a', { b: 1 }]), ['a', { b: 1 }]);
    assert.deepEqual(attachmentsOf({ b: 1 }), [{ b: 1 }]);
    assert.equal(attachmentsOf(5), undefined);
    assert.equal(asJson(() => 1), undefined);
    assert.equal(asJson(Number.NaN), undefined);
    assert.ok(sameJson({ a: 1, b: [2] }, { b: [2], a: 1 }));
    assert.ok(!sameJson({ a: 1 }, { a: '1' }));
    assert.ok(!sameJson([1], { 0: 1 }));
  });

  it('the transcript keeps object parameters and attachments, compares and sizes them', () => {
    const m = normalizeMessage({ id: 'm', role: 'tool', content: null, toolParameters: { path: 'x' }, attachments: [{ name: 'f' }] });
    assert.deepEqual(m, { id: 'm', role: 'tool', toolParameters: { path: 'x' }, attachments: [{ name: 'f' }] });
    const same = normalizeMessage({ id: 'm', role: 'tool', toolParameters: { path: 'x' }, attachments: [{ name: 'f' }] });
    const changed = normalizeMessage({ id: 'm', role: 'tool', toolParameters: { path: 'y' }, attachments: [{ name: 'f' }] });
    assert.ok(m && same && changed);
    assert.ok(sameMessage(m, same));
    assert.ok(!sameMessage(m, changed));
    assert.ok(sizeOf(m) >= JSON.stringify({ path: 'x' }).length + JSON.stringify([{ name: 'f' }]).length);
  });
});
