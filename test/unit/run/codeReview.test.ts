// Issue 20 §1: a code review's conversation (`kind` `code_review`, `reviewId` set), tracked by ID,
// is labelled as one and takes no follow-ups. One rule decides (run/common/ledger/runState.ts
// `conversationOf`, through `runState`); each surface's own function, fed the one run state, and
// the sender, which refuses without a POST, say the same.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, type AgentRunsApi } from '../../../src/api';
import type { Agent } from '../../../src/api/types';
import { RunLedger, type LedgerEntry } from '../../../src/run/common/ledger/ledger';
import { reviveRecord } from '../../../src/run/common/ledger/record';
import { conversationOf, runState } from '../../../src/run/common/ledger/runState';
import { plainL10n } from '../../../src/base/common/l10n';
import { buildHeader } from '../../../src/panel/common/panelModel';
import { panelTitle } from '../../../src/panel/common/tabTitle';
import { finishedAlert } from '../../../src/runs/common/finishedAlert';
import { presentRun, runContextValue } from '../../../src/runs/common/presentation';
import { FollowUpSends } from '../../../src/run/followUpSends';
import { Sender } from '../../../src/run/sender';
import * as sendPosts from '../../../src/run/sendPosts';
import { UnconfirmedStarts } from '../../../src/run/unconfirmedStarts';
import { SEED, startEmulator, type Emulator } from '../../emulator/index';
import { MemoryStore } from '../fixtures/memoryStore';

const BASE = 'http://127.0.0.1:1/api/public/v1';
const T0 = 1_700_000_000_000;
/** The `when` clause of "Send Follow-up" in the Runs view's menus (package.json). */
const FOLLOW_UP_MENU = /^run;.*followup;/;

/** A run tracked by ID, as the first read of "Track Run by ID" puts it in the list. */
function tracked(agent: Omit<Agent, 'agentId'>): LedgerEntry {
  const l = new RunLedger(new MemoryStore(), BASE);
  l.applyAgent({ agentId: 'rev_agent', appId: 'app_shop', ...agent }, { now: T0 });
  const r = l.get('rev_agent');
  assert.ok(r);
  return r;
}

describe('a code review\'s conversation: labelled, no follow-ups offered (issue 20 §1)', () => {
  const review = tracked({ status: 'completed', kind: 'code_review', reviewId: 'rev_1', completedAt: T0 - 1_000, updatedAt: T0 - 1_000 });
  const agent = tracked({ status: 'completed', kind: 'agent', completedAt: T0 - 1_000, updatedAt: T0 - 1_000 });

  it('the one rule: code_review (any case or separator), or a reviewId without a kind; an agent, or no kind, takes follow-ups', () => {
    for (const kind of ['code_review', 'CODE_REVIEW', 'code-review', 'codeReview']) {
      assert.deepEqual(conversationOf({ kind }), { codeReview: true, takesFollowUps: false }, kind);
    }
    assert.deepEqual(conversationOf({ reviewId: 'rev_1' }), { codeReview: true, takesFollowUps: false });
    assert.deepEqual(conversationOf({ kind: 'agent', reviewId: 'rev_1' }), { codeReview: false, takesFollowUps: true }, 'the kind wins over a stray reviewId');
    assert.deepEqual(conversationOf({ reviewId: ' ' }), { codeReview: false, takesFollowUps: true });
    assert.deepEqual(conversationOf({}), { codeReview: false, takesFollowUps: true });
  });

  it('the ledger keeps kind and reviewId from the read and across a reload; the run state says no follow-ups', () => {
    assert.deepEqual([review.kind, review.reviewId], ['code_review', 'rev_1']);
    const state = runState(review);
    assert.deepEqual([state.codeReview, state.takesFollowUps, state.finished], [true, false, true]);
    const revived = reviveRecord(JSON.parse(JSON.stringify(review)));
    assert.equal(revived && runState(revived).takesFollowUps, false, 'still a code review after a reload');
    assert.equal(runState(agent).takesFollowUps, true);
  });

  it('the Runs view: "code review" in the row and tooltip, no "Send Follow-up" in its menus', () => {
    assert.doesNotMatch(runContextValue(review), FOLLOW_UP_MENU);
    assert.match(runContextValue(agent), FOLLOW_UP_MENU);
    const p = presentRun(review, T0, plainL10n);
    assert.match(p.description, /^code review · (now|\d)/);
    assert.equal(p.status, 'completed');
    assert.deepEqual(p.details.filter(([label]) => label === 'Kind' || label === 'Review'), [['Kind', 'code review (takes no follow-ups)'], ['Review', 'rev_1']]);
    assert.doesNotMatch(presentRun(agent, T0, plainL10n).description, /code review/);
  });

  it('the Runs view offers Clone Run for an agent\'s run, not for a code review\'s conversation (its menu clause, read from package.json)', () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '../../../../package.json'), 'utf8')) as { contributes: { menus: Record<string, { command: string; when?: string }[]> } };
    const entry = manifest.contributes.menus['view/item/context'].find((m) => m.command === 'agentRuns.cloneRun');
    const source = /viewItem =~ \/(.+)\/(?:\s|$)/.exec(entry?.when ?? '')?.[1];
    assert.ok(source, `a viewItem clause: ${entry?.when}`);
    const menu = new RegExp(source);
    assert.match(runContextValue(agent), menu);
    assert.match(runContextValue({ ...agent, unread: true, pollError: 'x' }), menu);
    assert.doesNotMatch(runContextValue(review), menu);
    assert.doesNotMatch(runContextValue({ ...review, unread: true }), menu);
  });

  it('the panel: its tab and header say code review, and the header tells the page there is no composer', () => {
    assert.equal(panelTitle('rev_agent', runState(review), plainL10n), 'Code review: app_shop (done)');
    assert.equal(panelTitle('rev_agent', runState(agent), plainL10n), 'Run: app_shop (done)');
    // Issue 33 §8: once the review is read, its tab says the review's status, not "(done)" beside an open review.
    assert.equal(panelTitle('rev_agent', runState(review), plainL10n, 'open'), 'Code review: app_shop (open)');
    assert.equal(panelTitle('rev_agent', runState({ ...review, status: 'running', completedAt: undefined }), plainL10n, 'open'), 'Code review: app_shop (open)');
    assert.equal(panelTitle('rev_agent', runState({ ...review, status: 'error' }), plainL10n, 'open'), 'Code review: app_shop (error)', 'a failed conversation says so');
    assert.equal(panelTitle('rev_agent', runState(agent), plainL10n, 'open'), 'Run: app_shop (done)', 'an agent\'s run has no review');
    const header = buildHeader(runState(review), 'rev_agent');
    assert.deepEqual([header.kind, header.reviewId, header.codeReview, header.noFollowUps], ['code_review', 'rev_1', true, true]);
    const agentHeader = buildHeader(runState(agent), 'rev_agent');
    assert.deepEqual([agentHeader.codeReview, agentHeader.noFollowUps], [undefined, undefined]);
  });

  it('the finished alert calls it a code review and offers no follow-up for it', () => {
    assert.equal(finishedAlert(review, plainL10n)?.offerFollowUp, false);
    assert.match(finishedAlert(review, plainL10n)?.text ?? '', /^Code review (completed|failed|ended)/);
    assert.match(finishedAlert(agent, plainL10n)?.text ?? '', /^Agent run (completed|failed|ended)/);
    assert.equal(finishedAlert(agent, plainL10n)?.offerFollowUp, true);
  });
});

