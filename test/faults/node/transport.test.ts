// Faults below HTTP while following a run: headers and body timeouts, a reset connection, a
// refused connection, a host that DNS does not know. Through the whole follow pipeline: the
// last state is kept, the run is marked stale, reads go on (backing off), and the run
// recovers on its own.
import * as assert from 'node:assert/strict';
import type { ApiErrorKind } from '../../../src/api/errors';
import type { Emulator, FaultRule } from '../../emulator/index';
import { scenario, type Scenario } from '../registry';
import { agentPath, startRun, useEmulator } from '../support/emulatorFixture';
import { Pipeline } from '../support/pipeline';
import { Switchboard } from '../support/proxy';

async function throughSwitchboard(e: Emulator, s: Scenario, body: (p: Pipeline, agentId: string, board: Switchboard) => Promise<void>): Promise<void> {
  const agentId = await startRun(e, 'Upgrade the date library');
  const board = await Switchboard.start(Number(new URL(e.origin).port));
  const p = new Pipeline({ baseUrl: `http://127.0.0.1:${board.port}/api/public/v1`, token: e.tokens.default, settings: { maxBackoffMs: 60_000 } });
  try {
    p.follow(agentId);
    await p.runUntil('the first good read', () => p.ledger.get(agentId)?.lastCheckedAt !== undefined, 5_000);
    await body(p, agentId, board);
  } finally {
    p.check(s);
    await p.dispose();
    await board.close();
  }
}

interface TransportCase {
  title: string;
  rule: Omit<FaultRule, 'method' | 'path'>;
  kind: ApiErrorKind;
  says: RegExp;
}

const CASES: TransportCase[] = [
  { title: 'no response headers within the headers timeout', rule: { delayMs: 4_000 }, kind: 'timeout', says: /did not answer within/ },
  { title: 'headers, then a body that never comes (body timeout)', rule: { bodyDelayMs: 4_000 }, kind: 'timeout', says: /did not finish within/ },
  { title: 'the connection reset before any answer', rule: { reset: true }, kind: 'network', says: /interrupted/ },
  { title: 'a slow server that answers after the client gave up (passThrough)', rule: { delayMs: 4_000, passThrough: true }, kind: 'timeout', says: /did not answer within/ },
];

describe('faults: the network fails while following a run', function () {
  this.timeout(40_000);
  const emu = useEmulator();

  for (const c of CASES) {
    scenario('transport', `${c.title}: stale, retried with backoff, recovers`, (s) => throughSwitchboard(emu(), s, async (p, agentId) => {
      emu().inject({ method: 'GET', path: agentPath(agentId), ...c.rule, times: 2 });
      const from = p.reads.length;
      await p.runUntil('two failed reads', () => p.reads.slice(from).filter((r) => r.outcome === c.kind).length >= 2, 10 * 60_000);
      const r = p.ledger.get(agentId)!;
      assert.equal(r.status, 'running');
      assert.match(r.pollError ?? '', c.says);
      const failedAt = p.reads.slice(from).filter((x) => x.outcome === c.kind).map((x) => x.at);
      assert.ok(failedAt[1] - failedAt[0] >= 30_000, `no backoff between failed reads (${failedAt[1] - failedAt[0]} ms)`);
      await p.runUntil('recovery', () => p.reads.slice(from).some((x) => x.outcome === 'ok'), 10 * 60_000);
      assert.equal(p.ledger.get(agentId)?.pollError, undefined);
    }));
  }

  scenario('transport', 'connection refused (nothing listens): stale, not sent, recovers when the service listens again', (s) => throughSwitchboard(emu(), s, async (p, agentId, board) => {
    await board.down();
    const from = p.reads.length;
    await p.runUntil('a refused read', () => p.reads.slice(from).some((r) => r.outcome === 'network'), 10 * 60_000);
    assert.match(p.ledger.get(agentId)?.pollError ?? '', /refused/);
    assert.equal(p.ledger.get(agentId)?.status, 'running');
    await board.up();
    await p.runUntil('recovery', () => p.reads.slice(from).some((x) => x.outcome === 'ok'), 10 * 60_000);
    assert.equal(p.ledger.get(agentId)?.pollError, undefined);
  }));

  scenario('transport', 'DNS failure (a .invalid host): answered fast, said plainly, nothing crashes', async (s) => {
    const p = new Pipeline({ baseUrl: 'http://agent-runs-faults.invalid/api/public/v1', token: emu().tokens.default });
    try {
      p.follow('agt_dns_1');
      const started = Date.now();
      await p.runUntil('a failed read', () => p.reads.some((r) => r.outcome !== undefined), 60_000);
      const tookMs = Date.now() - started;
      s.note(`DNS failure answered in ${tookMs} ms`);
      assert.ok(tookMs < 5_000, `a DNS failure took ${tookMs} ms`);
      assert.equal(p.reads[0].outcome, 'network');
      assert.match(p.ledger.get('agt_dns_1')?.pollError ?? '', /Could not find the host .*DNS ENOTFOUND|EAI_AGAIN/);
      assert.ok(p.poller.isTracked('agt_dns_1'));
    } finally {
      p.check(s);
      await p.dispose();
    }
  });
});
