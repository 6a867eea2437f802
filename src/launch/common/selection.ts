/** "Start Agent Run with Selection": the selected code as a Markdown attachment below the prompt. */
import { normalizeNewlines, type PromptAttachment } from './form';
import type { L10n } from '../../base/common/l10n';

/** Default cap on the attached code, in characters (the service's limits are not documented). */
export const DEFAULT_MAX_SELECTION_CHARS = 20_000;

export interface SelectedRange {
  /** 1-based, inclusive. */
  startLine: number;
  /** 1-based, inclusive. */
  endLine: number;
  text: string;
}

export interface SelectionInput {
  /** Workspace-relative path with `/` separators (or an untitled document's name). */
  path: string;
  /** The editor's language id. */
  languageId: string;
  /** Non-empty selections in document order; empty means the whole file (see `wholeFile`). */
  ranges: SelectedRange[];
  /** The ranges are the whole document (nothing was selected). */
  wholeFile?: boolean;
}

// VS Code language ids that differ from the info strings Markdown renderers know.
const FENCE_LANGUAGE: Readonly<Record<string, string>> = {
  typescriptreact: 'tsx',
  javascriptreact: 'jsx',
  shellscript: 'bash',
  plaintext: '',
  jsonc: 'jsonc',
  'objective-c': 'objectivec',
  'objective-cpp': 'objectivecpp',
  dockerfile: 'dockerfile',
  bat: 'batch',
  csharp: 'csharp',
  fsharp: 'fsharp',
  ignore: '',
  properties: 'ini',
};

/** The fence info string for a VS Code language id (safe characters only). */
export function markdownLanguage(languageId: string): string {
  const id = languageId.trim().toLowerCase();
  const mapped = FENCE_LANGUAGE[id] ?? id;
  // An info string must not contain backticks or spaces; anything odd is dropped.
  return /^[a-z0-9_+#.-]*$/.test(mapped) ? mapped : '';
}

/** A backtick fence longer than any run of backticks in `text` (at least three). */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

function rangeLabel(r: SelectedRange, l10n: L10n): string {
  return r.startLine === r.endLine ? l10n.t('line {0}', r.startLine) : l10n.t('lines {0}–{1}', r.startLine, r.endLine);
}

/** Cuts `text` to at most `max` characters at a line end when there is one, keeping surrogate pairs whole. */
function cutAtLine(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.lastIndexOf('\n', max);
  if (cut <= 0) {
    cut = max;
    const code = text.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut--;
  }
  return text.slice(0, cut);
}

function countLines(text: string): number {
  return text === '' ? 0 : text.split('\n').length;
}

export interface SelectionOptions {
  maxChars?: number;
}

/** Builds the attachment; code over the cap is cut at a line end with a note, so the agent knows it sees only part. */
export function buildSelectionAttachment(input: SelectionInput, l10n: L10n, options: SelectionOptions = {}): PromptAttachment | undefined {
  const max = Math.max(200, options.maxChars ?? DEFAULT_MAX_SELECTION_CHARS);
  const ranges = input.ranges
    .map((r) => ({ ...r, text: normalizeNewlines(r.text).replace(/\n+$/, '') }))
    .filter((r) => r.text.trim() !== '');
  if (ranges.length === 0) return undefined;
  const path = input.path.replace(/\\/g, '/');
  const lang = markdownLanguage(input.languageId);
  let budget = max;
  const blocks: string[] = [];
  for (const r of ranges) {
    const where = input.wholeFile ? l10n.t('File `{0}`:', path) : l10n.t('File `{0}`, {1}:', path, rangeLabel(r, l10n));
    if (budget <= 0) {
      blocks.push(l10n.t('[{0} left out: the selection is longer than {1} characters.]', rangeLabel(r, l10n), max));
      continue;
    }
    const code = cutAtLine(r.text, budget);
    budget -= code.length;
    const fence = fenceFor(code);
    let block = `${where}\n\n${fence}${lang}\n${code}\n${fence}`;
    if (code.length < r.text.length) {
      const shown = countLines(code);
      const total = countLines(r.text);
      block += `\n\n${l10n.t('[Truncated: showing the first {0} of {1} lines; the selection is longer than {2} characters.]', shown, total, max)}`;
    }
    blocks.push(block);
  }
  const first = ranges[0];
  const last = ranges[ranges.length - 1];
  const label = input.wholeFile
    ? l10n.t('{0} (whole file)', path)
    : ranges.length === 1
      ? `${path}, ${rangeLabel(first, l10n)}`
      : l10n.t('{0}, {1} selections (lines {2}–{3})', path, ranges.length, first.startLine, last.endLine);
  return { label, text: blocks.join('\n\n') };
}
