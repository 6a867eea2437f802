import * as assert from 'node:assert/strict';
import type { ModelCatalog } from '../../../src/run/common/models';
import { checkPreset, parsePresets } from '../../../src/run/common/presets';
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
});
