// Issue 20 §1: the sender, with the real client against the emulator, answered the way the
// deployed service answers (service-api-wider.md §1): 202 Accepted for a start and a follow-up.
import * as assert from 'node:assert/strict';
import type { AgentRunsApi } from '../../../src/api';
import { type RunLedger } from '../../../src/run/common/ledger/ledger';
import { type FollowUpSends } from '../../../src/run/followUpSends';
import { type Sender } from '../../../src/run/sender';
import { type UnconfirmedStarts } from '../../../src/run/unconfirmedStarts';
import { SEED, startEmulator, type Emulator } from '../../emulator/index';
import { senderRig } from './senderRig';

describe('the sender against the deployed service\'s answers (issue 20 §1)', function () {
  this.timeout(20_000);
  let emu: Emulator;
  let client: AgentRunsApi;
  let ledger: RunLedger;
  let starts: UnconfirmedStarts;
  let sends: FollowUpSends;
  let sender: Sender;
  const starting = (prompt: string) => ({ appId: SEED.apps.todo, prompt, model: 'hosted/fast' });
  const posts = (suffix: string): number => emu.requests.filter((r) => r.method === 'POST' && r.path.split('?')[0].endsWith(suffix)).length;

  before(async () => {
    emu = await startEmulator();
  });
  after(() => emu.close());
  beforeEach(() => {
    emu.reset();
    ({ client, ledger, starts, sends, sender } = senderRig(emu));
  });
  afterEach(() => client.dispose());

  it('a start answered 202: started, listed and followed, not "may have started"', async () => {
    emu.inject({ method: 'POST', path: '^/agents$', status: 202, passThrough: true });
    const r = await sender.start(starting('Accepted, not created'), { from: 'test', quiet: true });
    assert.equal(r.kind, 'started');
    const id = r.kind === 'started' ? r.run.agentId : '';
    assert.equal(emu.requests.find((q) => q.method === 'POST')?.status, 202, 'the emulator did answer 202');
    assert.deepEqual(ledger.all().map((x) => x.agentId), [id]);
    assert.deepEqual(starts.uncertain(), []);
    assert.equal(posts('/agents'), 1);
  });

  it('a follow-up answered 202: sent, recorded as the run\'s follow-up, the lock free again', async () => {
    const started = await sender.start(starting('Then a follow-up'), { from: 'test', quiet: true });
    const id = started.kind === 'started' ? started.run.agentId : '';
    emu.inject({ method: 'POST', path: `^/agents/${id}/messages$`, status: 202, passThrough: true });
    const r = await sender.followUp(id, { prompt: 'And now this' }, { from: 'test', quiet: true });
    assert.equal(r.kind, 'sent');
    assert.deepEqual(ledger.get(id)?.acts?.map((a) => a.prompt), ['And now this']);
    assert.equal(sends.get(id), undefined);
    assert.equal(posts('/messages'), 1);
  });

  it('a test group answered 201: created', async () => {
    const r = await sender.createTestGroup({ appId: SEED.apps.todo, name: 'Smoke', testIds: ['t1'] }, { from: 'test', quiet: true });
    assert.equal(r.kind, 'created');
    assert.equal(emu.requests.find((q) => q.method === 'POST')?.status, 201);
  });
});
