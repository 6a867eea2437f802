/**
 * Running the app's tests: one start per test or group through the sender, then each read put
 * into the TestRun as it lands. Cancelling stops the reading only: the service has no cancel.
 */
import * as vscode from 'vscode';
import type { ServiceTestGroupDetail, TestGroupChildRun, TestRunStep, TestUser } from '../api/testTypes';
import type { FailedTest } from '../run/common/fixPrompt';
import type { Outcome } from './common/outcomes';
import { failedServiceTest, startFailureText, stoppedReadingText } from './common/start';
import { uncertainText } from '../run/common/sends/uncertainText';
import type { GroupRunUpdate, ReadEnd, TestRunStore, TestRunUpdate } from './common/store';
import { checkTestUser, environmentOf, userProblem } from '../run/common/testUsers';
import { noteBranches } from '../run/branches';
import type { TestRunBranch } from '../api/testTypes';
import { branchFor } from './branch';
import { makeItem, metaOf, setSteps } from './items';
import { describeError, type TestStartResult, type ServiceTestsDeps } from './types';

const l10n = vscode.l10n;
const FROM = 'Test Explorer';

function out(text: string): string {
  return `${text.replace(/\r?\n/g, '\r\n')}\r\n`;
}

/** Where a test's latest failure is kept for "Ask Agent to Fix". */
export interface Failure { failed: FailedTest; item: vscode.TestItem }

/** What was put into a TestRun about an item, newest last (the tests read it; the editor keeps its own). */
export interface Said { itemId: string; label: string; verdict: string; message?: string }
export const said: Said[] = [];
function record(item: vscode.TestItem, verdict: string, message?: string): void {
  said.push({ itemId: item.id, label: item.label, verdict, ...(message ? { message } : {}) });
  if (said.length > 500) said.splice(0, said.length - 500);
}

interface Target { item: vscode.TestItem; appId: string; kind: 'test' | 'group'; id: string }

/** One test's (or group member's) results inside a TestRun. */
class TestResults {
  private steps = new Map<string, vscode.TestItem>();
  private shaped = false;
  private started = false;
  private saidDormant = false;

  constructor(private readonly controller: vscode.TestController, private readonly run: vscode.TestRun, readonly item: vscode.TestItem, private readonly appId: string, private readonly failures: Map<string, Failure>, private readonly branch: string) {}

  apply(u: TestRunUpdate): void {
    if (!this.shaped && u.steps.length > 0) {
      // The run's own steps (a component's steps included), replacing what GET /tests/{id} showed.
      this.steps = setSteps(this.controller, this.item, u.steps, l10n);
      this.shaped = true;
      for (const s of this.steps.values()) this.run.enqueued(s);
    }
    if (!this.started && u.outcome.verdict !== 'queued') {
      this.started = true;
      this.run.started(this.item);
      this.run.appendOutput(out(l10n.t('{0}: run {1} on {2}', this.item.label, u.runId, this.branch)), undefined, this.item);
      const user = u.detail.run.assignedTestUser;
      if (user) this.run.appendOutput(out(l10n.t('Signed in as the test user {0}.', user.name?.trim() || user.email?.trim() || user.id)), undefined, this.item);
    }
    if (u.outcome.dormant === true && !this.saidDormant && u.outcome.message) {
      this.saidDormant = true;
      this.run.appendOutput(out(`${this.item.label}: ${u.outcome.message}`), undefined, this.item);
    }
    for (const f of u.finished) {
      const item = this.steps.get(f.step.id);
      if (item) this.verdict(item, f.outcome, f.step);
    }
    if (u.done) this.end(u);
  }

