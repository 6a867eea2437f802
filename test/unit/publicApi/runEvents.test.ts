// The public API's run events (src/publicApi/common/runEvents.ts) against a real run ledger: one
// event per transition of a run's one state, in order, none for a read that changes no state.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Agent } from '../../../src/api/types';
import { RunLedger } from '../../../src/run/common/ledger/ledger';
import { RunEvents, type RunEvent } from '../../../src/publicApi/common/runEvents';
import type { PublicApiV1 } from '../../../src/publicApi/publicApi';
import type { registerPublicApi } from '../../../src/publicApi/contribution';
import type * as V1 from '../../../src/publicApi/agent-runs';
import { MemoryStore } from '../fixtures/memoryStore';

const BASE = 'http://127.0.0.1:1/api/public/v1';

/** A ledger whose change events go through RunEvents, as the API wires them. */
function watched(ledger = new RunLedger(new MemoryStore(), BASE)): { ledger: RunLedger; events: RunEvent[] } {
  const events: RunEvent[] = [];
  const tracker = new RunEvents(ledger);
  ledger.onDidChange((c) => events.push(...tracker.changed(ledger, c.agentIds)));
  return { ledger, events };
}

function read(overrides: Partial<Agent>): Agent {
  return { agentId: 'a1', status: 'running', history: [], ...overrides };
}

describe('public API: run events', () => {
  it('added, then each state change once, then finished; a stale or repeated read fires nothing', () => {
    const { ledger, events } = watched();
    ledger.upsert({ agentId: 'a1', source: 'started', status: 'queued' }, 1);
    ledger.applyAgent(read({ status: 'running', updatedAt: 10 }), { now: 2 });
    ledger.applyAgent(read({ status: 'running', updatedAt: 10 }), { now: 3 });
    ledger.applyAgent(read({ status: 'completed', updatedAt: 20, completedAt: 20 }), { now: 4 });
    // Older than what is known: the ledger keeps the status, and nothing is announced.
    ledger.applyAgent(read({ status: 'running', updatedAt: 10 }), { now: 5 });
    ledger.applyAgent(read({ status: 'completed', updatedAt: 20, completedAt: 20 }), { now: 6 });
    assert.deepEqual(events, [
      { kind: 'added', agentId: 'a1' },
      { kind: 'stateChanged', agentId: 'a1', oldStatus: 'queued', newStatus: 'running' },
      { kind: 'stateChanged', agentId: 'a1', oldStatus: 'running', newStatus: 'completed' },
      { kind: 'finished', agentId: 'a1', outcome: 'completed', completedAt: 20 },
    ]);
  });

  it('a follow-up: acknowledged once; a stale "completed" after it is no finish; its real end is', () => {
    const { ledger, events } = watched();
    ledger.upsert({ agentId: 'a1', source: 'started', status: 'queued' }, 1);
    ledger.applyAgent(read({ status: 'completed', updatedAt: 20, completedAt: 20, history: [{ sequence: 1, role: 'user', content: 'p0' }] }), { now: 2 });
    events.length = 0;
    ledger.recordFollowUp('a1', { prompt: 'more', ackStatus: 'queued' }, 3);
    // The replica still says the last turn's completion: no state change, no finish.
    ledger.applyAgent(read({ status: 'completed', updatedAt: 20, completedAt: 20, history: [{ sequence: 1, role: 'user', content: 'p0' }] }), { now: 4 });
    ledger.applyAgent(read({ status: 'completed', updatedAt: 40, completedAt: 40, history: [{ sequence: 1, role: 'user', content: 'p0' }, { sequence: 2, role: 'user', content: 'more' }, { sequence: 3, role: 'assistant', content: 'done' }] }), { now: 5 });
    assert.deepEqual(events, [
      { kind: 'stateChanged', agentId: 'a1', oldStatus: 'completed', newStatus: 'queued' },
      { kind: 'followUpAcknowledged', agentId: 'a1', prompt: 'more' },
      { kind: 'stateChanged', agentId: 'a1', oldStatus: 'queued', newStatus: 'completed' },
      { kind: 'finished', agentId: 'a1', outcome: 'completed', completedAt: 40 },
    ]);
  });

  it('what is listed when it starts is not news; removal is; a new list (another base URL) is taken silently', () => {
    const ledger = new RunLedger(new MemoryStore(), BASE);
    ledger.upsert({ agentId: 'old', source: 'started', status: 'running' }, 1);
    const { events } = watched(ledger);
    ledger.remove('old');
    assert.deepEqual(events, [{ kind: 'removed', agentId: 'old' }]);
    const other = new RunLedger(new MemoryStore(), 'http://127.0.0.1:2/api/public/v1');
    other.upsert({ agentId: 'b1', source: 'started', status: 'running' }, 1);
    const tracker = new RunEvents(ledger);
    tracker.reset(other);
    assert.deepEqual(tracker.changed(other, []), []);
  });

  it('the copied agent-runs.d.ts is self-contained (vscode types only), and the implementation has its shape', () => {
    const dts = fs.readFileSync(path.join(__dirname, '..', '..', '..', '..', 'src', 'publicApi', 'agent-runs.d.ts'), 'utf8');
    const imports = [...dts.matchAll(/^import[^;]*from\s+'([^']+)'/gm)].map((m) => m[1]);
    assert.deepEqual(imports, ['vscode']);
    // Checked by the compiler (this file does not compile otherwise): the exports and getAPI(1) have the d.ts's types.
    type Exports = ReturnType<typeof registerPublicApi>['exports'];
    const shapes: [Exports extends V1.AgentRunsExtension ? true : false, PublicApiV1 extends V1.AgentRunsApi ? true : false] = [true, true];
    assert.deepEqual(shapes, [true, true]);
  });
});
