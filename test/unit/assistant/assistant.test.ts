import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import MarkdownIt from 'markdown-it';
import type * as vscode from 'vscode';
import * as apiModule from '../../../src/api/index';
import type { AgentRunsApi } from '../../../src/api/contract';
import type { Agent, ServiceSchemaInfo } from '../../../src/api/types';
import { plainL10n } from '../../../src/base/common/l10n';
import { escapeMarkdown, progressMarkdown, runAsText } from '../../../src/assistant/common/format';
import { cut } from '../../../src/base/common/text';
import { followUpConfirmation, startConfirmation, testGroupConfirmation } from '../../../src/assistant/common/prompts';
import type { Deps } from '../../../src/run/deps';
import { MAX_TOOL_PROMPT, TOOL_NAMES, TOOL_SCHEMAS, ToolInputError, checkToolInput } from '../../../src/assistant/common/schemas';
import { splitRunAndText } from '../../../src/assistant/common/chatRunId';
import { loadTools, settings } from '../fixtures/assistantTools';

function findRoot(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'src', 'assistant', 'common'))) return dir;
  }
  return process.cwd();
}

const refused = (fn: () => unknown, re: RegExp): void => assert.throws(fn, (e: unknown) => e instanceof ToolInputError && re.test(e.message));

describe('assistant: which run a chat follow-up is for', () => {
  const listed = ['agt_newest01', 'agt_older02'];
  it('a first word written like a run ID names that run, listed or not: never the newest (issue 19, defect 3)', () => {
    assert.deepEqual(splitRunAndText('ag_9f3e2 add tests', listed), { agentId: 'ag_9f3e2', named: true, text: 'add tests' });
    assert.deepEqual(splitRunAndText('run-42 go on', listed), { agentId: 'run-42', named: true, text: 'go on' });
    // The listed runs' prefix makes a digitless word an ID too.
    assert.deepEqual(splitRunAndText('agt_abcdef keep going', listed), { agentId: 'agt_abcdef', named: true, text: 'keep going' });
  });
  it('a listed ID names its run; ordinary words go to the newest run, whole', () => {
    assert.deepEqual(splitRunAndText('  agt_older02   and the docs ', listed), { agentId: 'agt_older02', named: true, text: 'and the docs' });
    assert.deepEqual(splitRunAndText('add tests for checkout', listed), { agentId: 'agt_newest01', named: false, text: 'add tests for checkout' });
    assert.deepEqual(splitRunAndText('Fix src/checkout.ts please', listed), { agentId: 'agt_newest01', named: false, text: 'Fix src/checkout.ts please' });
    assert.deepEqual(splitRunAndText('add tests', []), { agentId: undefined, named: false, text: 'add tests' });
  });
});

describe('assistant: tool input schemas', () => {
  it('package.json declares each tool with the same strict schema, referenceable in chat', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(findRoot(), 'package.json'), 'utf8')) as {
      contributes: { languageModelTools: { name: string; inputSchema: unknown; toolReferenceName?: string; canBeReferencedInPrompt?: boolean; modelDescription?: string }[] };
    };
    const declared = pkg.contributes.languageModelTools;
    assert.deepEqual(declared.map((t) => t.name), [...TOOL_NAMES]);
    for (const tool of declared) {
      assert.deepEqual(tool.inputSchema, JSON.parse(JSON.stringify(TOOL_SCHEMAS[tool.name as (typeof TOOL_NAMES)[number]])), tool.name);
      assert.ok(tool.toolReferenceName && tool.canBeReferencedInPrompt, tool.name);
      assert.ok((tool.modelDescription ?? '').length > 150, `${tool.name}: a model needs more than a title to choose it`);
    }
  });

  it('refuses unknown fields, wrong types, missing fields, bad enums and oversize text, naming the field', () => {
    refused(() => checkToolInput('agentRuns_startRun', { prompt: 'x', colour: 'red' }), /Unknown field "colour"/);
    refused(() => checkToolInput('agentRuns_startRun', { appId: 'a' }), /prompt is required/);
    refused(() => checkToolInput('agentRuns_startRun', { prompt: 42 }), /prompt must be text, not a number/);
    refused(() => checkToolInput('agentRuns_startRun', { prompt: 'x', permission: 'root' }), /permission must be one of read_only, allow_edits/);
    refused(() => checkToolInput('agentRuns_startRun', { prompt: 'x'.repeat(MAX_TOOL_PROMPT + 1) }), /prompt is too long: 100001 characters, at most 100000/);
    refused(() => checkToolInput('agentRuns_startRun', { prompt: 'x', permittedBranches: ['main', 3] }), /permittedBranches\[1\] must be text/);
    refused(() => checkToolInput('agentRuns_readRun', { agentId: 'a', maxMessages: 2.5 }), /maxMessages must be a whole number/);
    refused(() => checkToolInput('agentRuns_readRun', []), /must be an object, not a list/);
    refused(() => checkToolInput('agentRuns_sendFollowUp', { agentId: '  ', prompt: 'go' }), /agentId is empty/);
    refused(() => checkToolInput('agentRuns_createTestGroup', { name: 'g', testIds: 'A-1' }), /testIds must be a list/);
    assert.deepEqual(checkToolInput('agentRuns_startRun', { prompt: 'fix it', permission: 'allow_edits' }), { prompt: 'fix it', permission: 'allow_edits' });
  });
});