  private verdict(item: vscode.TestItem, o: Outcome, step?: TestRunStep): void {
    const links = (step?.artifacts ?? []).filter((a) => a.url !== undefined && /^https?:\/\//i.test(a.url)).map((a) => `${a.label}: ${a.url ?? ''}`);
    const said = [o.message, ...links].filter((s): s is string => s !== undefined && s !== '');
    if (said.length > 0) this.run.appendOutput(out(`${item.label}\n  ${said.join('\n  ')}`), undefined, item);
    if (step?.status === 'warning') item.description = l10n.t('warning: {0}', (step.comment ?? '').trim() || l10n.t('see the output'));
    record(item, o.verdict, said.join('\n'));
    switch (o.verdict) {
      case 'passed': this.run.passed(item); break;
      case 'failed': this.run.failed(item, new vscode.TestMessage(o.message ?? '')); break;
      case 'errored': this.run.errored(item, new vscode.TestMessage(o.message ?? '')); break;
      case 'skipped': this.run.skipped(item); break;
      default: break;
    }
  }

  private end(u: TestRunUpdate): void {
    const summary = u.detail.run.summary?.trim();
    const links = u.artifacts.map((a) => `${a.label}: ${a.url ?? ''}`);
    const tail = [summary ? l10n.t('Summary: {0}', summary) : '', ...links].filter((s) => s !== '');
    if (tail.length > 0) this.run.appendOutput(out(tail.join('\n')), undefined, this.item);
    if (u.outcome.verdict === 'failed' || u.outcome.verdict === 'errored') {
      const failed = failedServiceTest({ name: this.item.label, appId: this.appId, runId: u.runId, branch: this.branch, steps: u.steps, summary, runMessage: u.outcome.message }, l10n);
      this.failures.set(this.item.id, { failed, item: this.item });
      const message = new vscode.TestMessage(failed.message);
      record(this.item, u.outcome.verdict, failed.message);
      if (u.outcome.verdict === 'failed') this.run.failed(this.item, message);
      else this.run.errored(this.item, message);
      return;
    }
    this.failures.delete(this.item.id);
    this.verdict(this.item, u.outcome);
  }

  /** Reading ended before the run did. */
  lost(message: string): void {
    record(this.item, 'errored', message);
    this.run.errored(this.item, new vscode.TestMessage(message));
  }
}

export class Runner {
  readonly failures = new Map<string, Failure>();

  private readonly branchesNoted = new Set<string>();

  constructor(private readonly deps: ServiceTestsDeps, private readonly controller: vscode.TestController, private readonly store: TestRunStore, private readonly baseUrl: string) {}

  /** The run profiles' handler: `again` asks for the branch even when one is remembered. */
  async run(request: vscode.TestRunRequest, token: vscode.CancellationToken, again: boolean): Promise<void> {
    const targets = this.targets(request);
    if (targets.length === 0) {
      void vscode.window.showInformationMessage(l10n.t('Nothing to run here: components run only as part of a test.'));
      return;
    }
    const branches = new Map<string, string>();
    for (const appId of new Set(targets.map((t) => t.appId))) {
      const branch = await branchFor(this.deps, this.baseUrl, appId, again);
      if (branch !== undefined) branches.set(appId, branch);
    }
    const picked = targets.filter((t) => branches.has(t.appId));
    if (picked.length === 0 || token.isCancellationRequested) return;
    const chosen = await this.confirmUsers(picked, branches);
    if (chosen === undefined || chosen.length === 0 || token.isCancellationRequested) return;
    const run = this.controller.createTestRun(request, l10n.t('App tests on {0}', [...new Set(branches.values())].join(', ')), true);
    await this.start(run, chosen, branches, token);
  }

  /** `agentRuns.serviceTests.runGroup`: the group's item under its app, run like a test. */
  async runGroup(group: vscode.TestItem, appId: string, groupId: string): Promise<void> {
    const branch = await branchFor(this.deps, this.baseUrl, appId, false);
    if (branch === undefined) return;
    const target: Target = { item: group, appId, kind: 'group', id: groupId };
    if ((await this.confirmUsers([target], new Map([[appId, branch]])))?.length !== 1) return;
    const cts = new vscode.CancellationTokenSource();
    const run = this.controller.createTestRun(new vscode.TestRunRequest([group]), l10n.t('Group {0} on {1}', group.label, branch), true);
    try {
      await this.start(run, [target], new Map([[appId, branch]]), cts.token);
    } finally {
      cts.dispose();
    }
  }

  /**
   * What a request runs: each test and group it names; an app (or everything) runs each of its
   * tests once, not its groups as well, whose members are those same tests (a test in two groups
   * would run three times, and the extra starts meet the workspace's test-run limit).
   */
  private targets(request: vscode.TestRunRequest): Target[] {
    const excluded = new Set((request.exclude ?? []).map((i) => i.id));
    const found = new Map<string, Target>();
    const visit = (item: vscode.TestItem, underApp = false): void => {
      if (excluded.has(item.id)) return;
      const m = metaOf(item);
      if (m?.kind === 'test') found.set(item.id, { item, appId: m.appId, kind: 'test', id: m.testId });
      else if (m?.kind === 'group' && !underApp) found.set(item.id, { item, appId: m.appId, kind: 'group', id: m.groupId });
      else if (m?.kind === 'app') item.children.forEach((c) => visit(c, true));
      else if (m?.kind === 'step' || m?.kind === 'member') {
        // A step runs with its test; a group's member with its group.
        for (let at = item.parent; at; at = at.parent) {
          const k = metaOf(at)?.kind;
          if (k === 'test' || k === 'group') {
            visit(at);
            break;
          }
        }
      }
    };
    if (request.include) request.include.forEach((i) => visit(i));
    else this.controller.items.forEach((i) => visit(i));
    return [...found.values()];
  }

