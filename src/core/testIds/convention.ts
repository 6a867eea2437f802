/**
 * The built-in test ID convention: one regular expression for keys, annotations and
 * decorators (and bare YAML values in YAML files), and how a match becomes an ID.
 */
import type { RawMatch } from './types';

/*
 * One regex, several branches; the first defined group is the ID. All branches stay on one
 * line ([ \t], [^\r\n]) so the text can be scanned in line-aligned chunks, and none nests
 * quantifiers, so it runs in linear time.
 *   1–3  key: `testId: "…"`, `"testId": "…"`, `'testId': '…'`, `testId: \`…\``
 *   4–6  annotation: `@testId ID`, `@testId: ID`, `@testId "ID with spaces"`
 *   7–8  decorator: `@testId("ID")`, `@TestId('ID')`
 * In YAML files a first branch (group 1, shifting the others by one) takes a bare value on
 * its own line: `testId: ID`, `- testId: ID  # comment`.
 */
const KEY = String.raw`(?<![\w$@.])(?:"testId"|'testId'|testId)[ \t]*:[ \t]*(?:"((?:[^"\\\r\n]|\\.)*)"|'((?:[^'\\\r\n]|\\.)*)'|` +
  '`' + String.raw`([^` + '`' + String.raw`\\\r\n$]*)` + '`)';
const ANNOTATION = String.raw`@[tT]estId(?:[ \t]*:[ \t]*|[ \t]+)(?:"([^"\r\n]+)"|'([^'\r\n]+)'|([^\s"'` + '`' + String.raw`]+))`;
const DECORATOR = String.raw`@[tT]estId\([ \t]*(?:"([^"\r\n]+)"|'([^'\r\n]+)')[ \t]*\)`;
const YAML_BARE = String.raw`^[ \t]*(?:-[ \t]+)?testId[ \t]*:[ \t]+([^\s"'#&*!|>{}\[\],` + '`' + String.raw`@%][^\r\n]*?)[ \t]*(?:[ \t]#[^\r\n]*)?$`;

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

/** Interprets one match of a default regex: the first defined group is the ID. */
export function defaultMatchToRaw(text: string, m: RegExpExecArray, yaml: boolean): RawMatch | undefined {
  const keyGroups = yaml ? KEY_GROUPS_YAML : KEY_GROUPS_DEFAULT;
  for (let g = 1; g < m.length; g++) {
    const value = m[g];
    if (value === undefined) continue;
    const at = m.indices?.[g]?.[0] ?? m.index;
    if (keyGroups.includes(g)) {
      const lineStart = text.lastIndexOf('\n', m.index - 1) + 1;
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
