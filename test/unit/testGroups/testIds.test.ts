import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  DEFAULT_TEST_FILE_PATTERNS, TestIdPatternError, buildTestsPrompt, compileTestFileGlobs, compileTestIdPattern,
  defaultGroupName, extractTestIds, extractTestIdsSync, globToRegExpSource, globsToWhenClauseRegex,
  mergeFileTestIds, selectionSegments, testNameFromFileName, type ExtractResult, type PatternProblem,
} from '../../../src/testGroups/common/testIds';

// Tests run from a compiled copy (out/ or elsewhere); the fixtures stay in the source tree.
function findRoot(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'test', 'fixtures', 'testfiles')) && fs.existsSync(path.join(dir, 'package.json'))) return dir;
  }
  return process.cwd();
}
const ROOT = findRoot();
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'testfiles');
const fixture = (name: string): string => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

function ids(text: string, fileName = 'a.test.ts'): string[] {
  return extractTestIdsSync(text, { fileName }).ids;
}

function problemOf(pattern: string): PatternProblem {
  try {
    compileTestIdPattern(pattern);
  } catch (e) {
    assert.ok(e instanceof TestIdPatternError);
    return e.problem;
  }
  assert.fail(`pattern ${pattern} was accepted`);
}

describe('testIds: default convention', () => {
  it('reads JSON keys in document order', () => {
    assert.deepEqual(ids(fixture('cart.test.json'), 'cart.test.json'), ['CART-001', 'CART-002', 'CART-003']);
  });

  it('reads YAML keys, quoted and bare, and skips commented-out lines', () => {
    assert.deepEqual(ids(fixture('login.spec.yaml'), 'login.spec.yaml'), ['LOGIN-001', 'LOGIN-002', 'LOGIN-003']);
  });

  it('reads annotations and JS keys, and skips commented-out keys', () => {
    assert.deepEqual(ids(fixture('checkout.test.js'), 'checkout.test.js'), ['CHK-001', 'CHK-002', 'CHK-003', 'CHK-004']);
  });

  it('finds nothing in a test file without IDs', () => {
    const r = extractTestIdsSync(fixture('no-ids.test.js'));
    assert.deepEqual(r.ids, []);
    assert.equal(r.truncated, undefined);
  });

  it('reads every key spelling', () => {
    const text = [
      `{ "testId": "a1" }`,
      `{ 'testId': 'a2' }`,
      `x = { testId: "a3", other: 1 }`,
      `x = { testId:'a4' }`,
      'x = { testId: `a5` }',
      `"testId"  :  "a6"`,
    ].join('\n');
    assert.deepEqual(ids(text), ['a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
  });

  it('does not take identifiers, other keys or template expressions', () => {
    const text = [
      'x = { testId: someVariable }',
      'x = { myTestId: "no1", testIds: "no2", obj.testId: "no3" }',
      'x = { testId: `pre-${n}` }',
      'const testId = "no4";',
    ].join('\n');
    assert.deepEqual(ids(text), []);
  });

  it('takes bare YAML values only in YAML files', () => {
    const text = 'testId: bare-1\n';
    assert.deepEqual(ids(text, 'a.yaml'), ['bare-1']);
    assert.deepEqual(ids(text, 'a.yml'), ['bare-1']);
    assert.deepEqual(ids(text, 'a.test.ts'), []);
  });

  it('reads annotations in every comment style', () => {
    const text = [
      '// @testId L-1',
      '/* @testId L-2 */',
      '/** @testId L-3*/',
      ' * @testId L-4',
      '# @testId L-5',
      '<!-- @testId L-6 -->',
      '<!-- @testId L-7-->',
      '-- @testId L-8',
      '// @testId: L-9',
      '// @testId "L 10 with spaces"',
      "// @testId 'L-11'",
      '@testId("L-12")',
      "@TestId('L-13')",
      '// @testIds not-an-annotation',
      '// email@testId.example.com',
    ].join('\n');
    assert.deepEqual(ids(text), ['L-1', 'L-2', 'L-3', 'L-4', 'L-5', 'L-6', 'L-7', 'L-8', 'L-9', 'L 10 with spaces', 'L-11', 'L-12', 'L-13']);
  });

  it('skips keys in line comments and block-comment lines', () => {
    const text = [
      '// { testId: "c1" }',
      '# testId: "c2"',
      ' * testId: "c3"',
      '/* testId: "c4" */',
      '<!-- testId: "c5" -->',
      '{ testId: "kept" } // testId: "c6" is after code, so it still counts',
    ].join('\n');
    assert.deepEqual(ids(text), ['kept', 'c6']);
  });

  it('unescapes quoted values', () => {
    assert.deepEqual(ids(String.raw`{ "testId": "a\"b\u00e9" }` + '\n' + String.raw`{ testId: 'it\'s' }`), ['a"bé', "it's"]);
  });

  it('is CRLF safe: no \\r in IDs, lines counted right', () => {
    const text = '/** @testId CR-1 */\r\n{ "testId": "CR-2" }\r\n  - testId: CR-3\r\n// @testId CR-1\r\n';
    const r = extractTestIdsSync(text, { fileName: 'a.yaml' });
    assert.deepEqual(r.ids, ['CR-1', 'CR-2', 'CR-3']);
    assert.deepEqual(r.duplicates, [{ id: 'CR-1', count: 2, lines: [0, 3] }]);
    assert.ok(r.ids.every((id) => !id.includes('\r')));
  });

  it('keeps unicode IDs whole (accents, CJK, emoji, combining marks)', () => {
    const text = [
      '// @testId тест-001',
      '{ "testId": "测试-二" }',
      '# @testId ✅-𝟘𝟙',
      "{ testId: 'café-e\u0301' }",
      '{ testId: "👩‍💻 pair" }',
    ].join('\n');
    assert.deepEqual(ids(text), ['тест-001', '测试-二', '✅-𝟘𝟙', 'café-e\u0301', '👩‍💻 pair']);
  });

  it('removes duplicates, keeps the first position, reports every line', () => {
    const text = '// @testId A\n// @testId B\n{ testId: "A" }\n{ testId: "C" }\n// @testId B\n// @testId A\n';
    const r = extractTestIdsSync(text);
    assert.deepEqual(r.ids, ['A', 'B', 'C']);
    assert.deepEqual(r.duplicates, [
      { id: 'A', count: 3, lines: [0, 2, 5] },
      { id: 'B', count: 2, lines: [1, 4] },
    ]);
    assert.equal(r.occurrences.length, 6);
  });

  it('skips empty values and counts them', () => {
    const r = extractTestIdsSync('{ testId: "" }\n{ testId: "  " }\n{ testId: "x" }');
    assert.deepEqual(r.ids, ['x']);
    assert.equal(r.emptyMatches, 2);
  });

  it('trims spaces around IDs', () => {
    assert.deepEqual(ids('{ testId: "  padded  " }'), ['padded']);
  });
});

describe('testIds: selections', () => {
  const text = ['// @testId S-1', '// @testId S-2', '{ testId: "S-3" }', '// @testId S-4', '// @testId S-5'].join('\n');
  const lineStart = (n: number): number => text.split('\n').slice(0, n).join('\n').length + (n > 0 ? 1 : 0);

  it('limits to the selected lines, widened to whole lines', () => {
    // From the middle of line 1 to the middle of line 2.
    const r = extractTestIdsSync(text, { selections: [{ start: lineStart(1) + 5, end: lineStart(2) + 3 }] });
    assert.deepEqual(r.ids, ['S-2', 'S-3']);
    assert.equal(r.limitedToSelection, true);
  });

  it('a selection ending at column 0 does not take that line', () => {
    const r = extractTestIdsSync(text, { selections: [{ start: lineStart(1), end: lineStart(3) }] });
    assert.deepEqual(r.ids, ['S-2', 'S-3']);
  });

  it('several selections in any order give document order, overlaps merged', () => {
    const r = extractTestIdsSync(text, {
      selections: [
        { start: lineStart(4), end: lineStart(4) + 3 },
        { start: lineStart(0), end: lineStart(0) + 2 },
        { start: lineStart(0) + 1, end: lineStart(0) + 4 },
      ],
    });
    assert.deepEqual(r.ids, ['S-1', 'S-5']);
  });

  it('empty selections (cursors) mean the whole file', () => {
    const r = extractTestIdsSync(text, { selections: [{ start: 3, end: 3 }] });
    assert.deepEqual(r.ids, ['S-1', 'S-2', 'S-3', 'S-4', 'S-5']);
    assert.equal(r.limitedToSelection, false);
  });

  it('selectionSegments widens and merges', () => {
    // Adjacent whole lines merge into one segment.
    assert.deepEqual(selectionSegments('ab\ncd\nef', [{ start: 4, end: 5 }, { start: 1, end: 2 }]), [{ start: 0, end: 6 }]);
    assert.deepEqual(selectionSegments('ab\ncd\nef', [{ start: 7, end: 8 }, { start: 1, end: 2 }]), [{ start: 0, end: 3 }, { start: 6, end: 8 }]);
    assert.equal(selectionSegments('abc', []), undefined);
  });

  it('custom patterns honour selections too', async () => {
    const r = await extractTestIds(text, { pattern: String.raw`@testId (\S+)`, selections: [{ start: lineStart(3), end: lineStart(4) + 1 }] });
    assert.deepEqual(r.ids, ['S-4', 'S-5']);
  });
});

describe('testIds: bounded scanning', () => {
  it('scans a large file in chunks and finds IDs across chunk boundaries', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 20_000; i++) lines.push(i % 100 === 0 ? `// @testId BIG-${i}` : `const filler${i} = ${i};`);
    const text = lines.join('\n');
    const r = await extractTestIds(text, { chunkChars: 1000 });
    assert.equal(r.ids.length, 200);
    assert.equal(r.ids[0], 'BIG-0');
    assert.equal(r.ids[199], 'BIG-19900');
    assert.equal(r.occurrences[199]?.line, 19_900);
    assert.equal(r.truncated, undefined);
  });

  it('stops at the character cap at a line end and reports the truncation', async () => {
    const text = Array.from({ length: 1000 }, (_, i) => `// @testId T-${i}`).join('\n');
    const r = await extractTestIds(text, { limits: { maxChars: 10_000 } });
    assert.equal(r.truncated?.reason, 'size');
    assert.equal(r.truncated?.totalChars, text.length);
    assert.ok(r.truncated.scannedChars <= 10_000);
    assert.ok(r.ids.length > 100 && r.ids.length < 1000);
    // The last ID was not cut in half.
    assert.match(r.ids[r.ids.length - 1] ?? '', /^T-\d+$/);
    const lastNumber = Number((r.ids[r.ids.length - 1] ?? '').slice(2));
    assert.equal(r.ids.length, lastNumber + 1);
  });

  it('never splits a surrogate pair at the cap', async () => {
    const text = `{ testId: "${'😀'.repeat(10)}" }`;
    const r = await extractTestIds(text, { limits: { maxChars: 12 } });
    assert.equal(r.truncated?.reason, 'size');
    assert.deepEqual(r.ids, []);
  });

  it('stops at the time budget and yields to the event loop while scanning', async () => {
    const text = Array.from({ length: 200_000 }, (_, i) => `{ testId: "ID-${i}" }, // ${'x'.repeat(40)}`).join('\n');
    // The clock moves 1 ms per deadline check, and a ticker counts the event loop's turns: a
    // wall clock and a 1 ms interval raced (a busy machine could use up 30 ms between two checks
    // before the interval ever ran).
    let clock = 0;
    let turns = 0;
    let ticking = true;
    const tick = (): void => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    try {
      const r = await extractTestIds(text, { chunkChars: 4096, now: () => clock++, limits: { timeBudgetMs: 30, maxOccurrences: 1e9 } });
      assert.equal(r.truncated?.reason, 'time');
      assert.ok(r.truncated.scannedChars < text.length);
      assert.ok((r.truncated.line ?? 0) > 0);
      assert.ok(r.ids.length > 0 && r.ids.length < 200_000);
    } finally {
      ticking = false;
    }
    assert.ok(turns >= 25, `the event loop turned ${turns} times while scanning`);
  });

  it('stops at the ID cap', async () => {
    const text = Array.from({ length: 100 }, (_, i) => `// @testId C-${i}`).join('\n');
    const r = await extractTestIds(text, { limits: { maxOccurrences: 10 } });
    assert.equal(r.truncated?.reason, 'count');
    assert.equal(r.ids.length, 10);
    assert.equal(r.truncated.line, 9);
  });

  it('a 5 MB file with no IDs finishes quickly', async () => {
    const text = 'const x = 1; // nothing here\n'.repeat(180_000);
    const started = Date.now();
    const r = await extractTestIds(text);
    assert.deepEqual(r.ids, []);
    assert.equal(r.truncated, undefined);
    assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
  });

  it('a catastrophic user pattern is stopped at the deadline without blocking', async () => {
    const text = `${'a'.repeat(40)}!`;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = Date.now();
    try {
      const r = await extractTestIds(text, { pattern: '((?:a+)+)$', limits: { timeBudgetMs: 300 } });
      assert.equal(r.truncated?.reason, 'time');
      assert.deepEqual(r.ids, []);
    } finally {
      clearInterval(timer);
    }
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 3000, `took ${elapsed} ms`);
    assert.ok(ticks >= 10, `the event loop ran ${ticks} times while the worker was stuck`);
  });

  it('cancellation stops the scan and says so', async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await extractTestIds('// @testId A\n', { signal: controller.signal });
    assert.equal(r.truncated?.reason, 'cancelled');
  });
});

