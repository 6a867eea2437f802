/** Minimal event plumbing for the pure modules, shaped like vscode's so views can adapt it 1:1. */
export interface Disposable {
  dispose(): void;
}

export type Event<T> = (listener: (e: T) => void) => Disposable;

export class Emitter<T> implements Disposable {
  /** Where a throwing listener's error goes; the extension points this at its log. */
  static onListenerError: (err: unknown) => void = (err) => console.error(err);

  private listeners = new Set<(e: T) => void>();

  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  fire(e: T): void {
    // A throwing listener must not starve the others.
    for (const listener of [...this.listeners]) {
      try {
        listener(e);
      } catch (err) {
        Emitter.onListenerError(err);
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}
