import * as assert from 'node:assert/strict';
import { SerialStore, type MementoLike } from '../../../src/base/common/serialStore';

/**
 * The extension host's global-state memento and the workbench's store, as VS Code wires them
 * (extHostMemento.ts, mainThreadStorage.ts): update() changes the host's copy at once and
 * sends the whole copy a moment later; the workbench stores it, reports the change back
 * (the whole stored value) and then acknowledges the write. A report replaces the host's
 * copy. Messages travel in order; `deliver()` moves one of them, so a test decides the
 * interleaving.
 */
class Wire {
  stored: Record<string, unknown> = {};
  /** Host → workbench: writes. Workbench → host: reports and acknowledgements. */
  private readonly toWorkbench: { value: string; ack: () => void }[] = [];
  private readonly toHost: (() => void)[] = [];
  readonly memento: HostMemento = new HostMemento(this);

  send(value: string, ack: () => void): void {
    this.toWorkbench.push({ value, ack });
  }

  /** The workbench takes one write: stores it, reports it back, acknowledges it. */
  workbenchTakes(): void {
    const write = this.toWorkbench.shift();
    assert.ok(write, 'no write to take');
    this.stored = JSON.parse(write.value) as Record<string, unknown>;
    const report = JSON.stringify(this.stored);
    this.toHost.push(() => this.memento.report(report));
    this.toHost.push(write.ack);
  }

  /** The host takes one message from the workbench. */
  hostTakes(): void {
    const message = this.toHost.shift();
    assert.ok(message, 'no message for the host');
    message();
  }

  get busy(): boolean {
    return this.toWorkbench.length > 0 || this.toHost.length > 0;
  }

  /**
   * Lets everything in flight (and what it causes) happen, in order. Idle means nothing on
   * the wire for a few turns: an acknowledgement can start the next write one turn later.
   */
  async settle(): Promise<void> {
    let idle = 0;
    for (let i = 0; i < 1000; i++) {
      await flushTasks();
      if (!this.busy) {
        if (++idle === 3) return;
        continue;
      }
      idle = 0;
      if (this.toWorkbench.length > 0) this.workbenchTakes();
      else this.hostTakes();
    }
    throw new Error('the wire never settled');
  }
}

class HostMemento implements MementoLike {
  private value: Record<string, unknown> = {};
  private scheduled: (() => void)[] | undefined;

  constructor(private readonly wire: Wire) {}

  get<T>(key: string): T | undefined {
    return this.value[key] as T | undefined;
  }

  keys(): readonly string[] {
    return Object.keys(this.value).filter((k) => this.value[k] !== undefined);
  }

  update(key: string, value: unknown): Promise<void> {
    this.value[key] = value;
    return new Promise((resolve) => {
      if (!this.scheduled) {
        const waiting: (() => void)[] = [];
        this.scheduled = waiting;
        // The host's RunOnceScheduler(0): one write for the updates of this turn.
        setImmediate(() => {
          this.scheduled = undefined;
          this.wire.send(JSON.stringify(this.value), () => waiting.forEach((done) => done()));
        });
      }
      this.scheduled.push(resolve);
    });
  }

  report(raw: string): void {
    this.value = JSON.parse(raw) as Record<string, unknown>;
  }
}

function flushTasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The interleaving seen in code-server: the run list is saved, a schema cache entry is
 * written while that save is in flight, the report of the save comes back, and the run list
 * is saved again before the cache entry's own report arrives.
 */
async function interleave(store: MementoLike, wire: Wire): Promise<void> {
  void store.update('runs', ['run_1']);
  await flushTasks();
  void store.update('schema', 'v2');
  await flushTasks();
  if (wire.busy) {
    wire.workbenchTakes(); // the run list is stored ...
    wire.hostTakes(); // ... and reported back
  }
  void store.update('runs', ['run_1', 'run_2']);
  await wire.settle();
}

describe('SerialStore: global state with one write in flight', () => {
  it('the model of VS Code\'s memento loses an update in this interleaving (what the store guards against)', async () => {
    const wire = new Wire();
    await interleave(wire.memento, wire);
    assert.deepEqual(wire.stored, { runs: ['run_1', 'run_2'] }, 'the model no longer reproduces the loss');
    assert.equal(wire.memento.get('schema'), undefined);
  });

  it('through the serial store, the same interleaving keeps every update, in the host and in the store', async () => {
    const wire = new Wire();
    const store = new SerialStore(wire.memento);
    await interleave(store, wire);
    assert.deepEqual(wire.stored, { runs: ['run_1', 'run_2'], schema: 'v2' });
    assert.equal(store.get('schema'), 'v2');
    assert.equal(wire.memento.get('schema'), 'v2');
  });

  it('reads what was updated before it is written, and updates made meanwhile go out as one write', async () => {
    const wire = new Wire();
    const store = new SerialStore(wire.memento);
    const first = store.update('a', 1);
    await flushTasks();
    await flushTasks();
    const writesBefore = JSON.stringify(wire.stored);
    const second = store.update('b', 2);
    const third = store.update('c', 3);
    assert.equal(store.get('b'), 2, 'a pending value is read back');
    assert.equal(wire.memento.get('b'), undefined, 'not handed to the memento while a write is in flight');
    assert.equal(store.get('missing', 'default'), 'default');
    await wire.settle();
    await Promise.all([first, second, third]);
    assert.equal(writesBefore, '{}');
    assert.deepEqual(wire.stored, { a: 1, b: 2, c: 3 });
  });

  it('an update to undefined deletes: get gives the default, keys leave it out', async () => {
    const wire = new Wire();
    const store = new SerialStore(wire.memento);
    void store.update('a', 1);
    void store.update('b', 2);
    await wire.settle();
    const done = store.update('a', undefined);
    assert.deepEqual([...store.keys()].sort(), ['b']);
    assert.equal(store.get('a', 'gone'), 'gone');
    await wire.settle();
    await done;
    assert.deepEqual([...store.keys()].sort(), ['b']);
  });

  it('a failed write rejects its own updates; the next write still goes out', async () => {
    let fail = true;
    const values = new Map<string, unknown>();
    const flaky: MementoLike = {
      get: <T>(key: string) => values.get(key) as T | undefined,
      keys: () => [...values.keys()],
      update: (key, value) => {
        if (fail) return Promise.reject(new Error('disk full'));
        values.set(key, value);
        return Promise.resolve();
      },
    };
    const store = new SerialStore(flaky);
    await assert.rejects(store.update('a', 1), /disk full/);
    fail = false;
    await store.update('b', 2);
    assert.equal(values.get('b'), 2);
  });
});
