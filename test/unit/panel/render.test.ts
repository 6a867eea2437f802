import * as assert from 'node:assert/strict';
import { STRING_KEYS, type WebviewStrings } from '../../../src/panel/common/protocol';
import {
  formatDuration,
  formatRelativeTime,
  keyFromDom,
  isSafeLinkUrl,
  neutralizeText,
  prettyToolParameters,
  renderMarkdown,
  renderMessage,
  type RenderableMessage,
  type RenderOptions,
} from '../../../src/panel/common/render';

const strings = Object.fromEntries(STRING_KEYS.map((k) => [k, `«${k}» {0}`])) as WebviewStrings;
const opts: RenderOptions = { strings, locale: 'en', now: Date.UTC(2025, 0, 1, 12, 0, 0) };

interface El {
  localName: string;
  attributes: ArrayLike<{ name: string; value: string }>;
  getAttribute(name: string): string | null;
  textContent: string | null;
  querySelectorAll(sel: string): ArrayLike<El>;
}

let parseHTML: (html: string) => unknown;

async function loadLinkedom(): Promise<void> {
  // linkedom is published as ESM first; a dynamic import works from these CommonJS tests.
  parseHTML = (await import('linkedom')).parseHTML;
}

function parse(html: string): { body: El; all: El[] } {
  const win = parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`) as { document: { body: El } };
  const body = win.document.body;
  return { body, all: Array.from(body.querySelectorAll('*')) };
}

const FORBIDDEN_TAGS = new Set([
  'script', 'style', 'iframe', 'object', 'embed', 'svg', 'math', 'img', 'image', 'link', 'meta', 'base', 'form',
  'input', 'textarea', 'select', 'video', 'audio', 'source', 'frame', 'frameset', 'template', 'noscript',
]);

/** The properties every rendering must have, whatever went in. */
function assertSafe(html: string): { body: El; all: El[] } {
  const parsed = parse(html);
  for (const el of parsed.all) {
    assert.ok(!FORBIDDEN_TAGS.has(el.localName), `forbidden element <${el.localName}> in ${html.slice(0, 300)}`);
    for (const a of Array.from(el.attributes)) {
      const name = a.name.toLowerCase();
      assert.ok(!name.startsWith('on'), `event handler attribute ${name}`);
      assert.notEqual(name, 'style', 'style attribute');
      assert.ok(!['src', 'srcset', 'action', 'formaction', 'xlink:href', 'background', 'poster'].includes(name), `URL attribute ${name}`);
      if (name === 'href' || name === 'data-href') {
        assert.match(a.value, /^(https?:\/\/|mailto:)/i, `unsafe ${name}="${a.value}"`);
      }
    }
  }
  // Links never navigate by themselves: no href at all, the click handler uses data-href.
  assert.equal(parsed.body.querySelectorAll('[href]').length, 0);
  return parsed;
}

function md(text: string) {
  return assertSafe(renderMarkdown(text, { imageLabel: 'Image: {0}' }));
}

function msg(m: RenderableMessage) {
  return assertSafe(renderMessage({ key: 'k1', ...m }, opts));
}

function links(p: { body: El }): string[] {
  return Array.from(p.body.querySelectorAll('[data-href]')).map((e) => e.getAttribute('data-href') ?? '');
}

describe('render: hostile Markdown', () => {
  before(loadLinkedom);
  it('shows raw HTML as text: script, img onerror, svg onload, iframe, style', () => {
    const inputs = [
      '<script>alert(1)</script>',
      '<img src=x onerror="alert(1)">',
      '<svg onload=alert(1)><circle r=1 /></svg>',
      '<iframe src="https://evil.example"></iframe>',
      '<style>body { display: none }</style>',
      '<div style="position:fixed;inset:0">cover</div>',
      '<a href="javascript:alert(1)">x</a>',
      '<details open ontoggle=alert(1)>',
      '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
    ];
    for (const input of inputs) {
      const p = md(`before ${input} after`);
      assert.ok(p.body.textContent?.includes(input), `text kept for ${input}`);
      // A URL inside the text may be linkified (http/https only, checked by assertSafe).
      assert.ok(links(p).every((l) => l.startsWith('https://evil.example')), input);
    }
  });

  it('drops javascript:, data:, command:, vscode:, file: and other schemes in inline links', () => {
    const bad = [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'javascript&#58;alert(1)',
      '&#106;avascript:alert(1)',
      'java%0ascript:alert(1)',
      'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
      'data:image/svg+xml,<svg onload=alert(1)>',
      'command:workbench.action.terminal.new',
      'vscode:extension/evil.ext',
      'vscode-insiders://settings',
      'file:///etc/passwd',
      'vbscript:msgbox(1)',
      '//evil.example/x',
      'relative/path',
      '#fragment',
      'https:evil.example',
    ];
    for (const url of bad) {
      for (const text of [`[click](${url})`, `[click](<${url}>)`, `[click]( ${url} "title")`]) {
        const p = md(text);
        assert.deepEqual(links(p), [], `${text} must not become a link`);
        assert.ok(p.body.textContent?.includes('click'), 'link text kept');
      }
    }
  });

  it('keeps http, https and mailto links as inert data-href elements', () => {
    const p = md('[a](https://ok.example/path?q=1) [b](http://ok.example) [c](mailto:me@ok.example)');
    assert.deepEqual(links(p), ['https://ok.example/path?q=1', 'http://ok.example', 'mailto:me@ok.example']);
    const a = p.body.querySelectorAll('a')[0];
    assert.equal(a.getAttribute('role'), 'link');
    assert.equal(a.getAttribute('tabindex'), '0');
    assert.equal(a.getAttribute('title'), 'https://ok.example/path?q=1', 'the target is shown, not the Markdown title');
  });

  it('does not let a link title break out of its attribute', () => {
    const p = md('[x](https://ok.example "\\" onmouseover=\\"alert(1)")');
    assert.deepEqual(links(p), ['https://ok.example']);
  });

  it('refuses reference-style definitions with unsafe URLs', () => {
    const p = md('[one][r1] [two][r2] [three]\n\n[r1]: javascript:alert(1)\n[r2]: data:text/html,x\n[three]: https://ok.example/three');
    assert.deepEqual(links(p), ['https://ok.example/three']);
  });

  it('refuses unsafe autolinks and linkifies only safe ones', () => {
    const p = md('<javascript:alert(1)> <data:text/html,x> <command:foo.bar> <vscode:open> <https://ok.example/auto> www.example.com me@example.com javascript:alert(2)');
    assert.deepEqual(links(p), ['https://ok.example/auto', 'http://www.example.com', 'mailto:me@example.com']);
    assert.ok(p.body.textContent?.includes('javascript:alert(2)'));
  });

  it('renders images as text links and never loads them', () => {
    const p = md('![tracker](https://evil.example/pixel.png) ![bad](javascript:alert(1)) ![svg](data:image/svg+xml;base64,AAAA)');
    assert.equal(p.body.querySelectorAll('img').length, 0);
    assert.deepEqual(links(p), ['https://evil.example/pixel.png']);
    assert.ok(p.body.textContent?.includes('Image: tracker'));
  });

  it('emits no style attribute for aligned tables and escapes fence info strings', () => {
    const p = md('| a | b |\n|:-:|--:|\n| 1 | 2 |\n\n```js" onclick="alert(1)\ncode\n```');
    const cells = Array.from(p.body.querySelectorAll('th, td'));
    assert.ok(cells.some((c) => (c.getAttribute('class') ?? '').includes('align-center')));
    assert.ok(cells.some((c) => (c.getAttribute('class') ?? '').includes('align-right')));
  });

  it('makes bidi overrides visible and removes control characters', () => {
    const input = 'access = "user\u202E \u2066// admin\u2069 \u2066" // ok\u202C\u0000\u0007\u001b[31mred\u001b[0m\u0085end\u2028next';
    const html = renderMarkdown(input);
    assert.ok(!/[\u202a-\u202e\u2066-\u2069]/.test(html), 'no raw bidi controls');
    // eslint-disable-next-line no-control-regex
    assert.ok(!/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/.test(html), 'no raw control characters');
    assert.ok(html.includes('⟦U+202E⟧') && html.includes('⟦U+2066⟧'));
    const p = md(input);
    assert.ok(p.body.textContent?.includes('red'), 'ANSI colour codes removed, text kept');
    assert.ok(!p.body.textContent?.includes('[31m'));
  });

  it('survives nesting bombs and emphasis bombs', () => {
    const bombs = ['>'.repeat(5_000) + ' deep', '- '.repeat(3_000) + 'x', '*a **'.repeat(4_000), '['.repeat(10_000) + ']'.repeat(10_000), '`'.repeat(20_000)];
    for (const b of bombs) {
      const started = Date.now();
      md(b.slice(0, 20_000));
      assert.ok(Date.now() - started < 5_000, 'renders in bounded time');
    }
  });
});

