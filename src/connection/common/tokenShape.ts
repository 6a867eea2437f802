// Whether a typed token has the service's `<prefix>_<secret>` shape, said in words when not.
import type { L10n } from '../../base/common/l10n';

/**
 * Loose shape check of an API token: `<prefix>_<secret>`, no whitespace. Returns a
 * user-facing problem or undefined. Lenient on purpose: the service decides what is valid.
 */
export function tokenShapeProblem(value: string, l10n: L10n): string | undefined {
  if (value.length === 0) {
    return l10n.t('Paste the API token.');
  }
  if (/\s/.test(value)) {
    return l10n.t('The token must not contain spaces or line breaks.');
  }
  if (!/^[A-Za-z0-9]+_[\w.~+/=-]{6,}$/.test(value)) {
    return l10n.t('A token looks like <prefix>_<secret>: letters or digits, an underscore, then the secret.');
  }
  return undefined;
}
