/**
 * What the service serves beyond the reference's five endpoints: a capability is on when the
 * stored `/openapi.json` lists all its operations; its context key `agentRuns.<capability>` gates package.json's `when`.
 */

export type Capability =
  | 'codeReviews' | 'serviceTests' | 'serviceTestGroupRuns' | 'serviceTestGroups' | 'serviceTestGroupList'
  | 'serviceTestGroupEdit' | 'serviceTestGroupDelete' | 'automations' | 'automationRuns';

/** The operations each capability needs, all of them. */
const NEEDS: Readonly<Record<Capability, string>> = {
  codeReviews: 'POST /code-reviews',
  serviceTests: 'GET /tests,GET /tests/{},POST /test-runs,GET /test-runs/{}',
  serviceTestGroupRuns: 'POST /test-group-runs,GET /test-group-runs/{}',
  // A group read by its ID (every version); the list of an app's groups is B's and C's alone.
  serviceTestGroups: 'GET /test-groups/{}',
  serviceTestGroupList: 'GET /test-groups',
  serviceTestGroupEdit: 'PUT /test-groups/{}',
  serviceTestGroupDelete: 'DELETE /test-groups/{}',
  automations: 'GET /automations',
  automationRuns: 'POST /automations/{}/run',
};

export const CAPABILITIES = Object.keys(NEEDS) as readonly Capability[];

/** The operations `c` needs (`GET /tests/{}`). */
export function operationsOf(c: Capability): string[] {
  return NEEDS[c].split(',');
}

/** Its context key: `agentRuns.serviceTests`. */
export function contextKeyOf(c: Capability): string {
  return `agentRuns.${c}`;
}

/** What is known of a service: the paths and the operations its schema listed (either may be unknown). */
export interface Served {
  paths?: readonly string[];
  operations?: readonly string[];
}

/**
 * Those whose operations are all listed. Paths stored before operations were kept give code
 * reviews only, as before, until the schema is read again.
 */
export function servedCapabilities(s: Served | undefined): Set<Capability> {
  const ops = s?.operations;
  if (ops === undefined) {
    return new Set(s?.paths?.includes('/code-reviews') === true ? ['codeReviews'] : []);
  }
  return new Set(CAPABILITIES.filter((c) => operationsOf(c).every((op) => ops.includes(op))));
}

/** The global-state key of the paths last read from a base URL's `/openapi.json`. */
export function servedPathsKey(baseUrl: string): string {
  return `agentRuns.servedPaths.v1:${baseUrl}`;
}

/** The global-state key of the operations last read from a base URL's `/openapi.json`. */
export function servedOperationsKey(baseUrl: string): string {
  return `agentRuns.servedOperations.v1:${baseUrl}`;
}

/** A stored list (paths, operations), or undefined when nothing usable is stored (not known). */
export function reviveServedList(raw: unknown): string[] | undefined {
  return Array.isArray(raw) ? raw.filter((p): p is string => typeof p === 'string') : undefined;
}

export interface ProbeState {
  /** The Runs view is visible. */
  visible: boolean;
  signedIn: boolean;
  baseUrl: string | undefined;
  /** The operations are stored for this base URL (paths alone are not enough). */
  known: boolean;
  /** This session already asked this base URL once. */
  probed: boolean;
}

/**
 * Whether to read `/openapi.json` just to learn the capabilities: once per session and base
 * URL, only while someone looks at the Runs view with a token and its operations are not known.
 * Every other read of the schema (launch form, tools, history windows) teaches them on the way.
 */
export function shouldProbe(s: ProbeState): boolean {
  return s.visible && s.signedIn && s.baseUrl !== undefined && !s.known && !s.probed;
}
