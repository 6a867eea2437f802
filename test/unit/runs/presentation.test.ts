import * as assert from 'node:assert/strict';
import type { LedgerEntry } from '../../../src/run/common/ledger/ledger';
import { plainL10n } from '../../../src/base/common/l10n';
import {
  groupByApp, presentRun, runContextValue, runLabel, statusIcon,
} from '../../../src/runs/common/presentation';
import { LABEL_MAX } from '../../../src/run/common/rows';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const MIN = 60_000;

function run(overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    agentId: 'agent-1',
    source: 'started',
    addedAt: NOW - 3 * MIN,
    status: 'running',
    appId: 'app_todo',
    model: 'model-x',
    prompt: 'Fix the login bug\nDetails follow',
    createdAt: NOW - 3 * MIN,
    unread: false,
    ...overrides,
  };
}

describe('Run presentation (tree items)', () => {
  it('labels a run with the first non-empty prompt line, shortened', () => {
    assert.equal(runLabel(run(), plainL10n), 'Fix the login bug');
    assert.equal(runLabel(run({ prompt: '\n\n   \n  Second line  counts ' }), plainL10n), 'Second line counts');
    const long = 'x'.repeat(200);
    const label = runLabel(run({ prompt: long }), plainL10n);
    assert.equal(label.length, LABEL_MAX);
    assert.ok(label.endsWith('…'));
  });

  it('falls back to the agent ID when the prompt is unknown (tracked runs)', () => {
    assert.equal(runLabel(run({ prompt: undefined }), plainL10n), 'Run agent-1');
    assert.equal(runLabel(run({ prompt: '  \n ' }), plainL10n), 'Run agent-1');
  });

  it('keeps the description short (the age; status and model are the icon\'s and the tooltip\'s), so the title gets the room', () => {
    const p = presentRun(run(), NOW, plainL10n);
    assert.equal(p.label, 'Fix the login bug');
    assert.equal(p.description, '3 min');
    assert.equal(p.status, 'running');
    assert.equal(presentRun(run({ model: undefined, status: 'queued' }), NOW, plainL10n).description, '3 min');
    assert.equal(presentRun(run({ status: 'error' }), NOW, plainL10n).description, '3 min');
    assert.equal(presentRun(run({ status: 'error' }), NOW, plainL10n).status, 'failed');
    assert.ok(p.details.some(([k, v]) => k === 'Model' && v === 'model-x'), 'the model is in the tooltip');
    assert.ok(p.details.some(([k, v]) => k === 'Status' && v === 'running'), 'the status is in the tooltip');
  });

  it('marks stale runs in the description (unread is a row badge, not text)', () => {
    const p = presentRun(run({ unread: true, pollError: 'The service did not answer.' }), NOW, plainL10n);
    assert.equal(p.description, '3 min · stale');
    assert.ok(p.warnings.some((w) => w.includes('The service did not answer.')));
  });

  it('keeps an unknown status as the service sent it', () => {
    const p = presentRun(run({ status: 'paused_for_review' }), NOW, plainL10n);
    // The icon is a question mark: the words say which status.
    assert.ok(p.description.startsWith('paused_for_review · '));
    assert.deepEqual(p.icon, { id: 'question' });
  });

  it('drops bidi overrides and control characters from every service-provided text', () => {
    // eslint-disable-next-line no-control-regex
    const raw = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
    const evil = (s: string): string => `${s} \u202Efdp.exe\u202C\u0007\u001b[31m\u2066x\u2069`;
    const r = run({
      prompt: evil('Pay invoice'), status: evil('paused'), model: evil('m'), projectName: evil('Shop'), appId: evil('app'),
      lastError: evil('failed'), pollError: evil('down'), conversationState: evil('c'), sandboxState: evil('s'),
      permittedBranches: [evil('main')], agentId: evil('id'), lastCheckedAt: NOW,
    });
    const p = presentRun(r, NOW, plainL10n);
    assert.equal(p.label, 'Pay invoice fdp.exe [31m x');
    const texts = [p.label, p.description, ...p.details.flat(), ...p.warnings, runLabel(run({ prompt: undefined, agentId: evil('id') }), plainL10n),
      ...groupByApp([r], plainL10n).flatMap((g) => [g.label, g.description ?? ''])];
    for (const t of texts) {
      assert.doesNotMatch(t, raw, JSON.stringify(t));
    }
  });

  it('uses a distinct icon per status, spinning only while running', () => {
    const ids = ['queued', 'running', 'completed', 'error', 'weird'].map((s) => statusIcon(s).id);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(statusIcon('running').id, 'loading~spin');
    assert.ok(ids.filter((id) => id.includes('~spin')).length === 1);
  });

  it('builds contextValue capability tokens the menus match with regexes', () => {
    assert.equal(runContextValue(run()), 'run;active;followup;');
    assert.equal(runContextValue(run({ status: 'queued' })), 'run;active;followup;');
    assert.equal(runContextValue(run({ status: 'completed' })), 'run;terminal;followup;');
    assert.equal(runContextValue(run({ status: 'error', unread: true })), 'run;terminal;followup;unread;');
    assert.equal(runContextValue(run({ pollError: 'x' })), 'run;active;followup;stale;');
    // The regexes used in package.json.
    assert.match(runContextValue(run({ status: 'completed' })), /^run;.*followup;/);
    assert.doesNotMatch('app;', /^run;/);
  });

  it('puts the run\'s settings, times and errors in the tooltip details', () => {
    const p = presentRun(run({
      reasoningEffort: 'high', permission: 'allow_edits', permittedBranches: ['main', 'dev'],
      queuedTurnCount: 2, lastError: 'Sandbox crashed', status: 'error', completedAt: NOW - MIN,
      projectName: 'Todo',
    }), NOW, plainL10n);
    const details = new Map(p.details);
    assert.equal(details.get('App'), 'Todo (app_todo)');
    assert.equal(details.get('Model'), 'model-x');
    assert.equal(details.get('Reasoning effort'), 'high');
    assert.equal(details.get('Permission'), 'allow edits');
    assert.equal(details.get('Branches'), 'main, dev');
    assert.equal(details.get('Queued turns'), '2');
    assert.ok(details.get('Finished')?.includes('(2 min)'));
    assert.deepEqual(p.warnings, ['Last error: Sandbox crashed']);
  });

  it('groups by app, groups and runs newest first, unknown app last when oldest', () => {
    const runs = [
      run({ agentId: 'a', appId: 'app_shop', createdAt: NOW - 10 * MIN }),
      run({ agentId: 'b', appId: 'app_todo', createdAt: NOW - 5 * MIN }),
      run({ agentId: 'c', appId: 'app_shop', createdAt: NOW - 1 * MIN, projectName: 'Shop' }),
      run({ agentId: 'd', appId: undefined, createdAt: undefined, addedAt: NOW - 60 * MIN }),
    ];
    const groups = groupByApp(runs, plainL10n);
    assert.deepEqual(groups.map((g) => g.key), ['app_shop', 'app_todo', '']);
    assert.deepEqual(groups[0].runs.map((r) => r.agentId), ['c', 'a']);
    assert.equal(groups[0].label, 'Shop');
    assert.equal(groups[0].description, 'app_shop');
    assert.equal(groups[1].label, 'app_todo');
    assert.equal(groups[2].label, 'Unknown app');
  });
});
