/**
 * Which paths are test files. Its own module because activation's context keys need only this;
 * stateless, as it is bundled both there and with the scanner.
 */

/**
 * Default `agentRuns.testFiles.patterns`. Keep in sync with package.json (a unit test checks,
 * including the `explorer/context` regex generated from this list).
 */
export const DEFAULT_TEST_FILE_PATTERNS: readonly string[] = [
  '**/*.test.*',
  '**/*.spec.*',
  '**/*_test.*',
  '**/*_spec.*',
  '**/test_*.*',
  '**/*Test.*',
  '**/*Tests.*',
  '**/test/**',
  '**/tests/**',
  '**/__tests__/**',
  '**/spec/**',
];

type Separators = 'posix' | 'any';

function sepClass(seps: Separators): { sep: string; notSep: string } {
  return seps === 'posix' ? { sep: '\\/', notSep: '[^\\/]' } : { sep: '[\\/\\\\]', notSep: '[^\\/\\\\]' };
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/]/;

function escapeChar(ch: string): string {
  return REGEX_SPECIAL.test(ch) ? `\\${ch}` : ch;
}

/** Splits `a,{b,c},d` at top-level commas. */
function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === '{') depth++;
    else if (ch === '}') depth--;
    else if (ch === ',' && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

function findClosingBrace(glob: string, open: number): number {
  let depth = 0;
  for (let i = open; i < glob.length; i++) {
    if (glob[i] === '{') depth++;
    else if (glob[i] === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function translate(glob: string, seps: Separators): string {
  const { sep, notSep } = sepClass(seps);
  let out = '';
  let i = 0;
  while (i < glob.length) {
    const ch = glob[i];
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        const atSegmentStart = i === 0 || glob[i - 1] === '/';
        let j = i;
        while (glob[j] === '*') j++;
        const atSegmentEnd = j === glob.length || glob[j] === '/';
        if (atSegmentStart && atSegmentEnd) {
          if (j === glob.length) {
            // `a/**` or a lone `**`: anything below (the separator was already emitted).
            out += '.*';
            i = j;
          } else {
            // `**/`: zero or more whole segments.
            out += `(?:.*${sep})?`;
            i = j + 1;
          }
          continue;
        }
        // `a**b` is just a `*`.
        out += `${notSep}*`;
        i = j;
        continue;
      }
      out += `${notSep}*`;
      i++;
      continue;
    }
    if (ch === '?') {
      out += notSep;
      i++;
      continue;
    }
    if (ch === '/') {
      out += sep;
      i++;
      continue;
    }
    if (ch === '{') {
      const close = findClosingBrace(glob, i);
      if (close > i) {
        const alternatives = splitTopLevel(glob.slice(i + 1, close)).map((part) => translate(part, seps));
        out += `(?:${alternatives.join('|')})`;
        i = close + 1;
        continue;
      }
      out += '\\{';
      i++;
      continue;
    }
    if (ch === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close > i) {
        let body = glob.slice(i + 1, close);
        const negated = body.startsWith('!') || body.startsWith('^');
        if (negated) body = body.slice(1);
        const escaped = body.replace(/[\\\]/^[]/g, (c) => `\\${c}`);
        const seps2 = seps === 'posix' ? '\\/' : '\\/\\\\';
        out += negated ? `[^${escaped}${seps2}]` : `[${escaped}]`;
        i = close + 1;
        continue;
      }
      out += '\\[';
      i++;
      continue;
    }
    out += escapeChar(ch);
    i++;
  }
  return out;
}

/** Normalises a glob as people write it: trimmed, `\` as a separator, no leading `./` or `/`. */
export function normalizeGlob(glob: string): string {
  let g = glob.trim().replace(/\\/g, '/').replace(/\/{2,}/g, '/');
  while (g.startsWith('./')) g = g.slice(2);
  while (g.startsWith('/')) g = g.slice(1);
  return g;
}

/**
 * The regular expression source (no delimiters) that matches a workspace-relative path with
 * `/` separators exactly as the glob does: `**` spans segments, `*` and `?` stay within one,
 * `{a,b}` alternates, `[abc]` / `[!abc]` are classes.
 */
export function globToRegExpSource(glob: string): string {
  return `^${translate(normalizeGlob(glob), 'posix')}$`;
}

export interface TestFileMatcher {
  /** True when the workspace-relative path (either separator) matches one of the globs. */
  matches(relativePath: string): boolean;
  /** The globs that were usable (non-empty strings). */
  readonly patterns: readonly string[];
}

/** Compiles the test-file globs into one matcher. Non-strings and empty entries are ignored. */
export function compileTestFileGlobs(globs: readonly unknown[]): TestFileMatcher {
  const patterns = globs.filter((g): g is string => typeof g === 'string' && normalizeGlob(g) !== '');
  const regexes = patterns.map((g) => new RegExp(globToRegExpSource(g)));
  return {
    patterns,
    matches(relativePath: string): boolean {
      let path = relativePath.replace(/\\/g, '/');
      while (path.startsWith('./')) path = path.slice(2);
      return regexes.some((re) => re.test(path));
    },
  };
}

/**
 * A `/…/` regex for `when` clauses. `resourcePath` is absolute, so each glob matches from any path
 * segment, as if it started with `**` (exact for the built-in globs, which do); every `/` is escaped
 * so the when-clause scanner never ends the literal early.
 */
export function globsToWhenClauseRegex(globs: readonly string[]): string {
  const alternatives = globs
    .map(normalizeGlob)
    .filter((g) => g !== '')
    .map((g) => {
      let rest = g;
      while (rest.startsWith('**/')) rest = rest.slice(3);
      return rest === '**' ? '.*' : translate(rest, 'any');
    });
  if (alternatives.length === 0) return '/^$/';
  return `/(?:^|[\\/\\\\])(?:${alternatives.join('|')})$/`;
}
