// Long stories on the poller's virtual clock, with real HTTP: the service gone for ten
// minutes and back, failing with 503 for minutes, rate limiting with and without
// Retry-After, and a token revoked while several runs are followed.
import * as assert from 'node:assert/strict';
import { RATE_LIMIT_DEFAULT_MS, RATE_LIMIT_STAGGER_MS } from '../../../src/run/common/polling/poller';
import { scenario } from '../registry';
import { admin, newToken, startRun, useEmulator } from '../support/emulatorFixture';
import { Pipeline } from '../support/pipeline';
import { Switchboard } from '../support/proxy';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

describe('faults: outages, rate limits and revoked tokens over (virtual) minutes', function () {
  this.timeout(60_000);
  const emu = useEmulator();

  scenario('outage', 'the service goes away for 10 minutes and comes back: told once, backs off, resumes on its own', async (s) => {
    const e = emu();
    const ids = [await startRun(e, 'one'), await startRun(e, 'two'), await startRun(e, 'three')];
    const board = await Switchboard.start(Number(new URL(e.origin).port));
    const p = new Pipeline({ baseUrl: `http://127.0.0.1:${board.port}/api/public/v1`, token: e.tokens.default });
    try {
      p.follow(...ids);
      await p.runUntil('first reads', () => ids.every((id) => p.ledger.get(id)?.lastCheckedAt !== undefined), 10 * SECOND);
      await board.down();
      const downAt = p.clock.now();
      const from = p.reads.length;
      await p.runFor(10 * MINUTE);
      const during = p.reads.slice(from);
      s.note(`${during.length} reads of 3 runs during 10 minutes down`);
      assert.deepEqual(p.connectivity, [false], 'the person must be told exactly once that the service is unreachable');
      assert.ok(during.every((r) => r.outcome === 'network'));
      // Backoff: with a 15 s cadence and a 5 min cap, about 6 reads per run in 10 minutes, not 40.
      assert.ok(during.length <= 3 * 8, `kept hammering a dead service: ${during.length} reads`);
      for (const id of ids) {
        assert.equal(p.ledger.get(id)?.status, 'running', 'the last known state was lost');
        assert.ok(p.ledger.get(id)?.pollError, 'not marked stale');
        assert.ok(p.poller.isTracked(id), 'gave up on a run');
      }
      await board.up();
      const upAt = p.clock.now();
      const waited = await p.runUntil('every run read again', () => ids.every((id) => p.readsOf(id).some((r) => r.at >= upAt && r.outcome === 'ok')), 6 * MINUTE);
      s.note(`service down ${(upAt - downAt) / MINUTE} min; all runs fresh ${Math.round(waited / SECOND)} s after it came back`);
      assert.deepEqual(p.connectivity, [false, true], 'told once when it came back, and only once');
      for (const id of ids) {
        assert.equal(p.ledger.get(id)?.pollError, undefined);
      }
      // Back to the normal cadence: the next minute reads every run about 4 times.
      const before = p.reads.length;
      await p.runFor(MINUTE);
      const after = p.reads.slice(before);
      assert.ok(after.length >= 3 * 3 && after.length <= 3 * 5, `cadence after recovery: ${after.length} reads/min for 3 runs`);
    } finally {
      p.check(s);
      await p.dispose();
      await board.close();
    }
  });

  scenario('outage', 'the service answers 503 for 5 minutes: one offline report, one online report, no storm', async (s) => {
    const e = emu();
    const ids = [await startRun(e, 'a'), await startRun(e, 'b')];
    const p = new Pipeline({ baseUrl: e.baseUrl, token: e.tokens.default });
    try {
      p.follow(...ids);
      await p.runUntil('first reads', () => ids.every((id) => p.ledger.get(id)?.lastCheckedAt !== undefined), 10 * SECOND);
      e.inject({ method: 'GET', path: '^/agents/', status: 503, times: 0 });
      const from = p.reads.length;
      await p.runFor(5 * MINUTE);
      assert.deepEqual(p.connectivity, [false]);
      assert.ok(p.reads.length - from <= 2 * 7, `${p.reads.length - from} reads in 5 minutes of 503`);
      e.clearFaults();
      await p.runUntil('both fresh', () => ids.every((id) => p.ledger.get(id)?.pollError === undefined), 6 * MINUTE);
      assert.deepEqual(p.connectivity, [false, true]);
    } finally {
      p.check(s);
      await p.dispose();
    }
  });

  scenario('rate-limit', '429 with Retry-After: 7 — nothing is sent for 7 s, then the runs come back one at a time', async (s) => {
    const e = emu();
    const ids = [await startRun(e, 'r1'), await startRun(e, 'r2'), await startRun(e, 'r3'), await startRun(e, 'r4')];
    const p = new Pipeline({ baseUrl: e.baseUrl, token: e.tokens.default, settings: { backgroundMs: 5_000 } });
    try {
      p.follow(...ids);
      await p.runUntil('first reads', () => ids.every((id) => p.ledger.get(id)?.lastCheckedAt !== undefined), 10 * SECOND);
      e.inject({ method: 'GET', path: '^/agents/', status: 429, headers: { 'retry-after': '7' }, times: 1 });
      await p.runUntil('the 429', () => p.reads.some((r) => r.outcome === 'rate_limited'), MINUTE);
      const limitedAt = p.reads.find((r) => r.outcome === 'rate_limited')!.at;
      const from = p.reads.length;
      await p.runFor(30 * SECOND);
      const next = p.reads.slice(from).map((r) => r.at);
      assert.ok(next.length >= ids.length, 'polling did not come back after the hold');
      assert.ok(next[0] >= limitedAt + 7 * SECOND, `read ${(next[0] - limitedAt) / SECOND} s after a "Retry-After: 7"`);
      const gaps = next.slice(1, ids.length).map((t, i) => t - next[i]);
      assert.ok(gaps.every((g) => g >= RATE_LIMIT_STAGGER_MS), `a burst after the hold: gaps ${gaps.join(', ')} ms`);
      assert.ok(p.reads.slice(from).every((r) => r.outcome === 'ok'));
    } finally {
      p.check(s);
      await p.dispose();
    }
  });

  scenario('rate-limit', '429 without Retry-After — a 30 s hold, doubling while 429s repeat, then no burst', async (s) => {
    const e = emu();
    const ids = [await startRun(e, 'q1'), await startRun(e, 'q2'), await startRun(e, 'q3')];
    const p = new Pipeline({ baseUrl: e.baseUrl, token: e.tokens.default, settings: { backgroundMs: 5_000 } });
    try {
      p.follow(...ids);
      await p.runUntil('first reads', () => ids.every((id) => p.ledger.get(id)?.lastCheckedAt !== undefined), 10 * SECOND);
      const from = p.reads.length;
      e.inject({ method: 'GET', path: '^/agents/', status: 429, times: 2 });
      await p.runUntil('two 429s', () => p.reads.slice(from).filter((r) => r.outcome === 'rate_limited').length === 2, 3 * MINUTE);
      const [first, second] = p.reads.slice(from).filter((r) => r.outcome === 'rate_limited').map((r) => r.at);
      assert.ok(second - first >= RATE_LIMIT_DEFAULT_MS, `the 2nd request came ${(second - first) / SECOND} s after a 429 without Retry-After`);
      const from2 = p.reads.length;
      await p.runUntil('every run read after the holds', () => p.reads.length - from2 >= ids.length, 5 * MINUTE);
      const after = p.reads.slice(from2, from2 + ids.length).map((r) => r.at);
      s.note(`holds: ${(second - first) / SECOND} s, then ${(after[0] - second) / SECOND} s`);
      assert.ok(after[0] - second >= 2 * RATE_LIMIT_DEFAULT_MS, `the repeated 429 did not double the hold (${(after[0] - second) / SECOND} s)`);
      const gaps = after.slice(1).map((t, i) => t - after[i]);
      assert.ok(gaps.every((g) => g >= RATE_LIMIT_STAGGER_MS), `a burst after the hold: ${gaps.join(', ')} ms`);
      assert.ok(p.reads.slice(from2).every((r) => r.outcome === 'ok'));
    } finally {
      p.check(s);
      await p.dispose();
    }
  });

  scenario('auth', 'a token revoked while 3 runs are followed: one prompt, no request until a new token, then every run read once', async (s) => {
    const e = emu();
    const { token, id } = await newToken(e);
    const ids = [await startRun(e, 'x1'), await startRun(e, 'x2'), await startRun(e, 'x3')];
    const p = new Pipeline({ baseUrl: e.baseUrl, token, settings: { backgroundMs: 5_000 } });
    try {
      p.follow(...ids);
      await p.runUntil('first reads', () => ids.every((x) => p.ledger.get(x)?.lastCheckedAt !== undefined), 10 * SECOND);
      await admin(e, 'POST', `/tokens/${id}/revoke`);
      await p.runUntil('the 401', () => p.unauthorized > 0, MINUTE);
      const pausedFrom = p.reads.length;
      await p.runFor(10 * MINUTE);
      assert.equal(p.unauthorized, 1, 'one prompt, not one per run or per poll');
      assert.equal(p.poller.paused, true);
      assert.equal(p.reads.length, pausedFrom, `${p.reads.length - pausedFrom} reads while the token is known to be revoked`);
      assert.equal(p.clock.pendingTimers, 0, 'timers left running while paused');
      assert.ok(ids.every((x) => p.poller.isTracked(x)), 'runs were dropped instead of paused');
      await p.setToken(e.tokens.default);
      // Less than one cadence (5 s): only the catch-up reads of the resume.
      await p.runFor(4 * SECOND);
      const resumed = p.reads.slice(pausedFrom);
      assert.deepEqual(resumed.map((r) => r.agentId).sort(), [...ids].sort(), 'each run read once, promptly');
      assert.ok(resumed.every((r) => r.outcome === 'ok'));
      assert.equal(p.unauthorized, 1);
    } finally {
      p.check(s);
      await p.dispose();
    }
  });
});
