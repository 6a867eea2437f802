// Issue 22 §4, tools and chat: the test and automation tools and `@agent-runs /tests`,
// `/automations`, in plain mocha against fakes of the contract (tests-contract.md): the capability
// gate (`deps.capabilities.has`), the sender's entries (`sender.startTestRun`,
// `sender.runAutomation`) and the client's read calls. What is sent, what is confirmed, and the
// "Not done" of a capability off, a 409, a send that may have arrived (never resent).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import * as apiModule from '../../../src/api/index';
import { ApiError } from '../../../src/api/errors';
import type { AppTest, AppTestDetail, Automation, StartTestRunRequest, TestGroupRunDetail, TestRunDetail, TestUser } from '../../../src/api/testTypes';
import { ToolInputError, checkToolInput } from '../../../src/assistant/common/schemas';
import type { Capability } from '../../../src/connection/common/capabilities';
import type { AutomationRunResult, TestRunResult } from '../../../src/run/sender';
import type { Deps } from '../../../src/run/deps';
import { loadParticipant, loadTools, settings } from '../fixtures/assistantTools';

const LIST = 'agentRuns_listAppTests';
const RUN = 'agentRuns_runAppTest';
const READ = 'agentRuns_readTestRun';
const AUTOMATION = 'agentRuns_runAutomation';

const token: vscode.CancellationToken = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose: () => undefined }) };

const TESTS: AppTest[] = [
  { id: 'test_login', name: 'Log in', isComponent: false }, { id: 'cmp_nav', name: 'Navigate', isComponent: true },
  { id: 'test_share', name: 'Share', isComponent: false, testVersionTestUserId: 'tu_off', liveTestUserId: 'tu_elsewhere' },
];
const USERS: TestUser[] = [{ id: 'tu_off', name: 'Dee', database: 'test', isDisabled: true }];
const RUN_DETAIL: TestRunDetail = {
  run: { id: 'tr_1', testId: 'test_login', status: 'warning', summary: 'Slow', artifacts: [] },
  steps: [{ id: 's1', position: 0, status: 'warning', comment: 'Took 9 s', artifacts: [] }],
};
const GROUP_RUN: TestGroupRunDetail = { run: { id: 'tgr_1', groupName: 'Smoke', status: 'running' }, childRuns: [{ id: 'tr_1', testId: 'test_login', status: 'warning' }] };
const AUTOMATIONS: Automation[] = [
  { id: 'aut_manual', name: 'Deploy', enabled: true, triggerKind: 'manual', actionKinds: ['run_tests', 'deploy_agent'], canRunManually: true },
  { id: 'aut_cron', name: 'Nightly', enabled: true, triggerKind: 'cron', actionKinds: ['run_tests'], canRunManually: false },
];

interface World {
  caps: Set<Capability>;
  reads: string[];
  sends: string[];
  startResult: TestRunResult;
  automationResult: AutomationRunResult;
}

function world(): World {
  return {
    caps: new Set<Capability>(['serviceTests', 'serviceTestGroupRuns', 'automations', 'automationRuns']),
    reads: [],
    sends: [],
    startResult: { kind: 'started', started: { runId: 'tr_new' }, baseUrl: 'http://x' },
    automationResult: { kind: 'queued', queued: { automationId: 'aut_manual', status: 'queued' }, baseUrl: 'http://x' },
  };
}

