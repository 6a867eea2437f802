/**
 * The branch a person runs an app's tests on, remembered per service and app, and "live" told
 * apart (it runs against the live app with its live test user, so it is confirmed). Pure.
 */

/** The global-state key of the branch a person runs an app's tests on (the contract's). */
export function branchKey(baseUrl: string, appId: string): string {
  return `agentRuns.testBranch.v1:${baseUrl}:${appId}`;
}

export function reviveBranch(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' && value.length <= 200 ? value.trim() : undefined;
}

/** The live app rather than a branch. */
export function isLive(branch: string): boolean {
  return branch.trim().toLowerCase() === 'live';
}
