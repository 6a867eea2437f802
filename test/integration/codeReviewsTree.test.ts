// The code review gate and the Runs view's review rows in the extension host (the editor's own
// EventEmitter, TreeItem and context keys), against a fake service: what the key says before any
// network and after a schema read, when the schema is read just for it, and how the rows are
// read (only when expanded), fail (one row with a retry), stay empty, and are read again.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentRunsApi } from '../../src/api/contract';
import { ApiError } from '../../src/api/errors';
import * as apiIndex from '../../src/api/index';
import type { CodeReviewListItem, CodeReviewLists } from '../../src/api/reviewTypes';
import type { ServiceSchemaInfo } from '../../src/api/types';
import type { ConnectionState } from '../../src/connection/connection';
import type { TokenChange } from '../../src/connection/tokenStore';
import { RunLedger } from '../../src/run/common/ledger/ledger';
import { servedPathsKey } from '../../src/connection/common/codeReviewsServed';
import type { ReviewTreeNode } from '../../src/reviews/common/nodes';
import { capabilityGate } from '../../src/connection/capabilities';
import { codeReviewsFlag, type CodeReviewsBase } from '../../src/reviews/gate';
import { ReviewRows } from '../../src/reviews/rows';
import { AppNode, RowNode } from '../../src/runs/common/nodes';
import { RunsTreeProvider, type RunsTreeElement } from '../../src/runs/runsTree';

const BASE = 'http://127.0.0.1:1/api/public/v1';
const OTHER = 'http://127.0.0.1:2/api/public/v1';

function memoryStore() {
  const values = new Map<string, unknown>();
  return {
    get: <T>(key: string): T | undefined => values.get(key) as T | undefined,
    keys: () => [...values.keys()],
    update: (key: string, value: unknown): Promise<void> => {
      values.set(key, value);
      return Promise.resolve();
    },
  };
}

// One creation time for every review unless a test says otherwise: the rows keep the service's
// order then (a clock tick between two reviews made the later one newer, and first).
const CREATED_AT = Date.now() - 60_000;
const review = (id: string, over: Partial<CodeReviewListItem> = {}): CodeReviewListItem => ({
  id, status: 'open', title: `Review ${id}`, fromVersion: 'ver_1', toVersion: 'ver_2', fromVersionLabel: 'main #1', toVersionLabel: 'main #2',
  requestedByName: 'Ada', requestedByEmail: 'ada@example.com', createdAt: CREATED_AT, ...over,
});

/** A service that answers the list with what `answers` says next, and counts the calls. */
class FakeService {
  lists: CodeReviewLists | Error = { open: [], merged: [], closed: [] };
  listCalls: string[] = [];
  /** `GET /code-reviews/{id}` answers: the review's number. */
  details = new Map<string, number>();
  detailCalls: string[] = [];
  schemaCalls = 0;
  paths: string[] = ['/agents', '/code-reviews'];
  readonly readSchema = new vscode.EventEmitter<{ baseUrl: string; info: ServiceSchemaInfo }>();
  readonly changed = new vscode.EventEmitter<ConnectionState>();
  readonly token = new vscode.EventEmitter<TokenChange>();
  state: ConnectionState = { baseUrl: BASE, signedIn: true };

  client(): AgentRunsApi {
    const client: Partial<AgentRunsApi> = {
      baseUrl: this.state.baseUrl,
      listCodeReviews: (appId) => {
        this.listCalls.push(appId);
        const answer = this.lists;
        return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(structuredClone(answer));
      },
      getCodeReview: (reviewId) => {
        this.detailCalls.push(reviewId);
        const sequence = this.details.get(reviewId);
        return sequence === undefined
          ? Promise.reject(new ApiError({ kind: 'not_found', message: 'No such review.', status: 404, mayHaveReachedServer: true }))
          : Promise.resolve({ reviewId, review: { sequence }, changes: [], comments: [], tests: [], reviewComments: [] });
      },
      getSchemaInfo: () => {
        this.schemaCalls++;
        const info: ServiceSchemaInfo = { models: [], fingerprint: 'f', paths: this.paths };
        // As the connection's client does (onSchemaInfo).
        this.readSchema.fire({ baseUrl: this.state.baseUrl ?? '', info });
        return Promise.resolve(info);
      },
    };
    return client as AgentRunsApi;
  }

  base(ledger: RunLedger, globalState = memoryStore()): CodeReviewsBase & { reports: unknown[] } {
    const reports: unknown[] = [];
    return {
      reports,
      globalState,
      conn: {
        current: this.state,
        onDidChange: this.changed.event,
        onDidReadSchema: this.readSchema.event,
        getClient: () => Promise.resolve(this.state.signedIn ? this.client() : undefined),
        api: () => apiIndex,
      },
      auth: { onDidChange: this.token.event },
      ledgers: { current: ledger, onDidChangeRuns: (listener) => ledger.onDidChange(listener) },
      gate: { report: (e: unknown) => reports.push(e) },
    };
  }

