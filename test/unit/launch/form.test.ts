import * as assert from 'node:assert/strict';
import {
  applyPreset, buildStartRequest, emptyForm, firstProblem,
  formFromRecord, fullPrompt, hasTypedContent, isMultiLine, prefillFromArg, promptPreview, reviveForm,
} from '../../../src/launch/common/form';
import { checkBranches, checkEmail, checkWebhookUrl, emailToSend, parseBranches } from '../../../src/run/common/startFields';
import type { ModelCatalog } from '../../../src/run/common/models';
import { checkPreset } from '../../../src/run/common/presets';
import type { LedgerEntry } from '../../../src/run/common/ledger/ledger';
import { plainL10n as l10n } from '../../../src/base/common/l10n';

describe('launch form', () => {
  it('starts with the documented defaults and the configured app and model', () => {
    const f = emptyForm({ appId: ' app_todo ', model: 'hosted/auto' });
    assert.equal(f.appId, 'app_todo');
    assert.equal(f.model, 'hosted/auto');
    assert.equal(f.reasoningEffort, 'medium');
    assert.equal(f.permission, 'read_only');
    assert.deepEqual(f.permittedBranches, []);
    assert.equal(f.completionWebhookUrl, '');
    assert.equal(f.userEmail, '');
  });

  it('builds the request with defaults explicit and empty optionals left out', () => {
    const f = { ...emptyForm({ appId: 'app_todo', model: 'hosted/auto' }), prompt: 'Fix it\r\nplease  \n' };
    assert.deepEqual(buildStartRequest(f, undefined), {
      appId: 'app_todo', prompt: 'Fix it\nplease', model: 'hosted/auto', reasoningEffort: 'medium', permission: 'read_only',
    });
    const g = { ...f, permittedBranches: ['main', 'dev'], completionWebhookUrl: ' https://h.example/x ', permission: 'allow_edits' as const };
    const r = buildStartRequest(g, ' dev@example.com ');
    assert.deepEqual(r.permittedBranches, ['main', 'dev']);
    assert.equal(r.completionWebhookUrl, 'https://h.example/x');
    assert.equal(r.userEmail, 'dev@example.com');
    assert.equal(r.permission, 'allow_edits');
  });

  it('appends the attachment below the typed prompt', () => {
    const f = { ...emptyForm(), prompt: 'Explain this', attachment: { label: 'a.ts, line 1', text: 'File `a.ts`, line 1:\n\n```ts\nx\n```' } };
    assert.equal(fullPrompt(f), 'Explain this\n\nFile `a.ts`, line 1:\n\n```ts\nx\n```');
    assert.equal(fullPrompt({ prompt: '', attachment: f.attachment }), f.attachment.text);
    assert.ok(hasTypedContent({ ...emptyForm(), attachment: f.attachment }));
    assert.ok(!hasTypedContent({ ...emptyForm(), prompt: '   ' }));
  });

  it('sends an email only when typed, or when the model is known to need one', () => {
    const f = emptyForm();
    assert.equal(emailToSend(f, false, 'git@example.com'), undefined);
    assert.equal(emailToSend(f, true, 'git@example.com'), 'git@example.com');
    assert.equal(emailToSend(f, true, undefined), undefined);
    assert.equal(emailToSend({ ...f, userEmail: 'me@example.com' }, false, 'git@example.com'), 'me@example.com');
  });

  it('parses branches from commas and lines, dropping blanks and duplicates', () => {
    assert.deepEqual(parseBranches(' main, feature/x ,,main\n dev '), ['main', 'feature/x', 'dev']);
    assert.equal(checkBranches('main, feature/x', l10n), undefined);
    assert.match(checkBranches('main, my branch', l10n) ?? '', /my branch/);
    assert.ok(checkBranches('a..b', l10n));
    assert.ok(checkBranches('topic~1', l10n));
  });

  it('validates webhook URLs and emails, allowing empty', () => {
    assert.equal(checkWebhookUrl('', l10n), undefined);
    assert.equal(checkWebhookUrl('https://hooks.example.com/done', l10n), undefined);
    assert.ok(checkWebhookUrl('ftp://x.example', l10n));
    assert.ok(checkWebhookUrl('hooks.example.com/done', l10n));
    assert.ok(checkWebhookUrl('https://a b.example', l10n));
    assert.equal(checkEmail('', l10n), undefined);
    assert.equal(checkEmail('dev@example.com', l10n), undefined);
    assert.ok(checkEmail('dev@', l10n));
  });

  it('names the first problem with the step that fixes it', () => {
    assert.equal(firstProblem(emptyForm(), l10n)?.step, 'appId');
    assert.equal(firstProblem({ ...emptyForm({ appId: 'a' }) }, l10n)?.step, 'prompt');
    assert.equal(firstProblem({ ...emptyForm({ appId: 'a' }), prompt: 'p' }, l10n)?.step, 'model');
    assert.equal(firstProblem({ ...emptyForm({ appId: 'a', model: 'm' }), prompt: 'p', completionWebhookUrl: 'nope' }, l10n)?.step, 'completionWebhookUrl');
    assert.equal(firstProblem({ ...emptyForm({ appId: 'a', model: 'm' }), prompt: 'p' }, l10n), undefined);
  });

  it('pre-fills from a ledger record (clone), keeping every field', () => {
    const r: LedgerEntry = {
      agentId: 'ag_1', source: 'started', addedAt: 1, status: 'completed', unread: false,
      appId: 'app_todo', prompt: 'Line 1\nLine 2', model: 'openai/gpt-5', reasoningEffort: 'high', permission: 'allow_edits',
      permittedBranches: ['main'], completionWebhookUrl: 'https://h.example/x', userEmail: 'dev@example.com',
    };
    const f = formFromRecord(r);
    assert.equal(f.prompt, 'Line 1\nLine 2');
    assert.equal(f.reasoningEffort, 'high');
    assert.equal(f.permission, 'allow_edits');
    assert.deepEqual(f.permittedBranches, ['main']);
    assert.equal(f.userEmail, 'dev@example.com');
    // An unknown value from the service falls back to the default.
    assert.equal(formFromRecord({ ...r, reasoningEffort: 'extreme' }).reasoningEffort, 'medium');
  });

  it('revives a stored draft and refuses junk', () => {
    const f = { ...emptyForm({ appId: 'a', model: 'm' }), prompt: 'hello', permittedBranches: ['x'] };
    assert.deepEqual(reviveForm(JSON.parse(JSON.stringify(f))), f);
    assert.equal(reviveForm(null), undefined);
    assert.equal(reviveForm({ prompt: '   ' }), undefined);
    assert.equal(reviveForm({ prompt: 'x', permission: 'root', permittedBranches: [1, 'ok'] })?.permission, 'read_only');
    assert.deepEqual(reviveForm({ prompt: 'x', permittedBranches: [1, 'ok'] })?.permittedBranches, ['ok']);
  });

  it('previews prompts', () => {
    assert.deepEqual(promptPreview('\n  First line  \nsecond\r\nthird'), { firstLine: 'First line', lines: 4 });
    assert.equal(promptPreview('x'.repeat(100), 10).firstLine.length, 10);
    assert.ok(isMultiLine('a\nb'));
    assert.ok(!isMultiLine('a\n\n'));
  });

  it('takes a prefill from a command argument, but not a tree node or junk', () => {
    assert.deepEqual(prefillFromArg({ prompt: 'Work on these tests', appId: 'app_todo', extra: 1 }), { prompt: 'Work on these tests', appId: 'app_todo' });
    assert.deepEqual(prefillFromArg({ prompt: 'x', permittedBranches: ['main'] }), { prompt: 'x', permittedBranches: ['main'] });
    assert.equal(prefillFromArg({ agentId: 'ag_1', prompt: 'x' }), undefined);
    assert.equal(prefillFromArg({ prompt: '  ' }), undefined);
    assert.equal(prefillFromArg('app_todo'), undefined);
    assert.equal(prefillFromArg(undefined), undefined);
  });
});

