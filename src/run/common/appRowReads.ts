/**
 * One list per app under the Runs view's app rows, read when first shown and again on demand: one read
 * at a time per node (asked again meanwhile: once more after it), and an answer that comes after the
 * service or token changed is dropped. What is read, and how, is the caller's.
 */
import type { AppRef } from './rows';

/** What an app's list row holds: the state a read moves through, `forget()` to start over. */
export interface AppRowNode {
  parent: AppRef;
  readonly appId: string;
  state: { kind: 'unread' } | { kind: 'loading'; promise: Promise<void> } | { kind: string };
  /** Asked again while a read was under way: read once more after it. */
  stale: boolean;
  forget(): void;
}

export interface AppRowReadsOptions<N extends AppRowNode> {
  make(app: AppRef): N;
  /** Reads the node's list; resolves to what takes the answer (or the failure) in. */
  read(node: N): Promise<() => void>;
  /** Re-renders the whole Runs tree (runsTree.ts `refreshAll`). */
  refreshTree(): void;
}

export class AppRowReads<N extends AppRowNode> {
  readonly apps = new Map<string, N>();
  /** Bumped when another service or token makes what was read meaningless. */
  private generation = 0;

  constructor(private readonly o: AppRowReadsOptions<N>) {}

  /** The app's row: one element per app key for the session (its parent the app's row now). */
  root(app: AppRef): N {
    let node = this.apps.get(app.key);
    if (!node) {
      node = this.o.make(app);
      this.apps.set(app.key, node);
    }
    // The app's row is a new element when the app left the list and came back.
    node.parent = app;
    return node;
  }

  /** The read a row's children wait on: started if not asked yet; none once listed or failed. */
  pending(node: N): Promise<void> | undefined {
    const s = node.state;
    return s.kind === 'unread' || isLoading(s) ? this.load(node) : undefined;
  }

  /** Reads the list of the app named again now, or of every app whose list was read. */
  async refresh(appId?: string): Promise<void> {
    const named = appId === undefined ? undefined : this.apps.get(appId);
    const nodes = appId === undefined ? [...this.apps.values()].filter((n) => n.state.kind !== 'unread') : named ? [named] : [];
    await Promise.all(nodes.map((n) => this.reload(n)));
  }

  reload(node: N): Promise<void> {
    if (isLoading(node.state)) {
      // It may have left before what changed: read once more when it is back.
      node.stale = true;
      return node.state.promise;
    }
    const read = this.load(node);
    // An expanded row asks for its children again and waits on this read.
    this.o.refreshTree();
    return read;
  }

  /** Another service or token: nothing listed holds any more; an expanded row reads again. */
  forgetAll(): void {
    this.generation++;
    const shown = [...this.apps.values()].some((n) => n.state.kind !== 'unread');
    for (const node of this.apps.values()) {
      node.forget();
    }
    if (shown) {
      this.o.refreshTree();
    }
  }

  private load(node: N): Promise<void> {
    if (isLoading(node.state)) {
      return node.state.promise;
    }
    const promise = this.settle(node);
    node.state = { kind: 'loading', promise };
    return promise;
  }

  private async settle(node: N): Promise<void> {
    const generation = this.generation;
    const take = await this.o.read(node);
    if (generation !== this.generation) {
      // Read from the service or token before: the node was forgotten meanwhile.
      return;
    }
    take();
    if (node.stale) {
      node.stale = false;
      void this.reload(node);
    }
  }
}

function isLoading(s: AppRowNode['state']): s is { kind: 'loading'; promise: Promise<void> } {
  return s.kind === 'loading' && 'promise' in s;
}