describe('render: messages', () => {
  before(loadLinkedom);
  it('renders role, time, sequence and Markdown content', () => {
    const p = msg({ role: 'assistant', sequence: 7, createdAt: opts.now - 5 * 60_000, content: 'Hello **world**' });
    const article = p.body.querySelectorAll('article')[0];
    assert.equal(article.getAttribute('data-key'), 'k1');
    assert.match(article.getAttribute('class') ?? '', /role-assistant/);
    assert.ok(p.body.textContent?.includes('«roleAssistant»'));
    assert.ok(p.body.textContent?.includes('5 minutes ago'));
    const time = p.body.querySelectorAll('time')[0];
    assert.equal(time.getAttribute('datetime'), new Date(opts.now - 5 * 60_000).toISOString());
    assert.ok(time.getAttribute('title'), 'exact time on hover');
    assert.equal(p.body.querySelectorAll('strong').length, 1);
    assert.equal(p.body.querySelectorAll('[dir="auto"]').length, 1);
  });

  it('shows unknown roles as sent (escaped, isolated) and missing roles as unknown', () => {
    const p = msg({ role: 'wizard<script>alert(1)</script>\u202E', content: 'x' });
    assert.match(p.body.querySelectorAll('article')[0].getAttribute('class') ?? '', /role-other/);
    assert.ok(p.body.textContent?.includes('wizard<script>alert(1)</script>⟦U+202E⟧'));
    assert.ok(p.body.querySelectorAll('bdi').length >= 1);
    const q = msg({ content: 'x' });
    assert.ok(q.body.textContent?.includes('«roleUnknown»'));
  });

  it('pretty-prints JSON parameters: shown when short, folded (collapsed) beyond 12 lines', () => {
    const p = msg({ role: 'tool', toolName: 'read_file', toolParameters: '{"path":"a.ts","lines":[1,2]}' });
    assert.equal(p.body.querySelectorAll('details').length, 0, 'short parameters are not folded away');
    assert.ok(p.body.textContent?.includes('read_file'));
    const pre = p.body.querySelectorAll('pre')[0];
    assert.equal(pre.textContent, JSON.stringify({ path: 'a.ts', lines: [1, 2] }, null, 2));
    const twelve = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i]));
    assert.equal(msg({ toolName: 't', toolParameters: JSON.stringify(twelve) }).body.querySelectorAll('details').length, 0, '12 lines are shown');
    const long = { ...twelve, k10: 10 };
    const q = msg({ role: 'tool', toolName: 'write_file', toolParameters: JSON.stringify(long) });
    const details = q.body.querySelectorAll('details.tool')[0];
    assert.equal(details.getAttribute('open'), null, '13 lines: collapsed by default');
    assert.ok(details.querySelectorAll('summary')[0].textContent?.includes('write_file'), 'the call is named where it is folded');
    assert.equal(details.querySelectorAll('pre')[0].textContent, JSON.stringify(long, null, 2));
  });

  it('shows malformed or hostile tool parameters as escaped text', () => {
    for (const params of ['{"a":', '[1,2', 'not json', '{"x":"</code></pre><script>alert(1)</script>"', '"just a string"', '42', 'null']) {
      const p = msg({ toolName: '<img src=x onerror=alert(1)>', toolParameters: params });
      assert.equal(p.body.querySelectorAll('pre')[0].textContent, params);
      assert.ok(p.body.textContent?.includes('<img src=x onerror=alert(1)>'));
    }
    assert.deepEqual(prettyToolParameters('{"a":1}'), { text: '{\n  "a": 1\n}', json: true });
    assert.deepEqual(prettyToolParameters('{"a":'), { text: '{"a":', json: false });
  });

  it('renders attachments as chips, linking only http/https', () => {
    const p = msg({
      content: 'see files',
      attachments: ['https://ok.example/report.pdf', 'javascript:alert(1)', 'data:text/html,x', 'mailto:a@ok.example', '/etc/passwd', 'src/app.ts', 'command:evil'],
    });
    assert.deepEqual(links(p), ['https://ok.example/report.pdf']);
    const chips = Array.from(p.body.querySelectorAll('.chip')).map((c) => c.textContent);
    assert.deepEqual(chips, ['https://ok.example/report.pdf', 'javascript:alert(1)', 'data:text/html,x', 'mailto:a@ok.example', '/etc/passwd', 'src/app.ts', 'command:evil']);
  });

  it('escapes keys, and shows an empty message marker', () => {
    const html = renderMessage({ key: 'id:"><script>alert(1)</script>', role: 'user' }, opts);
    const p = assertSafe(html);
    // Stored escaped (any key must survive the HTML parser and the sanitiser), read back whole.
    assert.equal(keyFromDom(p.body.querySelectorAll('article')[0].getAttribute('data-key') ?? ''), 'id:"><script>alert(1)</script>');
    assert.ok(p.body.textContent?.includes('«emptyMessage»'));
  });

  it('cuts a 1 MB line quickly and offers the full message in an editor', function () {
    this.timeout(30_000);
    const cases = ['a'.repeat(1 << 20), 'https://x.example/' + 'a'.repeat(1 << 20), '*_'.repeat(1 << 19), '<'.repeat(1 << 20), '\u202E'.repeat(1 << 20)];
    for (const content of cases) {
      const started = Date.now();
      const html = renderMessage({ key: 'big', role: 'assistant', content, toolName: 't', toolParameters: `{"a":"${'b'.repeat(1 << 20)}"}` }, opts);
      const elapsed = Date.now() - started;
      assert.ok(elapsed < 3_000, `rendered in ${elapsed} ms`);
      assert.ok(html.length < 600_000, `bounded output (${html.length} chars)`);
      const p = assertSafe(html);
      const actions = Array.from(p.body.querySelectorAll('[data-action="open-in-editor"]'));
      const full = content.length.toLocaleString('en');
      assert.ok(actions.some((a) => a.textContent?.includes(`«showFullMessage» ${full}`)), `show-full action with the full length ${full}`);
    }
  });

  it('honours the wire length of a message that was cut before posting', () => {
    const p = msg({ role: 'assistant', content: 'first part', contentLength: 50_000 });
    assert.ok(p.body.textContent?.includes('«showFullMessage» 50,000'));
  });

  it('renders 5,000 messages (timing printed, not asserted)', function () {
    this.timeout(60_000);
    const messages: RenderableMessage[] = [];
    for (let i = 0; i < 5_000; i++) {
      messages.push({
        key: `id:${i}`,
        sequence: i,
        role: i % 3 === 0 ? 'user' : 'assistant',
        createdAt: opts.now - (5_000 - i) * 1_000,
        content: `Message ${i} with **bold**, \`code\`, a [link](https://ok.example/${i}) and a list:\n\n- one\n- two\n`,
        ...(i % 10 === 0 ? { toolName: 'run', toolParameters: `{"cmd":"npm test","n":${i}}` } : {}),
      });
    }
    const started = process.hrtime.bigint();
    let total = 0;
    for (const m of messages) {
      total += renderMessage(m, opts).length;
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    console.log(`      renderMessage × 5,000: ${ms.toFixed(1)} ms (${(total / 1024 / 1024).toFixed(1)} MB of HTML)`);
    assert.ok(total > 0);
  });
});