/**
 * Counts the characters `String#indexOf` and `lastIndexOf` look at while `run` runs: a measure
 * of the scan's own searching that does not depend on the machine's speed or load.
 */
function searchedChars<T>(run: () => T): { result: T; searched: number } {
  const proto = String.prototype;
  // Kept to be called with an explicit `this` and put back afterwards.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const { indexOf, lastIndexOf } = proto;
  let searched = 0;
  proto.indexOf = function (this: string, search: string, position?: number): number {
    const from = Math.min(Math.max(Math.trunc(position ?? 0) || 0, 0), this.length);
    const at = indexOf.call(this, search, position);
    searched += (at === -1 ? this.length : at) - from;
    return at;
  };
  proto.lastIndexOf = function (this: string, search: string, position?: number): number {
    const from = position === undefined ? this.length : Math.min(Math.max(Math.trunc(position) || 0, 0), this.length);
    const at = lastIndexOf.call(this, search, position);
    searched += from - (at === -1 ? 0 : at);
    return at;
  };
  try {
    const result = run();
    return { result, searched };
  } finally {
    proto.indexOf = indexOf;
    proto.lastIndexOf = lastIndexOf;
  }
}

/** A single-line JSON array of `count` objects, each with a `"testId"` key, about `chars` long. */
function oneLineJson(count: number, chars: number): string {
  const pad = 'x'.repeat(Math.max(0, Math.floor(chars / count) - 50));
  return `[${Array.from({ length: count }, (_, i) => `{"testId":"T-${i}","name":"case ${i}","pad":"${pad}"}`).join(',')}]`;
}

