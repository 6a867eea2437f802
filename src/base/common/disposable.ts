/** Anything with a `dispose()`: vscode's Disposable and the core's plain ones alike. */
export interface DisposableLike {
  dispose(): unknown;
}

/** A small owner of resources: everything `_register`ed goes when this does. */
export abstract class Disposable implements DisposableLike {
  private readonly owned: DisposableLike[] = [];
  private disposed = false;

  protected get isDisposed(): boolean {
    return this.disposed;
  }

  protected _register<T extends DisposableLike>(d: T): T {
    if (this.disposed) {
      d.dispose();
    } else {
      this.owned.push(d);
    }
    return d;
  }

  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    // Reverse order: later resources may depend on earlier ones.
    for (const d of this.owned.splice(0).reverse()) {
      try {
        d.dispose();
      } catch {
        // One failing disposal must not keep the rest alive.
      }
    }
  }
}

/** Wraps a cleanup function as a disposable. */
export function toDisposable(fn: () => void): DisposableLike {
  let done = false;
  return {
    dispose: () => {
      if (!done) {
        done = true;
        fn();
      }
    },
  };
}
