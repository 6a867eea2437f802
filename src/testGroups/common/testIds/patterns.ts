/**
 * The user's test ID pattern (`agentRuns.testIds.pattern`): checked and compiled here; it runs
 * in a worker (worker.ts) because it may backtrack catastrophically.
 */

export const MAX_PATTERN_LENGTH = 1000;

export type PatternProblem =
  | { kind: 'invalid'; detail: string }
  | { kind: 'invalidFlags'; detail: string }
  | { kind: 'groupCount'; groups: number }
  | { kind: 'matchesEmpty' }
  | { kind: 'tooLong'; max: number };

export class TestIdPatternError extends Error {
  constructor(readonly pattern: string, readonly problem: PatternProblem) {
    super(describePatternProblem(pattern, problem));
    this.name = 'TestIdPatternError';
  }
}

/** An English description; the extension shows its own localised text built from `problem`. */
export function describePatternProblem(pattern: string, problem: PatternProblem): string {
  switch (problem.kind) {
    case 'invalid':
      return `The test ID pattern ${pattern} is not a valid regular expression: ${problem.detail}`;
    case 'invalidFlags':
      return `The test ID pattern ${pattern} has unsupported flags: ${problem.detail}`;
    case 'groupCount':
      return `The test ID pattern ${pattern} must have exactly one capture group (the test ID); it has ${problem.groups}.`;
    case 'matchesEmpty':
      return `The test ID pattern ${pattern} matches empty text, so it would match everywhere.`;
    case 'tooLong':
      return `The test ID pattern is longer than ${problem.max} characters.`;
  }
}

export interface CompiledPattern {
  source: string;
  /** Always includes `g`, `d` and `m`. */
  flags: string;
}

const ALLOWED_USER_FLAGS = new Set(['i', 'm', 's', 'u', 'v']);

/**
 * A user pattern (`testId=(\w+)` or `/testId=(\w+)/i`) to scan with; `TestIdPatternError` unless it
 * compiles with exactly one capture group and cannot match empty text (it would match everywhere).
 */
export function compileTestIdPattern(pattern: string): CompiledPattern {
  if (pattern.length > MAX_PATTERN_LENGTH) throw new TestIdPatternError(pattern, { kind: 'tooLong', max: MAX_PATTERN_LENGTH });
  let source = pattern;
  let userFlags = '';
  const literal = /^\/([^]*)\/([a-z]*)$/.exec(pattern.trim());
  if (literal && literal[1] !== '') {
    source = literal[1];
    userFlags = literal[2];
    const bad = [...userFlags].filter((f) => !ALLOWED_USER_FLAGS.has(f) && !'gdy'.includes(f));
    if (bad.length > 0) {
      throw new TestIdPatternError(pattern, { kind: 'invalidFlags', detail: `${bad.join('')} (allowed: i, m, s, u, v)` });
    }
    userFlags = [...new Set(userFlags.replace(/[gdy]/g, ''))].join('');
  }
  const flags = `gdm${userFlags.replace('m', '')}`;
  let groups: number;
  try {
    new RegExp(source, flags);
    // `x|` always matches '' through its empty branch, so exec returns every group.
    groups = (new RegExp(`${source}|`, flags.replace('g', '')).exec('')?.length ?? 1) - 1;
  } catch (e) {
    const detail = e instanceof Error ? e.message.replace(/^Invalid regular expression: /, '') : String(e);
    throw new TestIdPatternError(pattern, { kind: 'invalid', detail });
  }
  if (groups !== 1) throw new TestIdPatternError(pattern, { kind: 'groupCount', groups });
  if (new RegExp(`^(?:${source})$`, flags.replace('g', '')).test('')) {
    throw new TestIdPatternError(pattern, { kind: 'matchesEmpty' });
  }
  return { source, flags };
}
