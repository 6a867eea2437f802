/**
 * Rename, Edit Tests and Delete on a group the service lists, each sent at most once through the
 * sender (`PUT` takes the whole group); one that may have arrived is said and never resent.
 */
import * as vscode from 'vscode';
import type { AppTest, ServiceTestGroupDetail, UpdateTestGroupRequest } from '../api/testTypes';
import { runOwnCommand } from '../connection/ownCommands';
import { failureNotice, type SendAnswer } from '../run/common/sends/outcome';
import { editTestsChoices, groupRefOf, testIdsAfterEdit, unwritableMembers } from './common/serviceGroups';
import type { TestGroupStore } from '../run/common/testGroupStore';
import type { SendOptions } from '../run/sender';
import type { ServiceGroupsView } from './serviceRows';
import { defaultAppId } from './settings';

type GroupSendAnswer = Exclude<SendAnswer, { kind: 'queued' }>;

export interface ServiceCommandDeps {
  getClient(options?: { quiet?: boolean }): Promise<{
    getTestGroup(groupId: string): Promise<ServiceTestGroupDetail>;
    listTests(appId: string): Promise<AppTest[]>;
  } | undefined>;
  readonly sender: {
    updateTestGroup(groupId: string, request: UpdateTestGroupRequest, options: SendOptions): Promise<GroupSendAnswer>;
    deleteTestGroup(groupId: string, options: SendOptions): Promise<GroupSendAnswer>;
  };
  describe(error: unknown): string;
  showApiError(error: unknown): Promise<string | undefined>;
  readonly log: Pick<vscode.LogOutputChannel, 'info' | 'warn'>;
}

/** What a command did: `cancelled` when nothing was sent. */
export type ServiceCommandOutcome = 'cancelled' | GroupSendAnswer['kind'];

const FROM = 'Test Groups view';

/**
 * The group as the service has it now (a PUT takes the whole group), or undefined after saying
 * why not: it could not be read, or its members could not all be (they would be lost by a write).
 */
async function readGroup(d: ServiceCommandDeps, ref: { groupId: string; name?: string }): Promise<ServiceTestGroupDetail | undefined> {
  const client = await d.getClient();
  if (!client) return undefined;
  let detail: ServiceTestGroupDetail;
  try {
    detail = await client.getTestGroup(ref.groupId);
  } catch (e) {
    void d.showApiError(e);
    return undefined;
  }
  const problem = unwritableMembers(detail, detail.name ?? ref.name ?? ref.groupId, vscode.l10n);
  if (problem !== undefined) {
    d.log.warn(`Test group ${ref.groupId} not changed: ${problem}`);
    void vscode.window.showErrorMessage(problem);
    return undefined;
  }
  return detail;
}

function request(detail: ServiceTestGroupDetail, name: string, testIds: string[]): UpdateTestGroupRequest {
  return detail.description ? { name, testIds, description: detail.description } : { name, testIds };
}

function tell(d: ServiceCommandDeps, answer: GroupSendAnswer, what: string, done: string, rows: Pick<ServiceGroupsView, 'refresh'> | undefined): ServiceCommandOutcome {
  if (answer.kind === 'done') {
    void vscode.window.showInformationMessage(done);
  } else {
    const notice = failureNotice(answer, what, (e) => d.describe(e), vscode.l10n);
    if (notice) {
      d.log.warn(notice.text);
      const show = notice.severity === 'info' ? vscode.window.showInformationMessage : notice.severity === 'warning' ? vscode.window.showWarningMessage : vscode.window.showErrorMessage;
      void show(notice.text);
    }
  }
  // What the service holds now, whatever happened (a send that may have arrived shows there if it did).
  if (answer.kind !== 'busy' && answer.kind !== 'notConnected') void rows?.refresh();
  return answer.kind;
}

