// Test files → test groups, in the extension host: the real commands, the real quick inputs
// (accepted with the workbench's own accept command, as Enter would), the real HTTP client
// against the service emulator, whose admin API tells what was stored.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readTestContext, type IntegrationTestContext } from '../support/testContext';

const CREATE = 'agentRuns.testGroups.create';
const START_RUN = 'agentRuns.testGroups.startRun';

interface StoredGroup {
  groupId: string;
  appId: string;
  name: string;
  description: string | null;
  testIds: string[];
}

interface CreateResult {
  groupId: string;
  testIds: string[];
}

function fixturesDir(): string {
  // Compiled to <out>/test/integration; the fixtures stay in the source tree of the repo.
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'test', 'fixtures', 'testfiles');
    if (fs.existsSync(path.join(candidate, 'checkout.test.js'))) return candidate;
  }
  throw new Error(`test/fixtures/testfiles not found above ${__dirname}`);
}

async function storedGroups(context: IntegrationTestContext): Promise<StoredGroup[]> {
  const res = await fetch(`${context.emulator.adminUrl}/test-groups`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { testGroups: StoredGroup[] };
  return body.testGroups;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Runs a command that opens quick inputs and presses Enter on each as it appears (the
 * defaults: every ID checked, the default name, no description, the default app) until the
 * command resolves.
 */
async function runAccepting<T>(command: string, ...args: unknown[]): Promise<T> {
  let done = false;
  const running = Promise.resolve(vscode.commands.executeCommand<T>(command, ...args)).finally(() => {
    done = true;
  });
  const started = Date.now();
  while (!done && Date.now() - started < 15_000) {
    await sleep(250);
    if (!done) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
  }
  return running;
}

describe('Test groups from test files', function () {
  this.timeout(60_000);
  const context = readTestContext();
  let ws: string;

  before(async function () {
    if (!context) this.skip();
    ws = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? context.workspaceFolder;
    const from = fixturesDir();
    fs.mkdirSync(path.join(ws, 'tg'), { recursive: true });
    for (const name of fs.readdirSync(from)) fs.copyFileSync(path.join(from, name), path.join(ws, 'tg', name));
    await vscode.workspace.getConfiguration('agentRuns').update('appId', 'app_todo', vscode.ConfigurationTarget.Global);
    const ext = vscode.extensions.getExtension(context.extensionId);
    await ext?.activate();
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes(CREATE), `${CREATE} is not registered`);
  });

  afterEach(async () => {
    await vscode.workspace.getConfiguration('agentRuns').update('testIds.pattern', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  after(async () => {
    await vscode.workspace.getConfiguration('agentRuns').update('appId', undefined, vscode.ConfigurationTarget.Global);
  });

  const file = (name: string): vscode.Uri => vscode.Uri.file(path.join(ws, 'tg', name));

  it('creates a group from two files selected in the Explorer, in the order given', async () => {
    const before = (await storedGroups(context!)).length;
    const yaml = file('login.spec.yaml');
    const json = file('cart.test.json');
    // The explorer passes (clicked, selection): here YAML was selected first.
    const result = await runAccepting<CreateResult | undefined>(CREATE, json, [yaml, json]);
    assert.ok(result, 'the command created nothing');
    const groups = await storedGroups(context!);
    assert.equal(groups.length, before + 1);
    const stored = groups.find((g) => g.groupId === result.groupId);
    assert.ok(stored, `group ${result.groupId} is not on the service`);
    assert.deepEqual(stored.testIds, ['LOGIN-001', 'LOGIN-002', 'LOGIN-003', 'CART-001', 'CART-002', 'CART-003']);
    assert.equal(stored.appId, 'app_todo');
    assert.equal(stored.name, 'login, cart');
    assert.equal(stored.description, null);
  });

  it('creates a group from the editor selection only', async () => {
    const doc = await vscode.workspace.openTextDocument(file('checkout.test.js'));
    const editor = await vscode.window.showTextDocument(doc);
    const lineOf = (text: string): number => doc.getText().split('\n').findIndex((l) => l.includes(text));
    // From the middle of the CHK-002 comment to the middle of the CHK-003 line.
    editor.selection = new vscode.Selection(lineOf('@testId CHK-002'), 5, lineOf("'CHK-003'"), 3);
    const result = await runAccepting<CreateResult | undefined>(CREATE, doc.uri);
    assert.ok(result);
    const stored = (await storedGroups(context!)).find((g) => g.groupId === result.groupId);
    assert.deepEqual(stored?.testIds, ['CHK-002', 'CHK-003']);
    assert.equal(stored?.name, 'checkout');
  });

  it('creates a group from the active editor through the palette (no arguments)', async () => {
    const doc = await vscode.workspace.openTextDocument(file('checkout.test.js'));
    const editor = await vscode.window.showTextDocument(doc);
    // The editor may come back with the previous test's selection: a cursor means the whole file.
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    const result = await runAccepting<CreateResult | undefined>(CREATE);
    assert.ok(result);
    const stored = (await storedGroups(context!)).find((g) => g.groupId === result.groupId);
    assert.deepEqual(stored?.testIds, ['CHK-001', 'CHK-002', 'CHK-003', 'CHK-004']);
  });

  it('sends nothing for a file without test IDs', async () => {
    const before = (await storedGroups(context!)).length;
    const result = await runAccepting<CreateResult | undefined>(CREATE, file('no-ids.test.js'), [file('no-ids.test.js')]);
    assert.equal(result, undefined);
    assert.equal((await storedGroups(context!)).length, before);
  });

  it('sends nothing when the pattern setting is invalid', async () => {
    await vscode.workspace.getConfiguration('agentRuns').update('testIds.pattern', 'testId: ([a-z', vscode.ConfigurationTarget.Global);
    const before = (await storedGroups(context!)).length;
    const result = await runAccepting<CreateResult | undefined>(CREATE, file('checkout.test.js'), [file('checkout.test.js')]);
    assert.equal(result, undefined);
    assert.equal((await storedGroups(context!)).length, before);
  });

  it('uses a custom pattern setting', async () => {
    fs.writeFileSync(path.join(ws, 'tg', 'custom.test.txt'), 'case TC-7 ok\ncase TC-3 ok\ncase TC-7 again\n');
    await vscode.workspace.getConfiguration('agentRuns').update('testIds.pattern', String.raw`case (TC-\d+)`, vscode.ConfigurationTarget.Global);
    const result = await runAccepting<CreateResult | undefined>(CREATE, file('custom.test.txt'), [file('custom.test.txt')]);
    assert.ok(result);
    const stored = (await storedGroups(context!)).find((g) => g.groupId === result.groupId);
    assert.deepEqual(stored?.testIds, ['TC-7', 'TC-3']);
  });

  it('reads a 5 MB one-line JSON file with 10,000 IDs whole without holding the extension host', async function () {
    const commands = await vscode.commands.getCommands(true);
    if (!commands.includes('agentRuns.startRun')) this.skip();
    // One line, so the scan has no line break to pause at: it held this thread for ~10-20 s
    // before its line lookups were linear and it paused inside a line. (Start Run, not Create:
    // the service takes at most 1,000 IDs per group.)
    const pad = 'x'.repeat(470);
    const json = `[${Array.from({ length: 10_000 }, (_, i) => `{"testId":"BIG-${i}","pad":"${pad}"}`).join(',')}]`;
    assert.ok(json.length > 5_000_000 && json.length < 5 * 1024 * 1024);
    fs.writeFileSync(path.join(ws, 'tg', 'big.test.json'), json);
    // The longest the extension host's event loop went without running a 50 ms interval.
    let last = Date.now();
    let longest = 0;
    const timer = setInterval(() => {
      longest = Math.max(longest, Date.now() - last);
      last = Date.now();
    }, 50);
    let value: { prompt: string } | undefined;
    try {
      value = await vscode.commands.executeCommand<{ prompt: string } | undefined>(START_RUN, file('big.test.json'), [file('big.test.json')]);
    } finally {
      clearInterval(timer);
      // A wait that ends with the command is seen here: the interval may not have run since.
      longest = Math.max(longest, Date.now() - last);
      fs.rmSync(path.join(ws, 'tg', 'big.test.json'), { force: true });
    }
    await sleep(500);
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    assert.ok(value);
    assert.match(value.prompt, /tg\/big\.test\.json: BIG-0, BIG-1, BIG-2, /);
    assert.match(value.prompt, /, BIG-9998, BIG-9999$/);
    assert.equal(value.prompt.split(', ').length, 10_000);
    // Generous: the scan itself takes milliseconds.
    assert.ok(longest < 3000, `the extension host's event loop waited ${longest} ms`);
  });

  it('pre-fills the run prompt with the files and their test IDs', async function () {
    const commands = await vscode.commands.getCommands(true);
    if (!commands.includes('agentRuns.startRun')) this.skip();
    // The command resolves to what it pre-filled; the launch flow stays open for the person.
    const value = await vscode.commands.executeCommand<{ prompt: string } | undefined>(START_RUN, file('cart.test.json'), [file('login.spec.yaml'), file('cart.test.json')]);
    await sleep(500);
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    assert.ok(value);
    assert.match(value.prompt, /^.*2 files \(login\.spec\.yaml, cart\.test\.json\).*\n/);
    assert.match(value.prompt, /\n- tg\/login\.spec\.yaml: LOGIN-001, LOGIN-002, LOGIN-003\n/);
    assert.match(value.prompt, /\n- tg\/cart\.test\.json: CART-001, CART-002, CART-003$/);
    assert.ok(value.prompt.indexOf('login.spec.yaml') < value.prompt.indexOf('cart.test.json'));
  });
});