describe('assistant: run text and progress', () => {
  const agent = (n: number, content = 'step'): Agent => ({
    agentId: 'ag_1', status: 'running', appId: 'app_todo', model: 'm1', permission: 'read_only',
    lifecycle: { conversationState: 'thinking', sandboxState: 'ready', queuedTurnCount: 0 },
    history: Array.from({ length: n }, (_, i) => ({ sequence: i + 1, role: i === 0 ? 'user' : 'assistant', content: `${content} ${i + 1}` })),
  });

  it('reads a run as bounded text with a note when something was left out', () => {
    const short = runAsText(agent(3));
    assert.match(short, /^Run ag_1\nstatus: running\napp: app_todo/);
    assert.match(short, /conversation: thinking/);
    assert.doesNotMatch(short, /Truncated/);
    const long = runAsText(agent(30, 'y'.repeat(5000)), { maxMessages: 5, maxMessageChars: 100, maxChars: 2000 });
    assert.ok(long.length < 2300, `${long.length}`);
    assert.match(long, /Latest 5 of 30 message\(s\)/);
    assert.match(long, /\(Truncated: 25 earlier message\(s\) left out; 5 long message\(s\) shortened/);
  });

  it('streams only what changed, escapes service text, and bounds the count', () => {
    const first = progressMarkdown(agent(3, '[click](command:evil) *x*'), { seen: 0 }, { maxMessages: 1, maxMessageChars: 100 }, plainL10n);
    assert.equal(first.parts[0], '**running** · thinking');
    assert.ok((first.parts[1] ?? '').includes('1 more message'), first.parts[1]);
    assert.ok(first.parts.every((p) => !p.includes('](command:')), first.parts.join('\n'));
    assert.equal(first.state.seen, 3);
    const again = progressMarkdown(agent(3), first.state, { maxMessages: 5, maxMessageChars: 100 }, plainL10n);
    assert.deepEqual(again.parts, []);
    const done = progressMarkdown({ ...agent(4), status: 'error', lastError: 'boom' }, first.state, { maxMessages: 5, maxMessageChars: 100 }, plainL10n);
    assert.equal(done.parts[0], '**failed** · thinking');
    assert.equal(done.parts.length, 3);
    assert.match(done.parts[2] ?? '', /Last error: boom/);
  });

  it('reads the deployed shapes: object parameters, attachment objects, each role named, content absent (issue 20)', () => {
    const deployed: Agent = {
      agentId: 'ag_2', status: 'running',
      history: [
        { sequence: 1, role: 'user', content: 'fix', attachments: [{ type: 'file', name: 'report.pdf', url: 'https://files.example/r.pdf', mimeType: 'application/pdf' }] },
        { sequence: 2, role: 'thinking', content: 'First the *tests*.' },
        { sequence: 3, role: 'tool', toolParameters: { path: 'src/a.ts', range: [1, 2] } },
        { sequence: 4, role: 'system', content: 'Sandbox restarted.' },
        { sequence: 5, role: 'error', content: 'The [tool](command:evil) failed.' },
        { sequence: 6, role: 'critic', content: 'hmm' },
        { sequence: 7, role: 'assistant', content: 'See', attachments: [{ identifier: 'ENG-42', title: 'Checkout fails', url: 'https://linear.example/ENG-42' }, { weird: { deep: [1] } }, { name: 'x', url: 'javascript:alert(1)' }] },
      ],
    };
    const text = runAsText(deployed, { maxMessages: 10, maxMessageChars: 2000, maxChars: 8000 });
    for (const line of [
      '--- user #1\nfix [attachments: report.pdf (file) <https://files.example/r.pdf>]',
      '--- thinking #2\nFirst the *tests*.',
      '--- tool #3\n[tool {"path":"src/a.ts","range":[1,2]}]\n',
      '--- error #5\n', '--- critic #6\n',
      '--- assistant #7\nSee [attachments: ENG-42 — Checkout fails <https://linear.example/ENG-42>; {"weird":{"deep":[1]}}; x <javascript:alert(1)>]',
    ]) {
      assert.ok(text.includes(line), `${line}\n---\n${text}`);
    }
    assert.doesNotMatch(text, /undefined|null|\[object Object\]/);
    const { parts } = progressMarkdown(deployed, { seen: 0 }, { maxMessages: 10, maxMessageChars: 500 }, plainL10n);
    assert.deepEqual(parts.slice(1), [
      '> _Thinking:_ First the \\*tests\\*\\.',
      '> \\[tool \\{"path":"src/a\\.ts","range":\\[1,2\\]\\}\\]',
      '> _System:_ Sandbox restarted\\.',
      '> **Error:** The \\[tool\\]\\(command:evil\\) failed\\.',
      '> _critic:_ hmm',
      '> See \\[attachments: ENG\\-42 — Checkout fails \\<https://linear\\.example/ENG\\-42\\>; \\{"weird":\\{"deep":\\[1\\]\\}\\}; x \\<javascript:alert\\(1\\)\\>\\]',
    ]);
    const html = markdown.render(parts.join('\n\n'));
    // Nothing active: no link but a web address (a chat linkifies bare ones, as in any content), no image, no HTML.
    assert.doesNotMatch(html, /<a href="(?!https?:\/\/)|<img|<script|javascript:alert\(1\)"/, html);
  });

  it('cuts without splitting a surrogate pair and escapes Markdown', () => {
    assert.deepEqual(cut('ab😀', 3), { text: 'ab', cut: true });
    assert.equal(escapeMarkdown('![x](y) <b>'), '\\!\\[x\\]\\(y\\) \\<b\\>');
  });
});

/**
 * How a confirmation reads, parsed as CommonMark with GFM's extras (tables, autolinks: the
 * editor's Markdown is GFM) and with HTML on, so that anything active shows up as a token:
 * - `plain`: what the editor's confirmation dialog outside a chat shows (its plain-text
 *   renderer: paragraphs as lines, inline code and code blocks verbatim, a backslash escape
 *   kept as typed, since it does not remove them);
 * - `html`: what a chat renders.
 * Only paragraphs, text, bold, inline code and fenced code blocks are allowed: a link, an
 * image, HTML, a heading, a list, a table or a quote fails the test.
 */
const markdown = new MarkdownIt('default', { html: true, linkify: true });
markdown.core.ruler.disable('text_join');
function readConfirmation(message: string): { plain: string; html: string } {
  let plain = '';
  for (const t of markdown.parse(message, {})) {
    if (t.type === 'paragraph_open') continue;
    if (t.type === 'paragraph_close') plain += '\n';
    else if (t.type === 'fence') {
      assert.equal(t.info, '', 'a code block without an info string');
      plain += t.content.replace(/\n$/, '');
    } else if (t.type === 'inline') {
      for (const c of t.children ?? []) {
        if (c.type === 'text' || c.type === 'code_inline') plain += c.content;
        else if (c.type === 'text_special') plain += c.markup;
        else if (c.type === 'softbreak') plain += '\n';
        else if (c.type !== 'strong_open' && c.type !== 'strong_close') assert.fail(`${c.type} in the confirmation: ${JSON.stringify(c.content || c.markup)}\n${message}`);
      }
    } else assert.fail(`${t.type} in the confirmation:\n${message}`);
  }
  return { plain, html: markdown.render(message) };
}

/** Fails unless `html` has no active element: only p, code, pre and strong. */
function assertInert(html: string): void {
  const tags = [...html.matchAll(/<\/?([a-z0-9]+)/gi)].map((m) => (m[1] ?? '').toLowerCase());
  assert.deepEqual([...new Set(tags)].filter((t) => !['p', 'code', 'pre', 'strong'].includes(t)), [], html);
}

describe('assistant: confirmations', () => {
  it('names app, model and permission, and allow_edits plainly with its branches', () => {
    const c = startConfirmation({ appId: 'app_todo', model: 'm1', reasoningEffort: 'medium', permission: 'allow_edits', permittedBranches: ['main'], prompt: 'Fix it' }, plainL10n);
    assert.equal(c.title, 'Start an agent run that may edit app_todo?');
    assert.match(c.message, /App: `app_todo`/);
    assert.match(c.message, /Model: `m1`/);
    assert.match(c.message, /\*\*allow_edits\*\* — the agent may change the project's code, on: `main`/);
    const ro = startConfirmation({ appId: 'a', model: 'm', reasoningEffort: 'low', permission: 'read_only', prompt: 'p' }, plainL10n);
    assert.match(ro.message, /read_only — the agent may only read the project/);
    assert.doesNotMatch(ro.message, /Branches/);
    const followUp = followUpConfirmation({ agentId: 'ag_1', prompt: 'more' }, plainL10n).message;
    assert.match(followUp, /Permission: unchanged/);
    assert.doesNotMatch(followUp, /Branches/);
  });

  it('shows every field the POST sends: branches without a permission change, and with read_only', () => {
    const branchesOnly = followUpConfirmation({ agentId: 'ag_1', prompt: 'more', permittedBranches: ['main', 'release/1.2'] }, plainL10n).message;
    assert.match(branchesOnly, /\n\nPermission: unchanged\n\nBranches: set to `main`, `release\/1\.2`\n\n/);
    const readOnly = followUpConfirmation({ agentId: 'ag_1', prompt: 'more', permission: 'read_only', permittedBranches: ['dev'] }, plainL10n).message;
    assert.match(readOnly, /Permission: read_only — the agent may only read the project\n\nBranches: set to `dev`/);
    const edits = followUpConfirmation({ agentId: 'ag_1', prompt: 'more', permission: 'allow_edits', permittedBranches: ['main'] }, plainL10n).message;
    assert.match(edits, /\*\*allow_edits\*\* — the agent may change the project's code, on: `main`/);
    assert.doesNotMatch(edits, /unchanged|Branches/);
    const start = startConfirmation({ appId: 'a', model: 'm', reasoningEffort: 'low', permission: 'read_only', permittedBranches: ['main'], prompt: 'p' }, plainL10n);
    assert.match(start.message, /Branches: set to `main`/);
  });

  it('shows the prompt as typed, in a chat and in the plain-text dialog: a fenced block, no escapes', () => {
    const prompt = 'Fix src/checkout.ts (empty e-mail) - see #42 + 1! a|b `code` and ``two``\n  indented: <b>x</b> & 1_000 *not bold*';
    const c = followUpConfirmation({ agentId: 'ag_1', runLabel: 'Fix src/checkout.ts (empty e-mail) - see #42', prompt }, plainL10n);
    assert.ok(c.message.endsWith(`Prompt:\n\n\`\`\`\n${prompt}\n\`\`\``), c.message);
    const { plain, html } = readConfirmation(c.message);
    assert.equal(plain, `Run: ag_1 — Fix src/checkout.ts (empty e-mail) - see #42\nPermission: unchanged\nPrompt:\n${prompt}`);
    assert.doesNotMatch(plain, /\\/, 'no backslash escape');
    assertInert(html);
    assert.ok(html.includes('(empty e-mail) - see #42 + 1! a|b `code` and ``two``'), html);

    const s = readConfirmation(startConfirmation({ appId: 'app.todo-1', model: 'hosted/auto', reasoningEffort: 'medium', permission: 'read_only', prompt }, plainL10n).message);
    assert.equal(s.plain, `App: app.todo-1\nModel: hosted/auto\nReasoning effort: medium\nPermission: read_only — the agent may only read the project\nPrompt:\n${prompt}`);
    const g = readConfirmation(testGroupConfirmation({ appId: 'app_todo', name: 'Checkout (e-mail) #1 `x`', testIds: ['CHK-001', 'CHK.2'], description: 'Line 1.\n# not a heading' }, plainL10n).message);
    assert.equal(g.plain, 'App: app_todo\nName: Checkout (e-mail) #1 `x`\nTests: CHK-001, CHK.2\nDescription:\nLine 1.\n# not a heading');
    assertInert(g.html);
  });

  it('keeps untrusted text inert: fences, links, command URIs, images and HTML stay inside code', () => {
    const hostile = 'Do it\n```\n[x](command:foo) ![i](https://e.example/i.png) <img src=x onerror=alert(1)>\n# Heading\n- item\n> quote\n````\nhttps://e.example/ www.e.example';
    const c = followUpConfirmation({ agentId: 'ag_[x](command:foo)', runLabel: '[x](command:foo) <a href="command:foo">y</a>', prompt: hostile, permission: 'allow_edits', permittedBranches: ['[b](command:foo)', '`'] }, plainL10n);
    const { plain, html } = readConfirmation(c.message);
    assertInert(html);
    assert.ok(c.message.endsWith(`\`\`\`\`\`\n${hostile}\n\`\`\`\`\``), 'the fence is longer than the prompt\'s longest backtick run');
    assert.ok(plain.endsWith(`Prompt:\n${hostile}`), plain);
    assert.match(plain, /^Run: ag_\[x\]\(command:foo\) — \[x\]\(command:foo\) <a href="command:foo">y<\/a>$/m);
    assert.match(plain, /on: \[b\]\(command:foo\), `$/m);
    const g = testGroupConfirmation({ appId: 'a', name: '[x](command:foo)', testIds: ['<b>T</b>'], description: 'see [x](command:foo)' }, plainL10n);
    assertInert(readConfirmation(g.message).html);
  });

  it('says when only the start of a long prompt is shown, outside the block', () => {
    const c = startConfirmation({ appId: 'a', model: 'm', reasoningEffort: 'low', permission: 'read_only', prompt: `${'x'.repeat(700)}` }, plainL10n);
    const { plain } = readConfirmation(c.message);
    assert.ok(plain.endsWith(`Prompt (the first 600 of 700 characters):\n${'x'.repeat(600)}`), plain.slice(-120));
  });
});

describe('assistant: the start tool checks the model before asking', () => {
  const served: ServiceSchemaInfo = { models: ['hosted/auto', 'm1'], fingerprint: 'f' };
  let schemaReads: AbortSignal[];
  let schema: () => Promise<ServiceSchemaInfo>;
  let starts: number;
  const client = {
    getSchemaInfo: (opts?: { signal?: AbortSignal }) => {
      schemaReads.push(opts?.signal as AbortSignal);
      return schema();
    },
    startAgent: () => {
      starts += 1;
      return Promise.reject(new Error('a unit test starts nothing'));
    },
  } as unknown as AgentRunsApi;
  const deps = {
    api: () => apiModule,
    getClient: () => Promise.resolve(client),
    connection: () => ({ baseUrl: 'https://agents.example', signedIn: true }),
    log: { info: () => undefined, error: () => undefined, trace: () => undefined },
    reportUnauthorized: () => undefined,
  } as unknown as Deps;
  const token = (cancelled = false): vscode.CancellationToken => ({ isCancellationRequested: cancelled, onCancellationRequested: () => ({ dispose: () => undefined }) });
  let start: vscode.LanguageModelTool<Record<string, unknown>>;

  before(() => {
    start = loadTools().createTools(deps).get('agentRuns_startRun')!;
  });
  beforeEach(() => {
    schemaReads = [];
    schema = () => Promise.resolve(served);
    starts = 0;
    settings.appId = 'app_todo';
    settings.defaultModel = 'hosted/auto';
  });

  it('refuses an unknown model in check: not put before the person, and invoke says why', async () => {
    const input = { prompt: 'Fix it', model: 'no/such-model' };
    const prepared = await start.prepareInvocation!({ input }, token());
    assert.equal(prepared?.confirmationMessages, undefined, 'an unknown model is never confirmed');
    assert.equal(schemaReads.length, 1);
    assert.ok(schemaReads[0] instanceof AbortSignal, 'the read follows prepareInvocation\'s token');
    const result = await start.invoke({ input, toolInvocationToken: undefined }, token());
    const text = (result?.content as { value: string }[]).map((p) => p.value).join('');
    assert.equal(text, 'Not done: model "no/such-model" is not offered by the service; choose one of: hosted/auto, m1.');
    assert.equal(starts, 0);
  });

  it('confirms a served model; when the schema cannot be read, the service decides', async () => {
    const ok = await start.prepareInvocation!({ input: { prompt: 'Fix it', model: 'm1' } }, token());
    assert.match(String((ok?.confirmationMessages?.message as { value?: string } | undefined)?.value), /Model: `m1`/);
    schema = () => Promise.reject(new Error('offline'));
    const unread = await start.prepareInvocation!({ input: { prompt: 'Fix it', model: 'no/such-model' } }, token());
    assert.ok(unread?.confirmationMessages, 'unreadable schema: confirmed, the service decides');
  });

  it('reads nothing for input refused on its own, and nothing is confirmed once cancelled', async () => {
    const bad = await start.prepareInvocation!({ input: { prompt: 'Fix it', reasoningEffort: 'max' } }, token());
    assert.equal(bad?.confirmationMessages, undefined);
    assert.equal(schemaReads.length, 0, 'input refused for itself costs no request');
    const cancelled = await start.prepareInvocation!({ input: { prompt: 'Fix it' } }, token(true));
    assert.equal(cancelled?.confirmationMessages, undefined);
    assert.equal(schemaReads[0]?.aborted, true, 'the schema read was given the cancelled token\'s signal');
  });
});
