/**
 * The Runs view's automation rows under an app: one node per app key for the session, one per
 * listed automation. Every kind starts with "automation", which is how runsTree.ts routes them here.
 */
import type { Automation } from '../../api/testTypes';
import type { AppRef } from '../../run/common/rows';

/** What is known of an app's automations. */
export type AutomationsState =
  /** Not asked yet (asked when the row is expanded or refreshed). */
  | { kind: 'unread' }
  | { kind: 'loading'; promise: Promise<void> }
  | { kind: 'listed'; automations: AutomationNode[] }
  | { kind: 'failed'; message: AutomationsMessageNode };

/** The collapsed "Automations" row of an app. */
export class AutomationsNode {
  readonly kind = 'automations';
  state: AutomationsState = { kind: 'unread' };
  /** Asked again while a read was under way: read once more after it. */
  stale = false;
  private readonly nodes = new Map<string, AutomationNode>();
  /** "No automations". */
  readonly none = new AutomationsMessageNode(this);
  constructor(public parent: AppRef) {}

  get appId(): string {
    return this.parent.key;
  }

  /** An automation listed now, by ID. */
  automation(id: string): AutomationNode | undefined {
    return this.state.kind === 'listed' ? this.nodes.get(id) : undefined;
  }

  /** Takes a service answer in, in the service's order, reusing the nodes already there. An ID listed twice is shown once. */
  take(list: readonly Automation[]): void {
    const keep = new Set<string>();
    const automations: AutomationNode[] = [];
    for (const item of list) {
      if (keep.has(item.id)) {
        continue;
      }
      keep.add(item.id);
      let node = this.nodes.get(item.id);
      if (!node) {
        node = new AutomationNode(this, item);
        this.nodes.set(item.id, node);
      }
      node.item = item;
      automations.push(node);
    }
    for (const id of [...this.nodes.keys()]) {
      if (!keep.has(id)) {
        this.nodes.delete(id);
      }
    }
    this.state = { kind: 'listed', automations };
  }

  /** Forgets what was listed (another service or token): read again when next shown. */
  forget(): void {
    this.state = { kind: 'unread' };
    this.stale = false;
    this.nodes.clear();
  }
}

/** One automation; the node itself is Run Now's argument (context menu, inline button). */
export class AutomationNode {
  readonly kind = 'automation';
  constructor(
    readonly parent: AutomationsNode,
    public item: Automation,
  ) {}

  get automationId(): string {
    return this.item.id;
  }

  get appId(): string {
    return this.parent.appId;
  }
}

/** The one row shown instead of automations: the read failed (with a retry), or there are none. */
export class AutomationsMessageNode {
  readonly kind = 'automationsMessage';
  constructor(
    readonly parent: AutomationsNode,
    /** What went wrong (user-facing); undefined for "No automations". */
    readonly problem?: string,
  ) {}
}

export type AutomationTreeNode = AutomationsNode | AutomationNode | AutomationsMessageNode;

/** The children of an automation element as they are known now. */
export function automationChildren(node: AutomationTreeNode): AutomationTreeNode[] {
  if (node.kind !== 'automations') {
    return [];
  }
  if (node.state.kind === 'listed') {
    return node.state.automations.length > 0 ? node.state.automations : [node.none];
  }
  return node.state.kind === 'failed' ? [node.state.message] : [];
}

/** What Run Now was invoked with: an automation row or `{ automationId, appId?, name? }`. */
export interface AutomationRef {
  automationId: string;
  appId?: string;
  name?: string;
}

export function automationRefOf(arg: unknown): AutomationRef | undefined {
  if (arg instanceof AutomationNode) {
    return { automationId: arg.automationId, appId: arg.appId, ...(arg.item.name === undefined ? {} : { name: arg.item.name }) };
  }
  if (typeof arg !== 'object' || arg === null) {
    return undefined;
  }
  const a = arg as { automationId?: unknown; appId?: unknown; name?: unknown };
  if (typeof a.automationId !== 'string' || a.automationId.trim() === '') {
    return undefined;
  }
  return {
    automationId: a.automationId.trim(),
    ...(typeof a.appId === 'string' && a.appId !== '' ? { appId: a.appId } : {}),
    ...(typeof a.name === 'string' ? { name: a.name } : {}),
  };
}
