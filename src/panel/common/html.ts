/**
 * The run panel's HTML shell and Content Security Policy. Pure (no `vscode`), so the browser
 * test loads exactly what the panel serves.
 */

export interface WebviewHtmlInput {
  /** `webview.cspSource`. */
  cspSource: string;
  /** From `crypto.randomBytes`; never Math.random. */
  nonce: string;
  scriptUri: string;
  styleUri: string;
  lang: string;
  title: string;
  loadingText: string;
}

function escapeAttr(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Only the extension talks to the network (`connect-src 'none'`); scripts run only with the
 * nonce; styles only from the extension's own files (no inline styles at all).
 */
export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${cspSource}`,
    `font-src ${cspSource}`,
    "connect-src 'none'",
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export function webviewHtml(i: WebviewHtmlInput): string {
  if (!/^[A-Za-z0-9+/=]{16,}$/.test(i.nonce)) {
    throw new Error('A webview nonce must be at least 16 base64 characters.');
  }
  const csp = contentSecurityPolicy(i.cspSource, i.nonce);
  return `<!DOCTYPE html>
<html lang="${escapeAttr(i.lang)}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${escapeAttr(i.styleUri)}">
<title>${escapeAttr(i.title)}</title>
</head>
<body>
<div id="app" class="app" aria-busy="true"><p class="loading">${escapeAttr(i.loadingText)}</p></div>
<script nonce="${escapeAttr(i.nonce)}" src="${escapeAttr(i.scriptUri)}"></script>
</body>
</html>`;
}
