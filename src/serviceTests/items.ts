/** The Test Explorer items of the app's tests; components get no run tag, so they are never run. */
import * as vscode from 'vscode';
import type { L10n } from '../base/common/l10n';
import { stepTree, type StepNode, type StepShape } from './common/outcomes';
import type { UserAssignment } from '../run/common/testUsers';

/** Only items with this tag are offered Run: tests and groups (not apps, components or steps). */
export const RUNNABLE = new vscode.TestTag('agentRuns.serviceTests.runnable');

export type ItemMeta =
  | { readonly kind: 'app'; readonly appId: string }
  /** A test with its two test-user assignments (which user a run signs in as). */
  | { readonly kind: 'test'; readonly appId: string; readonly testId: string; readonly name?: string; readonly users: UserAssignment }
  | { readonly kind: 'components'; readonly appId: string }
  | { readonly kind: 'component'; readonly appId: string; readonly testId: string }
  | { readonly kind: 'group'; readonly appId: string; readonly groupId: string; readonly name?: string }
  | { readonly kind: 'member'; readonly appId: string; readonly testId?: string }
  | { readonly kind: 'step'; readonly stepId?: string }
  | { readonly kind: 'note' };

const metas = new WeakMap<vscode.TestItem, ItemMeta>();

export function metaOf(item: vscode.TestItem | undefined): ItemMeta | undefined {
  return item ? metas.get(item) : undefined;
}

export function makeItem(controller: vscode.TestController, id: string, label: string, meta: ItemMeta, o: { description?: string; runnable?: boolean; resolvable?: boolean } = {}): vscode.TestItem {
  const item = controller.createTestItem(id, label);
  metas.set(item, meta);
  if (o.description) item.description = o.description;
  if (o.runnable) item.tags = [RUNNABLE];
  item.canResolveChildren = o.resolvable === true;
  return item;
}

/**
 * The steps as child items of `parent`, ids under the parent's; returns the item of each step
 * by its id (the run's updates find them there).
 */
export function setSteps(controller: vscode.TestController, parent: vscode.TestItem, steps: readonly StepShape[], l10n: L10n): Map<string, vscode.TestItem> {
  const byStep = new Map<string, vscode.TestItem>();
  const build = (node: StepNode, under: string, sort: number): vscode.TestItem => {
    const id = `${under}/${node.key}`;
    const item = makeItem(controller, id, node.label, { kind: 'step', ...(node.stepId ? { stepId: node.stepId } : {}) }, { ...(node.description ? { description: node.description } : {}) });
    // Keep the run order rather than the alphabetical one.
    item.sortText = String(sort).padStart(4, '0');
    item.children.replace(node.children.map((c, i) => build(c, id, i)));
    if (node.stepId) byStep.set(node.stepId, item);
    return item;
  };
  parent.children.replace(stepTree(steps, l10n).map((n, i) => build(n, parent.id, i)));
  parent.canResolveChildren = false;
  return byStep;
}

/** The test (or group member) an item belongs to: itself, or the one above its step. */
export function ownerOf(item: vscode.TestItem): vscode.TestItem | undefined {
  for (let at: vscode.TestItem | undefined = item; at; at = at.parent) {
    const kind = metaOf(at)?.kind;
    if (kind === 'test' || kind === 'member' || kind === 'group') return at;
    if (kind !== 'step') return undefined;
  }
  return undefined;
}
