// Issue 19, defect 5: the sender with the real client against the emulator. A start the
// person (or a tool) cancels once its body left may have created a run: it is recorded as "may
// have started", never as failed-and-gone, and nothing sends it again; a cancel before anything
// left is a plain failure. A follow-up from a second surface while one is on its way is `busy`.
import * as assert from 'node:assert/strict';
import { createClient, type AgentRunsApi } from '../../../src/api';
import type { Agent } from '../../../src/api/types';
import { RunLedger, runState } from '../../../src/run/common/ledger/ledger';
import { applyRead } from '../../../src/run/common/polling/runReads';
import { FollowUpSends } from '../../../src/run/followUpSends';
import { Sender } from '../../../src/run/sender';
import * as sendPosts from '../../../src/run/sendPosts';
import { UnconfirmedStarts } from '../../../src/run/unconfirmedStarts';
import { MANUAL_EPOCH, SEED, startEmulator, type Emulator } from '../../emulator/index';
import { waitFor } from '../../emulator/testing';
import { MemoryStore } from '../fixtures/memoryStore';
import { senderRig } from './senderRig';


describe('the sender, with the real client against the emulator (issue 19, defect 5)', function () {
  this.timeout(20_000);
  let emu: Emulator;
  let ledger: RunLedger;
  let starts: UnconfirmedStarts;
  let sends: FollowUpSends;
  let sender: Sender;
  let online: boolean;
  const starting = (prompt: string) => ({ appId: SEED.apps.todo, prompt, model: 'hosted/fast' });
  const startPosts = (): number => emu.requests.filter((r) => r.method === 'POST' && r.path.split('?')[0].endsWith('/agents')).length;

  before(async () => {
    emu = await startEmulator();
  });
  after(() => emu.close());
  beforeEach(() => {
    emu.reset();
    online = true;
    ({ ledger, starts, sends, sender } = senderRig(emu, () => online));
  });

  it('a cancel after the body left: "may have arrived", recorded as may-have-started, one POST, the run exists', async () => {
    emu.inject({ method: 'POST', path: '^/agents$', passThrough: true, delayMs: 5_000 });
    const cancel = new AbortController();
    const result = sender.start(starting('Cancelled once sent'), { from: 'test', signal: cancel.signal, quiet: true });
    await waitFor(() => startPosts() === 1, 5_000, 'the POST at the service');
    cancel.abort();
    const r = await result;
    assert.equal(r.kind, 'failed');
    assert.equal(r.kind === 'failed' && r.mayHaveArrived, true, 'a cancel once the body left may have created the run');
    assert.deepEqual(starts.uncertain().map((s) => s.prompt), ['Cancelled once sent']);
    assert.equal(ledger.all().length, 0, 'not listed as a run: nothing acknowledged it');
    assert.equal(emu.state.agents.size, 1, 'the service did create it');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(startPosts(), 1, 'nothing sent it again');
  });

  it('a cancel before anything left: certainly not created, nothing recorded, nothing at the service', async () => {
    const cancel = new AbortController();
    cancel.abort();
    const r = await sender.start(starting('Cancelled before sending'), { from: 'test', signal: cancel.signal, quiet: true });
    assert.equal(r.kind === 'failed' && r.mayHaveArrived, false);
    assert.deepEqual(starts.uncertain(), []);
    assert.equal(startPosts(), 0);
  });

  it('a follow-up from a second surface while the first is on its way: busy, one POST', async () => {
    const started = await sender.start(starting('Follow me'), { from: 'test', quiet: true });
    assert.equal(started.kind, 'started');
    const id = started.kind === 'started' ? started.run.agentId : '';
    emu.inject({ method: 'POST', path: `^/agents/${id}/messages$`, passThrough: true, delayMs: 300 });
    const first = sender.followUp(id, { prompt: 'From the panel' }, { from: 'panel', quiet: true });
    const second = await sender.followUp(id, { prompt: 'From a tool' }, { from: 'tool', quiet: true });
    assert.equal(second.kind, 'busy');
    assert.equal((await first).kind, 'sent');
    assert.equal(emu.requests.filter((r) => r.method === 'POST' && r.path.includes('/messages')).length, 1);
  });

  it('a follow-up while one is on its way and the service is out of reach: busy (the one lock is checked first), then not connected once free', async () => {
    const started = await sender.start(starting('Offline'), { from: 'test', quiet: true });
    const id = started.kind === 'started' ? started.run.agentId : '';
    emu.inject({ method: 'POST', path: `^/agents/${id}/messages$`, passThrough: true, delayMs: 300 });
    const first = sender.followUp(id, { prompt: 'From the panel' }, { from: 'panel', quiet: true });
    await waitFor(() => sends.get(id)?.state === 'sending', 2_000, 'the first send under way');
    online = false;
    assert.equal((await sender.followUp(id, { prompt: 'From a tool' }, { from: 'tool', quiet: true })).kind, 'busy');
    assert.equal((await first).kind, 'sent');
    assert.equal((await sender.followUp(id, { prompt: 'Later' }, { from: 'tool', quiet: true })).kind, 'notConnected');
    assert.equal(sends.get(id), undefined, 'nothing sent: the run is free again');
    assert.equal(emu.requests.filter((r) => r.method === 'POST' && r.path.includes('/messages')).length, 1);
  });
});

