import * as assert from 'node:assert/strict';
import { buildSelectionAttachment, fenceFor, markdownLanguage } from '../../../src/launch/common/selection';
import { plainL10n as l10n } from '../../../src/base/common/l10n';

describe('launch prompt from a selection', () => {
  it('puts the path, the line range and the fenced code with its language', () => {
    const a = buildSelectionAttachment({ path: 'src/app.ts', languageId: 'typescript', ranges: [{ startLine: 3, endLine: 5, text: 'const a = 1;\r\nconst b = 2;\r\nconst c = 3;\r\n' }] }, l10n)!;
    assert.equal(a.label, 'src/app.ts, lines 3–5');
    assert.equal(a.text, 'File `src/app.ts`, lines 3–5:\n\n```typescript\nconst a = 1;\nconst b = 2;\nconst c = 3;\n```');
    assert.ok(!a.text.includes('\r'));
  });

  it('maps VS Code language ids to Markdown info strings', () => {
    assert.equal(markdownLanguage('typescriptreact'), 'tsx');
    assert.equal(markdownLanguage('plaintext'), '');
    assert.equal(markdownLanguage('python'), 'python');
    assert.equal(markdownLanguage('weird lang`'), '');
    const a = buildSelectionAttachment({ path: 'notes.txt', languageId: 'plaintext', ranges: [{ startLine: 1, endLine: 1, text: 'hello' }] }, l10n)!;
    assert.equal(a.text, 'File `notes.txt`, line 1:\n\n```\nhello\n```');
  });

  it('uses a longer fence when the code contains backticks', () => {
    assert.equal(fenceFor('no ticks'), '```');
    assert.equal(fenceFor('```js\nx\n```'), '````');
    const a = buildSelectionAttachment({ path: 'README.md', languageId: 'markdown', ranges: [{ startLine: 1, endLine: 3, text: '```js\nx\n```' }] }, l10n)!;
    assert.ok(a.text.includes('````markdown\n```js\nx\n```\n````'));
  });

  it('truncates a huge selection at a line end and says so', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i + 1} ${'x'.repeat(20)}`);
    const a = buildSelectionAttachment({ path: 'big.log', languageId: 'log', ranges: [{ startLine: 1, endLine: 5000, text: lines.join('\n') }] }, l10n, { maxChars: 2000 })!;
    assert.ok(a.text.length < 2400, `${a.text.length}`);
    const code = a.text.split('```log\n')[1].split('\n```')[0];
    assert.ok(code.endsWith(`x`), 'cut at a line end');
    assert.ok(code.split('\n').every((l) => /^line \d+ x{20}$/.test(l)));
    assert.match(a.text, /\[Truncated: showing the first \d+ of 5000 lines; the selection is longer than 2000 characters\.\]/);
  });

  it('handles several selections, empty ones, Windows paths and the whole file', () => {
    const a = buildSelectionAttachment({
      path: 'src\\win\\a.py', languageId: 'python', ranges: [
        { startLine: 1, endLine: 1, text: 'a = 1' },
        { startLine: 4, endLine: 4, text: '   ' },
        { startLine: 9, endLine: 10, text: 'b = 2\nc = 3' },
      ],
    }, l10n)!;
    assert.equal(a.label, 'src/win/a.py, 2 selections (lines 1–10)');
    assert.equal((a.text.match(/```python/g) ?? []).length, 2);
    assert.equal(buildSelectionAttachment({ path: 'x', languageId: 'x', ranges: [{ startLine: 1, endLine: 1, text: '\n\n' }] }, l10n), undefined);
    const w = buildSelectionAttachment({ path: 'a.go', languageId: 'go', wholeFile: true, ranges: [{ startLine: 1, endLine: 2, text: 'package a\n' }] }, l10n)!;
    assert.equal(w.label, 'a.go (whole file)');
    assert.ok(w.text.startsWith('File `a.go`:\n\n```go\npackage a\n```'));
  });

  it('keeps surrogate pairs whole when a single line is cut', () => {
    const text = '😀'.repeat(300);
    const a = buildSelectionAttachment({ path: 'e.txt', languageId: 'plaintext', ranges: [{ startLine: 1, endLine: 1, text }] }, l10n, { maxChars: 201 })!;
    const code = a.text.split('```\n')[1].split('\n```')[0];
    assert.ok(!/[\ud800-\udbff]$/.test(code));
  });
});
