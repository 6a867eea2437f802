// docs/ARCHITECTURE.md's source tree names every folder of src/, so a newcomer finds each one there.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

// Tests run from a compiled copy (out/); the doc and src/ stay in the source tree.
function findRoot(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'docs', 'ARCHITECTURE.md')) && fs.existsSync(path.join(dir, 'src', 'extension.ts'))) return dir;
  }
  throw new Error('docs/ARCHITECTURE.md not found above ' + __dirname);
}
const ROOT = findRoot();
const DOC = fs.readFileSync(path.join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');

/** Every folder under src/, as `run/common/ledger`. */
function srcFolders(dir = path.join(ROOT, 'src'), prefix = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).flatMap((e) => {
    const rel = prefix + e.name;
    return [rel, ...srcFolders(path.join(dir, e.name), rel + '/')];
  });
}

/**
 * The folders the doc's tree names: the lines after `src/`, two spaces of indent per level, a
 * folder written `name/` followed by two spaces or the line's end; the tree ends at the first
 * unindented line.
 */
function treeFolders(doc: string): string[] {
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => /^src\/\s*$/.test(l) || /^src\/ {2}/.test(l));
  if (start < 0) return [];
  const found: string[] = [];
  const stack: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '' || !line.startsWith(' ')) break;
    const m = /^( +)([A-Za-z][\w.-]*)\/(?: {2,}|$)/.exec(line);
    if (!m || m[1].length % 2 !== 0) continue;
    const level = m[1].length / 2 - 1;
    stack.length = level;
    stack.push(m[2]);
    found.push(stack.join('/'));
  }
  return found;
}

function missing(doc: string, folders: readonly string[]): string[] {
  const named = new Set(treeFolders(doc));
  return folders.filter((f) => !named.has(f));
}

function withoutLine(doc: string, line: RegExp): string {
  const lines = doc.split('\n');
  const at = lines.findIndex((l) => line.test(l));
  assert.ok(at >= 0, `no line ${line} in the doc`);
  return [...lines.slice(0, at), ...lines.slice(at + 1)].join('\n');
}

describe('docs: ARCHITECTURE.md names every folder of src/', () => {
  it('has a tree, and every folder of src/ is in it at its place', () => {
    const folders = srcFolders();
    assert.ok(folders.includes('run/common/ledger') && folders.includes('panel/page'), 'src/ was read');
    assert.deepEqual(missing(DOC, folders), [], 'add these folders to the tree in docs/ARCHITECTURE.md');
  });

  it('notices a top-level folder left out', () => {
    const doc = withoutLine(DOC, /^ {2}serviceTests\//);
    assert.ok(missing(doc, srcFolders()).includes('serviceTests'));
  });

  it('notices a second- and a third-level folder left out, or put under the wrong parent', () => {
    assert.deepEqual(missing(withoutLine(DOC, /^ {4}page\//), srcFolders()), ['panel/page']);
    assert.deepEqual(missing(withoutLine(DOC, /^ {6}ledger\//), srcFolders()), ['run/common/ledger']);
    const moved = DOC.replace(/^ {6}testIds\/.*$/m, '    testIds/');
    assert.deepEqual(missing(moved, srcFolders()), ['testGroups/common/testIds']);
  });
});