function depsOf(w: World): Deps {
  const notFound = (what: string): ApiError => new ApiError({ kind: 'not_found', status: 404, message: `${what} was not found.`, mayHaveReachedServer: true });
  const client = {
    baseUrl: 'http://x',
    listTests: (appId: string) => (w.reads.push(`GET /tests?appId=${appId}`), Promise.resolve(TESTS)),
    getTest: (id: string) => {
      w.reads.push(`GET /tests/${id}`);
      const t = TESTS.find((x) => x.id === id);
      return t ? Promise.resolve<AppTestDetail>({ ...t, steps: [] }) : Promise.reject(notFound(`Test ${id}`));
    },
    getTestRun: (id: string) => (w.reads.push(`GET /test-runs/${id}`), id === 'tr_1' ? Promise.resolve(RUN_DETAIL) : Promise.reject(notFound(`Test run ${id}`))),
    getTestGroupRun: (id: string) => (w.reads.push(`GET /test-group-runs/${id}`), id === 'tgr_1' ? Promise.resolve(GROUP_RUN) : Promise.reject(notFound(`Group run ${id}`))),
    listAutomations: (appId: string) => (w.reads.push(`GET /automations?appId=${appId}`), Promise.resolve(AUTOMATIONS)),
    listTestUsers: (appId: string) => (w.reads.push(`GET /test-users?appId=${appId}`), Promise.resolve(USERS)),
  };
  const sender = {
    startTestRun: (req: StartTestRunRequest) => (w.sends.push(`POST /test-runs ${JSON.stringify(req)}`), Promise.resolve(w.startResult)),
    runAutomation: (id: string) => (w.sends.push(`POST /automations/${id}/run`), Promise.resolve(w.automationResult)),
  };
  const log = { info: () => undefined, warn: () => undefined, error: () => undefined, trace: () => undefined };
  return {
    api: () => apiModule, getClient: () => Promise.resolve(client), log, sender, ledger: () => ({ all: () => [], get: () => undefined }),
    connection: () => ({ baseUrl: 'http://x', signedIn: true }), reportUnauthorized: () => undefined,
    capabilities: { has: (c: Capability) => w.caps.has(c), onDidChange: () => ({ dispose: () => undefined }) },
  } as unknown as Deps;
}

describe('the test and automation tools: schemas and offer (issue 22 §4)', () => {
  const refused = (tool: string, value: unknown, re: RegExp): void =>
    assert.throws(() => checkToolInput(tool as typeof LIST, value), (e: unknown) => e instanceof ToolInputError && re.test(e.message));

  it('refuses unknown fields, missing and oversize IDs, a limit out of range', () => {
    refused(RUN, { testId: 'test_login' }, /branch is required/);
    refused(RUN, { testId: 'test_login', branch: 'main', model: 'x' }, /Unknown field "model"; allowed: testId, branch/);
    refused(RUN, { testId: 't'.repeat(201), branch: 'main' }, /testId is too long/);
    refused(READ, { runId: 7 }, /runId must be text, not a number/);
    refused(LIST, { limit: 0 }, /limit must be between 1 and 200/);
    refused(AUTOMATION, {}, /automationId is required/);
  });

  it('package.json offers each only when its capability key is on, and /automations likewise', () => {
    let root = __dirname;
    while (!fs.existsSync(path.join(root, 'package.json'))) root = path.dirname(root);
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      contributes: { languageModelTools: { name: string; when?: string }[]; chatParticipants: { commands: { name: string; when?: string }[] }[] };
    };
    const when = (name: string): string | undefined => pkg.contributes.languageModelTools.find((t) => t.name === name)?.when;
    assert.deepEqual([LIST, RUN, READ, AUTOMATION].map(when), ['agentRuns.serviceTests', 'agentRuns.serviceTests', 'agentRuns.serviceTests', 'agentRuns.automationRuns']);
    assert.equal(pkg.contributes.chatParticipants[0].commands.find((c) => c.name === 'automations')?.when, 'agentRuns.automations');
  });
});