describe('testIds: long lines (linear time, the time box inside a line)', () => {
  const json = oneLineJson(10_000, 5 * 1024 * 1024);

  it('a 5 MB one-line JSON file with 10,000 IDs: every ID, each character searched about once', () => {
    assert.ok(json.length > 5_000_000 && !json.includes('\n'));
    const { result, searched } = searchedChars(() => extractTestIdsSync(json, { fileName: 'cases.json', limits: { timeBudgetMs: 600_000 } }));
    assert.equal(result.ids.length, 10_000);
    assert.equal(result.ids[9999], 'T-9999');
    assert.equal(result.occurrences[9999]?.line, 0);
    // Exactly the ID cap (10,000) is all there is: not a truncation.
    assert.equal(result.truncated, undefined);
    // Searching back to the line start and forward to the next line break from each match
    // looked at ~10,000 × 5 MB characters.
    assert.ok(searched <= 3 * json.length, `searched ${searched} characters of ${json.length}`);
  });

  it('thousands of selections on one long line are widened in one pass', () => {
    // Select all occurrences of `testId`, in the order an editor may give them.
    const selections = [...json.matchAll(/testId/g)].map((m) => ({ start: m.index, end: m.index + 6 })).reverse();
    assert.equal(selections.length, 10_000);
    const { result, searched } = searchedChars(() => selectionSegments(json, selections));
    assert.deepEqual(result, [{ start: 0, end: json.length }]);
    assert.ok(searched <= 3 * json.length, `searched ${searched} characters of ${json.length}`);
  });

  it('widening in one pass keeps the lines and merges of the selections', () => {
    const text = 'aa\nbb\ncc\ndd\nee\n';
    // Out of order, overlapping, adjacent lines, an end at column 0, one line apart.
    assert.deepEqual(selectionSegments(text, [{ start: 13, end: 14 }, { start: 0, end: 1 }, { start: 1, end: 2 }, { start: 7, end: 9 }, { start: 9, end: 10 }]), [
      { start: 0, end: 3 }, { start: 6, end: 15 },
    ]);
    assert.deepEqual(selectionSegments(text, [{ start: 0, end: 1 }, { start: 7, end: 8 }]), [{ start: 0, end: 3 }, { start: 6, end: 9 }]);
    assert.deepEqual(selectionSegments(text, [{ start: 4, end: 6 }, { start: 3, end: 4 }]), [{ start: 3, end: 6 }]);
    assert.deepEqual(selectionSegments(text, [{ start: 15, end: 20 }]), [{ start: 15, end: 15 }]);
  });

  it('a bare YAML value followed by a long run of blanks is read in linear time', () => {
    // The lazy value before `[ \t]*$` retried the run from each of its blanks: 200,000 spaces took minutes.
    const text = `testId: a${' '.repeat(200_000)}b\n- testId: c${'\t '.repeat(100_000)}# note\ntestId: d ${' '.repeat(100_000)}\n`;
    const started = Date.now();
    const r = extractTestIdsSync(text, { fileName: 'cases.yaml' });
    const elapsed = Date.now() - started;
    assert.deepEqual(r.ids, [`a${' '.repeat(200_000)}b`, 'c', 'd']);
    assert.ok(elapsed < 2000, `took ${elapsed} ms (linear: a few ms)`);
  });

  it('the time budget stops the scan inside one long line (injected clock)', async () => {
    let clock = 0;
    const now = (): number => clock++;
    const text = oneLineJson(200, 200 * 100);
    const r = await extractTestIds(text, { chunkChars: 1000, now, limits: { timeBudgetMs: 5, maxOccurrences: 1e9 } });
    assert.equal(r.truncated?.reason, 'time');
    assert.equal(r.truncated.line, 0);
    assert.ok(r.truncated.scannedChars > 0 && r.truncated.scannedChars < text.length, `scanned ${r.truncated.scannedChars} of ${text.length}`);
    assert.ok(r.ids.length > 0 && r.ids.length < 200, `${r.ids.length} IDs`);
    // The synchronous scan checks the same deadline.
    clock = 0;
    const s = extractTestIdsSync(text, { chunkChars: 1000, now, limits: { timeBudgetMs: 5, maxOccurrences: 1e9 } });
    assert.equal(s.truncated?.reason, 'time');
    assert.deepEqual(s.ids, r.ids);
  });

  it('yields to the event loop inside one long line: a cancel lands mid-line', async () => {
    const controller = new AbortController();
    setImmediate(() => controller.abort());
    const r = await extractTestIds(json, { chunkChars: 4096, signal: controller.signal });
    assert.equal(r.truncated?.reason, 'cancelled');
    assert.ok(r.truncated.scannedChars > 0 && r.truncated.scannedChars < json.length, `scanned ${r.truncated.scannedChars} of ${json.length}`);
    assert.ok(r.ids.length > 0 && r.ids.length < 10_000, `${r.ids.length} IDs`);
  });

  it('pausing inside a line finds the same IDs as one pass', async () => {
    const text = oneLineJson(300, 300 * 60);
    const whole = extractTestIdsSync(text);
    const paused = await extractTestIds(text, { chunkChars: 7 });
    assert.equal(whole.ids.length, 300);
    assert.deepEqual(paused.occurrences, whole.occurrences);
  });

  it('exactly the ID cap is not a truncation; one more is (built-in, in-thread and worker patterns)', async () => {
    const lines = (n: number): string => Array.from({ length: n }, (_, i) => `// @testId C-${i}`).join('\n');
    const limits = { maxOccurrences: 10 };
    assert.equal((await extractTestIds(lines(10), { limits })).truncated, undefined);
    assert.equal(extractTestIdsSync(lines(10), { limits }).truncated, undefined);
    assert.equal((await extractTestIds(lines(10), { limits, pattern: String.raw`@testId (\S+)` })).truncated, undefined);
    assert.equal((await extractTestIds(lines(10), { limits, pattern: String.raw`@testId (\S+)`, inThread: true })).truncated, undefined);
    for (const options of [{}, { pattern: String.raw`@testId (\S+)` }, { pattern: String.raw`@testId (\S+)`, inThread: true }]) {
      const r = await extractTestIds(lines(11), { limits, ...options });
      assert.equal(r.truncated?.reason, 'count', JSON.stringify(options));
      assert.equal(r.ids.length, 10);
      assert.equal(r.truncated.line, 9);
      assert.equal(r.truncated.scannedChars, lines(10).length - 3);
    }
  });
});

