/**
 * An app's test groups as the service has them, where it lists groups or (version A) by reading
 * the ones created here by ID, and a group's size in words: the Test Groups view and the Test
 * Explorer's service tests alike. Pure: the client is passed in.
 */
import { isApiError } from '../../api/errors';
import type { ServiceTestGroup, ServiceTestGroupDetail } from '../../api/testTypes';
import type { L10n } from '../../base/common/l10n';
import type { TestGroupRecord } from './testGroupStore';

/** A group's size in words ("1 test", "3 tests"): the Test Groups view and the Test Explorer. */
export function testCountText(n: number, l10n: L10n): string {
  return n === 1 ? l10n.t('1 test') : l10n.t('{0} tests', n);
}

/** At most this many groups created here are read one by one when the service has no group list. */
export const READ_BY_ID_MAX = 50;

/**
 * The groups of `appId` created here, each as the service has it, where the service lists no
 * groups (version A) but reads one by its ID: the newest `READ_BY_ID_MAX`, in the store's order.
 * A group the service answers 404 for is left out (deleted there); any other failure is thrown.
 */
export async function groupsReadById(read: (groupId: string) => Promise<ServiceTestGroupDetail>, local: readonly TestGroupRecord[], appId: string, isNotFound: (e: unknown) => boolean): Promise<ServiceTestGroup[]> {
  const mine = local.filter((g) => g.appId === appId).slice(0, READ_BY_ID_MAX);
  const read1 = async (g: TestGroupRecord): Promise<ServiceTestGroup | undefined> => {
    try {
      const { members, unreadMembers, ...group } = await read(g.groupId);
      const complete = unreadMembers === undefined;
      return group.testCount === undefined && complete ? { ...group, testCount: members.length } : group;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
  return (await Promise.all(mine.map(read1))).filter((g): g is ServiceTestGroup => g !== undefined);
}

/**
 * The app's groups as the service has them: its list where it lists groups (`listed`), else
 * (version A) the groups created here, read by ID; a 404 there means deleted.
 */
export function appGroups(
  client: { listTestGroups(appId: string): Promise<ServiceTestGroup[]>; getTestGroup(groupId: string): Promise<ServiceTestGroupDetail> },
  appId: string, listed: boolean, local: readonly TestGroupRecord[],
): Promise<ServiceTestGroup[]> {
  return listed ? client.listTestGroups(appId) : groupsReadById((id) => client.getTestGroup(id), local, appId, (e) => isApiError(e) && e.status === 404);
}
