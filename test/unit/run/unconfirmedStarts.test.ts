import * as assert from 'node:assert/strict';
import { Emitter } from '../../../src/base/common/events';
import { firstWords, settleStartsOnRuns, UNCONFIRMED_STARTS_KEY, UnconfirmedStarts, type StartMemento } from '../../../src/run/unconfirmedStarts';

function memento(initial: Record<string, unknown> = {}): StartMemento & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>(Object.entries(initial));
  return {
    data,
    get: <T>(key: string): T | undefined => data.get(key) as T | undefined,
    update: (key: string, value: unknown) => {
      if (value === undefined) data.delete(key);
      else data.set(key, JSON.parse(JSON.stringify(value)));
      return Promise.resolve();
    },
  };
}

const START = { appId: 'app_todo', prompt: 'Rename the billing module\nand its tests', model: 'hosted/fast', baseUrl: 'https://svc/api/public/v1' };

describe('unconfirmed starts: a start that may have reached the service is never lost silently', () => {
  it('an answered start, or one certainly not created, leaves nothing behind', () => {
    const state = memento();
    const starts = new UnconfirmedStarts(state);
    starts.end(starts.begin(START), 'started');
    starts.end(starts.begin(START), 'notCreated');
    assert.deepEqual(starts.uncertain(), []);
    assert.equal(state.data.has(UNCONFIRMED_STARTS_KEY), false);
  });

  it('a timeout or cut connection after the body was sent is shown until dismissed', () => {
    const starts = new UnconfirmedStarts(memento(), () => 7);
    let changes = 0;
    starts.onDidChange(() => changes++);
    const id = starts.begin(START);
    assert.deepEqual(starts.uncertain(), [], 'a start under way is not a notice');
    starts.end(id, 'mayExist');
    assert.deepEqual(starts.uncertain().map((s) => [s.appId, s.state, s.since]), [['app_todo', 'uncertain', 7]]);
    starts.dismiss(id);
    assert.deepEqual(starts.uncertain(), []);
    assert.equal(changes, 2);
  });

  it('a reload mid-POST: the next activation shows the start as one that may have reached the service', () => {
    const state = memento();
    new UnconfirmedStarts(state).begin(START);
    // The window reloads before the answer: the new extension host finds the entry.
    const after = new UnconfirmedStarts(state);
    const shown = after.uncertain();
    assert.equal(shown.length, 1);
    assert.equal(shown[0].prompt, START.prompt);
    assert.equal((state.data.get(UNCONFIRMED_STARTS_KEY) as { state: string }[])[0].state, 'uncertain', 'written back as uncertain');
  });

  it('a run entering the list settles its start from activation on, the starts read only when a run comes', () => {
    const state = memento();
    const first = new UnconfirmedStarts(state);
    first.end(first.begin(START), 'mayExist');
    const runs = new Emitter<{ readonly agentIds: readonly string[] }>();
    const listed = new Map([['agt_1', { appId: 'app_todo', prompt: START.prompt }]]);
    const made: { starts?: UnconfirmedStarts } = {};
    const madeNow = (): UnconfirmedStarts | undefined => made.starts;
    const sub = settleStartsOnRuns(() => (made.starts ??= new UnconfirmedStarts(state)), { onDidChangeRuns: runs.event, current: { get: (id) => listed.get(id) } });
    runs.fire({ agentIds: [] });
    assert.equal(madeNow(), undefined, 'no run came: the stored starts are not read');
    runs.fire({ agentIds: ['agt_unknown'] });
    assert.equal(madeNow(), undefined);
    runs.fire({ agentIds: ['agt_1'] });
    assert.deepEqual(madeNow()?.uncertain(), []);
    sub.dispose();
  });

  it('a run with the same app and prompt entering the list (Track Run by ID) settles it', () => {
    const starts = new UnconfirmedStarts(memento());
    starts.end(starts.begin(START), 'mayExist');
    starts.settledBy({ appId: 'app_other', prompt: START.prompt });
    starts.settledBy({ appId: 'app_todo', prompt: 'another prompt' });
    assert.equal(starts.uncertain().length, 1);
    starts.settledBy({ appId: 'app_todo', prompt: `${START.prompt}\n` });
    assert.equal(starts.uncertain().length, 0);
  });

  it('unreadable stored entries are dropped', () => {
    const starts = new UnconfirmedStarts(memento({ [UNCONFIRMED_STARTS_KEY]: [null, 'x', { id: 'a', appId: 'b', prompt: 'c', since: 'now', state: 'uncertain' }, { id: 'a', appId: 'b', prompt: 'c', since: 1, state: 'maybe' }] }));
    assert.deepEqual(starts.uncertain(), []);
    assert.deepEqual(new UnconfirmedStarts(memento({ [UNCONFIRMED_STARTS_KEY]: { a: 1 } })).uncertain(), []);
  });

  it('names a start by its first words', () => {
    assert.equal(firstWords('\n  Rename the billing module\nand more'), 'Rename the billing module');
    assert.equal(firstWords('x'.repeat(80), 10), `${'x'.repeat(9)}…`);
  });
});
