// The token stays with the configured service: not in a redirect to another origin, not in
// any message built from an answer that echoes it (whole, in pieces, lower-cased, split by
// control characters), not in the persisted ledger or the exports.
import * as assert from 'node:assert/strict';
import { isInsecureRemote, isLoopbackHost } from '../../../src/api/baseUrl';
import { toJson, toMarkdown } from '../../../src/run/common/export/export';
import type { Emulator } from '../../emulator/index';
import { scenario, type Scenario } from '../registry';
import { agentPath, startRun, useEmulator } from '../support/emulatorFixture';
import { Pipeline } from '../support/pipeline';

function foreignSink(e: Emulator, s: Scenario): void {
  s.sink('requests to another origin', e.foreignRequests.map((r) => JSON.stringify(r)).join('\n'));
}

describe('faults: the token stays home', function () {
  this.timeout(30_000);
  const emu = useEmulator();

  scenario('secrets', 'a redirect of a followed run to another origin is not followed; the other origin sees nothing', async (s) => {
    const e = emu();
    const agentId = await startRun(e, 'Move the docs');
    const p = new Pipeline({ baseUrl: e.baseUrl, token: e.tokens.default });
    try {
      p.follow(agentId);
      await p.runUntil('a good read', () => p.ledger.get(agentId)?.lastCheckedAt !== undefined, 5_000);
      for (const status of [301, 302, 307, 308]) {
        e.inject({ method: 'GET', path: agentPath(agentId), redirectTo: 'foreign', redirectStatus: status, times: 1 });
        const from = p.reads.length;
        await p.runUntil(`the ${status}`, () => p.reads.slice(from).some((r) => r.outcome !== undefined), 10 * 60_000);
        assert.equal(p.reads[from].outcome, 'cross_origin_redirect');
      }
      assert.equal(e.foreignRequests.length, 0, 'a request reached the other origin');
      assert.match(p.ledger.get(agentId)?.pollError ?? '', /redirected to another site/);
    } finally {
      foreignSink(e, s);
      p.check(s);
      await p.dispose();
    }
  });

  scenario('secrets', 'a service that echoes the token in error bodies (whole, lower-cased, in pieces, split by controls) leaks it nowhere', async (s) => {
    const e = emu();
    const token = e.tokens.default;
    const agentId = await startRun(e, 'Check the echo');
    const p = new Pipeline({ baseUrl: e.baseUrl, token, settings: { maxBackoffMs: 30_000 } });
    const echoes = [
      `{"error":"bad token ${token}"}`,
      `{"error":"bad token ${token.toLowerCase()}","code":"${token}"}`,
      `{"error":"part ${token.slice(4, 30)} and ${token.slice(20)}"}`,
      `{"error":"split ${token.slice(0, 15)}\\u200b${token.slice(15)}","reason":"${token}"}`,
      `<html><body>Proxy error for Bearer ${token}</body></html>`,
    ];
    try {
      p.follow(agentId);
      await p.runUntil('a good read', () => p.ledger.get(agentId)?.lastCheckedAt !== undefined, 5_000);
      for (const [i, body] of echoes.entries()) {
        const status = [500, 400, 502, 503, 502][i];
        e.inject({ method: 'GET', path: agentPath(agentId), status, body, headers: { 'x-echo': token }, times: 1 });
        const from = p.reads.length;
        await p.runUntil('the echoed error', () => p.reads.slice(from).some((r) => r.outcome !== undefined), 10 * 60_000);
        s.sink(`stale mark after echo ${i + 1}`, p.ledger.get(agentId)?.pollError);
      }
    } finally {
      p.check(s);
      await p.dispose();
    }
  });

  scenario('secrets', 'exports of a run followed through failures hold no token', async (s) => {
    const e = emu();
    const agentId = await startRun(e, 'Export me', 6);
    const p = new Pipeline({ baseUrl: e.baseUrl, token: e.tokens.default });
    try {
      p.follow(agentId);
      await p.runUntil('a good read', () => p.ledger.get(agentId)?.lastCheckedAt !== undefined, 5_000);
      e.inject({ method: 'GET', path: agentPath(agentId), status: 500, body: `{"error":"${e.tokens.default}"}`, times: 1 });
      await p.runFor(60_000);
      const agent = { agentId, ...p.ledger.get(agentId) };
      const snapshot = p.transcripts.get(agentId).snapshot();
      assert.ok(snapshot.entries.length > 0);
      s.sink('Markdown export', toMarkdown(agent, snapshot));
      s.sink('JSON export', toJson(agent, snapshot));
    } finally {
      p.check(s);
      await p.dispose();
    }
  });

  scenario('secrets', 'plain http to another machine is recognised as insecure; loopback http is not', () => {
    for (const url of ['http://example.com/api/public/v1', 'http://10.0.0.5:8080/api/public/v1', 'http://0.0.0.0:3000/api/public/v1', 'http://[::ffff:a00:1]/api/public/v1', 'http://localhost.evil.example/api/public/v1']) {
      assert.equal(isInsecureRemote(url), true, url);
    }
    for (const url of ['https://example.com/api/public/v1', 'http://127.0.0.1:3000/api/public/v1', 'http://localhost:1/api/public/v1', 'http://[::1]:2/api/public/v1', 'http://run.localhost/api/public/v1']) {
      assert.equal(isInsecureRemote(url), false, url);
    }
    assert.equal(isLoopbackHost('http://127.255.255.254/'), true);
    return Promise.resolve();
  });
});