describe('launch presets applied to the form', () => {
  const live: ModelCatalog = { models: ['hosted/auto', 'openai/gpt-5'], source: 'live' };

  it('applies a preset, skipping the steps it answers and keeping the prompt', () => {
    const form = { ...emptyForm({ appId: 'other' }), prompt: 'typed text' };
    const preset = { name: 'Review', appId: 'app_todo', model: 'openai/gpt-5', reasoningEffort: 'high' as const, permittedBranches: ['main'] };
    const { form: next, skip } = applyPreset(form, checkPreset(preset, live, l10n));
    assert.equal(next.prompt, 'typed text');
    assert.equal(next.appId, 'app_todo');
    assert.equal(next.model, 'openai/gpt-5');
    assert.equal(next.reasoningEffort, 'high');
    assert.equal(next.presetName, 'Review');
    assert.deepEqual([...skip].sort(), ['appId', 'model']);
    assert.equal(form.appId, 'other', 'the original form is untouched');
  });

  it('never uses an outdated model silently: the model step is shown instead', () => {
    const { form, skip } = applyPreset(emptyForm(), checkPreset({ name: 'Old', model: 'openai/gpt-4' }, live, l10n));
    assert.equal(form.model, '');
    assert.ok(!skip.has('model'));
    // An unverifiable model is filled in but still asked for.
    const u = applyPreset(emptyForm(), checkPreset({ name: 'U', model: 'x' }, { models: [], source: 'none' }, l10n));
    assert.equal(u.form.model, 'x');
    assert.ok(!u.skip.has('model'));
  });
});
