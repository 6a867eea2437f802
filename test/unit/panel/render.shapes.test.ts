/**
 * The deployed service's shapes in the panel (issue 20): object tool parameters, attachment
 * objects, the six roles and a message without content, from the transcript's message through
 * the wire (toWireMessage, validated as the page validates it) to the HTML the page shows.
 */
import * as assert from 'node:assert/strict';
import type { AgentMessage } from '../../../src/api/types';
import { STRING_KEYS, parseExtensionMessage, toWireMessage, type WebviewStrings } from '../../../src/panel/common/protocol';
import { renderMessage, type RenderOptions } from '../../../src/panel/common/render';

const strings = Object.fromEntries(STRING_KEYS.map((k) => [k, `«${k}» {0}`])) as WebviewStrings;
const opts: RenderOptions = { strings, locale: 'en', now: Date.UTC(2025, 0, 1, 12, 0, 0) };

interface El {
  localName: string;
  textContent: string | null;
  attributes: ArrayLike<{ name: string; value: string }>;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  querySelector(sel: string): El | null;
  querySelectorAll(sel: string): ArrayLike<El>;
}

let parseHTML: (html: string) => unknown;

/** The message as the page gets it (checked like every wire message) and draws it. */
function shown(m: AgentMessage): El {
  const w = toWireMessage('k1', 0, m);
  const checked = parseExtensionMessage({ type: 'update', messages: [w] });
  assert.ok(checked.ok, `a wire message always validates: ${checked.ok ? '' : checked.reason}`);
  const html = renderMessage(checked.message.type === 'update' ? checked.message.messages![0] : w, opts);
  const win = parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`) as { document: { body: El } };
  const body = win.document.body;
  assert.equal(body.querySelectorAll('[href], script, img, iframe').length, 0);
  for (const a of Array.from(body.querySelectorAll('[data-href]'))) {
    assert.match(a.getAttribute('data-href') ?? '', /^https?:\/\//);
  }
  return body.querySelector('article')!;
}

const text = (el: El | null): string => el?.textContent ?? '';
const all = (el: El, sel: string): El[] => Array.from(el.querySelectorAll(sel));

const nested = { path: 'src/a.ts', range: [3, 5], options: { dryRun: false, mode: null } };

describe('render: the deployed service\'s shapes', () => {
  before(async () => {
    parseHTML = (await import('linkedom')).parseHTML;
  });

  it('shows object tool parameters as indented JSON, without an empty-message line when there is no content', () => {
    const a = shown({ id: 'm1', role: 'tool', toolName: 'edit_file', toolParameters: nested });
    assert.equal(a.querySelector('.msg-empty'), null, 'a call with parameters only is not an empty message');
    const pre = a.querySelector('pre.tool-params')!;
    assert.equal(pre.textContent, JSON.stringify(nested, null, 2));
    assert.match(pre.getAttribute('class') ?? '', /\bjson\b/);
    assert.equal(a.querySelectorAll('details').length, 0, 'eleven lines are shown, not folded');
    assert.ok(a.querySelector('[data-action="copy-params"]'));
    assert.match(a.getAttribute('class') ?? '', /\brole-tool\b/);
    // Without a tool name too: the parameters alone make it a tool call.
    const b = shown({ role: 'assistant', toolParameters: { q: 1 } });
    assert.equal(b.querySelector('.msg-empty'), null);
    assert.equal(text(b.querySelector('pre')), '{\n  "q": 1\n}');
  });

  it('folds a long object, and cuts one too long for the wire with the full length offered in an editor', () => {
    const long = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`key${i}`, { value: i }]));
    const a = shown({ role: 'tool', toolName: 'bulk', toolParameters: long });
    const details = a.querySelector('details.tool')!;
    assert.ok(details, 'folded');
    assert.equal(details.hasAttribute('open'), false);
    assert.equal(text(details.querySelector('pre')), JSON.stringify(long, null, 2));
    const huge = { blob: 'z'.repeat(30_000) };
    const b = shown({ role: 'tool', toolName: 'put', toolParameters: huge });
    const full = JSON.stringify(huge, null, 2).length.toLocaleString('en');
    assert.ok(all(b, '[data-action="open-in-editor"]').some((x) => text(x).includes(`«showFullMessage» ${full}`)), `offers all ${full} characters`);
  });

  it('shows attachment objects as chips with name, title, type and an http(s) link only', () => {
    const a = shown({
      role: 'user',
      content: 'see attached',
      attachments: [
        { type: 'file', name: 'report.pdf', url: 'https://files.example/r.pdf', mimeType: 'application/pdf' },
        { identifier: 'ENG-42', title: 'Checkout fails', url: 'https://linear.example/ENG-42' },
        { weird: { deep: [1, 2] } },
        { name: 'trap', url: 'javascript:alert(1)' },
        'https://ok.example/plain',
      ],
    });
    const chips = all(a, '.chip');
    assert.equal(chips.length, 5);
    const [file, issue, unknown, trap, plain] = chips;
    assert.equal(text(file.querySelector('.md-link')), 'report.pdf');
    assert.equal(file.querySelector('.md-link')!.getAttribute('data-href'), 'https://files.example/r.pdf');
    assert.equal(text(file.querySelector('.chip-type')), 'file');
    assert.equal(text(issue.querySelector('.md-link')), 'ENG-42');
    assert.equal(issue.querySelector('.md-link')!.getAttribute('data-href'), 'https://linear.example/ENG-42');
    assert.equal(text(issue.querySelector('.chip-title')), 'Checkout fails');
    assert.equal(text(unknown.querySelector('code')), '{"weird":{"deep":[1,2]}}', 'an unknown shape as compact JSON');
    assert.equal(unknown.querySelector('[data-href]'), null);
    assert.equal(text(trap), 'trap', 'the name is shown…');
    assert.equal(trap.querySelector('[data-href]'), null, '…but a javascript: URL is never a link');
    assert.match(trap.getAttribute('title') ?? '', /javascript:alert\(1\)/, 'what it points at is said on hover');
    assert.equal(plain.querySelector('.md-link')!.getAttribute('data-href'), 'https://ok.example/plain');
  });

  it('cuts a long unknown attachment and keeps the chips bounded', () => {
    const a = shown({ role: 'assistant', content: 'x', attachments: [{ blob: 'q'.repeat(5_000) }, ...Array.from({ length: 120 }, (_, i) => ({ name: `f${i}` }))] });
    const first = text(a.querySelector('.chip code'));
    assert.ok(first.startsWith('{"blob":"qqq') && first.endsWith('…') && first.length <= 301, `${first.length} characters`);
    assert.equal(all(a, '.chip').length, 51, '50 chips and a count of the rest');
    assert.equal(text(all(a, '.chip').pop()!), '+71');
  });

  it('shows each role as what it is: thinking folded, error and system marked, unknown roles as sent', () => {
    const role = (r: string): El => shown({ role: r, content: `said by ${r}` });
    const thinking = role('thinking');
    assert.match(thinking.getAttribute('class') ?? '', /\brole-thinking\b/);
    assert.ok(text(thinking.querySelector('.msg-role')).includes('«roleThinking»'));
    const details = thinking.querySelector('details.thinking')!;
    assert.ok(details, 'thinking is folded');
    assert.equal(details.hasAttribute('open'), false, 'closed by default');
    assert.ok(text(details.querySelector('summary')).includes('«thinkingSummary» 16'), 'the summary says how long it is');
    assert.equal(text(details.querySelector('.msg-body')).trim(), 'said by thinking');
    for (const [r, cls, label] of [
      ['tool', 'role-tool', '«roleTool»'],
      ['system', 'role-system', '«roleSystem»'],
      ['error', 'role-error', '«roleError»'],
      ['user', 'role-user', '«roleUser»'],
      ['assistant', 'role-assistant', '«roleAssistant»'],
      ['critic', 'role-other', 'critic'],
      ['constructor', 'role-other', 'constructor'],
    ]) {
      const a = role(r);
      assert.match(a.getAttribute('class') ?? '', new RegExp(`^msg ${cls}$`), r);
      assert.ok(text(a.querySelector('.msg-role')).includes(label), `${r}: ${text(a.querySelector('.msg-role'))}`);
      assert.equal(a.querySelector('details'), null, `${r} is not folded`);
      assert.equal(text(a.querySelector('.msg-body')).trim(), `said by ${r}`);
    }
  });
});
