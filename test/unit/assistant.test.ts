import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Agent } from '../../src/api/types';
import { plainL10n } from '../../src/core/l10n';
import { cut, escapeMarkdown, progressMarkdown, runAsText } from '../../src/core/assistant/format';
import { buildFixPrompt, followUpConfirmation, startConfirmation } from '../../src/core/assistant/prompts';
import { MAX_TOOL_PROMPT, TOOL_NAMES, TOOL_SCHEMAS, ToolInputError, checkToolInput } from '../../src/core/assistant/schemas';
import { groupByFile, idsFromLabels, isTestItemsArgument, leadingAnnotationStart } from '../../src/core/assistant/testItems';

function findRoot(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'src', 'core', 'assistant'))) return dir;
  }
  return process.cwd();
}

const refused = (fn: () => unknown, re: RegExp): void => assert.throws(fn, (e: unknown) => e instanceof ToolInputError && re.test(e.message));

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

  it('cuts without splitting a surrogate pair and escapes Markdown', () => {
    assert.deepEqual(cut('ab😀', 3), { text: 'ab', cut: true });
    assert.equal(escapeMarkdown('![x](y) <b>'), '\\!\\[x\\]\\(y\\) \\<b\\>');
  });
});

describe('assistant: confirmations and the fix prompt', () => {
  it('names app, model and permission, and allow_edits plainly with its branches', () => {
    const c = startConfirmation({ appId: 'app_todo', model: 'm1', reasoningEffort: 'medium', permission: 'allow_edits', permittedBranches: ['main'], prompt: 'Fix it' }, plainL10n);
    assert.equal(c.title, 'Start an agent run that may edit app_todo?');
    assert.match(c.message, /App: `app_todo`/);
    assert.match(c.message, /Model: `m1`/);
    assert.match(c.message, /\*\*allow_edits\*\* — the agent may change the project's code, on: `main`/);
    const ro = startConfirmation({ appId: 'a', model: 'm', reasoningEffort: 'low', permission: 'read_only', prompt: 'p' }, plainL10n);
    assert.match(ro.message, /read_only — the agent may only read the project/);
    assert.match(followUpConfirmation({ agentId: 'ag_1', prompt: 'more' }, plainL10n).message, /Permission: unchanged/);
  });

  it('builds the fix prompt from the failure and keeps it within the bound, cutting the source first', () => {
    const t = { name: 'checkout › adds an item', location: 'tests/checkout.test.js:9', message: 'Expected 3, got 2', expected: '3', actual: '2', stack: ['at add (cart.js:4:1)'], source: 'x'.repeat(50_000) };
    const full = buildFixPrompt({ ...t, source: 'it("adds", () => {})' }, 20_000, plainL10n);
    assert.match(full, /^The test “checkout › adds an item” fails\./);
    for (const part of ['Failure message:\n```\nExpected 3, got 2', 'Expected:\n```\n3', 'Actual:\n```\n2', 'Stack:\n```\nat add', 'Test source:\n```\nit("adds"']) assert.ok(full.includes(part), part);
    const bounded = buildFixPrompt(t, 2000, plainL10n);
    assert.ok(bounded.length <= 2000, `${bounded.length}`);
    assert.match(bounded, /Expected 3, got 2/);
    assert.match(bounded, /x \[cut\]\n```$/);
  });
});

describe('assistant: Test Explorer items', () => {
  it('widens a range over the annotation comments just above it, not over code or blank lines', () => {
    const lines = ['const x = 1;', '', '  /** @testId CHK-001 */', '  // more', '  it("a", () => {'];
    assert.equal(leadingAnnotationStart(lines, 4), 2);
    assert.equal(leadingAnnotationStart(['foo();', '@testId("A")', 'def test_a():'], 2), 1);
    assert.equal(leadingAnnotationStart(['foo();', 'it("b")'], 1), 1);
  });

  it('groups items by file in the order given and keeps label IDs unique', () => {
    const g = groupByFile([
      { file: 'b', startLine: 5, endLine: 6, label: 'x' }, { file: 'a', startLine: 1, endLine: 2, label: 'y' },
      { file: 'b', startLine: 1, endLine: 2, label: 'z' }, { label: 'no file' },
    ]);
    assert.deepEqual(g.files.map((f) => f.file), ['b', 'a']);
    assert.deepEqual(g.files[0]?.spans, [{ startLine: 5, endLine: 6 }, { startLine: 1, endLine: 2 }]);
    assert.deepEqual(g.withoutRange.map((i) => i.label), ['no file']);
    assert.deepEqual(idsFromLabels([' A ', 'B', 'A', '']), ['A', 'B']);
    assert.ok(isTestItemsArgument({ kind: 'agentRuns.testItems', idSource: 'scan', items: [{ label: 'a' }] }));
    assert.ok(!isTestItemsArgument({ kind: 'agentRuns.testItems', idSource: 'guess', items: [] }));
  });
});
