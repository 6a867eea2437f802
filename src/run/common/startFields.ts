// The fields the launch and code review forms share: their checks, which email a start sends, the branch lists presets name too. Pure.
import { isEmailAddress, isHttpUrl } from '../../api/validate';
import type { L10n } from '../../base/common/l10n';

export function checkAppId(text: string, l10n: L10n): string | undefined {
  const v = text.trim();
  if (v === '') return l10n.t('Enter the App ID of a verified project in the token\'s workspace.');
  if (/\s/.test(v)) return l10n.t('An App ID has no spaces.');
  return undefined;
}

export function checkModel(text: string, l10n: L10n): string | undefined {
  const v = text.trim();
  if (v === '') return l10n.t('Choose a model.');
  if (/\s/.test(v)) return l10n.t('A model ID has no spaces.');
  return undefined;
}

/** Empty is fine (no webhook). */
export function checkWebhookUrl(text: string, l10n: L10n): string | undefined {
  const v = text.trim();
  if (v === '') return undefined;
  if (!isHttpUrl(v)) return l10n.t('Enter an absolute http:// or https:// URL, e.g. https://hooks.example.com/agent-done, or leave it empty.');
  return undefined;
}

/** Empty is fine (sent only when the model needs it). */
export function checkEmail(text: string, l10n: L10n): string | undefined {
  const v = text.trim();
  if (v === '') return undefined;
  if (!isEmailAddress(v)) return l10n.t('“{0}” is not an email address.', v);
  return undefined;
}

/**
 * The email to send: the form's, else the configured or git email only for a model known to need one; the
 * reference does not say which models need it, so nothing is guessed from a model's name.
 */
export function emailToSend(form: { userEmail: string }, modelNeedsEmail: boolean, fallbackEmail: string | undefined): string | undefined {
  const typed = form.userEmail.trim();
  if (typed !== '') return typed;
  if (modelNeedsEmail && fallbackEmail && fallbackEmail.trim() !== '') return fallbackEmail.trim();
  return undefined;
}

/** Comma- (or newline-) separated branch names; duplicates dropped, order kept. */
export function parseBranches(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(/[,\n]/)) {
    const name = part.trim();
    if (name !== '' && !out.includes(name)) out.push(name);
  }
  return out;
}

export function formatBranches(branches: readonly string[]): string {
  return branches.join(', ');
}

// Characters git refuses in ref names (git check-ref-format), plus whitespace.
// eslint-disable-next-line no-control-regex
const BAD_BRANCH_CHARS = /[\s~^:?*[\\\u0000-\u001f\u007f]/;

export function checkBranches(text: string, l10n: L10n): string | undefined {
  for (const name of parseBranches(text)) {
    if (BAD_BRANCH_CHARS.test(name) || name.includes('..') || name.startsWith('-') || name.endsWith('/') || name.endsWith('.lock')) {
      return l10n.t('“{0}” is not a valid branch name. Separate branches with commas.', name);
    }
  }
  return undefined;
}
