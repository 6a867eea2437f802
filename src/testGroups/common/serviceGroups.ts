/**
 * The Test Groups view with the service's groups (service-api-wider.md §4): those created here
 * (run/common/testGroupStore.ts) merged with those listed, a group's members, Edit Tests' choices, the IDs' check against the app's tests.
 */
import type { AppTest, ServiceTestGroup, ServiceTestGroupDetail, ServiceTestGroupMember } from '../../api/testTypes';
import type { L10n } from '../../base/common/l10n';
import { testCountText } from '../../run/common/appTestGroups';
import type { TestGroupRecord } from '../../run/common/testGroupStore';

/** A root row of the view: a group created here, listed by the service, or both (one entry). */
export interface GroupEntry {
  readonly groupId: string;
  readonly name: string;
  readonly appId: string;
  readonly description: string | null;
  /** The service's count when it listed the group, else how many IDs were sent from here. */
  readonly testCount: number | undefined;
  /** The record kept here, when the group was created here. */
  readonly local?: TestGroupRecord;
  /** What the service listed, when it did. */
  readonly service?: ServiceTestGroup;
}

/**
 * One entry per group ID: those created here first (newest first, the service's name and count
 * winning), then the service's others by app and name. `listed` lacks apps whose list failed.
 */
export function mergeGroups(local: readonly TestGroupRecord[], listed: ReadonlyMap<string, readonly ServiceTestGroup[]>): GroupEntry[] {
  const byId = new Map<string, { appId: string; group: ServiceTestGroup }>();
  for (const [appId, groups] of listed) {
    for (const group of groups) {
      if (!byId.has(group.id)) byId.set(group.id, { appId, group });
    }
  }
  const entries: GroupEntry[] = [];
  const seen = new Set<string>();
  for (const g of local) {
    if (seen.has(g.groupId)) continue;
    seen.add(g.groupId);
    const s = byId.get(g.groupId)?.group;
    entries.push({
      groupId: g.groupId,
      name: s?.name ?? g.name,
      appId: g.appId,
      description: s ? (s.description ?? null) : g.description,
      testCount: s?.testCount ?? g.testCount,
      local: g,
      ...(s ? { service: s } : {}),
    });
  }
  const others = [...byId.values()].filter(({ group }) => !seen.has(group.id));
  const appOrder = [...listed.keys()];
  others.sort((a, b) => appOrder.indexOf(a.appId) - appOrder.indexOf(b.appId) || (a.group.name ?? a.group.id).localeCompare(b.group.name ?? b.group.id));
  for (const { appId, group } of others) {
    entries.push({ groupId: group.id, name: group.name ?? group.id, appId, description: group.description ?? null, testCount: group.testCount, service: group });
  }
  return entries;
}

/**
 * The row's context value: `testGroup` for one only created here (the menus it always had),
 * `testGroup;service` for one the service lists, `;local` added when it was also created here.
 */
export function groupContextValue(e: GroupEntry): string {
  if (!e.service) return 'testGroup';
  return e.local ? 'testGroup;service;local' : 'testGroup;service';
}

/** The apps whose groups are listed: the configured one, then those of the groups created here. */
export function appsToList(defaultAppId: string | undefined, local: readonly TestGroupRecord[]): string[] {
  const apps: string[] = [];
  for (const a of [defaultAppId ?? '', ...local.map((g) => g.appId)]) {
    const id = a.trim();
    if (id !== '' && !apps.includes(id)) apps.push(id);
  }
  return apps;
}

/** Whether a member is a reusable component (B says so; A's members do not tell). */
export function isComponentMember(m: ServiceTestGroupMember): boolean {
  return m.isComponent === true;
}

/**
 * The members with `isComponent` said where the group did not say it (A and C members do not):
 * from the app's tests, which mark components. A member the app does not list stays as it was.
 */
export function markComponents(detail: ServiceTestGroupDetail, tests: readonly AppTest[]): ServiceTestGroupDetail {
  const byId = new Map(tests.map((t) => [t.id, t.isComponent]));
  return { ...detail, members: detail.members.map((m) => (m.isComponent === undefined && byId.has(m.testId) ? { ...m, isComponent: byId.get(m.testId) === true } : m)) };
}

/** Whether some member does not say whether it is a component (the app's tests tell). */
export function componentsUnsaid(detail: Pick<ServiceTestGroupDetail, 'members'>): boolean {
  return detail.members.some((m) => m.isComponent === undefined);
}

/** A member's row: its name (else its ID) and what to show beside it. */
export function memberRow(m: ServiceTestGroupMember, l10n: L10n): { label: string; description: string; contextValue: string } {
  const component = isComponentMember(m);
  return {
    label: m.name?.trim() || m.testId,
    description: component ? l10n.t('component · {0}', m.testId) : m.testId,
    contextValue: component ? 'testGroupMember;component' : 'testGroupMember',
  };
}

/** One item of Edit Tests' multi-pick. */
export interface TestChoice {
  testId: string;
  label: string;
  description: string;
  picked: boolean;
}

/**
 * Edit Tests' choices: the app's tests (components are not offered), the group's current
 * members checked; a member the app no longer lists is offered too, checked, so keeping it is
 * the default.
 */