  /**
   * Runs whose test user would make them fail before they start are named in a modal before
   * anything is sent; undefined when the person closes it. Unreadable users judge nothing.
   */
  private async confirmUsers(targets: Target[], branches: Map<string, string>): Promise<Target[] | undefined> {
    const client = await this.deps.getClient({ quiet: true });
    if (!client) return targets;
    const users = new Map<string, Promise<TestUser[] | undefined>>();
    const usersOf = (appId: string): Promise<TestUser[] | undefined> => {
      let p = users.get(appId);
      if (!p) {
        p = client.listTestUsers(appId).catch((e: unknown) => {
          this.deps.log.warn(`The test users of ${appId} could not be read before the run: ${describeError(this.deps, e)}`);
          return undefined;
        });
        users.set(appId, p);
      }
      return p;
    };
    const problems = new Map<Target, string[]>();
    await Promise.all(targets.map(async (t) => {
      const env = environmentOf(branches.get(t.appId) ?? '');
      const list = await usersOf(t.appId);
      if (list === undefined) return;
      const said: string[] = [];
      const m = metaOf(t.item);
      if (m?.kind === 'test') {
        const p = userProblem(l10n.t('“{0}”', t.item.label), checkTestUser(m.users, env, list), env, l10n);
        if (p) said.push(p);
      } else if (t.kind === 'group') {
        let detail: ServiceTestGroupDetail;
        try {
          detail = await client.getTestGroup(t.id);
        } catch (e) {
          // The start says what is wrong with the group itself.
          this.deps.log.warn(`Test group ${t.id} could not be read before the run: ${describeError(this.deps, e)}`);
          return;
        }
        for (const member of detail.members) {
          const p = userProblem(l10n.t('“{0}” in {1}', member.name?.trim() || member.testId, t.item.label), checkTestUser(member, env, list), env, l10n);
          if (p) said.push(p);
        }
      }
      if (said.length > 0) problems.set(t, said);
    }));
    if (problems.size === 0) return targets;
    const lines = [...problems.values()].flat();
    this.deps.log.warn(`Before a run from the ${FROM}: ${lines.join(' ')}`);
    const anyway = l10n.t('Run Anyway');
    const others = l10n.t('Run the Others');
    const buttons = problems.size < targets.length ? [anyway, others] : [anyway];
    const pick = await vscode.window.showWarningMessage(
      lines.length === 1 ? l10n.t('This run will fail before it starts') : l10n.t('{0} of these runs will fail before they start', lines.length),
      { modal: true, detail: `${lines.join('\n')}\n\n${l10n.t('The service fails a run whose test user is disabled, missing or of the other database. A test without a test user runs without a login.')}` },
      ...buttons,
    );
    if (pick === anyway) return targets;
    if (pick === others) return targets.filter((t) => !problems.has(t));
    return undefined;
  }

  private async start(run: vscode.TestRun, targets: Target[], branches: Map<string, string>, token: vscode.CancellationToken): Promise<void> {
    const endings: Promise<void>[] = [];
    const stops: (() => void)[] = [];
    const cancel = token.onCancellationRequested(() => stops.forEach((s) => s()));
    for (const t of targets) {
      if (token.isCancellationRequested) break;
      const branch = branches.get(t.appId) ?? '';
      run.enqueued(t.item);
      const name = l10n.t('“{0}”', t.item.label);
      const result: TestStartResult = t.kind === 'test'
        ? await this.deps.sender.startTestRun({ testId: t.id, branchId: branch }, { from: FROM })
        : await this.deps.sender.startTestGroupRun({ groupId: t.id, branchId: branch }, { from: FROM });
      if (result.kind !== 'started') {
        const message = result.kind === 'busy' ? l10n.t('{0} is being started already: not sent again.', name)
          : result.kind === 'uncertain' ? uncertainText(l10n.t('a run of {0}', name), result.since, l10n)
          : result.kind === 'notConnected' ? l10n.t('{0} was not started: not connected to the service.', name)
            : startFailureText(name, result, (e) => describeError(this.deps, e), l10n);
        record(t.item, 'errored', message);
        run.errored(t.item, new vscode.TestMessage(message));
        if (result.kind === 'failed') void vscode.window.showErrorMessage(message);
        continue;
      }
      const id = 'runId' in result.started ? result.started.runId : result.started.groupRunId;
      this.deps.log.info(`Service ${t.kind} run ${id} of ${t.id} started on ${branch} from the ${FROM}.`);
      if (token.isCancellationRequested) {
        // Cancelled while this start was on its way: it is not followed (the cancel stopped the
        // others already), and the person is told it runs on the service.
        run.appendOutput(out(stoppedReadingText(id, l10n)), undefined, t.item);
        record(t.item, 'skipped', stoppedReadingText(id, l10n));
        run.skipped(t.item);
        continue;
      }
      endings.push(new Promise<void>((resolve) => {
        const finish = (e: ReadEnd, lost: (m: string) => void): void => {
          if (e.kind === 'stopped') run.appendOutput(out(stoppedReadingText(id, l10n)), undefined, t.item);
          if (e.kind === 'lost') lost(e.message);
          if (e.kind === 'stopped') {
            record(t.item, 'skipped', stoppedReadingText(id, l10n));
            run.skipped(t.item);
          }
          resolve();
        };
        if (t.kind === 'test') {
          const results = new TestResults(this.controller, run, t.item, t.appId, this.failures, branch);
          const f = this.store.followTest(id, { update: (u) => { results.apply(u); this.noteBranch(t.appId, u.detail.run); }, end: (e) => finish(e, (m) => results.lost(m)) });
          stops.push(() => f.stop());
        } else {
          const group = new GroupResults(this.controller, run, t.item, t.appId, this.failures, branch);
          const f = this.store.followGroup(id, { update: (u) => { group.apply(u); this.noteBranch(t.appId, u.detail.run); }, end: (e) => finish(e, (m) => run.errored(t.item, new vscode.TestMessage(m))) });
          stops.push(() => f.stop());
        }
      }));
    }
    await Promise.all(endings);
    cancel.dispose();
    run.end();
  }