describe('testIds: custom patterns', () => {
  it('uses the one capture group, in a worker', async () => {
    const r = await extractTestIds('it("x") // TC=1\nit("y") // TC=22\nit("z") // TC=1', { pattern: String.raw`TC=(\d+)` });
    assert.deepEqual(r.ids, ['1', '22']);
    assert.equal(r.convention, 'custom');
    assert.deepEqual(r.duplicates, [{ id: '1', count: 2, lines: [0, 2] }]);
  });

  it('accepts a named group and /literal/flags', async () => {
    const r = await extractTestIds('Case: abc\ncase: DEF', { pattern: String.raw`/^case: (?<id>\w+)$/i` });
    assert.deepEqual(r.ids, ['abc', 'DEF']);
  });

  it('^ and $ work per line (multiline) and CRLF does not leak into IDs', async () => {
    const r = await extractTestIds('id A-1\r\nid A-2\r\n', { pattern: String.raw`^id (.+)$` });
    assert.deepEqual(r.ids, ['A-1', 'A-2']);
  });

  it('runs in-thread for tests and agrees with the worker', async () => {
    const text = '[T1] [T2] [T1]';
    const a = await extractTestIds(text, { pattern: String.raw`\[(T\d)\]` });
    const b = await extractTestIds(text, { pattern: String.raw`\[(T\d)\]`, inThread: true });
    assert.deepEqual(a.ids, b.ids);
    assert.deepEqual(a.occurrences, b.occurrences);
  });

  it('handles a zero-width match with a capture in a lookahead', async () => {
    const r = await extractTestIds('k=1 k=2', { pattern: String.raw`(?=k=(\d))` });
    assert.deepEqual(r.ids, ['1', '2']);
  });

  it('unicode with the u flag', async () => {
    const r = await extractTestIds('T:😀1 T:é2', { pattern: String.raw`/T:(\p{L}\d|\p{Extended_Pictographic}\d)/u` });
    assert.deepEqual(r.ids, ['😀1', 'é2']);
  });

  it('rejects invalid syntax with the regex error', () => {
    const p = problemOf('testId: ([a-z+');
    assert.equal(p.kind, 'invalid');
    assert.match(p.kind === 'invalid' ? p.detail : '', /unterminated character class|Unterminated/i);
    assert.throws(() => compileTestIdPattern('(a'), (e: unknown) => e instanceof TestIdPatternError && /not a valid regular expression: .+/.test(e.message));
  });

  it('rejects a pattern with no capture group', () => {
    assert.deepEqual(problemOf(String.raw`testId: \w+`), { kind: 'groupCount', groups: 0 });
    assert.deepEqual(problemOf(String.raw`testId: (?:\w+)`), { kind: 'groupCount', groups: 0 });
  });

  it('rejects a pattern with two capture groups', () => {
    assert.deepEqual(problemOf(String.raw`(testId): (\w+)`), { kind: 'groupCount', groups: 2 });
    assert.deepEqual(problemOf(String.raw`(?<a>x)|(?<b>y)`), { kind: 'groupCount', groups: 2 });
  });

  it('rejects a pattern that matches the empty string', () => {
    assert.deepEqual(problemOf(String.raw`(\w*)`), { kind: 'matchesEmpty' });
    assert.deepEqual(problemOf(String.raw`/(x)?/i`), { kind: 'matchesEmpty' });
  });

  it('rejects unsupported flags and over-long patterns', () => {
    assert.equal(problemOf('/(x)/q').kind, 'invalidFlags');
    assert.equal(problemOf(`(x)${'a'.repeat(2000)}`).kind, 'tooLong');
  });

  it('extractTestIds throws the pattern error', async () => {
    await assert.rejects(extractTestIds('x', { pattern: '(' }), TestIdPatternError);
  });

  it('an empty pattern setting means the built-in convention', async () => {
    const r = await extractTestIds('// @testId A', { pattern: '   ' });
    assert.equal(r.convention, 'default');
    assert.deepEqual(r.ids, ['A']);
  });

  it('a pattern whose capture can be empty skips empty IDs', async () => {
    const r = await extractTestIds('id=\nid=x', { pattern: String.raw`id=(\w*)` });
    assert.deepEqual(r.ids, ['x']);
    assert.equal(r.emptyMatches, 1);
  });
});

