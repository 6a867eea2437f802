// Issue 19, defect 7: an end the reference does not list (`cancelled` with `completedAt`) was
// "completed" in the alert, kept counting in the lifecycle lanes, had no finished marker on the
// tab and kept its transcript: four places, four rules. Each surface's own function, fed the
// one run state, says the same: ended, as the service said it.
import * as assert from 'node:assert/strict';
import { RunLedger, type LedgerEntry } from '../../../src/run/common/ledger/ledger';
import { isFinishedRun, runState } from '../../../src/run/common/ledger/runState';
import { plainL10n } from '../../../src/base/common/l10n';
import { LifecycleTracker } from '../../../src/panel/common/lifecycle';
import { panelTitle } from '../../../src/panel/common/tabTitle';
import { finishedAlert } from '../../../src/runs/common/finishedAlert';
import { MemoryStore } from '../fixtures/memoryStore';


const BASE = 'http://127.0.0.1:1/api/public/v1';
const T0 = 1_700_000_000_000;
const lifecycle = { conversationState: 'working', sandboxState: 'running', queuedTurnCount: 0 };

function runThat(status: string, completedAt: number | undefined): LedgerEntry {
  const l = new RunLedger(new MemoryStore(), BASE);
  l.upsert({ agentId: 'agt_x1', source: 'started', status: 'running', appId: 'app_todo' }, T0);
  l.applyAgent({ agentId: 'agt_x1', status: 'running', appId: 'app_todo', lifecycle, updatedAt: T0 }, { now: T0 });
  l.applyAgent({ agentId: 'agt_x1', status, appId: 'app_todo', completedAt, lifecycle, updatedAt: T0 + 10_000 }, { now: T0 + 10_000 });
  const r = l.get('agt_x1');
  assert.ok(r);
  return r;
}

describe('one finished rule on every surface: an end the reference does not list (issue 19, defect 7)', () => {
  const cancelled = runThat('cancelled', T0 + 9_000);

  it('the run state: finished, ended (not completed), with its completion', () => {
    const state = runState(cancelled);
    assert.deepEqual([state.finished, state.outcome, state.status, state.completedAt], [true, 'ended', 'cancelled', T0 + 9_000]);
    assert.equal(isFinishedRun(cancelled), true, 'the transcript store prunes and the poller stops by this');
  });

  it('the alert says it ended, as the service said it; never "completed"', () => {
    const alert = finishedAlert(cancelled, plainL10n);
    assert.ok(alert);
    assert.equal(alert.failed, false);
    assert.match(alert.text, /^Agent run ended \(cancelled\): /);
    assert.doesNotMatch(alert.text, /completed/);
    assert.equal(alert.how, 'ended (cancelled)');
    assert.equal(finishedAlert(runThat('completed', T0 + 9_000), plainL10n)?.text.startsWith('Agent run completed'), true);
    assert.equal(finishedAlert(runThat('paused', undefined), plainL10n), undefined, 'an unlisted status without completedAt is not an end');
  });

  it('the tab says how it ended', () => {
    assert.equal(panelTitle('agt_x1', runState(cancelled), plainL10n), 'Run: app_todo (cancelled)');
    assert.equal(panelTitle('agt_x1', runState(runThat('paused', undefined)), plainL10n), 'Run: app_todo');
  });

  it('the lifecycle lanes stop counting at the completion', () => {
    const lanes = new LifecycleTracker();
    lanes.observe(runState(runThat('running', undefined)), T0);
    lanes.observe(runState(cancelled), T0 + 10_000);
    const at = (now: number): number => lanes.timeInState('conversation', 'working', now);
    assert.equal(at(T0 + 60_000), 9_000);
    assert.equal(at(T0 + 600_000), 9_000, 'still counting after the run ended');
  });
});
