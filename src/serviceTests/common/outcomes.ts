/**
 * Service test statuses as Test Explorer states, keeping the service's word in the message (a
 * `warning` is a pass that says so, a cancel a skip), and the tree of a test's steps.
 */
import type { ConditionOutcome, TestRunStatus, TestRunStep, TestStepStatus, TestStepType } from '../../api/testTypes';
import type { L10n } from '../../base/common/l10n';

/** The Testing API's states (vscode.TestRun's methods), by name. */
export type Verdict = 'queued' | 'running' | 'passed' | 'failed' | 'errored' | 'skipped';

export interface Outcome {
  readonly verdict: Verdict;
  /** The service will not change it again: the run or step ended. */
  readonly final: boolean;
  /** What the person must see beside the state (never absent for a warning or a cancel). */
  readonly message?: string;
  /** A run with a status nobody lists and no `completedAt`: it may still move, read ever less often. */
  readonly dormant?: boolean;
}

/** The word the service wrote (`rawStatus`), else the normalised one. */
function word(status: string, raw: string | undefined): string {
  return raw !== undefined && raw.trim() !== '' ? raw.trim() : status;
}

/**
 * A run's (or group run's) status. An unlisted status ends the run only with `completedAt`
 * (as `runState` does for agent runs): until then it is still running.
 */
export function runOutcome(r: { status: TestRunStatus; rawStatus?: string; completedAt?: number; summary?: string }, l10n: L10n): Outcome {
  const w = word(r.status, r.rawStatus);
  switch (r.status) {
    case 'queued': return { verdict: 'queued', final: false };
    case 'running': return { verdict: 'running', final: false };
    case 'passed': return { verdict: 'passed', final: true };
    case 'warning': return { verdict: 'passed', final: true, message: l10n.t('Passed with warnings (the service says “{0}”).', w) };
    case 'error': return { verdict: 'failed', final: true, message: l10n.t('Failed (the service says “{0}”).', w) };
    case 'canceled': return { verdict: 'skipped', final: true, message: l10n.t('Not finished: the service says “{0}”.', w) };
    default:
      return r.completedAt !== undefined
        ? { verdict: 'errored', final: true, message: l10n.t('The service ended the run with a status this extension does not know: “{0}”.', w) }
        : { verdict: 'running', final: false, dormant: true, message: l10n.t('The service says “{0}”, a status this extension does not know, and gives no end time: the run is read less and less often until it ends.', w) };
  }
}

/** A step's status; `comment` (the agent's words on the step) joins the message when there is one. */
export function stepOutcome(s: Pick<TestRunStep, 'status' | 'rawStatus' | 'comment' | 'completedAt'>, l10n: L10n): Outcome {
  const w = word(s.status, s.rawStatus);
  const comment = s.comment?.trim() ? s.comment.trim() : undefined;
  const withComment = (head: string): string => (comment ? `${head}\n${comment}` : head);
  const status: TestStepStatus = s.status;
  switch (status) {
    case 'pending': return { verdict: 'queued', final: false };
    case 'passed': return { verdict: 'passed', final: true, ...(comment ? { message: comment } : {}) };
    case 'warning': return { verdict: 'passed', final: true, message: withComment(l10n.t('Warning (the service says “{0}”).', w)) };
    case 'error': return { verdict: 'failed', final: true, message: withComment(l10n.t('Failed (the service says “{0}”).', w)) };
    case 'skipped': return { verdict: 'skipped', final: true, message: withComment(l10n.t('Skipped (the service says “{0}”).', w)) };
    case 'cancelled': return { verdict: 'skipped', final: true, message: withComment(l10n.t('Cancelled (the service says “{0}”): an earlier step stopped the run.', w)) };
    default:
      return s.completedAt !== undefined
        ? { verdict: 'errored', final: true, message: withComment(l10n.t('The step ended with a status this extension does not know: “{0}”.', w)) }
        : { verdict: 'queued', final: false };
  }
}

