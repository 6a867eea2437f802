/**
 * The extension's global state, written one batch at a time.
 *
 * VS Code's extension host keeps one in-memory copy of an extension's global state and
 * replaces all of it with every change the workbench reports back, its own writes included.
 * When two writes are in flight, the report of the first can arrive after the second
 * update() changed the copy: the change is undone, and the next write stores the undone copy.
 * In code-server this lost a cached schema ~20 ms after its update() had resolved, while
 * the run list was being saved (microsoft/vscode#171827 describes the same loss).
 *
 * With one write in flight at a time, every report is of the latest write. Updates made
 * meanwhile wait in memory (reads see them) and go out together in the next write.
 */

/** What of vscode.Memento this needs and offers (`vscode.Memento` fits it). */
export interface MementoLike {
  get<T>(key: string): T | undefined;
  keys(): readonly string[];
  update(key: string, value: unknown): PromiseLike<void>;
}

export class SerialStore implements MementoLike {
  /** Written by update(), not yet handed to the store (`undefined`: deleted). */
  private readonly pending = new Map<string, unknown>();
  /** The write that takes `pending` once the one in flight is done. */
  private next: Promise<void> | undefined;
  /** The write in flight (settled: none). */
  private inFlight: Promise<void> = Promise.resolve();

  constructor(private readonly store: MementoLike) {}

  get<T>(key: string): T | undefined;
  get<T>(key: string, defaultValue: T): T;
  get<T>(key: string, defaultValue?: T): T | undefined {
    const value = this.pending.has(key) ? (this.pending.get(key) as T | undefined) : this.store.get<T>(key);
    return value === undefined ? defaultValue : value;
  }

  keys(): readonly string[] {
    const keys = new Set(this.store.keys());
    for (const [key, value] of this.pending) {
      if (value === undefined) keys.delete(key);
      else keys.add(key);
    }
    return [...keys];
  }

  /** Resolves once a write that holds this value has been stored; rejects if that write failed. */
  update(key: string, value: unknown): Promise<void> {
    this.pending.set(key, value);
    if (!this.next) {
      const next = this.inFlight.then(() => {
        this.next = undefined;
        const batch = [...this.pending];
        this.pending.clear();
        // Handed over in one go: the store sends them as one write.
        return Promise.all(batch.map(([k, v]) => this.store.update(k, v))).then(() => undefined);
      });
      this.next = next;
      this.inFlight = next.then(undefined, () => undefined);
    }
    return this.next;
  }
}