describe('testIds: test file globs', () => {
  const matcher = compileTestFileGlobs(DEFAULT_TEST_FILE_PATTERNS);
  const testFiles = [
    'src/checkout.test.ts', 'a.spec.js', 'pkg/login_test.go', 'test_login.py', 'src/CartTest.java',
    'src/CartTests.cs', 'test/helpers.ts', 'tests/data/cases.yaml', 'web/__tests__/App.tsx', 'spec/models/user_spec.rb',
    'deep/a/b/c/x.test.mjs',
  ];
  const otherFiles = ['src/index.ts', 'README.md', 'src/contest.ts', 'src/latest.ts', 'testing/a.ts', 'src/attest.js', 'src/tests.ts', 'mytests/a.ts'];

  for (const f of testFiles) it(`matches ${f}`, () => assert.equal(matcher.matches(f), true));
  for (const f of otherFiles) it(`does not match ${f}`, () => assert.equal(matcher.matches(f), false));

  it('accepts Windows separators and ./ prefixes', () => {
    assert.equal(matcher.matches('src\\checkout.test.ts'), true);
    assert.equal(matcher.matches('./tests/a.ts'), true);
  });

  it('converts globs to anchored regexes', () => {
    assert.equal(globToRegExpSource('*.ts'), String.raw`^[^\/]*\.ts$`);
    assert.equal(globToRegExpSource('**/a'), String.raw`^(?:.*\/)?a$`);
    assert.equal(globToRegExpSource('a/**'), String.raw`^a\/.*$`);
    const re = (g: string): RegExp => new RegExp(globToRegExpSource(g));
    assert.equal(re('*.ts').test('a.ts'), true);
    assert.equal(re('*.ts').test('src/a.ts'), false);
    assert.equal(re('src/**/*.ts').test('src/a.ts'), true);
    assert.equal(re('src/**/*.ts').test('src/x/y/a.ts'), true);
    assert.equal(re('**/*.{ts,js}').test('x/a.js'), true);
    assert.equal(re('**/*.{ts,js}').test('x/a.py'), false);
    assert.equal(re('**/{a,{b,c}}.ts').test('c.ts'), true);
    assert.equal(re('file?.ts').test('file1.ts'), true);
    assert.equal(re('file?.ts').test('file/.ts'), false);
    assert.equal(re('[!a]*.ts').test('b.ts'), true);
    assert.equal(re('[!a]*.ts').test('a.ts'), false);
    assert.equal(re('[ab].ts').test('b.ts'), true);
    assert.equal(re('a(b)+.ts').test('a(b)+.ts'), true);
    assert.equal(re('/abs/**').test('abs/x'), true);
    assert.equal(re('tests\\**').test('tests/x.ts'), true);
  });

  it('ignores empty and non-string entries', () => {
    const m = compileTestFileGlobs(['', '  ', 3, null, '**/*.it.ts']);
    assert.deepEqual(m.patterns, ['**/*.it.ts']);
    assert.equal(m.matches('a/b.it.ts'), true);
  });

  it('the when-clause regex matches absolute paths (both separators) like the globs match relative ones', () => {
    const literal = globsToWhenClauseRegex(DEFAULT_TEST_FILE_PATTERNS);
    assert.ok(literal.startsWith('/') && literal.endsWith('/'));
    const body = literal.slice(1, -1);
    assert.ok(!/(?<!\\)\//.test(body), 'every / is escaped');
    const re = new RegExp(body);
    for (const f of testFiles) {
      assert.equal(re.test(`/home/me/project/${f}`), true, f);
      assert.equal(re.test(`C:\\work\\project\\${f.replace(/\//g, '\\')}`), true, f);
    }
    for (const f of otherFiles) {
      assert.equal(re.test(`/home/me/project/${f}`), false, f);
      assert.equal(re.test(`C:\\work\\project\\${f.replace(/\//g, '\\')}`), false, f);
    }
    assert.equal(globsToWhenClauseRegex([]), '/^$/');
  });

  it('package.json declares the same defaults and the generated regex in the menus and the palette', () => {
    interface Pkg {
      contributes: {
        configuration: { properties: Record<string, { default?: unknown }> } | { properties: Record<string, { default?: unknown }> }[];
        menus: Record<string, { command: string; when?: string }[]>;
      };
    }
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Pkg;
    const configs = Array.isArray(pkg.contributes.configuration) ? pkg.contributes.configuration : [pkg.contributes.configuration];
    const setting = configs.map((c) => c.properties['agentRuns.testFiles.patterns']).find((p) => p !== undefined);
    assert.deepEqual(setting?.default, [...DEFAULT_TEST_FILE_PATTERNS]);
    // The palette offers them only with a test file in the active editor, like the editor's menu.
    const needFiles = ['agentRuns.testGroups.create', 'agentRuns.testGroups.startRun'];
    for (const menu of ['explorer/context', 'editor/context', 'commandPalette']) {
      const entries = (pkg.contributes.menus[menu] ?? []).filter((m) => needFiles.includes(m.command));
      assert.equal(entries.length, 2, menu);
      for (const e of entries) {
        assert.ok(e.when?.includes(`resourcePath =~ ${globsToWhenClauseRegex(DEFAULT_TEST_FILE_PATTERNS)}`), `${menu}: ${e.when}`);
        assert.ok(e.when?.includes('agentRuns.testFiles.customPatterns'), `${menu}: custom patterns are not handled`);
      }
    }
  });
});

describe('testIds: names, merging and the prompt', () => {
  it('derives a name from the file name', () => {
    assert.equal(testNameFromFileName('src/checkout.test.ts'), 'checkout');
    assert.equal(testNameFromFileName('login.spec.yaml'), 'login');
    assert.equal(testNameFromFileName('pkg/login_test.go'), 'login');
    assert.equal(testNameFromFileName('test_payment.py'), 'payment');
    assert.equal(testNameFromFileName('CartTest.java'), 'Cart');
    assert.equal(testNameFromFileName('CartTests.cs'), 'Cart');
    assert.equal(testNameFromFileName('tests\\cases.yaml'), 'cases');
    assert.equal(testNameFromFileName('test.ts'), 'test');
    assert.equal(testNameFromFileName('.hidden.test.js'), 'hidden');
    assert.equal(testNameFromFileName('Makefile'), 'Makefile');
    assert.equal(testNameFromFileName('支付.test.ts'), '支付');
  });

  it('joins up to three names, then an ellipsis', () => {
    assert.equal(defaultGroupName(['a.test.ts']), 'a');
    assert.equal(defaultGroupName(['a.test.ts', 'b.spec.ts']), 'a, b');
    assert.equal(defaultGroupName(['a.test.ts', 'a.spec.ts']), 'a');
    assert.equal(defaultGroupName(['a.test.ts', 'b.test.ts', 'c.test.ts', 'd.test.ts']), 'a, b, c, …');
  });

  it('merges files in order and reports IDs found in several files', () => {
    const r = (found: string[]): ExtractResult => ({
      ids: found, occurrences: [], duplicates: [], emptyMatches: 0, convention: 'default', limitedToSelection: false,
    });
    const merged = mergeFileTestIds([
      { file: 'b.test.ts', result: r(['B1', 'X']) },
      { file: 'none.test.ts', result: r([]) },
      { file: 'a.test.ts', result: r(['X', 'A1']) },
    ]);
    assert.deepEqual(merged.ids, [{ id: 'B1', file: 'b.test.ts' }, { id: 'X', file: 'b.test.ts' }, { id: 'A1', file: 'a.test.ts' }]);
    assert.deepEqual(merged.crossFileDuplicates, [{ id: 'X', files: ['b.test.ts', 'a.test.ts'] }]);
    assert.deepEqual(merged.filesWithoutIds, ['none.test.ts']);
  });

  const promptText = {
    one: (file: string, ids: string) => `Tests in ${file}: ${ids}`,
    many: (count: number, names: string) => `Tests in ${count} files (${names}):`,
    noIds: 'no test IDs found',
    linesLabel: (f: number, t: number) => `lines ${f}–${t}`,
  };

  it('builds a one-line run prompt for one file', () => {
    assert.equal(buildTestsPrompt([{ file: 'src/a.test.ts', ids: ['A-1', 'A-2'] }], promptText), 'Tests in src/a.test.ts: A-1, A-2');
    assert.equal(buildTestsPrompt([{ file: 'b.spec.ts', ids: ['B'], lines: { from: 3, to: 9 } }], promptText), 'Tests in b.spec.ts (lines 3–9): B');
  });

  it('builds a summary line and one line per file, in order, for several files', () => {
    const prompt = buildTestsPrompt(
      [{ file: 'tests/login.spec.yaml', ids: ['L-1'] }, { file: 'cart.test.json', ids: [], lines: { from: 3, to: 9 } }],
      promptText,
    );
    assert.equal(prompt, 'Tests in 2 files (login.spec.yaml, cart.test.json):\n- tests/login.spec.yaml: L-1\n- cart.test.json (lines 3–9): no test IDs found');
    const four = buildTestsPrompt(['a', 'b', 'c', 'd'].map((f) => ({ file: `x/${f}.test.ts`, ids: ['1'] })), promptText);
    assert.ok(four.startsWith('Tests in 4 files (a.test.ts, b.test.ts, c.test.ts, …):\n'));
  });
});
