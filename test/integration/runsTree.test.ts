// The Runs tree's provider in the extension host (the editor's own EventEmitter and TreeItem):
// while a reveal is under way, the tree VS Code was given stays as it is. A run removed just
// after Track Run revealed it otherwise re-read the groups between two of VS Code's resolve
// steps, and VS Code logged "Cannot resolve tree item for element 1/app:…" (seen in CI); so did a
// base URL switched while the reveal resolved its row's parents (the roots read anew then).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { RunLedger } from '../../src/run/common/ledger/ledger';
import { HOLD_MAX_MS, RunsTreeProvider } from '../../src/runs/runsTree';

const BASE = 'http://127.0.0.1:1/api/public/v1';

function memoryStore() {
  const values = new Map<string, unknown>();
  return {
    get: <T>(key: string): T | undefined => values.get(key) as T | undefined,
    update: (key: string, value: unknown): Promise<void> => {
      values.set(key, value);
      return Promise.resolve();
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('Runs tree: a reveal under way holds the tree', () => {
  let provider: RunsTreeProvider;
  let ledger: RunLedger;
  let changes: number;
  const disposables: vscode.Disposable[] = [];

  beforeEach(() => {
    ledger = new RunLedger(memoryStore(), BASE);
    const connectionChanged = new vscode.EventEmitter<void>();
    disposables.push(connectionChanged);
    provider = new RunsTreeProvider(
      { current: ledger, onDidChangeRuns: (listener) => ledger.onDidChange(listener) },
      { current: { baseUrl: BASE, signedIn: true }, onDidChange: (listener) => connectionChanged.event(() => { listener({ baseUrl: BASE, signedIn: true }); }) },
    );
    disposables.push(provider);
    ledger.upsert({ agentId: 'agt_a', source: 'tracked', status: 'running', appId: 'app_todo' });
    void provider.getChildren();
    changes = 0;
    disposables.push(provider.onDidChangeTreeData(() => changes++));
  });

  afterEach(() => {
    for (const d of disposables.splice(0)) {
      d.dispose();
    }
  });

  it('a run removed during a reveal reaches the tree when the reveal ends, not before', async () => {
    let finish: () => void = () => undefined;
    const reveal = provider.holdDuring(() => new Promise<void>((resolve) => { finish = resolve; }));
    ledger.remove('agt_a');
    await sleep(1_200);
    assert.equal(changes, 0, 'the tree changed while the reveal was under way');
    finish();
    await reveal;
    await sleep(50);
    assert.ok(changes >= 1, 'the removal never reached the tree');
    assert.deepEqual(provider.getChildren(), [], 'the removed run is still listed');
  });

  it('asked for its roots during a reveal (as VS Code does while it resolves the row\'s parents), it answers the tree VS Code was given', async () => {
    let finish: () => void = () => undefined;
    const reveal = provider.holdDuring(() => new Promise<void>((resolve) => { finish = resolve; }));
    ledger.remove('agt_a');
    const during = await provider.getChildren();
    assert.deepEqual(during.map((e) => (e as { key?: string }).key), ['app_todo'], 'the roots changed under the reveal');
    finish();
    await reveal;
    assert.deepEqual(await provider.getChildren(), [], 'once the reveal ended, the removal is in');
  });

  it('a reveal that never ends holds the tree for at most HOLD_MAX_MS', async () => {
    void provider.holdDuring(() => new Promise<void>(() => undefined));
    ledger.remove('agt_a');
    await sleep(HOLD_MAX_MS + 1_300);
    assert.ok(changes >= 1, 'a reveal that never ended froze the tree');
  });
});