/** The order steps run in: version B's `order`, else `position`; ties by position, then id. */
export function orderSteps<S extends { id: string; position: number; order?: number }>(steps: readonly S[]): S[] {
  return [...steps].sort((a, b) => (a.order ?? a.position) - (b.order ?? b.position) || a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** What a step of a test (`GET /tests/{id}`) or of a run (`GET /test-runs/{id}`) shows as a tree. */
export interface StepShape {
  id: string;
  position: number;
  order?: number;
  stepType?: TestStepType;
  sourceKind?: string;
  instruction?: string;
  details?: string;
  componentId?: string;
  componentName?: string;
  sourceComponentId?: string;
  sourceComponentName?: string;
  graphNodeKey?: string;
  parentGraphNodeKey?: string;
  parentConditionOutcome?: ConditionOutcome;
}

export interface StepNode {
  /** Unique among the test's nodes: the step's id, or `<condition id>:met` / `:not_met` for a branch. */
  readonly key: string;
  /** The step's id; absent on a branch node. */
  readonly stepId?: string;
  readonly label: string;
  readonly description?: string;
  readonly children: StepNode[];
}

function oneLine(text: string | undefined, max = 120): string {
  const t = (text ?? '').replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** A step's label: its instruction; a condition's as "If …"; a component reference by the component's name. */
export function stepLabel(s: StepShape, l10n: L10n): string {
  const component = s.componentName ?? s.sourceComponentName;
  if (s.stepType === 'component') {
    return l10n.t('Component: {0}', oneLine(component) || (s.componentId ?? s.sourceComponentId ?? s.id));
  }
  const text = oneLine(s.instruction) || l10n.t('(no instruction)');
  return s.stepType === 'condition' ? l10n.t('If: {0}', text) : text;
}

/**
 * The steps as a tree, in run order: a condition holds an "if met" and an "if not met" branch,
 * each with the steps that follow that outcome (and the steps that follow those); every other
 * step stays beside the step it follows. A step of a component shows the component's name.
 */
export function stepTree(steps: readonly StepShape[], l10n: L10n): StepNode[] {
  const ordered = orderSteps(steps);
  const byKey = new Map<string, StepShape>();
  for (const s of ordered) if (s.graphNodeKey) byKey.set(s.graphNodeKey, s);
  const roots: StepNode[] = [];
  /** Where each step's node went (the list it is in), by step id. */
  const listOf = new Map<string, StepNode[]>();
  const branches = new Map<string, StepNode>();
  const nodes = new Map<string, StepNode>();
  const branchOf = (cond: StepShape, outcome: ConditionOutcome): StepNode[] => {
    const key = `${cond.id}:${outcome}`;
    let b = branches.get(key);
    if (!b) {
      b = { key, label: outcome === 'met' ? l10n.t('if met') : outcome === 'not_met' ? l10n.t('if not met') : l10n.t('if “{0}”', outcome), children: [] };
      branches.set(key, b);
      nodes.get(cond.id)?.children.push(b);
    }
    return b.children;
  };
  // A step whose parent is not placed yet (a graph out of order) stays at the top.
  const placeOf = (s: StepShape): StepNode[] => {
    const parent = s.parentGraphNodeKey ? byKey.get(s.parentGraphNodeKey) : undefined;
    if (!parent || parent.id === s.id || !nodes.has(parent.id)) return roots;
    if (parent.stepType === 'condition' && s.parentConditionOutcome) return branchOf(parent, s.parentConditionOutcome);
    return listOf.get(parent.id) ?? roots;
  };
  for (const s of ordered) {
    const component = s.sourceKind === 'component' && s.stepType !== 'component' ? (s.sourceComponentName ?? s.sourceComponentId) : undefined;
    const description = component ? l10n.t('from component {0}', oneLine(component)) : undefined;
    const node: StepNode = { key: s.id, stepId: s.id, label: stepLabel(s, l10n), ...(description ? { description } : {}), children: [] };
    nodes.set(s.id, node);
    const list = placeOf(s);
    list.push(node);
    listOf.set(s.id, list);
    if (s.stepType === 'condition') {
      branchOf(s, 'met');
      branchOf(s, 'not_met');
    }
  }
  return roots;
}