describe('the sender refuses a follow-up to a code review, with nothing posted (issue 20 §1)', function () {
  this.timeout(20_000);
  let emu: Emulator;
  let client: AgentRunsApi;
  let ledger: RunLedger;
  let sender: Sender;
  let drafts: Map<string, string>;
  const followUpPosts = (): number => emu.requests.filter((r) => r.method === 'POST' && r.path.includes('/messages')).length;

  before(async () => {
    emu = await startEmulator();
  });
  after(() => emu.close());
  beforeEach(() => {
    emu.reset();
    client = createClient({ baseUrl: emu.baseUrl, token: emu.tokens.default });
    const store = new MemoryStore();
    ledger = new RunLedger(store, client.baseUrl);
    drafts = new Map();
    sender = new Sender({
      client: () => Promise.resolve(client),
      ledger: () => ledger,
      poller: { track: () => undefined, burst: () => undefined },
      starts: new UnconfirmedStarts(store),
      sends: new FollowUpSends(store), targetState: store,
      drafts: { get: (id) => drafts.get(id), set: (id, text) => (text === undefined ? drafts.delete(id) : drafts.set(id, text)) },
      log: { info: () => undefined, warn: () => undefined },
    }, () => sendPosts);
  });
  afterEach(() => client.dispose());

  /** A run on the emulator whose reads say it is a code review's conversation. */
  async function reviewRun(): Promise<{ id: string; read: Agent }> {
    const started = await client.startAgent({ appId: SEED.apps.todo, prompt: 'Review the change', model: 'hosted/fast' });
    emu.inject({ method: 'GET', path: `^/agents/${started.agentId}$`, extraFields: { kind: 'code_review', reviewId: 'rev_7' }, times: 0 });
    return { id: started.agentId, read: await client.getAgent(started.agentId) };
  }

  it('tracked by ID (listed): refused, nothing posted, the draft untouched', async () => {
    const { id, read } = await reviewRun();
    assert.equal(read.kind, 'code_review');
    ledger.applyAgent(read);
    drafts.set(id, 'Please also check the tests');
    const r = await sender.followUp(id, { prompt: 'Please also check the tests' }, { from: 'test', quiet: true });
    assert.equal(r.kind, 'noFollowUps');
    assert.equal(followUpPosts(), 0);
    assert.equal(drafts.get(id), 'Please also check the tests');
    assert.equal(ledger.get(id)?.acts, undefined, 'no follow-up recorded');
  });

  it('not listed (the chat and the tools read it first): refused by its read; without one it is sent', async () => {
    const { id, read } = await reviewRun();
    assert.equal((await sender.followUp(id, { prompt: 'More' }, { from: 'test', quiet: true, read })).kind, 'noFollowUps');
    assert.equal(followUpPosts(), 0);
    // The service takes this follow-up (the emulator does not know code reviews): only the read told.
    assert.equal((await sender.followUp(id, { prompt: 'More' }, { from: 'test', quiet: true })).kind, 'sent');
    assert.equal(followUpPosts(), 1);
  });
});
