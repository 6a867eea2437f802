/**
 * The shape of `vscode.l10n` that pure modules take as a parameter, so they can be tested
 * in plain mocha. Call it as `l10n.t('…')` so the string extractor still finds the strings.
 */
export interface L10n {
  t(message: string, ...args: Array<string | number | boolean>): string;
}

/** `{0}`-style substitution without translation: for tests and as a fallback. */
export const plainL10n: L10n = {
  t: (message, ...args) => message.replace(/\{(\d+)\}/g, (m: string, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m)),
};
