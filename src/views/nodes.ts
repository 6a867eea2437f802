import type { RunRecord } from '../core/ledger';
import type { AppGroup } from './runPresentation';

/** A group of runs of one app. */
export class AppNode {
  readonly kind = 'app';
  constructor(public group: AppGroup) {}
  get key(): string {
    return this.group.key;
  }
}

/** One run. The same instance lives as long as the run stays in its group, so it can be refreshed alone. */
export class RunNode {
  readonly kind = 'run';
  constructor(
    public record: RunRecord,
    public parent: AppNode,
  ) {}
  get agentId(): string {
    return this.record.agentId;
  }
}

export type TreeNode = AppNode | RunNode;

/**
 * What a run command may be invoked with: a tree node (menus), an agent ID (notifications,
 * links, the panel, tests) or an object carrying one.
 */
export type RunArg = RunNode | string | { agentId: string } | undefined;

export function agentIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') {
    return arg.trim() === '' ? undefined : arg.trim();
  }
  if (arg instanceof RunNode) {
    return arg.agentId;
  }
  if (typeof arg === 'object' && arg !== null && typeof (arg as { agentId?: unknown }).agentId === 'string') {
    return (arg as { agentId: string }).agentId;
  }
  return undefined;
}