  /** A run's branch, with the label the service gives it, among the branches known for the app (once per branch and label). */
  private noteBranch(appId: string, run: TestRunBranch): void {
    const name = run.branchId?.trim();
    if (!name || run.environment === 'live' || name.toLowerCase() === 'live') return;
    const key = `${appId}\n${name}\n${run.branchDisplay ?? ''}`;
    if (this.branchesNoted.has(key)) return;
    this.branchesNoted.add(key);
    void noteBranches(this.deps.globalState, this.baseUrl, appId, [{ name, label: run.branchDisplay, source: 'testRuns' }]);
  }

  /** "Ask Agent to Fix" of a service test: its latest failure, linked to the test (or member). */
  describe(item: vscode.TestItem): { failed: FailedTest; linkTo: vscode.TestItem } | undefined {
    for (const [id, f] of this.failures) {
      if (item.id === id || item.id.startsWith(`${id}/`)) return { failed: f.failed, linkTo: f.item };
    }
    return undefined;
  }
}

/** A group run in a TestRun: its members as the group run lists them (`childRuns`), each with its steps. */
class GroupResults {
  private readonly members = new Map<string, TestResults>();
  private started = false;

  constructor(private readonly controller: vscode.TestController, private readonly run: vscode.TestRun, private readonly item: vscode.TestItem, private readonly appId: string, private readonly failures: Map<string, Failure>, private readonly branch: string) {}

  private member(child: TestGroupChildRun): TestResults {
    let m = this.members.get(child.id);
    if (!m) {
      const id = `${this.item.id}/${child.testId ?? child.id}`;
      const item = this.item.children.get(id) ?? makeItem(this.controller, id, child.testName ?? child.testId ?? child.id, { kind: 'member', appId: this.appId, ...(child.testId ? { testId: child.testId } : {}) });
      this.item.children.add(item);
      this.run.enqueued(item);
      m = new TestResults(this.controller, this.run, item, this.appId, this.failures, this.branch);
      this.members.set(child.id, m);
    }
    return m;
  }

  apply(u: GroupRunUpdate): void {
    if (this.members.size === 0) {
      // The members of this run, as the service lists them (a re-run may list others).
      const ids = new Set(u.detail.childRuns.map((c) => `${this.item.id}/${c.testId ?? c.id}`));
      this.item.children.forEach((c) => {
        if (!ids.has(c.id)) this.item.children.delete(c.id);
      });
    }
    for (const child of u.detail.childRuns) this.member(child);
    if (!this.started && u.outcome.verdict !== 'queued') {
      this.started = true;
      this.run.started(this.item);
    }
    const byId = new Map(u.detail.childRuns.map((c) => [c.id, c]));
    for (const c of u.children) {
      const child = byId.get(c.runId);
      if (child) this.member(child).apply(c);
    }
    for (const c of u.lostChildren) {
      const child = byId.get(c.runId);
      if (child) this.member(child).lost(c.message);
    }
    if (u.done) {
      const o = u.outcome;
      if (o.message) this.run.appendOutput(out(`${this.item.label}: ${o.message}`), undefined, this.item);
      record(this.item, o.verdict, o.message);
      switch (o.verdict) {
        case 'passed': this.run.passed(this.item); break;
        case 'failed': this.run.failed(this.item, new vscode.TestMessage(o.message ?? '')); break;
        case 'skipped': this.run.skipped(this.item); break;
        default: this.run.errored(this.item, new vscode.TestMessage(o.message ?? '')); break;
      }
    }
  }
}
