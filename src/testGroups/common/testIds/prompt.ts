/** The run prompt of "Start Agent Run for These Tests". */

export interface PromptFile {
  /** Workspace-relative path. */
  file: string;
  ids: readonly string[];
  /** 1-based inclusive line range when limited to a selection. */
  lines?: { from: number; to: number };
}

/** The sentences of the prompt, passed in localised by the extension. */
export interface TestsPromptText {
  /** One file: `Work on these tests in {file}: {ids}`. */
  one(file: string, ids: string): string;
  /** Several files, first line: `Work on these tests in {count} files ({names}):`. */
  many(count: number, names: string): string;
  /** In place of the IDs when a file has none. */
  noIds: string;
  /** After a path when limited to a selection: `lines 3–9`. */
  linesLabel(from: number, to: number): string;
}

/**
 * The prompt pre-filled by "Start Agent Run for These Tests". One file gives one line (easy
 * to extend in the launch form's prompt box); several files give a summary line, then one
 * `- path: IDs` line per file, in order.
 */
export function buildTestsPrompt(files: readonly PromptFile[], text: TestsPromptText): string {
  const label = (f: PromptFile): string => (f.lines ? `${f.file} (${text.linesLabel(f.lines.from, f.lines.to)})` : f.file);
  const ids = (f: PromptFile): string => (f.ids.length > 0 ? f.ids.join(', ') : text.noIds);
  const [only] = files;
  if (files.length === 1 && only) return text.one(label(only), ids(only));
  const names = files.map((f) => f.file.replace(/\\/g, '/').split('/').pop() ?? f.file);
  const shown = names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')}, …`;
  return [text.many(files.length, shown), ...files.map((f) => `- ${label(f)}: ${ids(f)}`)].join('\n');
}
