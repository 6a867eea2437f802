/**
 * The built-in test ID convention: one regular expression for keys, annotations and
 * decorators (and bare YAML values in YAML files), and how a match becomes an ID.
 */
import type { LineIndex } from './lines';
import type { RawMatch } from './types';

/*
 * One regex; the first defined group is the ID (branches: key, annotation, decorator; in YAML a
 * first branch for a bare value). Every branch stays on one line (chunked scans) and none can
 * split a text two ways, so it runs in linear time.
 */
const KEY = String.raw`(?<![\w$@.])(?:"testId"|'testId'|testId)[ \t]*:[ \t]*(?:"((?:[^"\\\r\n]|\\.)*)"|'((?:[^'\\\r\n]|\\.)*)'|` +
  '`' + String.raw`([^` + '`' + String.raw`\\\r\n$]*)` + '`)';
const ANNOTATION = String.raw`@[tT]estId(?:[ \t]*:[ \t]*|[ \t]+)(?:"([^"\r\n]+)"|'([^'\r\n]+)'|([^\s"'` + '`' + String.raw`]+))`;
const DECORATOR = String.raw`@[tT]estId\([ \t]*(?:"([^"\r\n]+)"|'([^'\r\n]+)')[ \t]*\)`;
// A bare YAML value ends where a run of blanks meets a `#` comment or the line's end. Words
// and blank runs alternate and cannot overlap; a lazy `[^\r\n]*?` before `[ \t]*$` (as this
// was) retried a blank run from each of its characters: seconds for 50,000 spaces.
const YAML_VALUE_START = String.raw`[^\s"'#&*!|>{}\[\],` + '`' + String.raw`@%]`;
const YAML_BARE = String.raw`^[ \t]*(?:-[ \t]+)?testId[ \t]*:[ \t]+(` + YAML_VALUE_START +
  String.raw`(?:[^ \t\r\n\u2028\u2029]|[ \t]+(?=[^ \t#\r\n\u2028\u2029]))*)[ \t]*(?:[ \t]#[^\r\n]*)?$`;

const DEFAULT_SOURCE = `${KEY}|${ANNOTATION}|${DECORATOR}`;
const DEFAULT_SOURCE_YAML = `${YAML_BARE}|${DEFAULT_SOURCE}`;

/** Where the key branch sits in each default regex (1-based group of the first key group). */
const KEY_GROUPS_DEFAULT = [1, 2, 3];
const KEY_GROUPS_YAML = [2, 3, 4];

export function isYamlFile(fileName: string | undefined): boolean {
  return fileName !== undefined && /\.ya?ml$/i.test(fileName);
}

/** Lines starting like a comment hold commented-out definitions: keys there do not count. */
const COMMENT_LINE_START = /^[ \t]*(?:\/\/|#|\/\*|\*|<!--|--|;)/;

function unescapeQuoted(raw: string, quote: '"' | "'" | '`'): string {
  if (!raw.includes('\\')) return raw;
  if (quote === '"') {
    try {
      const parsed: unknown = JSON.parse(`"${raw}"`);
      if (typeof parsed === 'string') return parsed;
    } catch {
      // Not JSON-escaped: fall through to the simple rule.
    }
  }
  return raw.replace(/\\(.)/g, '$1');
}

// Trailing comment closers that hug an annotation's ID (`@testId A-1*` + `/`, `@testId A-1-->`).
function trimAnnotationId(id: string): string {
  return id.replace(/(?:\*\/|-->|[,;)])+$/, '');
}

/**
 * Interprets one match of a default regex: the first defined group is the ID. `lines` finds
 * the match's line start (matches come in order) for the commented-out check.
 */
export function defaultMatchToRaw(text: string, m: RegExpExecArray, yaml: boolean, lines: LineIndex): RawMatch | undefined {
  const keyGroups = yaml ? KEY_GROUPS_YAML : KEY_GROUPS_DEFAULT;
  for (let g = 1; g < m.length; g++) {
    const value = m[g];
    if (value === undefined) continue;
    const at = m.indices?.[g]?.[0] ?? m.index;
    if (keyGroups.includes(g)) {
      const lineStart = lines.lineStartOf(m.index);
      if (COMMENT_LINE_START.test(text.slice(lineStart, m.index))) return undefined;
      const quote = g === keyGroups[0] ? '"' : g === keyGroups[1] ? "'" : '`';
      return { id: unescapeQuoted(value, quote), offset: at };
    }
    const isAnnotationBare = g === (yaml ? 7 : 6);
    return { id: isAnnotationBare ? trimAnnotationId(value) : value, offset: at };
  }
  return undefined;
}

/** The built-in convention's regex for a file (YAML files also take bare values). */
export function conventionRegExp(yaml: boolean): RegExp {
  return new RegExp(yaml ? DEFAULT_SOURCE_YAML : DEFAULT_SOURCE, 'gdm');
}