export function editTestsChoices(tests: readonly AppTest[], detail: Pick<ServiceTestGroupDetail, 'members'>, l10n: L10n): TestChoice[] {
  const members = new Set(detail.members.filter((m) => !isComponentMember(m)).map((m) => m.testId));
  const componentIds = new Set(tests.filter((t) => t.isComponent).map((t) => t.id));
  const choices: TestChoice[] = tests
    .filter((t) => !t.isComponent)
    .map((t) => ({ testId: t.id, label: t.name?.trim() || t.id, description: t.id, picked: members.has(t.id) }));
  const offered = new Set(choices.map((c) => c.testId));
  for (const m of detail.members) {
    if (!offered.has(m.testId) && !isComponentMember(m) && !componentIds.has(m.testId)) {
      offered.add(m.testId);
      choices.push({ testId: m.testId, label: m.name?.trim() || m.testId, description: l10n.t('{0} · not listed among the app\'s tests', m.testId), picked: true });
    }
  }
  return choices;
}

/**
 * The test IDs Edit Tests sends (`PUT` replaces the whole group): the members in order less those
 * unpicked, components (not offered) kept in place so an ordered group stays ordered, then the new picks.
 */
export function testIdsAfterEdit(choices: readonly TestChoice[], picked: ReadonlySet<string>, detail: Pick<ServiceTestGroupDetail, 'members'>, tests: readonly AppTest[]): string[] {
  const componentIds = new Set(tests.filter((t) => t.isComponent).map((t) => t.id));
  const ids: string[] = [];
  for (const m of detail.members) {
    const keep = isComponentMember(m) || componentIds.has(m.testId) || picked.has(m.testId);
    if (keep && !ids.includes(m.testId)) ids.push(m.testId);
  }
  for (const c of choices) {
    if (picked.has(c.testId) && !ids.includes(c.testId)) ids.push(c.testId);
  }
  return ids;
}

/**
 * Why the group's members must not be written back (`PUT` takes the whole list, so a list read
 * short would drop tests), or undefined when they may: the service's answer had no readable
 * list, a member without a test ID, or fewer or more members than its own `testCount`.
 */
export function unwritableMembers(detail: Pick<ServiceTestGroupDetail, 'members' | 'unreadMembers' | 'testCount'>, name: string, l10n: L10n): string | undefined {
  const after = l10n.t('Nothing was sent: the group keeps its tests on the service. Refresh and try again, or change the group in the service.');
  if (detail.unreadMembers === 'list') {
    return `${l10n.t('The service\'s answer for the test group “{0}” has no list of its tests that this extension can read.', name)} ${after}`;
  }
  if (detail.unreadMembers !== undefined && detail.unreadMembers > 0) {
    return `${l10n.t('{0} of the tests of “{1}” could not be read (no test ID).', detail.unreadMembers, name)} ${after}`;
  }
  if (detail.testCount !== undefined && detail.testCount !== detail.members.length) {
    return `${l10n.t('The service says “{0}” has {1} but listed {2} of them.', name, testCountText(detail.testCount, l10n), detail.members.length)} ${after}`;
  }
  return undefined;
}

/** The IDs found that the app does not list among its tests and components, in the order found. */
export function unknownTestIds(ids: readonly string[], tests: readonly AppTest[]): string[] {
  const known = new Set(tests.map((t) => t.id));
  return ids.filter((id, i) => !known.has(id) && ids.indexOf(id) === i);
}

/** The IDs without the unknown ones. */
export function withoutIds(ids: readonly string[], drop: readonly string[]): string[] {
  const out = new Set(drop);
  return ids.filter((id) => !out.has(id));
}

/** At most this many unknown IDs are named in the message. */
export const UNKNOWN_SHOWN = 5;

/** "2 of the 5 test IDs are not tests of app app_todo: a, b." */
export function unknownIdsMessage(unknown: readonly string[], total: number, appId: string, l10n: L10n): string {
  const shown = unknown.slice(0, UNKNOWN_SHOWN).join(', ');
  const more = unknown.length > UNKNOWN_SHOWN ? l10n.t(' and {0} more', unknown.length - UNKNOWN_SHOWN) : '';
  return unknown.length === 1
    ? l10n.t('1 of the {0} test IDs is not a test of app {1}: {2}.', total, appId, shown)
    : l10n.t('{0} of the {1} test IDs are not tests of app {2}: {3}{4}.', unknown.length, total, appId, shown, more);
}

/** The group a view command is about: an entry (or `{ groupId }`) with what is known of it. */
export function groupRefOf(arg: unknown): { groupId: string; appId?: string; name?: string } | undefined {
  if (typeof arg === 'string') return arg.trim() === '' ? undefined : { groupId: arg.trim() };
  if (typeof arg !== 'object' || arg === null) return undefined;
  const a = arg as { groupId?: unknown; appId?: unknown; name?: unknown };
  if (typeof a.groupId !== 'string' || a.groupId.trim() === '') return undefined;
  return {
    groupId: a.groupId.trim(),
    ...(typeof a.appId === 'string' && a.appId !== '' ? { appId: a.appId } : {}),
    ...(typeof a.name === 'string' ? { name: a.name } : {}),
  };
}
