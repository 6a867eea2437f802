/**
 * Test-file scanning and what is built on it, as its own bundle (dist/testGroups.js), loaded on
 * first use. The live store and `deps` come in as parameters, so nothing stateful exists twice.
 */
import { isApiError } from '../api/errors';
import type { Deps } from '../run/deps';
import { CreateTestGroupFlow } from './createGroup';
import type { TestGroupStore } from '../run/common/testGroupStore';
import type { ServiceCommandDeps } from './serviceCommands';
import { ServiceGroupsView } from './serviceRows';
import type { Capability } from '../connection/common/capabilities';

export { checkPatternSetting } from './scan';
export { startRunForFiles, startRunForGroup } from './startRun';
export { scanFilesQuietly } from './testItems';
export { copyGroupId } from './copyId';
import { deleteGroup, editGroupTests, renameGroup, runGroup, type ServiceCommandOutcome } from './serviceCommands';
import type { TestGroupsTree } from './view';

/** One sentence for a failure, as the rest of the extension words it. */
function describeWith(deps: Deps): (e: unknown) => string {
  return (e) => (isApiError(e) ? deps.api().describeApiError(e) : e instanceof Error ? e.message : String(e));
}

/** The Test Groups view's rows while the service's groups are shown (src/testGroups/serviceRows.ts). */
export function serviceGroupsView(deps: Deps, store: TestGroupStore, refreshTree: () => void): ServiceGroupsView {
  return new ServiceGroupsView({
    onDidChangeCapabilities: deps.capabilities.onDidChange,
    shown: () => deps.capabilities.has('serviceTestGroups'),
    listed: () => deps.capabilities.has('serviceTestGroupList'),
    getClient: (o) => deps.getClient(o),
    reportUnauthorized: (e) => deps.reportUnauthorized(e),
    describe: describeWith(deps),
    log: deps.log,
  }, store, refreshTree);
}

/** What Rename, Edit Tests and Delete stand on. */
function serviceCommandDeps(deps: Deps): ServiceCommandDeps {
  return { getClient: (o) => deps.getClient(o), sender: deps.sender, describe: describeWith(deps), showApiError: (e) => deps.showApiError(e), log: deps.log };
}

/** `agentRuns.serviceTestGroups.<id>`, each only while its capability key is on. */
export async function serviceGroupCommand(id: 'refresh' | 'rename' | 'editTests' | 'delete' | 'run', deps: Deps, tree: TestGroupsTree, store: TestGroupStore, arg: unknown): Promise<ServiceCommandOutcome | undefined> {
  const on = (c: Capability): boolean => deps.capabilities.has(c);
  const rows = tree.serviceRows() as ServiceGroupsView | undefined;
  const d = serviceCommandDeps(deps);
  switch (id) {
    case 'refresh':
      if (on('serviceTestGroups')) await rows?.refresh();
      return undefined;
    case 'rename':
      return on('serviceTestGroupEdit') ? renameGroup(d, rows, arg) : undefined;
    case 'editTests':
      return on('serviceTestGroupEdit') ? editGroupTests(d, rows, arg) : undefined;
    case 'delete':
      return on('serviceTestGroupDelete') ? deleteGroup(d, rows, store, arg) : undefined;
    default:
      if (on('serviceTestGroupRuns')) await runGroup(rows, arg);
      return undefined;
  }
}

/** The "Create Test Group from File(s)" flow; one per store, it keeps unfinished inputs. */
export function createTestGroupFlow(deps: Deps, store: TestGroupStore): CreateTestGroupFlow {
  return new CreateTestGroupFlow(deps, store, {
    enabled: () => deps.capabilities.has('serviceTests'),
    getClient: (o) => deps.getClient(o),
    log: deps.log,
  });
}
