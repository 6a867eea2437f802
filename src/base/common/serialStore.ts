/**
 * The global state, written one batch at a time: with two writes in flight, the workbench's echo
 * of the first can undo the second (microsoft/vscode#171827; it lost a cached schema). Updates made
 * meanwhile wait in memory, where reads see them.
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