  switchTo(state: ConnectionState): void {
    this.state.baseUrl = state.baseUrl;
    this.state.signedIn = state.signedIn;
    this.changed.fire(this.state);
  }

  dispose(): void {
    this.readSchema.dispose();
    this.changed.dispose();
    this.token.dispose();
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('Code reviews: the agentRuns.codeReviews gate', () => {
  let service: FakeService;
  const disposables: vscode.Disposable[] = [];
  const view = { visible: false, changed: new vscode.EventEmitter<unknown>() };
  const log = { info: () => undefined };
  // The code reviews key on a capability gate of its own (the extension shares one gate).
  const gateOf = (b: CodeReviewsBase) => {
    const caps = capabilityGate(b, { get visible() { return view.visible; }, onDidChangeVisibility: view.changed.event }, log);
    const gate = codeReviewsFlag(caps);
    disposables.push(gate, caps);
    return gate;
  };

  beforeEach(() => {
    service = new FakeService();
    disposables.push(service);
    view.visible = false;
  });
  afterEach(() => {
    for (const d of disposables.splice(0)) d.dispose();
  });

  it('at creation says what was stored for the base URL, with no request, even with the view visible and a token set', () => {
    const store = memoryStore();
    void store.update(servedPathsKey(BASE), ['/agents', '/code-reviews']);
    view.visible = true;
    const gate = gateOf(service.base(new RunLedger(memoryStore(), BASE), store));
    assert.equal(gate.enabled, true);
    assert.equal(service.schemaCalls, 0);
    const off = gateOf(service.base(new RunLedger(memoryStore(), BASE)));
    assert.equal(off.enabled, false, 'nothing known: off');
    assert.equal(service.schemaCalls, 0);
  });

  it('learns from any schema read and keeps it per base URL; another base URL is off until known', async () => {
    const store = memoryStore();
    const gate = gateOf(service.base(new RunLedger(memoryStore(), BASE), store));
    const changes: boolean[] = [];
    disposables.push(gate.onDidChange((on) => changes.push(on)));
    await service.client().getSchemaInfo();
    assert.equal(gate.enabled, true);
    assert.deepEqual(store.get(servedPathsKey(BASE)), ['/agents', '/code-reviews']);
    service.switchTo({ baseUrl: OTHER, signedIn: true });
    assert.equal(gate.enabled, false, 'another service: off until known');
    service.paths = ['/agents'];
    await service.client().getSchemaInfo();
    assert.equal(gate.enabled, false, 'the reference\'s paths keep it off');
    service.switchTo({ baseUrl: BASE, signedIn: true });
    assert.equal(gate.enabled, true, 'back: what was learnt for it');
    assert.deepEqual(changes, [true, false, true]);
  });

  it('reads the schema once per session just for the key: when the view shows with a token and nothing is known', async () => {
    const gate = gateOf(service.base(new RunLedger(memoryStore(), BASE)));
    view.changed.fire(undefined);
    assert.equal(service.schemaCalls, 0, 'not while the view is hidden');
    view.visible = true;
    view.changed.fire(undefined);
    await sleep(10);
    assert.equal(service.schemaCalls, 1);
    assert.equal(gate.enabled, true);
    view.changed.fire(undefined);
    await sleep(10);
    assert.equal(service.schemaCalls, 1, 'known now: no second read');
  });

  it('does not read again for a base URL it already asked when the read failed; a new token lets it ask again', async () => {
    const gate = gateOf(service.base(new RunLedger(memoryStore(), BASE)));
    const failing = service.client.bind(service);
    service.client = () => ({ ...failing(), getSchemaInfo: () => { service.schemaCalls++; return Promise.reject(new Error('cut')); } });
    view.visible = true;
    view.changed.fire(undefined);
    await sleep(10);
    view.changed.fire(undefined);
    await sleep(10);
    assert.equal(service.schemaCalls, 1, 'once per session');
    assert.equal(gate.enabled, false);
    service.token.fire({ baseUrl: BASE });
    await sleep(10);
    assert.equal(service.schemaCalls, 2, 'a new token: asked again');
  });
});

describe('Code reviews: the Runs view\'s review rows', () => {
  let service: FakeService;
  let ledger: RunLedger;
  let provider: RunsTreeProvider;
  let gate: { enabled: boolean; emitter: vscode.EventEmitter<boolean> };
  let reports: unknown[];
  const disposables: vscode.Disposable[] = [];
  let appIdBefore: unknown;

  before(() => {
    appIdBefore = vscode.workspace.getConfiguration('agentRuns').inspect('appId')?.globalValue;
  });
  after(async () => {
    await vscode.workspace.getConfiguration('agentRuns').update('appId', appIdBefore, vscode.ConfigurationTarget.Global);
  });

  beforeEach(async () => {
    service = new FakeService();
    ledger = new RunLedger(memoryStore(), BASE);
    const b = service.base(ledger);
    reports = b.reports;
    provider = new RunsTreeProvider({ current: ledger, onDidChangeRuns: (l) => ledger.onDidChange(l) }, b.conn);
    gate = { enabled: true, emitter: new vscode.EventEmitter<boolean>() };
    provider.showRows('codeReview', { get enabled() { return gate.enabled; }, onDidChange: gate.emitter.event }, () => new ReviewRows(b, () => provider.refreshAll(), { warn: () => undefined, info: () => undefined }));
    disposables.push(service, provider, gate.emitter);
    ledger.upsert({ agentId: 'agt_a', source: 'tracked', status: 'completed', appId: 'app_todo' });
    await vscode.workspace.getConfiguration('agentRuns').update('appId', undefined, vscode.ConfigurationTarget.Global);
  });
  afterEach(() => {
    for (const d of disposables.splice(0)) d.dispose();
  });

  const children = async (e?: RunsTreeElement): Promise<RunsTreeElement[]> => provider.getChildren(e);
  const label = (e: RunsTreeElement): string => {
    const l = provider.getTreeItem(e).label;
    return typeof l === 'string' ? l : l?.label ?? '';
  };
  const app = async (key: string): Promise<AppNode> => {
    const found = (await children()).find((e): e is AppNode => e instanceof AppNode && e.key === key);
    assert.ok(found, `no row for ${key}`);
    return found;
  };
  const reviewsRow = async (key = 'app_todo'): Promise<ReviewTreeNode> => {
    const first = (await children(await app(key)))[0];
    assert.ok(!(first instanceof RowNode) && !(first instanceof AppNode), 'the app\'s first row is not "Code reviews"');
    return first as ReviewTreeNode;
  };

  it('gives each app a collapsed "Code reviews" row first, read only when expanded, grouped and newest first', async () => {
    service.lists = {
      open: [review('r_old', { createdAt: Date.now() - 3_600_000 }), review('r_new', { requestedByName: undefined })],
      merged: [review('r_m', { status: 'merged', title: undefined, sequence: 7 })],
      closed: [],
    };
    const row = await reviewsRow();
    const item = provider.getTreeItem(row);
    assert.equal(item.label, 'Code reviews');
    assert.equal(item.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    assert.equal(item.contextValue, 'codeReviews');
    assert.equal(item.id, 'codeReviews:app_todo');
    assert.deepEqual(service.listCalls, [], 'nothing read before it is expanded');
    assert.ok((await children(await app('app_todo'))).slice(1).every((e) => e instanceof RowNode), 'its runs follow');

    const groups = await children(row);
    assert.deepEqual(service.listCalls, ['app_todo']);
    assert.deepEqual(groups.map(label), ['Open', 'Merged']);
    const open = await children(groups[0]);
    assert.deepEqual(open.map(label), ['Review r_new', 'Review r_old']);
    const newest = provider.getTreeItem(open[0]);
    assert.match(String(newest.description), /^main #1 → main #2 · ada@example\.com · /);
    assert.equal(newest.contextValue, 'codeReview');
    assert.equal(newest.id, 'codeReview:app_todo:id:r_new');
    assert.deepEqual(newest.command?.command, 'agentRuns.openCodeReview');
    assert.deepEqual(newest.command?.arguments, [{ reviewId: 'r_new', appId: 'app_todo', title: 'Review r_new' }]);
    const tooltip = newest.tooltip instanceof vscode.MarkdownString ? newest.tooltip.value : '';
    assert.match(tooltip, /Requested.*ada@example/, tooltip);
    assert.deepEqual((await children(groups[1])).map(label), ['#7 main #1 → main #2']);

    assert.equal(await reviewsRow(), row, 'the same element on the next read');
    await children(row);
    assert.deepEqual(service.listCalls, ['app_todo'], 'read once, then kept');
  });

  it('a failed read is one row saying what went wrong, whose click reads again; a 401 goes to the shared gate', async () => {
    service.lists = new ApiError({ kind: 'unauthorized', message: 'The service rejected the API token.', status: 401, mayHaveReachedServer: true });
    const row = await reviewsRow();
    const [message] = await children(row);
    const item = provider.getTreeItem(message);
    assert.equal(item.label, 'Could not list the code reviews');
    assert.equal(item.description, 'The service rejected the API token.');
    assert.equal(item.contextValue, 'codeReviewsError');
    assert.equal(item.command?.command, 'agentRuns.refreshCodeReviews');
    assert.deepEqual(item.command?.arguments, [row]);
    assert.equal(reports.length, 1, 'the 401 went to the shared gate');

    service.lists = { open: [], merged: [], closed: [] };
    await provider.rowsOf('codeReview')?.refresh(item.command?.arguments?.[0]);
    assert.deepEqual(service.listCalls, ['app_todo', 'app_todo']);
    const [empty] = await children(row);
    assert.equal(label(empty), 'No code reviews yet');
    assert.equal(provider.getTreeItem(empty).command, undefined);
  });

  it('reads an app\'s list again when a review of it appears in the run list (started here)', async () => {
    service.lists = { open: [review('r1')], merged: [], closed: [] };
    const row = await reviewsRow();
    await children(row);
    service.lists = { open: [review('r2'), review('r1')], merged: [], closed: [] };
    ledger.upsert({ agentId: 'agt_review', source: 'started', status: 'queued', appId: 'app_todo', kind: 'code_review', reviewId: 'r2' });
    await sleep(20);
    assert.deepEqual(service.listCalls, ['app_todo', 'app_todo']);
    const [open] = await children(row);
    assert.deepEqual((await children(open)).map(label), ['Review r2', 'Review r1']);
    ledger.upsert({ agentId: 'agt_review', source: 'started', status: 'running', appId: 'app_todo', kind: 'code_review', reviewId: 'r2' });
    await sleep(20);
    assert.equal(service.listCalls.length, 2, 'a listed review whose conversation goes on: not read again');
  });

  it('version C (no ids): every review is a row; one started here is matched by its number once read, the rest offer tracking', async () => {
    const c = (sequence: number, over: Partial<CodeReviewListItem> = {}): CodeReviewListItem => {
      const { id: _id, ...rest } = review(`r${sequence}`, { sequence, ...over });
      return rest;
    };
    ledger.upsert({ agentId: 'agt_mine', source: 'started', status: 'queued', appId: 'app_todo', kind: 'code_review', reviewId: 'rev_mine' });
    service.details.set('rev_mine', 5);
    service.lists = { open: [c(5, { title: undefined }), c(4)], merged: [], closed: [] };
    const row = await reviewsRow();
    const [open] = await children(row);
    const rows = (await children(open)).map((e) => provider.getTreeItem(e));
    assert.deepEqual(rows.map((r) => r.label), ['#5 main #1 → main #2', '#4 Review r4']);
    assert.deepEqual(service.detailCalls, ['rev_mine'], 'the review started here was read once to learn its number');
    assert.equal(rows[0].command?.command, 'agentRuns.openCodeReview');
    assert.deepEqual(rows[0].command?.arguments, [{ reviewId: 'rev_mine', appId: 'app_todo' }]);
    assert.equal(rows[1].command?.command, 'agentRuns.trackCodeReview');
    assert.deepEqual(rows[1].command?.arguments, [{ appId: 'app_todo', sequence: 4, title: 'Review r4', fromRow: true }]);
    assert.equal(rows[1].contextValue, 'codeReviewUnknown');

    // Read again: the number is remembered, nothing read for it again.
    await provider.rowsOf('codeReview')?.refresh('app_todo');
    await children(row);
    assert.deepEqual(service.detailCalls, ['rev_mine']);
  });

  it('gives the configured app a row even with no run listed; with the gate off, neither it nor any "Code reviews" row', async () => {
    await vscode.workspace.getConfiguration('agentRuns').update('appId', 'app_shop', vscode.ConfigurationTarget.Global);
    const shop = await app('app_shop');
    assert.equal(provider.getTreeItem(shop).description, '0 runs');
    assert.equal(label((await children(shop))[0]), 'Code reviews');

    gate.enabled = false;
    gate.emitter.fire(false);
    const roots = await children();
    assert.deepEqual(roots.map((e) => (e instanceof AppNode ? e.key : '?')), ['app_todo']);
    assert.ok((await children(roots[0])).every((e) => e instanceof RowNode));
    assert.deepEqual(service.listCalls, []);
  });

  it('forgets the lists for another service, and reads them again from it', async () => {
    service.lists = { open: [review('r1')], merged: [], closed: [] };
    const row = await reviewsRow();
    await children(row);
    service.switchTo({ baseUrl: OTHER, signedIn: true });
    service.lists = { open: [], merged: [], closed: [review('r9', { status: 'closed' })] };
    const groups = await children(row);
    assert.deepEqual(groups.map(label), ['Closed']);
    assert.deepEqual(service.listCalls, ['app_todo', 'app_todo']);
  });
});
