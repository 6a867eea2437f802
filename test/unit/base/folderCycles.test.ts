// No import circle between the top-level folders of src (issue 32): every import, `import type`,
// `export … from` and `import()` counts; extension.ts, the composition root, is left out.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as ts from 'typescript';

// Tests run from a compiled copy (out/); the sources stay in the tree.
function findRoot(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'eslint.config.mjs')) && fs.existsSync(path.join(dir, 'src'))) return dir;
  }
  throw new Error('the repository root is not above ' + __dirname);
}
const ROOT = findRoot();

/** An edge between two folders, with one import that makes it (for the message). */
type Edges = Map<string, Map<string, string>>;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The folder-level import graph of `src`: `from → to → "file imports spec"`. */
function folderEdges(src: string): Edges {
  const edges: Edges = new Map();
  for (const file of sourceFiles(src)) {
    const from = path.relative(src, file).split(path.sep)[0] ?? '';
    if (from === 'extension.ts') continue;
    // preProcessFile lists every module a file names: imports (type-only too), re-exports, import() and require().
    for (const { fileName: spec } of ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!spec.startsWith('.')) continue;
      const to = path.relative(src, path.resolve(path.dirname(file), spec)).split(path.sep)[0] ?? '';
      if (to === from || to.startsWith('..') || to === 'extension' || to === 'extension.ts') continue;
      const out = edges.get(from) ?? new Map<string, string>();
      if (!out.has(to)) out.set(to, `${path.relative(src, file)} imports '${spec}'`);
      edges.set(from, out);
    }
  }
  return edges;
}

/**
 * One circle per group of folders that reach each other (strongly connected), as its folders in
 * order, the first repeated at the end: the shortest through the group's first folder.
 */
function circles(edges: Edges): string[][] {
  const next = (a: string): string[] => [...(edges.get(a)?.keys() ?? [])].sort();
  const reach = (a: string): Set<string> => {
    const seen = new Set<string>();
    const todo = [a];
    for (let x = todo.pop(); x !== undefined; x = todo.pop()) {
      for (const b of next(x)) {
        if (!seen.has(b)) {
          seen.add(b);
          todo.push(b);
        }
      }
    }
    return seen;
  };
  const reached = new Map([...edges.keys()].map((a) => [a, reach(a)]));
  const done = new Set<string>();
  const found: string[][] = [];
  for (const start of [...edges.keys()].sort()) {
    if (done.has(start) || !reached.get(start)?.has(start)) continue;
    const group = [...(reached.get(start) ?? [])].filter((b) => reached.get(b)?.has(start));
    group.forEach((b) => done.add(b));
    // Breadth first from `start` back to it, inside the group.
    const from = new Map<string, string>();
    const queue = [start];
    for (let i = 0; i < queue.length && !from.has(start); i++) {
      const x = queue[i] ?? '';
      for (const b of next(x)) {
        if (group.includes(b) && !from.has(b)) {
          from.set(b, x);
          queue.push(b);
        }
      }
    }
    const back = [start];
    for (let x = from.get(start); x !== undefined && x !== start; x = from.get(x)) back.push(x);
    found.push([...back, start].reverse());
  }
  return found;
}

function describeCircle(edges: Edges, circle: string[]): string {
  return circle.slice(0, -1).map((a, i) => `src/${a} → src/${circle[i + 1] ?? ''} (${edges.get(a)?.get(circle[i + 1] ?? '') ?? '?'})`).join('; ');
}

function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folder-cycles-'));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

describe('src: no import circle between folders', () => {
  it('finds a circle made by any kind of import, and none without it', () => {
    const files = {
      'extension.ts': "import { a } from './a/a';\nimport { c } from './c/c';\n",
      'a/a.ts': "import type { B } from '../b/common/b';\nexport const a = 1;\n",
      'b/common/b.ts': "export type B = number;\nexport { c } from '../../c/c';\n",
      'c/c.ts': "export const c = 2;\nexport async function load(): Promise<unknown> { return import('../a/a'); }\n",
      'd/d.ts': "import { a } from '../a/a';\nimport { c } from '../c/c';\nexport const d = a + c;\n",
    };
    const planted = tree(files);
    const edges = folderEdges(planted);
    assert.deepEqual(circles(edges), [['a', 'b', 'c', 'a']]);
    assert.match(describeCircle(edges, ['a', 'b', 'c', 'a']), /src\/c → src\/a \(c\/c\.ts imports '\.\.\/a\/a'\)/);
    const without = tree({ ...files, 'c/c.ts': 'export const c = 2;\n' });
    assert.deepEqual(circles(folderEdges(without)), [], 'extension.ts importing everything makes no circle');
    fs.rmSync(planted, { recursive: true });
    fs.rmSync(without, { recursive: true });
  });

  it('src has none', () => {
    const edges = folderEdges(path.join(ROOT, 'src'));
    assert.ok(edges.size >= 5, 'the folders of src were read');
    const found = circles(edges);
    assert.deepEqual(found.map((c) => describeCircle(edges, c)), []);
  });
});
