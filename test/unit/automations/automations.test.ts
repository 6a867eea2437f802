import * as assert from 'node:assert/strict';
import type { Automation } from '../../../src/api/testTypes';
import { plainL10n } from '../../../src/base/common/l10n';
import { type AutomationNode, AutomationsNode, automationChildren, automationRefOf } from '../../../src/automations/common/nodes';
import { actionsLine, automationsDescription, presentAutomation, triggerLine } from '../../../src/automations/common/presentation';

const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
const MIN = 60_000;
function automation(id: string, over: Partial<Automation> = {}): Automation {
  return { id, name: `Nightly ${id}`, enabled: true, triggerKind: 'manual', actionKinds: ['run_tests', 'send_message'], canRunManually: true, ...over };
}

describe('Automations in the Runs view: rows and words', () => {
  it('shows name, trigger, enabled and last run age; the tooltip has the trigger\'s description and the actions in order', () => {
    const p = presentAutomation(automation('a1', { triggerKind: 'cron', triggerDescription: 'Every day at 02:00', lastRunAt: NOW - 5 * MIN }), NOW, plainL10n);
    assert.equal(p.label, 'Nightly a1');
    assert.equal(p.description, 'on a schedule · last run 5 min');
    const details = Object.fromEntries(p.details);
    assert.equal(details.Trigger, 'on a schedule (Every day at 02:00)');
    assert.equal(details.Actions, 'run tests → send message');
    assert.equal(details.Enabled, 'yes');
    assert.deepEqual(p.warnings, []);
    assert.equal(p.contextValue, 'automation;enabled;manual;');
  });

  it('shows a disabled one, one never run, and one the service cannot run by hand (no manual; in its context value)', () => {
    const p = presentAutomation(automation('a2', { enabled: false, canRunManually: false, triggerKind: 'branch_merged' }), NOW, plainL10n);
    assert.equal(p.description, 'disabled · when a branch is merged · never run');
    assert.equal(p.contextValue, 'automation;disabled;');
    assert.equal(p.icon.id, 'circle-slash');
  });

  it('shows the last run\'s error as a warning, with a warning icon', () => {
    const p = presentAutomation(automation('a3', { lastRunAt: NOW - MIN, lastRunError: 'Webhook answered 500' }), NOW, plainL10n);
    assert.deepEqual(p.warnings, ['The last run failed: Webhook answered 500']);
    assert.equal(p.icon.id, 'warning');
  });

  it('keeps kinds the service adds later as it sent them, and names an unnamed automation by its ID', () => {
    const a = automation('a4', { name: undefined, triggerKind: 'on_full_moon', actionKinds: ['run_tests', 'paint_it'] });
    assert.equal(triggerLine(a, plainL10n), 'on_full_moon');
    assert.equal(actionsLine(a, plainL10n), 'run tests → paint_it');
    assert.equal(presentAutomation(a, NOW, plainL10n).label, 'Automation a4');
    assert.equal(actionsLine(automation('a5', { actionKinds: [] }), plainL10n), 'no actions');
  });

  it('says how many there are and how many are enabled', () => {
    assert.equal(automationsDescription([automation('a'), automation('b', { enabled: false })], plainL10n), '2, 1 enabled');
    assert.equal(automationsDescription([automation('a')], plainL10n), '1, enabled');
  });
});

describe('Automations in the Runs view: nodes', () => {
  it('keeps one node per automation across reads, in the service\'s order, an ID listed twice once', () => {
    const root = new AutomationsNode({ key: 'app_todo' });
    assert.deepEqual(automationChildren(root), []);
    root.take([automation('a1'), automation('a2')]);
    const first = root.automation('a1');
    root.take([automation('a2'), automation('a1', { lastRunAt: NOW }), automation('a2')]);
    const children = automationChildren(root);
    assert.deepEqual(children.map((c) => (c as AutomationNode).automationId), ['a2', 'a1']);
    assert.equal(children[1], first);
    assert.equal(first?.item.lastRunAt, NOW);
    root.take([]);
    assert.deepEqual(automationChildren(root), [root.none]);
    root.forget();
    assert.equal(root.state.kind, 'unread');
  });

  it('reads Run Now\'s argument: a row, or { automationId, appId, name }', () => {
    const root = new AutomationsNode({ key: 'app_todo' });
    root.take([automation('a1')]);
    assert.deepEqual(automationRefOf(root.automation('a1')), { automationId: 'a1', appId: 'app_todo', name: 'Nightly a1' });
    assert.deepEqual(automationRefOf({ automationId: 'a9' }), { automationId: 'a9' });
    assert.equal(automationRefOf({ automationId: ' ' }), undefined);
    assert.equal(automationRefOf('a1'), undefined);
  });
});
