// Hostile content for every field the service controls. Each payload, if it ever ran, would
// set `window.__pwned`, post a message to the extension, or fetch from the trap origin; the
// tests assert that none of that happened. `TRAP` is replaced by the trap server's origin.
// Only plain data: used by the Node tier, the Chromium tier and the workbench tier.

export const TRAP = 'http://trap.invalid';

/** Scripts, handlers, links, SVG, CSS, Markdown tricks, bidi and control characters. */
export const HOSTILE_TEXTS: readonly string[] = [
  '<script>window.__pwned = "script"; acquireVsCodeApi().postMessage({type:"openLink",url:"https://evil.example/"})</script>',
  '<img src="x" onerror="window.__pwned = \'img\'">',
  '<img src=x onerror=window.__pwned=1//',
  '<svg onload="window.__pwned = \'svg\'"><script>window.__pwned = "svg-script"</script><circle r="1"/></svg>',
  '<svg><a xlink:href="javascript:window.__pwned=1"><text x="0" y="20">click</text></a><foreignObject><iframe srcdoc="<script>parent.__pwned=1</script>"></iframe></foreignObject></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror="window.__pwned=\'mxss\'">',
  '<noscript><p title="</noscript><img src=x onerror=window.__pwned=\'noscript\'>">',
  '<iframe src="javascript:parent.__pwned=1"></iframe><object data="TRAP/object"></object><embed src="TRAP/embed">',
  '<form action="TRAP/form"><button formaction="javascript:window.__pwned=1">go</button></form>',
  '<meta http-equiv="refresh" content="0;url=TRAP/refresh"><base href="TRAP/">',
  '<link rel="stylesheet" href="TRAP/style.css"><style>@import "TRAP/import.css"; body { background: url(TRAP/bg.png) } * { display: none !important }</style>',
  '<div style="position:fixed;inset:0;background:url(TRAP/div.png);z-index:99999">click anywhere</div>',
  '<details open ontoggle="window.__pwned=\'details\'">x</details><video><source onerror="window.__pwned=1"></video>',
  '<a href="javascript:window.__pwned=1">raw js link</a> <a href="TRAP/raw">raw link</a>',
  '[js](javascript:window.__pwned=1) [JS](JaVaScRiPt:window.__pwned=1) [ent](java&#x73;cript:window.__pwned=1) [sp]( javascript:window.__pwned=1) [angle](<javascript:window.__pwned=1>) [pct](javascript%3Awindow.__pwned%3D1)',
  '[vb](vbscript:msgbox) [data](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0xPC9zY3JpcHQ+) [file](file:///etc/passwd) [cmd](command:workbench.action.terminal.new) [cmd2](command:agentRuns.clearToken) [vs](vscode://agent-runs-team.agent-runs/track?id=x)',
  '[ref][r] and [other][o]\n\n[r]: javascript:window.__pwned=1\n[o]: command:workbench.action.reloadWindow "title"',
  '<javascript:window.__pwned=1> <command:workbench.action.quit> <https://ok.example/auto> www.ok.example/linkify //TRAP/protocol-relative',
  '![pixel](TRAP/pixel.png) ![svg](data:image/svg+xml,<svg onload=window.__pwned=1>) [![nested](TRAP/n.png)](javascript:window.__pwned=1)',
  '[https://good.example](https://evil.example/\u202Egnp.exe) \u202Eevil\u202C text with RLO and \u2066isolate\u2069 and \u200Fmark',
  'bell\u0007 esc\u001b[31mred\u001b[0m nul\u0000 del\u007f c1\u0085\u009b line\u2028sep\u2029para bom\ufeff',
  '```html\n<script>window.__pwned="fence"</script>\n```\n`<img src=x onerror=window.__pwned=1>` ~~~\n</code></pre><script>window.__pwned="break-out"</script>',
  '<!-- comment --><![CDATA[<script>window.__pwned=1</script>]]><?xml version="1.0"?><x:script xmlns:x="http://www.w3.org/1999/xhtml">window.__pwned=1</x:script>',
  '{{constructor.constructor("window.__pwned=1")()}} ${window.__pwned=1} <%= window.__pwned=1 %>',
  `${'> '.repeat(200)}deep quote ${'- '.repeat(200)}deep list ${'['.repeat(5000)}${']'.repeat(5000)} ${'*'.repeat(10000)}`,
];

/** Hostile values for the short fields (role, tool name, project name, IDs, attachments). */
export const HOSTILE_SHORT: readonly string[] = [
  '<img src=x onerror=window.__pwned="short">',
  '"><svg onload=window.__pwned=1>',
  'javascript:window.__pwned=1',
  'command:workbench.action.reloadWindow',
  'data:text/html,<script>window.__pwned=1</script>',
  'TRAP/attachment.png',
  'https://ok.example/file.txt',
  'name\u202Egnp.exe',
  'ctl\u0000\u0007\u001b[2J\u0085',
];

export function withTrap(text: string, trapOrigin: string): string {
  return text.split(TRAP).join(trapOrigin);
}

/** A 1 MB single line (no newline), with a payload at the start, middle and end. */
export function megabyteLine(): string {
  const chunk = 'lorem-ipsum-dolor-sit-amet '.repeat(40);
  let s = '<script>window.__pwned="mb-start"</script>';
  while (s.length < 500_000) {
    s += chunk;
  }
  s += '<img src=x onerror=window.__pwned="mb-middle">';
  while (s.length < 1_000_000) {
    s += chunk;
  }
  return `${s}<svg onload=window.__pwned="mb-end">`;
}

/** Tool parameters: JSON that tries to break out of its code block. */
export function hostileToolParameters(trapOrigin: string): string {
  return JSON.stringify({
    cmd: '</code></pre><script>window.__pwned="params"</script>',
    url: 'javascript:window.__pwned=1',
    html: withTrap('<img src="TRAP/params.png" onerror="window.__pwned=1">', trapOrigin),
    bidi: 'rm -rf \u202E/ fr- mr',
  });
}