describe('render: helpers', () => {
  it('accepts only absolute http/https and mailto URLs', () => {
    for (const ok of ['https://a.example', 'http://a.example/x?y#z', 'mailto:a@b.example', 'HTTPS://A.EXAMPLE']) {
      assert.ok(isSafeLinkUrl(ok), ok);
    }
    for (const bad of ['javascript:x', ' https://a.example', 'https://', 'mailto:', 'ftp://a.example', 'data:x', 'https://a.example/\u0000', 'https://a .example']) {
      assert.ok(!isSafeLinkUrl(bad), bad);
    }
  });

  it('formats times and durations in the given locale', () => {
    const now = Date.UTC(2025, 0, 1);
    assert.equal(formatRelativeTime(now - 10_000, now, 'en'), 'now');
    assert.equal(formatRelativeTime(now - 2 * 3_600_000, now, 'en'), '2 hours ago');
    assert.equal(formatRelativeTime(now - 2 * 3_600_000, now, 'de'), 'vor 2 Stunden');
    assert.equal(formatRelativeTime(now, now, 'not a locale!!'), 'now');
    assert.equal(formatDuration(3 * 60_000 + 12_000, 'en'), '3m 12s');
    assert.equal(formatDuration(26 * 3_600_000, 'en'), '1d 2h');
    assert.equal(formatDuration(-5, 'en'), '0s');
  });

  it('neutralizes text without touching ordinary Unicode', () => {
    assert.equal(neutralizeText('héllo 👋🏽 שלום\tx\ny'), 'héllo 👋🏽 שלום\tx\ny');
    assert.equal(neutralizeText('a\u202Eb'), 'a⟦U+202E⟧b');
    assert.equal(neutralizeText('\u001b[1;31mred\u001b[0m'), 'red');
  });
});
