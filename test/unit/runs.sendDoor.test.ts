// Issue 19, defect 5: the send door with the real client against the emulator. A start the
// person (or a tool) cancels once its body left may have created a run: it is recorded as "may
// have started", never as failed-and-gone, and nothing sends it again; a cancel before anything
// left is a plain failure. A follow-up from a second surface while one is on its way is `busy`.
import * as assert from 'node:assert/strict';
import { createClient, type AgentRunsApi } from '../../src/api';
import { RunLedger } from '../../src/core/ledger/ledger';
import { FollowUpSends } from '../../src/runs/followUpSends';
import { SendDoor } from '../../src/runs/sendDoor';
import * as sendPosts from '../../src/runs/sendPosts';
import { UnconfirmedStarts } from '../../src/runs/unconfirmedStarts';
import { SEED, startEmulator, type Emulator } from '../emulator/index';
import { waitFor } from '../emulator/testing';
import { MemoryStore } from './fixtures/memoryStore';


describe('the send door, with the real client against the emulator (issue 19, defect 5)', function () {
  this.timeout(20_000);
  let emu: Emulator;
  let client: AgentRunsApi;
  let ledger: RunLedger;
  let starts: UnconfirmedStarts;
  let sends: FollowUpSends;
  let door: SendDoor;
  const starting = (prompt: string) => ({ appId: SEED.apps.todo, prompt, model: 'hosted/fast' });
  const startPosts = (): number => emu.requests.filter((r) => r.method === 'POST' && r.path.split('?')[0].endsWith('/agents')).length;

  before(async () => {
    emu = await startEmulator();
  });
  after(() => emu.close());
  beforeEach(() => {
    emu.reset();
    client = createClient({ baseUrl: emu.baseUrl, token: emu.tokens.default });
    const store = new MemoryStore();
    ledger = new RunLedger(store, client.baseUrl);
    starts = new UnconfirmedStarts(store);
    sends = new FollowUpSends(store);
    door = new SendDoor({
      client: () => Promise.resolve(client),
      ledger: () => ledger,
      poller: { track: () => undefined, burst: () => undefined },
      starts,
      sends,
      log: { info: () => undefined, warn: () => undefined },
    }, () => sendPosts);
  });

  it('a cancel after the body left: "may have arrived", recorded as may-have-started, one POST, the run exists', async () => {
    emu.inject({ method: 'POST', path: '^/agents$', passThrough: true, delayMs: 5_000 });
    const cancel = new AbortController();
    const result = door.start(starting('Cancelled once sent'), { from: 'test', signal: cancel.signal, quiet: true });
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
    const r = await door.start(starting('Cancelled before sending'), { from: 'test', signal: cancel.signal, quiet: true });
    assert.equal(r.kind === 'failed' && r.mayHaveArrived, false);
    assert.deepEqual(starts.uncertain(), []);
    assert.equal(startPosts(), 0);
  });

  it('a follow-up from a second surface while the first is on its way: busy, one POST', async () => {
    const started = await door.start(starting('Follow me'), { from: 'test', quiet: true });
    assert.equal(started.kind, 'started');
    const id = started.kind === 'started' ? started.run.agentId : '';
    emu.inject({ method: 'POST', path: `^/agents/${id}/messages$`, passThrough: true, delayMs: 300 });
    const first = door.followUp(id, { prompt: 'From the panel' }, { from: 'panel', quiet: true });
    const second = await door.followUp(id, { prompt: 'From a tool' }, { from: 'tool', quiet: true });
    assert.equal(second.kind, 'busy');
    assert.equal((await first).kind, 'sent');
    assert.equal(emu.requests.filter((r) => r.method === 'POST' && r.path.includes('/messages')).length, 1);
  });
});
