// Faulty answers to the reads that follow a run, through the whole follow pipeline (client,
// poller on virtual time, ledger, transcripts): the run keeps its last known state, is marked
// stale with a sentence a person can act on, is read again on its own, and recovers when the
// service answers properly again. Answers that are merely unusual (unknown fields and
// values, missing optional fields, wrong types) are accepted without a stale mark.
import * as assert from 'node:assert/strict';
import type { ApiErrorKind } from '../../../src/api/errors';
import type { Emulator, FaultRule } from '../../emulator/index';
import { scenario, type Scenario } from '../registry';
import { admin, agentPath, startRun, useEmulator } from '../support/emulatorFixture';
import { Pipeline } from '../support/pipeline';

interface ErrorCase {
  title: string;
  rule: Omit<FaultRule, 'method' | 'path'>;
  kind: ApiErrorKind;
  /** The stale mark a person reads must say this. */
  says: RegExp;
}

const ERROR_CASES: ErrorCase[] = [
  { title: '500 Internal Server Error', rule: { status: 500 }, kind: 'server', says: /failed \(500\)/ },
  { title: '502 Bad Gateway', rule: { status: 502 }, kind: 'server', says: /failed \(502\)/ },
  { title: '503 Service Unavailable with Retry-After', rule: { status: 503, headers: { 'retry-after': '120' } }, kind: 'server', says: /failed \(503\)/ },
  { title: 'an HTML error page from a proxy (502)', rule: { html: true, status: 502 }, kind: 'server', says: /failed \(502\)/ },
  { title: 'an HTML login page with 200', rule: { html: true, status: 200 }, kind: 'invalid_response', says: /web page instead of JSON/ },
  { title: 'malformed JSON', rule: { status: 200, body: '{"agentId": "x", "status": "running", "history": [' }, kind: 'invalid_response', says: /not valid JSON/ },
  { title: 'truncated JSON (half the real body)', rule: { truncate: true }, kind: 'invalid_response', says: /not valid JSON|cut off/ },
  { title: 'an empty body with 200', rule: { status: 200, body: '' }, kind: 'invalid_response', says: /empty response/ },
  { title: 'a JSON array instead of an object', rule: { status: 200, body: '[{"agentId":"x"}]' }, kind: 'invalid_response', says: /not a JSON object/ },
  { title: 'JSON null', rule: { status: 200, body: 'null' }, kind: 'invalid_response', says: /not a JSON object/ },
  { title: 'a body without the agentId', rule: { dropFields: ['agentId'] }, kind: 'invalid_response', says: /had no agentId/ },
  { title: 'an unexpected 3xx without Location', rule: { status: 304 }, kind: 'invalid_response', says: /unexpected status|could not/ },
  { title: 'a 4xx the reference does not list (418)', rule: { status: 418 }, kind: 'client', says: /refused the request \(418/ },
];

/** Runs a pipeline following one running run; `body` gets it after the first good read. */
async function following(
  emu: () => Emulator,
  s: Scenario,
  body: (p: Pipeline, agentId: string) => Promise<void>,
): Promise<void> {
  const e = emu();
  const agentId = await startRun(e, 'Fix the flaky checkout test');
  const p = new Pipeline({ baseUrl: e.baseUrl, token: e.tokens.default, settings: { backgroundMs: 15_000, maxBackoffMs: 60_000 } });
  try {
    p.follow(agentId);
    await p.runUntil('the first good read', () => p.ledger.get(agentId)?.lastCheckedAt !== undefined, 5_000);
    assert.equal(p.ledger.get(agentId)?.status, 'running');
    await body(p, agentId);
  } finally {
    p.check(s);
    await p.dispose();
  }
}

describe('faults: bad answers while following a run', function () {
  this.timeout(30_000);
  const emu = useEmulator();

  for (const c of ERROR_CASES) {
    scenario('responses', `${c.title}: last state kept, marked stale, read again on its own, recovers`, (s) => following(emu, s, async (p, agentId) => {
      const before = p.ledger.get(agentId)!;
      emu().inject({ method: 'GET', path: agentPath(agentId), ...c.rule, times: 2 });
      const readsBefore = p.readsOf(agentId).length;
      await p.runUntil('two failed reads', () => p.readsOf(agentId).filter((r) => r.outcome === c.kind).length >= 2, 10 * 60_000);
      const stale = p.ledger.get(agentId)!;
      assert.equal(stale.status, before.status, 'the last known status was lost');
      assert.equal(stale.appId, before.appId);
      assert.ok(stale.pollError, 'the run was not marked stale');
      assert.match(stale.pollError, c.says);
      assert.doesNotMatch(stale.pollError, /<\s*(?:html|body|center|h1)|\{"|nginx/i, 'raw response text reached the person');
      assert.ok(stale.pollError.length <= 400 && !stale.pollError.includes('\n'), 'not one bounded line');
      assert.ok(p.poller.isTracked(agentId), 'the run was dropped');
      // Back to normal: the next read succeeds and the stale mark goes.
      await p.runUntil('a good read after the fault', () => p.readsOf(agentId).slice(readsBefore).some((r) => r.outcome === 'ok'), 10 * 60_000);
      assert.equal(p.ledger.get(agentId)?.pollError, undefined, 'the stale mark stayed after recovery');
      assert.deepEqual(p.connectivity.filter((x) => !x), c.kind === 'server' ? [] : [], 'two failures are not an outage');
    }));
  }

  scenario('responses', 'unknown top-level fields (also __proto__ and constructor) are ignored; nothing is polluted', (s) => following(emu, s, async (p, agentId) => {
    emu().inject({
      method: 'GET', path: agentPath(agentId), times: 1, status: 200,
      body: JSON.stringify({
        agentId, status: 'running', appId: 'app_todo', surprise: { nested: [1, 2, { deeper: true }] }, reviewers: ['a'],
        __proto__: { polluted: 'yes' }, constructor: { prototype: { polluted: 'yes' } }, lifecycle: { conversationState: 'thinking', brandNew: 1 },
      }).replace('"surprise"', '"__proto__":{"polluted":"yes"},"surprise"'),
    });
    await p.runFor(20_000);
    const r = p.ledger.get(agentId)!;
    assert.equal(r.pollError, undefined);
    assert.equal(r.status, 'running');
    assert.equal(r.conversationState, 'thinking');
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype was polluted');
    assert.equal(Object.prototype.hasOwnProperty.call(r, 'surprise'), false);
  }));

  scenario('responses', 'missing optional fields keep what was known; nothing is invented', (s) => following(emu, s, async (p, agentId) => {
    const before = p.ledger.get(agentId)!;
    emu().inject({
      method: 'GET', path: agentPath(agentId), times: 1,
      dropFields: ['kind', 'status', 'appId', 'projectId', 'projectName', 'model', 'reasoningEffort', 'permission', 'permittedBranches', 'createdAt', 'updatedAt', 'history', 'lifecycle'],
    });
    await p.runFor(20_000);
    const r = p.ledger.get(agentId)!;
    assert.equal(r.pollError, undefined);
    assert.equal(r.status, before.status);
    assert.equal(r.appId, before.appId);
    assert.equal(r.model, before.model);
    assert.ok(p.transcripts.get(agentId).snapshot().entries.length > 0, 'the transcript was lost');
  }));

  scenario('responses', 'wrong types and nulls in every field are dropped, not fatal', (s) => following(emu, s, async (p, agentId) => {
    emu().inject({
      method: 'GET', path: agentPath(agentId), times: 1,
      extraFields: {
        status: 42, kind: null, appId: ['x'], projectName: { a: 1 }, createdAt: 'yesterday', updatedAt: Number.MAX_VALUE,
        permittedBranches: 'main', history: 'not a list', lifecycle: [1, 2], lastError: false,
      },
    });
    await p.runFor(20_000);
    const r = p.ledger.get(agentId)!;
    assert.equal(r.pollError, undefined);
    assert.equal(r.status, 'running', 'a numeric status replaced the known one');
    assert.equal(r.appId, 'app_todo');
    // History elements of the wrong shape are skipped, the rest kept.
    emu().inject({ method: 'GET', path: agentPath(agentId), times: 1, extraFields: { history: [null, 7, 'x', [], { id: 'm-ok', sequence: 99, role: 'assistant', content: 'kept' }, { id: 5, content: { x: 1 } }] } });
    await p.runFor(20_000);
    const texts = p.transcripts.get(agentId).snapshot().entries.map((e) => e.message.content);
    assert.ok(texts.includes('kept'), 'a good message next to bad ones was dropped');
  }));

  scenario('responses', 'an unknown status is kept as sent and the run is still followed', (s) => following(emu, s, async (p, agentId) => {
    await admin(emu(), 'PATCH', `/agents/${agentId}`, { status: 'paused_by_admin' });
    await p.runUntil('the new status', () => p.ledger.get(agentId)?.status === 'paused_by_admin', 60_000);
    assert.ok(p.poller.isTracked(agentId), 'an unknown status was taken as finished');
    const reads = p.readsOf(agentId).length;
    await p.runFor(60_000);
    assert.ok(p.readsOf(agentId).length > reads, 'polling stopped on an unknown status');
    await admin(emu(), 'PATCH', `/agents/${agentId}`, { status: 'completed' });
    await p.runUntil('completion', () => p.ledger.get(agentId)?.status === 'completed', 60_000);
    assert.equal(p.poller.isTracked(agentId), false, 'a completed run is still polled');
  }));

  scenario('responses', 'an unknown kind and unknown lifecycle states are kept as sent', (s) => following(emu, s, async (p, agentId) => {
    await admin(emu(), 'PATCH', `/agents/${agentId}`, { kind: 'code_review_v9', lifecycle: { conversationState: 'meditating', sandboxState: 'hibernating' } });
    await p.runUntil('the new states', () => p.ledger.get(agentId)?.conversationState === 'meditating', 60_000);
    const r = p.ledger.get(agentId)!;
    assert.equal(r.sandboxState, 'hibernating');
    assert.equal(r.pollError, undefined);
  }));

  scenario('responses', 'unknown roles in the history are kept, in order, next to known ones', (s) => following(emu, s, async (p, agentId) => {
    for (const role of ['narrator', 'ROBOT', '', 'system', 'user ']) {
      await admin(emu(), 'POST', `/agents/${agentId}/messages`, { role, content: `said by ${JSON.stringify(role)}` });
    }
    await p.runUntil('the new messages', () => p.transcripts.get(agentId).snapshot().entries.some((e) => e.message.content === 'said by "user "'), 60_000);
    const roles = p.transcripts.get(agentId).snapshot().entries.map((e) => e.message.role);
    for (const role of ['narrator', 'ROBOT', 'system', 'user ']) {
      assert.ok(roles.includes(role), `role ${role} was dropped`);
    }
  }));

  scenario('responses', 'a 404 right after a start is retried a few times, then the run is followed as usual', (s) => following(emu, s, async (p, agentId) => {
    emu().inject({ method: 'GET', path: agentPath(agentId), status: 404, body: '{"error":"Agent not found.","code":"agent_not_found"}', times: 2 });
    await p.runUntil('two 404s and a good read', () => {
      const outcomes = p.readsOf(agentId).map((r) => r.outcome);
      return outcomes.filter((o) => o === 'not_found').length === 2 && outcomes[outcomes.length - 1] === 'ok';
    }, 60_000);
    assert.ok(p.poller.isTracked(agentId));
    assert.equal(p.ledger.get(agentId)?.pollError, undefined);
  }));
});
