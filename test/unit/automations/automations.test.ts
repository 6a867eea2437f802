import * as assert from 'node:assert/strict';
import { ApiError } from '../../../src/api/errors';
import type { Automation } from '../../../src/api/testTypes';
import { plainL10n } from '../../../src/base/common/l10n';
import { type AutomationNode, AutomationsNode, automationChildren, automationRefOf } from '../../../src/automations/common/nodes';
import { failureNotice, refusalReason } from '../../../src/automations/common/outcome';
import { actionsLine, automationsDescription, presentAutomation, triggerLine } from '../../../src/automations/common/presentation';

const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
const MIN = 60_000;
function automation(id: string, over: Partial<Automation> = {}): Automation {
  return { id, name: `Nightly ${id}`, enabled: true, triggerKind: 'manual', actionKinds: ['run_tests', 'send_message'], canRunManually: true, ...over };
}
const describeErr = (e: unknown): string => (e instanceof Error ? e.message : String(e));

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

describe('Sends of the Test Groups view and Run Now: what the person is told', () => {
  const conflict = new ApiError({ kind: 'client', status: 409, reason: 'automation_not_manual', serverMessage: 'Only manual automations can be run', message: 'The service refused (409).', mayHaveReachedServer: true });
  const cut = new ApiError({ kind: 'network', message: 'The connection was cut.', mayHaveReachedServer: true });

  it('a 409 or 400 gives the service\'s reason: its words, not a code', () => {
    assert.equal(refusalReason(conflict, describeErr), 'Only manual automations can be run');
    const worded = new ApiError({ kind: 'client', status: 409, reason: 'Only one run at a time', serverMessage: 'Conflict', message: 'x', mayHaveReachedServer: true });
    assert.equal(refusalReason(worded, describeErr), 'Only one run at a time');
    const coded = new ApiError({ kind: 'client', status: 409, reason: 'automation_run_in_progress', message: 'The service refused (409).', mayHaveReachedServer: true });
    assert.equal(refusalReason(coded, describeErr), 'automation_run_in_progress', 'a code is better than nothing');
    const bad = new ApiError({ kind: 'client', status: 400, serverMessage: 'testIds must not be empty', message: 'x', mayHaveReachedServer: true });
    assert.deepEqual(failureNotice({ kind: 'failed', error: bad, mayHaveArrived: false }, 'Saving “Smoke”', describeErr, plainL10n), { severity: 'error', text: 'Saving “Smoke”: the service refused: testIds must not be empty' });
    assert.equal(refusalReason(cut, describeErr), undefined);
  });

  it('may have arrived: said, and that it is not sent again', () => {
    const n = failureNotice({ kind: 'failed', error: cut, mayHaveArrived: true }, 'Running “Nightly”', describeErr, plainL10n);
    assert.equal(n?.severity, 'warning');
    assert.match(n?.text ?? '', /may have reached the service, but no answer confirmed it \(.+\)\. It is not sent again/);
    assert.ok(n?.text.includes(`(${describeErr(cut)})`), `the cause is said: ${n?.text ?? ''}`);
  });

  it('busy sends nothing more; done, queued and not connected need no notice here', () => {
    assert.match(failureNotice({ kind: 'busy' }, 'Deleting “Smoke”', describeErr, plainL10n)?.text ?? '', /already under way; nothing more was sent/);
    assert.deepEqual(failureNotice({ kind: 'uncertain', since: new Date(2026, 0, 2, 15, 30).getTime() }, 'Deleting “Smoke”', describeErr, plainL10n), {
      severity: 'warning', text: 'Deleting “Smoke”: not sent. An earlier request may have reached the service at 15:30; check it before sending again.',
    });
    assert.equal(failureNotice({ kind: 'queued' }, 'x', describeErr, plainL10n), undefined);
    assert.equal(failureNotice({ kind: 'notConnected' }, 'x', describeErr, plainL10n), undefined);
    assert.equal(failureNotice({ kind: 'failed', error: new Error('boom'), mayHaveArrived: false }, 'Deleting “Smoke”', describeErr, plainL10n)?.text, 'Deleting “Smoke” failed: boom');
  });
});