/** `agentRuns.serviceTestGroups.rename`. */
export async function renameGroup(d: ServiceCommandDeps, rows: ServiceGroupsView | undefined, arg: unknown): Promise<ServiceCommandOutcome> {
  const ref = groupRefOf(arg);
  if (!ref) return 'cancelled';
  const detail = await readGroup(d, ref);
  if (!detail) return 'cancelled';
  const current = detail.name ?? ref.name ?? ref.groupId;
  const name = await vscode.window.showInputBox({
    title: vscode.l10n.t('Rename Test Group'),
    prompt: vscode.l10n.t('New name of the test group “{0}”', current),
    value: current,
    validateInput: (v) => (v.trim() === '' ? vscode.l10n.t('Give the test group a name.') : undefined),
  });
  if (name === undefined || name.trim() === current) return 'cancelled';
  const answer = await d.sender.updateTestGroup(ref.groupId, request(detail, name.trim(), detail.members.map((m) => m.testId)), { from: FROM });
  return tell(d, answer, vscode.l10n.t('Renaming the test group “{0}”', current), vscode.l10n.t('Test group “{0}” renamed to “{1}”.', current, name.trim()), rows);
}

/** `agentRuns.serviceTestGroups.editTests`: the app's tests, the members checked; components are not offered (and kept). */
export async function editGroupTests(d: ServiceCommandDeps, rows: ServiceGroupsView | undefined, arg: unknown): Promise<ServiceCommandOutcome> {
  const ref = groupRefOf(arg);
  if (!ref) return 'cancelled';
  const appId = ref.appId ?? rows?.group(ref.groupId)?.appId ?? defaultAppId();
  const detail = await readGroup(d, ref);
  if (!detail) return 'cancelled';
  let tests: AppTest[];
  try {
    const client = await d.getClient();
    if (!client) return 'cancelled';
    tests = await client.listTests(appId);
  } catch (e) {
    void d.showApiError(e);
    return 'cancelled';
  }
  const name = detail.name ?? ref.name ?? ref.groupId;
  const choices = editTestsChoices(tests, detail, vscode.l10n);
  const items = choices.map((c) => ({ label: c.label, description: c.description, picked: c.picked, testId: c.testId }));
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    title: vscode.l10n.t('Edit Tests of “{0}”', name),
    placeHolder: vscode.l10n.t('The tests of app {0}; the group\'s tests are checked', appId),
    matchOnDescription: true,
  });
  if (!picked) return 'cancelled';
  const ids = testIdsAfterEdit(choices, new Set(picked.map((p) => p.testId)), detail, tests);
  const before = detail.members.map((m) => m.testId);
  if (ids.length === before.length && ids.every((id) => before.includes(id))) {
    void vscode.window.showInformationMessage(vscode.l10n.t('The tests of “{0}” are unchanged; nothing was sent.', name));
    return 'cancelled';
  }
  const answer = await d.sender.updateTestGroup(ref.groupId, request(detail, name, ids), { from: FROM });
  return tell(d, answer, vscode.l10n.t('Saving the tests of “{0}”', name), vscode.l10n.t('Test group “{0}” now has {1} tests.', name, ids.length), rows);
}

/** `agentRuns.serviceTestGroups.delete`: after a modal confirmation; the group leaves the list kept here too. */
export async function deleteGroup(d: ServiceCommandDeps, rows: ServiceGroupsView | undefined, store: TestGroupStore, arg: unknown): Promise<ServiceCommandOutcome> {
  const ref = groupRefOf(arg);
  if (!ref) return 'cancelled';
  const name = ref.name ?? rows?.group(ref.groupId)?.name ?? ref.groupId;
  const del = vscode.l10n.t('Delete');
  const pick = await vscode.window.showWarningMessage(
    vscode.l10n.t('Delete the test group “{0}” from the service?', name),
    { modal: true, detail: vscode.l10n.t('Group ID: {0}. Its tests are kept; the group cannot be brought back.', ref.groupId) },
    del,
  );
  if (pick !== del) return 'cancelled';
  const answer = await d.sender.deleteTestGroup(ref.groupId, { from: FROM });
  if (answer.kind === 'done') await store.remove(ref.groupId);
  return tell(d, answer, vscode.l10n.t('Deleting the test group “{0}”', name), vscode.l10n.t('Test group “{0}” deleted.', name), rows);
}

/** `agentRuns.serviceTestGroups.run`: the Test Explorer runs it (branch pick, results there). */
export async function runGroup(rows: ServiceGroupsView | undefined, arg: unknown): Promise<void> {
  const ref = groupRefOf(arg);
  if (!ref) return;
  const node = rows?.group(ref.groupId);
  const appId = ref.appId ?? node?.appId;
  const name = ref.name ?? node?.name;
  await runOwnCommand('agentRuns.serviceTests.runGroup', { groupId: ref.groupId, ...(appId === undefined ? {} : { appId }), ...(name === undefined ? {} : { name }) });
}