describe('the test and automation tools against fakes of the contract (issue 22 §4)', () => {
  let w: World;
  let tools: ReturnType<ReturnType<typeof loadTools>['createTools']>;
  const use = (deps: Deps): void => {
    tools = loadTools().createTools(deps);
  };
  const invoke = async (name: string, input: Record<string, unknown>): Promise<string> => {
    const result = await tools.get(name)!.invoke({ input, toolInvocationToken: undefined }, token);
    return (result?.content as { value: string }[]).map((p) => p.value).join('');
  };
  const prepare = async (name: string, input: Record<string, unknown>): Promise<vscode.PreparedToolInvocation | null | undefined> =>
    tools.get(name)!.prepareInvocation!({ input }, token);
  const messageOf = (p: vscode.PreparedToolInvocation | null | undefined): string => {
    const m = p?.confirmationMessages?.message;
    return typeof m === 'string' ? m : m?.value ?? '';
  };

  beforeEach(() => {
    w = world();
    settings.appId = 'app_todo';
    use(depsOf(w));
  });
  after(() => {
    delete settings.appId;
  });

  it('capability off: "Not done", nothing read, nothing sent', async () => {
    w.caps.clear();
    assert.match(await invoke(LIST, {}), /^Not done: this service does not offer the app's tests \(its API schema, \/openapi\.json, does not list \/tests and \/test-runs\); nothing was sent\.$/);
    assert.match(await invoke(RUN, { testId: 'test_login', branch: 'main' }), /^Not done: this service does not offer the app's tests/);
    assert.match(await invoke(READ, { runId: 'tr_1' }), /^Not done: this service does not offer the app's tests/);
    assert.match(await invoke(AUTOMATION, { automationId: 'aut_manual' }), /^Not done: this service does not run automations on demand/);
    w.caps.add('serviceTests');
    assert.match(await invoke(READ, { groupRunId: 'tgr_1' }), /^Not done: this service does not run test groups/);
    assert.deepEqual([w.reads, w.sends], [[], []]);
  });

  it('lists the default app\'s tests with components apart; reads a run and a group run', async () => {
    const list = await invoke(LIST, {});
    assert.match(list, /Tests: 2\n- test_login · "Log in"\n- test_share · "Share"/);
    assert.match(list, /Components: 1 .*\n- cmp_nav · "Navigate"/);
    const read = await invoke(READ, { runId: 'tr_1' });
    assert.match(read, /status: warning/);
    assert.match(read, /- 1\. warning\n {2}comment: "Took 9 s"/);
    assert.match(await invoke(READ, { groupRunId: 'tgr_1' }), /Test group run tgr_1[\s\S]*- tr_1 · warning · test test_login/);
    assert.match(await invoke(READ, { runId: 'tr_1', groupRunId: 'tgr_1' }), /^Not done: give runId or groupRunId, not both\.$/);
    assert.match(await invoke(READ, { runId: 'tr_gone' }), /^Not done: Test run tr_gone was not found\.$/);
    assert.deepEqual(w.sends, []);
  });

  it('run: the confirmation names the test and the branch, live plainly; one POST through the sender; the runId answered', async () => {
    const prepared = await prepare(RUN, { testId: 'test_login', branch: 'feature/x' });
    assert.equal(prepared?.confirmationMessages?.title, 'Run test “Log in” on branch feature/x?');
    const live = await prepare(RUN, { testId: 'test_login', branch: 'live' });
    assert.equal(live?.confirmationMessages?.title, 'Run test “Log in” on the LIVE app?');
    assert.match(messageOf(live), /\*\*live\*\* — the test runs against the live app, with its live test user/);
    assert.deepEqual(w.sends, [], 'nothing sent by preparing');
    const text = await invoke(RUN, { testId: 'test_login', branch: 'feature/x' });
    assert.match(text, /^Started test run tr_new of test test_login \("Log in"\) on branch feature\/x\. .*agentRuns_readTestRun tool \(runId tr_new\)/);
    assert.deepEqual(w.sends, ['POST /test-runs {"testId":"test_login","branchId":"feature/x"}']);
  });

  it('run: the confirmation says who the run signs in as, and that a disabled user will fail it before it starts; a user of another app is not judged', async () => {
    const branch = messageOf(await prepare(RUN, { testId: 'test_share', branch: 'main' }));
    assert.match(branch, /Signs in as: `Dee \(disabled\)`/);
    assert.match(branch, /\*\*This run will fail before it starts\*\*: `Share: its test user for branches, Dee, is disabled\.`/);
    const live = messageOf(await prepare(RUN, { testId: 'test_share', branch: 'live' }));
    assert.doesNotMatch(live, /Signs in as|fail before/, 'tu_elsewhere is not among this app\'s users: not said to be missing');
    assert.match(messageOf(await prepare(RUN, { testId: 'test_login', branch: 'main' })), /Signs in as: `no login`/);
    assert.deepEqual(w.sends, []);
  });

  it('run: a component or an unknown test is refused before the person is asked, nothing sent', async () => {
    const prepared = await prepare(RUN, { testId: 'cmp_nav', branch: 'main' });
    assert.equal(prepared?.confirmationMessages, undefined, 'not put before the person');
    assert.match(await invoke(RUN, { testId: 'cmp_nav', branch: 'main' }), /^Not done: cmp_nav is a component: components are never run on their own\./);
    assert.match(await invoke(RUN, { testId: 'test_nope', branch: 'main' }), /^Not done: Test test_nope was not found\./);
    assert.deepEqual(w.sends, []);
  });

  it('run: 409 gives the service\'s reason; may have arrived says so and is not resent; busy or uncertain sends nothing', async () => {
    w.startResult = { kind: 'failed', mayHaveArrived: false, baseUrl: 'http://x', error: new ApiError({ kind: 'client', status: 409, message: 'Conflict', reason: 'Concurrency limit reached (2)', mayHaveReachedServer: true }) };
    assert.equal(await invoke(RUN, { testId: 'test_login', branch: 'main' }), 'Not done: the service refused: "Concurrency limit reached (2)"');
    w.startResult = { kind: 'failed', mayHaveArrived: true, baseUrl: 'http://x', error: new ApiError({ kind: 'network', message: 'The connection was reset.', mayHaveReachedServer: true }) };
    const maybe = await invoke(RUN, { testId: 'test_login', branch: 'main' });
    assert.match(maybe, /^Not confirmed: The connection was reset\. The run of test test_login on branch main may have started anyway\. Do not start it again/);
    w.startResult = { kind: 'busy' };
    assert.match(await invoke(RUN, { testId: 'test_login', branch: 'main' }), /^Not done: a run of test test_login is already on its way; nothing was sent\./);
    w.startResult = { kind: 'uncertain', since: new Date(2026, 11, 6, 9, 7).getTime() };
    assert.equal(await invoke(RUN, { testId: 'test_login', branch: 'main' }), 'Not done: An earlier request for a run of test test_login may have reached the service at 09:07; check it before sending again.');
    assert.equal(w.sends.length, 4, 'one sender call per invocation, none repeated');
  });

  it('automation: named from the list in the confirmation; one that runs only on its trigger or is unknown refused; queued answered', async () => {
    const prepared = await prepare(AUTOMATION, { automationId: 'aut_manual' });
    assert.equal(prepared?.confirmationMessages?.title, 'Run automation “Deploy” now?');
    assert.match(messageOf(prepared), /Actions, in order: `run_tests` → `deploy_agent`/);
    assert.match(await invoke(AUTOMATION, { automationId: 'aut_cron' }), /^Not done: automation aut_cron runs only on its trigger \(cron\)/);
    assert.match(await invoke(AUTOMATION, { automationId: 'aut_other', appId: 'app_x' }), /^Not done: app app_x has no automation aut_other/);
    assert.deepEqual(w.sends, []);
    assert.match(await invoke(AUTOMATION, { automationId: 'aut_manual' }), /^Queued automation aut_manual \(the service answered “queued”\)\. The service offers no way to read an automation run's outcome/);
    w.automationResult = { kind: 'failed', mayHaveArrived: false, baseUrl: 'http://x', error: new ApiError({ kind: 'client', status: 409, message: 'Conflict', serverMessage: 'Automation is already running', mayHaveReachedServer: true }) };
    assert.equal(await invoke(AUTOMATION, { automationId: 'aut_manual' }), 'Not done: the service refused: "Automation is already running"');
    w.automationResult = { kind: 'failed', mayHaveArrived: true, baseUrl: 'http://x', error: new ApiError({ kind: 'timeout', message: 'The service did not answer in time.', mayHaveReachedServer: true }) };
    assert.match(await invoke(AUTOMATION, { automationId: 'aut_manual' }), /^Not confirmed: The service did not answer in time\. Automation aut_manual may have been queued anyway\. Do not run it again/);
    assert.deepEqual(w.sends, ['POST /automations/aut_manual/run', 'POST /automations/aut_manual/run', 'POST /automations/aut_manual/run']);
  });
});

class Recorder {
  readonly markdown: string[] = [];
  readonly buttons: vscode.Command[] = [];
  asStream(): vscode.ChatResponseStream {
    return {
      markdown: (v: string) => this.markdown.push(v),
      button: (c: vscode.Command) => this.buttons.push(c),
      progress: () => undefined,
    } as unknown as vscode.ChatResponseStream;
  }
}

describe('@agent-runs /tests and /automations against fakes of the contract (issue 22 §4)', () => {
  const unescape = (md: string): string => md.replace(/\\(.)/g, '$1');
  const ask = async (deps: Deps, command: string, prompt: string, references: unknown[] = []): Promise<Recorder> => {
    const r = new Recorder();
    const request = { command, prompt, references, toolReferences: [] } as unknown as vscode.ChatRequest;
    await loadParticipant().handleChat(deps, request, { history: [] }, r.asStream(), token);
    return r;
  };
  let w: World;
  beforeEach(() => {
    w = world();
    settings.appId = 'app_todo';
  });
  after(() => {
    delete settings.appId;
  });

  it('/tests lists the default app\'s tests; /tests <ID> reads a run, or a group run by its ID', async () => {
    const list = unescape((await ask(depsOf(w), 'tests', '')).markdown.join('\n'));
    assert.match(list, /Tests: 2\*\* {2}\n- test_login · "Log in"/);
    const run = unescape((await ask(depsOf(w), 'tests', 'tr_1')).markdown.join('\n'));
    assert.match(run, /Test run tr_1/);
    assert.match(run, /comment: "Took 9 s"/);
    const group = unescape((await ask(depsOf(w), 'tests', 'tgr_1')).markdown.join('\n'));
    assert.match(group, /Test group run tgr_1/);
    assert.deepEqual(w.reads, ['GET /tests?appId=app_todo', 'GET /test-runs/tr_1', 'GET /test-runs/tgr_1', 'GET /test-group-runs/tgr_1']);
  });

  it('/tests where the service offers no tests, or with files attached: the files\' test-group flow, nothing read', async () => {
    const attached = await ask(depsOf(w), 'tests', '', [{ id: 'file', value: {} }]);
    assert.match(unescape(attached.markdown.join('\n')), /Open a test file or attach test files/);
    w.caps.clear();
    const off = await ask(depsOf(w), 'tests', '');
    assert.match(unescape(off.markdown.join('\n')), /Open a test file or attach test files/);
    const named = await ask(depsOf(w), 'tests', 'tr_1');
    assert.match(unescape(named.markdown.join('\n')), /^Not done: this service does not offer the app's tests/);
    assert.deepEqual(w.reads, []);
  });

  it('/automations lists them with Run Now for those that run on demand, through the Runs view\'s command', async () => {
    const r = await ask(depsOf(w), 'automations', '');
    const text = unescape(r.markdown.join('\n'));
    assert.match(text, /aut_manual · "Deploy" · enabled · trigger manual/);
    assert.match(text, /aut_cron · "Nightly" · enabled · trigger cron · actions run_tests · runs only on its trigger/);
    assert.deepEqual(r.buttons.map((b) => [b.command, b.arguments, b.title]), [
      ['agentRuns.automations.runNow', [{ automationId: 'aut_manual', appId: 'app_todo', name: 'Deploy' }], 'Run “Deploy” Now'],
    ]);
    w.caps.delete('automationRuns');
    assert.deepEqual((await ask(depsOf(w), 'automations', '')).buttons, [], 'no Run Now where the service runs none');
    w.caps.clear();
    assert.match(unescape((await ask(depsOf(w), 'automations', '')).markdown.join('\n')), /^Not done: this service does not list automations/);
    assert.deepEqual(w.sends, []);
  });
});
