/**
 * The test controller "Agent Runs: App Tests": per app its tests, components apart (never run),
 * steps read on expand. Exists while the service offers tests; disposing it stops every read.
 */
import * as vscode from 'vscode';
import { isApiError } from '../api/errors';
import type { ServiceTestGroup, ServiceTestGroupDetail, TestUser } from '../api/testTypes';
import type { Capability } from '../connection/common/capabilities';
import { DEFAULT_POLLER_SETTINGS } from '../run/common/polling/settings';
import { TestRunStore } from './common/store';
import { runsAsDescription } from '../run/common/testUsers';
import { appGroups, testCountText } from '../run/common/appTestGroups';
import type { TestGroupRecord } from '../run/common/testGroupStore';
import type { FailureDescribers } from '../run/failureDescribers';
import { makeItem, metaOf, RUNNABLE, setSteps } from './items';
import { Runner } from './runner';
import { describeError, isRunGroupArgument, type ServiceTestsDeps } from './types';

const l10n = vscode.l10n;
export const CONTROLLER_ID = 'agentRuns.serviceTests';

function configuredApp(): string | undefined {
  const v = vscode.workspace.getConfiguration('agentRuns').get<unknown>('appId');
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

const live = new Set<ServiceTests>();
/** The controller while the service offers its tests (the integration tests look at its items). */
export function current(): { controller: vscode.TestController; runner: Runner } | undefined {
  const c = [...live].pop();
  return c ? { controller: c.controller, runner: c.runner } : undefined;
}

export class ServiceTests implements vscode.Disposable {
  readonly controller: vscode.TestController;
  private readonly store: TestRunStore;
  readonly runner: Runner;
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Apps shown besides the configured one (a group run for another app). */
  private readonly extraApps = new Set<string>();
  private readonly baseUrl: string;

  constructor(private readonly deps: ServiceTestsDeps, describers: FailureDescribers, private readonly knownGroups: () => readonly TestGroupRecord[]) {
    this.baseUrl = deps.connection().baseUrl ?? '';
    this.controller = vscode.tests.createTestController(CONTROLLER_ID, l10n.t('Agent Runs: App Tests'));
    this.store = new TestRunStore({
      reads: () => deps.getClient({ quiet: true }),
      clock: { now: () => Date.now(), setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) },
      // The fast cadence people accept for a run being watched (the poller's burst), backing off like the poller.
      cadence: () => ({ fastMs: DEFAULT_POLLER_SETTINGS.burstMs, maxBackoffMs: DEFAULT_POLLER_SETTINGS.maxBackoffMs, backgroundMs: DEFAULT_POLLER_SETTINGS.backgroundMs }),
      l10n,
      describe: (e) => describeError(deps, e),
      onUnauthorized: (e) => deps.reportUnauthorized(e),
      onReadProblem: (id, message) => deps.log.warn(`Service test run ${id} could not be read: ${message}`),
    });
    this.runner = new Runner(deps, this.controller, this.store, this.baseUrl);
    this.controller.refreshHandler = () => this.refresh();
    this.controller.resolveHandler = (item) => (item ? this.resolve(item) : this.refresh());
    const run = vscode.TestRunProfileKind.Run;
    // Only tests and groups carry the tag: components, apps and steps are not offered Run.
    this.controller.createRunProfile(l10n.t('Run'), run, (r, t) => this.runner.run(r, t, false), true, RUNNABLE, false);
    this.controller.createRunProfile(l10n.t('Run on Another Branch…'), run, (r, t) => this.runner.run(r, t, true), false, RUNNABLE, false);
    this.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('agentRuns.appId')) void this.refresh();
      }),
      // A group created, renamed, edited or deleted elsewhere (the Test Groups view, Create Test
      // Group): the groups listed here are read again, once the Testing view has asked for them.
      deps.sender.onDidChangeTestGroups(() => {
        if (this.controller.items.size > 0) void this.refresh();
      }),
      this.describer(describers),
    );
    live.add(this);
    deps.log.info(`The app's tests are offered in the Test Explorer (${this.baseUrl}).`);
  }

  private describer(describers: FailureDescribers): vscode.Disposable {
    const d = (item: vscode.TestItem): ReturnType<Runner['describe']> => this.runner.describe(item);
    describers.add(d);
    return { dispose: () => describers.delete(d) };
  }

  private apps(): string[] {
    const configured = configuredApp();
    return [...new Set([...(configured ? [configured] : []), ...this.extraApps])];
  }

  private appItem(appId: string): vscode.TestItem {
    const id = `app/${appId}`;
    let item = this.controller.items.get(id);
    if (!item) {
      item = makeItem(this.controller, id, appId, { kind: 'app', appId }, { description: l10n.t('app'), resolvable: true });
      this.controller.items.add(item);
    }
    return item;
  }

  /** Every app's tests read again; an app no longer configured goes away. */
  async refresh(): Promise<void> {
    const apps = this.apps();
    const keep = new Set(apps.map((a) => `app/${a}`));
    this.controller.items.forEach((i) => {
      if (!keep.has(i.id)) this.controller.items.delete(i.id);
    });
    if (apps.length === 0) {
      const note = makeItem(this.controller, 'note/noApp', l10n.t('Set agentRuns.appId to see the app’s tests'), { kind: 'note' });
      this.controller.items.replace([note]);
      return;
    }
    await Promise.all(apps.map((a) => this.listTests(this.appItem(a), a)));
  }

  private async resolve(item: vscode.TestItem): Promise<void> {
    const m = metaOf(item);
    if (m?.kind === 'app') await this.listTests(item, m.appId);
    else if (m?.kind === 'test' || m?.kind === 'component') await this.readSteps(item, m.testId);
  }

  private async listTests(app: vscode.TestItem, appId: string): Promise<void> {
    const client = await this.deps.getClient({ quiet: true });
    if (!client) {
      app.error = l10n.t('Not connected to the service.');
      return;
    }
    app.busy = true;
    try {
      const [tests, listed, users] = await Promise.all([client.listTests(appId), this.listGroups(client, appId), this.listUsers(client, appId)]);
      app.error = undefined;
      const had = new Map<string, vscode.TestItem>();
      app.children.forEach((c) => {
        if (metaOf(c)?.kind === 'group') had.set(c.id, c);
      });
      // The groups the service has now: one deleted since goes (it could only be run into a 404);
      // when they could not be read, the ones shown stay as they were.
      const groups = listed === undefined ? new Map(had) : new Map<string, vscode.TestItem>();
      for (const g of listed ?? []) {
        const item = this.groupItem(app, appId, g.id, g.name, had.get(`${app.id}/group/${g.id}`));
        item.description = g.testCount === undefined ? undefined : testCountText(g.testCount, l10n);
        groups.set(item.id, item);
      }
      // Who each test signs in as, on a branch and live ("no login" when none is assigned).
      const items = tests.filter((t) => !t.isComponent).map((t) => makeItem(this.controller, `${app.id}/test/${t.id}`, t.name?.trim() || t.id, {
        kind: 'test', appId, testId: t.id, users: { liveTestUserId: t.liveTestUserId, testVersionTestUserId: t.testVersionTestUserId },
      }, { description: runsAsDescription(t.description, t, users, l10n), runnable: true, resolvable: true }));
      // The Testing view orders by sortText as file names (numbers first, punctuation before
      // letters): the tests, then the groups, then the components.
      for (const item of items) item.sortText = `1 ${item.label}`;
      const components = tests.filter((t) => t.isComponent);
      const holder = makeItem(this.controller, `${app.id}/components`, l10n.t('Components'), { kind: 'components', appId }, { description: l10n.t('reusable steps, run only as part of a test') });
      holder.sortText = '3';
      holder.children.replace(components.map((t) => makeItem(this.controller, `${holder.id}/${t.id}`, t.name?.trim() || t.id, { kind: 'component', appId, testId: t.id }, { resolvable: true })));
      app.children.replace([...items, ...groups.values(), ...(components.length > 0 ? [holder] : [])]);
      if (tests.length === 0) app.error = l10n.t('The service lists no tests for {0}.', appId);
    } catch (e) {
      this.failed(app, e, l10n.t('The tests of {0} could not be listed', appId));
    } finally {
      app.busy = false;
    }
  }

  /** A group's item under its app (`known`, relabelled, or a new one), after the tests and before the components. */
  private groupItem(app: vscode.TestItem, appId: string, groupId: string, name: string | undefined, known: vscode.TestItem | undefined): vscode.TestItem {
    const label = l10n.t('Group: {0}', name?.trim() || groupId);
    const item = known ?? makeItem(this.controller, `${app.id}/group/${groupId}`, label, { kind: 'group', appId, groupId, ...(name ? { name } : {}) }, { runnable: true });
    item.label = label;
    item.sortText = `2 ${label}`;
    return item;
  }

  /**
   * The app's groups, run here like tests. A service without a group list (version A) gets the ones
   * created here, read by ID; undefined when unreadable, so the tests still show.
   */
  private async listGroups(client: { listTestGroups(appId: string): Promise<ServiceTestGroup[]>; getTestGroup(groupId: string): Promise<ServiceTestGroupDetail> }, appId: string): Promise<ServiceTestGroup[] | undefined> {
    const has = (c: Capability): boolean => this.deps.capabilities.has(c);
    if (!has('serviceTestGroupRuns') || !has('serviceTestGroups')) return [];
    try {
      return await appGroups(client, appId, has('serviceTestGroupList'), this.knownGroups());
    } catch (e) {
      if (isApiError(e) && e.status === 401) this.deps.reportUnauthorized(e);
      this.deps.log.warn(`The test groups of ${appId} could not be listed: ${describeError(this.deps, e)}`);
      return undefined;
    }
  }

  /** The app's test users, or undefined when they cannot be read (the IDs are shown then; said in the log). */
  private async listUsers(client: { listTestUsers(appId: string): Promise<TestUser[]> }, appId: string): Promise<TestUser[] | undefined> {
    try {
      return await client.listTestUsers(appId);
    } catch (e) {
      if (isApiError(e) && e.status === 401) this.deps.reportUnauthorized(e);
      this.deps.log.warn(`The test users of ${appId} could not be read: ${describeError(this.deps, e)}`);
      return undefined;
    }
  }

  private async readSteps(item: vscode.TestItem, testId: string): Promise<void> {
    const client = await this.deps.getClient({ quiet: true });
    if (!client) return;
    item.busy = true;
    try {
      const detail = await client.getTest(testId);
      item.error = undefined;
      // A run of the test that started meanwhile put its own steps there (with their results and
      // words): they stay, rather than fresh items from this older read.
      if (!item.canResolveChildren) return;
      setSteps(this.controller, item, detail.steps, l10n);
    } catch (e) {
      this.failed(item, e, l10n.t('The steps of {0} could not be read', item.label));
    } finally {
      item.busy = false;
    }
  }

  private failed(item: vscode.TestItem, e: unknown, what: string): void {
    if (isApiError(e) && e.status === 401) this.deps.reportUnauthorized(e);
    item.error = `${what}: ${describeError(this.deps, e)}`;
    this.deps.log.warn(item.error);
  }

  /** `agentRuns.serviceTests.runGroup { groupId, appId?, name? }`. */
  async runGroup(arg: unknown): Promise<void> {
    if (!isRunGroupArgument(arg)) {
      void vscode.window.showInformationMessage(l10n.t('Run a group from the Test Groups view.'));
      return;
    }
    const appId = arg.appId?.trim() || configuredApp();
    if (!appId) {
      void vscode.window.showInformationMessage(l10n.t('Set agentRuns.appId to run the app’s test groups.'));
      return;
    }
    if (appId !== configuredApp()) this.extraApps.add(appId);
    const app = this.appItem(appId);
    const known = app.children.get(`${app.id}/group/${arg.groupId}`);
    const group = this.groupItem(app, appId, arg.groupId, arg.name, known);
    if (!known) app.children.add(group);
    await this.runner.runGroup(group, appId, arg.groupId);
  }

  dispose(): void {
    live.delete(this);
    this.store.dispose();
    for (const s of this.subscriptions) s.dispose();
    this.controller.dispose();
  }
}