// Issue 20: a follow-up that may have arrived is settled by its prompt in the history, whatever
// the service's clock says. Our clock runs `skew` ahead of the emulator's (manual) one: the
// service's clock is that far behind ours (negative: ahead). Each read goes the way RunSync
// takes it in: the sender looks for the prompt, then the ledger hears of the read.
describe('a follow-up that may have arrived, the service\'s clock off ours (issue 20)', function () {
  this.timeout(20_000);
  const STEP = 1_000;
  let emu: Emulator;
  let client: AgentRunsApi;
  let serviceNow: number;
  let ledger: RunLedger;
  let sends: FollowUpSends;
  let drafts: Map<string, string>;
  let sender: Sender;
  let skew: number;
  const ours = (): number => serviceNow + skew;
  const followUpPosts = (id: string): number => emu.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/agents/${id}/messages`)).length;

  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: STEP });
  });
  after(() => emu.close());
  afterEach(() => client.dispose());

  function setUp(offset: number): void {
    emu.reset();
    serviceNow = MANUAL_EPOCH;
    skew = offset;
    client = createClient({ baseUrl: emu.baseUrl, token: emu.tokens.default });
    const store = new MemoryStore();
    ledger = new RunLedger(store, client.baseUrl);
    sends = new FollowUpSends(store, ours);
    drafts = new Map();
    sender = new Sender({
      client: () => Promise.resolve(client),
      ledger: () => ledger,
      poller: { track: () => undefined, burst: () => undefined },
      starts: new UnconfirmedStarts(store),
      sends, targetState: store,
      drafts: { get: (id) => drafts.get(id), set: (id, text) => (text === undefined ? drafts.delete(id) : drafts.set(id, text)) },
      log: { info: () => undefined, warn: () => undefined },
      now: ours,
    }, () => sendPosts);
  }

  async function advance(ms: number): Promise<void> {
    await emu.advance(ms);
    serviceNow += ms;
  }

  async function read(id: string): Promise<Agent> {
    const agent = await client.getAgent(id);
    sender.observeRead(id, agent);
    applyRead(ledger, id, agent, { viewing: false, now: ours(), merge: () => undefined, finished: () => undefined });
    return agent;
  }

  /** A run started through the sender, its first turn over and read. */
  async function finishedRun(): Promise<string> {
    const started = await sender.start({ appId: SEED.apps.todo, prompt: 'Write the release notes', model: 'hosted/fast' }, { from: 'test', quiet: true });
    assert.equal(started.kind, 'started');
    const id = started.kind === 'started' ? started.run.agentId : '';
    await advance(10 * STEP);
    await read(id);
    assert.equal(runState(ledger.get(id) ?? { status: 'queued' }).finished, true, 'the first turn is over');
    return id;
  }

  for (const [title, offset] of [
    ['30 s behind', 30_000],
    ['45 s behind', 45_000],
    ['an hour behind', 3_600_000],
    ['an hour ahead', -3_600_000],
  ] as const) {
    it(`${title}: the first read that shows its prompt settles it (the composer is free), and its turn is awaited to its end`, async () => {
      setUp(offset);
      const id = await finishedRun();
      emu.inject({ method: 'POST', path: `^/agents/${id}/messages$`, passThrough: true, reset: true });
      const prompt = 'Also update the changelog';
      const sent = await sender.followUp(id, { prompt }, { from: 'panel', quiet: true });
      assert.equal(sent.kind === 'failed' && sent.mayHaveArrived, true, 'the cut came after the body left');
      const since = sends.get(id)?.since ?? NaN;
      assert.equal(sends.get(id)?.state, 'uncertain');
      await advance(STEP);
      const agent = await read(id);
      const shown = agent.history?.find((m) => m.role === 'user' && m.content === prompt);
      assert.ok(shown?.createdAt !== undefined && Math.abs(shown.createdAt - (since - offset)) <= 2 * STEP, `the prompt is stamped by the service's clock (${shown?.createdAt} vs ours ${since})`);
      assert.equal(sends.get(id), undefined, 'still "may have arrived" with its prompt in the history: the composer stays locked');
      assert.equal(drafts.has(id), false, 'the text did not come back as a draft: it arrived');
      const pending = runState(ledger.get(id) ?? { status: 'queued' });
      assert.deepEqual([pending.finished, pending.followUp?.prompt, pending.followUp?.arrived], [false, prompt, true]);
      await advance(10 * STEP);
      await read(id);
      assert.equal(runState(ledger.get(id) ?? { status: 'queued' }).finished, true, 'its turn ended');
      assert.equal(followUpPosts(id), 1);
    });
  }

  it('a prompt that never shows (the service answered 503 before taking it) stays "may have arrived" through reads, whatever the clocks; Discard gives its text back, nothing is sent', async () => {
    setUp(3_600_000);
    const id = await finishedRun();
    emu.inject({ method: 'POST', path: `^/agents/${id}/messages$`, status: 503 });
    const prompt = 'Run the linter too';
    const sent = await sender.followUp(id, { prompt }, { from: 'panel', quiet: true });
    assert.equal(sent.kind === 'failed' && sent.mayHaveArrived, true);
    for (let i = 0; i < 5; i++) {
      await advance(60 * STEP);
      await read(id);
    }
    assert.equal(sends.get(id)?.state, 'uncertain', 'settled without its prompt in the history');
    assert.equal(runState(ledger.get(id) ?? { status: 'queued' }).finished, true, 'the run is not taken for a re-opened one');
    assert.equal((await sender.followUp(id, { prompt: 'Something else' }, { from: 'tool', quiet: true })).kind, 'busy');
    assert.equal(sender.discardFollowUp(id), prompt);
    assert.equal(drafts.get(id), prompt);
    assert.equal(sends.get(id), undefined);
    assert.equal(followUpPosts(id), 1);
  });
});
