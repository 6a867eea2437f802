import * as assert from 'node:assert/strict';
import { emptyForm } from '../../../src/launch/common/form';
import type { ModelCatalog } from '../../../src/run/common/models';
import { applyPreset, checkPreset, parsePresets } from '../../../src/launch/common/presets';
import { plainL10n as l10n } from '../../../src/base/common/l10n';

const live: ModelCatalog = { models: ['hosted/auto', 'openai/gpt-5'], source: 'live' };

describe('launch presets', () => {
  it('parses valid presets and reports broken entries and fields', () => {
    const { presets, problems } = parsePresets([
      { name: 'Review', appId: 'app_todo', model: 'openai/gpt-5', reasoningEffort: 'high', permission: 'read_only', permittedBranches: ['main', ' dev '] },
      { name: 'Fixer', permission: 'allow_edits', permittedBranches: 'main, fix/*' },
      { name: '  ' },
      'not an object',
      { name: 'Review' },
      { name: 'Odd', reasoningEffort: 'extreme', colour: 'blue', appId: 'has space' },
    ], l10n);
    assert.deepEqual(presets.map((p) => p.name), ['Review', 'Fixer', 'Odd']);
    assert.deepEqual(presets[0].permittedBranches, ['main', 'dev']);
    assert.deepEqual(presets[1].permittedBranches, ['main', 'fix/*']);
    assert.equal(presets[2].reasoningEffort, undefined);
    assert.equal(presets[2].appId, undefined);
    assert.equal(problems.length, 6, problems.join('\n'));
    assert.ok(problems.some((p) => p.includes('defined twice')));
    assert.ok(problems.some((p) => p.includes('colour')));
    assert.deepEqual(parsePresets(undefined, l10n), { presets: [], problems: [] });
    assert.equal(parsePresets({ name: 'x' }, l10n).problems.length, 1);
  });

  it('checks a preset\'s model against the live list', () => {
    assert.equal(checkPreset({ name: 'a', model: 'openai/gpt-5' }, live, l10n).status, 'ok');
    assert.equal(checkPreset({ name: 'a' }, live, l10n).status, 'ok');
    const gone = checkPreset({ name: 'a', model: 'openai/gpt-4' }, live, l10n);
    assert.equal(gone.status, 'modelUnavailable');
    assert.match(gone.note ?? '', /openai\/gpt-4/);
    assert.equal(checkPreset({ name: 'a', model: 'x' }, { models: ['x'], source: 'fallback' }, l10n).status, 'unverified');
  });

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
