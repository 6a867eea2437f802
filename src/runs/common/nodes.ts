/**
 * The Runs tree's elements without `vscode`. Nodes keep their identity so a run's change
 * re-renders only its row; a group's change re-renders the whole tree, because only a full
 * refresh cancels a row read under way ("Element with id … is already registered" otherwise).
 */
import { isFinishedRun, type LedgerEntry } from '../../run/common/ledger/ledger';
import type { AppGroup } from './presentation';

/** A group of runs of one app. */
export class AppNode {
  readonly kind = 'app';
  constructor(public group: AppGroup) {}
  get key(): string {
    return this.group.key;
  }
}

/** One run. The same instance lives as long as the run is listed, so it can be refreshed alone. */
export class RowNode {
  readonly kind = 'run';
  /** The description last handed to VS Code (relative ages are re-rendered only when it moved). */
  renderedDescription: string | undefined;
  constructor(
    public record: LedgerEntry,
    public parent: AppNode,
  ) {}
  get agentId(): string {
    return this.record.agentId;
  }
}

export type TreeNode = AppNode | RowNode;

/** What to re-render after an update. */
export interface TreeRefresh {
  /** The whole tree: a group changed (see above). */
  all: boolean;
  /** Otherwise these runs' rows. */
  nodes: RowNode[];
}

/** The elements of the tree, kept across updates. */
export class RunsTreeModel {
  private groups: AppNode[] | undefined;
  private readonly apps = new Map<string, AppNode>();
  private readonly runs = new Map<string, RowNode>();

  /** Whether the tree was built (VS Code asked for it) since the last `clear()`. */
  get built(): boolean {
    return this.groups !== undefined;
  }

  /** The groups; builds them from `groups()` the first time. */
  roots(groups: () => AppGroup[]): AppNode[] {
    if (!this.groups) {
      this.update(groups(), new Set());
    }
    return this.groups ?? [];
  }

  children(app: AppNode): RowNode[] {
    return app.group.runs.map((r) => this.runs.get(r.agentId)).filter((n): n is RowNode => n !== undefined);
  }

  run(agentId: string): RowNode | undefined {
    return this.runs.get(agentId);
  }

  allRuns(): IterableIterator<RowNode> {
    return this.runs.values();
  }

  /** Forgets the shape (nothing is listed): the next `roots()` builds it again. */
  clear(): void {
    this.groups = undefined;
    this.apps.clear();
    this.runs.clear();
  }

  /**
   * Takes the new grouping in, reusing existing nodes, and says what VS Code must re-render.
   * `changed` comes from the ledger's events; a record replaced without one is taken in silently.
   */
  update(next: readonly AppGroup[], changed: ReadonlySet<string>): TreeRefresh {
    const before = this.groups;
    let groupChanged = false;
    const refresh: RowNode[] = [];
    const apps = next.map((g) => {
      const app = this.apps.get(g.key);
      if (!app) {
        const created = new AppNode(g);
        this.apps.set(g.key, created);
        return created;
      }
      groupChanged ||= groupLooksDifferent(app.group, g);
      app.group = g;
      return app;
    });
    const listed = new Set<string>();
    for (const app of apps) {
      for (const r of app.group.runs) {
        listed.add(r.agentId);
        const node = this.runs.get(r.agentId);
        if (!node) {
          // Its group's rows changed (see groupLooksDifferent).
          this.runs.set(r.agentId, new RowNode(r, app));
          continue;
        }
        if (node.parent !== app) {
          // Moved to another app: both groups' rows changed.
          node.parent = app;
        }
        node.record = r;
        if (changed.has(r.agentId)) {
          refresh.push(node);
        }
      }
    }
    for (const id of [...this.runs.keys()]) {
      if (!listed.has(id)) {
        this.runs.delete(id);
      }
    }
    const keys = new Set(next.map((g) => g.key));
    for (const key of [...this.apps.keys()]) {
      if (!keys.has(key)) {
        this.apps.delete(key);
      }
    }
    this.groups = apps;
    if (!before) {
      // Nothing was shown from this model yet: VS Code asks when it needs the tree.
      return { all: false, nodes: [] };
    }
    if (groupChanged || before.length !== apps.length || before.some((a, i) => a !== apps[i])) {
      return { all: true, nodes: [] };
    }
    return { all: false, nodes: refresh };
  }
}

/** Whether the group's own row or its list of rows changed. */
function groupLooksDifferent(a: AppGroup, b: AppGroup): boolean {
  if (a.label !== b.label || a.description !== b.description || a.runs.length !== b.runs.length) {
    return true;
  }
  let activeA = 0;
  let activeB = 0;
  for (let i = 0; i < a.runs.length; i++) {
    if (a.runs[i].agentId !== b.runs[i].agentId) {
      return true;
    }
    activeA += isFinishedRun(a.runs[i]) ? 0 : 1;
    activeB += isFinishedRun(b.runs[i]) ? 0 : 1;
  }
  // The group's description counts its active runs.
  return activeA !== activeB;
}

/**
 * What a run command may be invoked with: a tree node (menus), an agent ID (notifications,
 * links, the panel, tests) or an object carrying one.
 */
export type RunArg = RowNode | string | { agentId: string } | undefined;

export function agentIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') {
    return arg.trim() === '' ? undefined : arg.trim();
  }
  if (arg instanceof RowNode) {
    return arg.agentId;
  }
  if (typeof arg === 'object' && arg !== null && typeof (arg as { agentId?: unknown }).agentId === 'string') {
    return (arg as { agentId: string }).agentId;
  }
  return undefined;
}
