/**
 * The "Ask Agent to Fix" prompt, built from a failed test: the Test Explorer's (src/testing)
 * and a service test's (src/serviceTests) failures alike. Pure, so unit-tested without an editor.
 */
import { oneLine } from '../../api/sanitize';
import type { L10n } from '../../base/common/l10n';
import { cleanText, cut, fence } from '../../base/common/text';

export interface FailedTest {
  /** The test's label, with its parents' labels before it. */
  name: string;
  /** Workspace-relative path and 1-based line, when known. */
  location?: string;
  message: string;
  expected?: string;
  actual?: string;
  /** Stack frames as lines. */
  stack?: readonly string[];
  /** The test's source (its range in the file). */
  source?: string;
  languageId?: string;
}

/**
 * The "Ask Agent to Fix" prompt. At most `maxChars` characters: the parts are cut in the
 * order that matters least first (source, stack, then expected/actual, then the message),
 * each noting the cut, so the name and the failure always survive.
 */
export function buildFixPrompt(t: FailedTest, maxChars: number, l10n: L10n): string {
  const head = [
    l10n.t('The test “{0}” fails. Find the cause and fix the code (or the test, if the test is wrong).', oneLine(t.name, 300)),
    t.location ? l10n.t('Test location: {0}', oneLine(t.location, 300)) : '',
  ].filter((s) => s !== '').join('\n');
  const block = (title: string, text: string | undefined, lang = ''): { title: string; text: string; lang: string } | undefined =>
    text !== undefined && text.trim() !== '' ? { title, text: cleanText(text).replace(/\s+$/, ''), lang } : undefined;
  const parts = [
    block(l10n.t('Failure message'), t.message),
    block(l10n.t('Expected'), t.expected),
    block(l10n.t('Actual'), t.actual),
    block(l10n.t('Stack'), t.stack?.join('\n')),
    block(l10n.t('Test source'), t.source, t.languageId ?? ''),
  ].filter((p): p is { title: string; text: string; lang: string } => p !== undefined);
  const render = (): string => [head, ...parts.map((p) => {
    const f = fence(p.text);
    return `${p.title}:\n${f}${p.lang}\n${p.text}\n${f}`;
  })].join('\n\n');
  const note = ` ${l10n.t('[cut]')}`;
  // Least important first: source, stack, actual, expected, message.
  const order = [...parts].reverse();
  for (const p of order) {
    const over = render().length - maxChars;
    if (over <= 0) break;
    const keep = Math.max(0, p.text.length - over - note.length);
    p.text = keep > 0 ? cut(p.text, keep).text + note : note.trim();
  }
  return cut(render(), maxChars).text;
}
