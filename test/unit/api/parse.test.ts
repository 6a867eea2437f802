import * as assert from 'node:assert/strict';
import {
  ApiError, parseAgent, parseAgentStarted, parseCompletionWebhookPayload, parseFollowUpAck,
  parseServiceSchemaInfo, parseTestGroupCreated, type Agent,
} from '../../../src/api';

function invalidResponse(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.kind, 'invalid_response');
    assert.match(e.message, message);
    return true;
  });
}

const fullAgent = {
  agentId: 'ag_1', kind: 'agent', status: 'running', appId: 'app', projectId: 'p1', projectName: 'Shop',
  reviewId: 'r1', model: 'model-a', reasoningEffort: 'high', permission: 'allow_edits', permittedBranches: ['main'],
  createdAt: 1, updatedAt: 2, completedAt: 3, lastError: 'boom',
  history: [
    { id: 'm1', sequence: 1, role: 'user', content: 'hi', createdAt: 10 },
    { id: 'm2', sequence: 2, role: 'tool', toolName: 'grep', toolParameters: '{"q":1}', attachments: ['a.png'], createdAt: 11 },
  ],
  lifecycle: { conversationState: 'active', sandboxState: 'warm', queuedTurnCount: 0, lastLifecycleEventAt: 12 },
};

describe('api: parseAgent', () => {
  it('keeps every documented field as sent', () => {
    assert.deepEqual(parseAgent(fullAgent), fullAgent);
  });

  it('ignores unknown fields at every level', () => {
    const out = parseAgent({
      ...fullAgent, secretInternal: 1,
      history: [{ ...fullAgent.history[0], extra: true }],
      lifecycle: { ...fullAgent.lifecycle, gpu: 'a100' },
    });
    assert.ok(!('secretInternal' in out));
    assert.deepEqual(out.history, [fullAgent.history[0]]);
    assert.deepEqual(out.lifecycle, fullAgent.lifecycle);
  });

  it('needs only agentId', () => {
    assert.deepEqual(parseAgent({ agentId: 'ag_2' }), { agentId: 'ag_2' });
  });

  it('keeps unknown status, kind, role and lifecycle values as strings', () => {
    const out = parseAgent({
      agentId: 'a', status: 'paused_for_review', kind: 'automation', reasoningEffort: 'ultra', permission: 'admin',
      history: [{ role: 'system_note', content: 'x' }], lifecycle: { conversationState: 'hibernating', sandboxState: 'new-state' },
    });
    assert.equal(out.status, 'paused_for_review');
    assert.equal(out.kind, 'automation');
    assert.equal(out.reasoningEffort, 'ultra');
    assert.equal(out.permission, 'admin');
    assert.equal(out.history?.[0]?.role, 'system_note');
    assert.equal(out.lifecycle?.conversationState, 'hibernating');
    assert.equal(out.lifecycle?.sandboxState, 'new-state');
  });

  it('treats null as absent for optional fields, so keys are not present', () => {
    const out = parseAgent({
      agentId: 'a', status: null, lastError: null, history: null, lifecycle: null, completedAt: null,
    });
    assert.deepEqual(out, { agentId: 'a' });
    const msg = parseAgent({ agentId: 'a', history: [{ id: 'm', content: null, attachments: null }] }).history?.[0];
    assert.deepEqual(msg, { id: 'm' });
  });

  it('drops a field of the wrong type instead of failing the response', () => {
    const out = parseAgent({
      agentId: 'a', status: 7, createdAt: '2024-01-01', permittedBranches: 'main', lifecycle: 'active', history: { 0: 'x' },
    });
    assert.deepEqual(out, { agentId: 'a' });
  });

  it('keeps a lone attachment (string or object) as a one-element list, and drops one that is a number', () => {
    const out = parseAgent({ agentId: 'a', history: [
      { id: 'm1', content: 'c', attachments: 'file.png' },
      { id: 'm2', attachments: { name: 'spec.pdf' } },
      { id: 'm3', attachments: 7 },
    ] });
    assert.deepEqual(out.history, [
      { id: 'm1', content: 'c', attachments: ['file.png'] },
      { id: 'm2', attachments: [{ name: 'spec.pdf' }] },
      { id: 'm3' },
    ]);
  });

  it('keeps the string elements of mixed branch lists, and every attachment but null', () => {
    const out = parseAgent({ agentId: 'a', permittedBranches: ['main', 3, null, 'dev'], history: [{ attachments: ['a', {}, null, 'b', 4] }] });
    assert.deepEqual(out.permittedBranches, ['main', 'dev']);
    assert.deepEqual(out.history?.[0]?.attachments, ['a', {}, 'b', 4]);
  });

  it('keeps the deployed service\'s shapes: object tool parameters, object attachments, six roles, null content', () => {
    const history = [
      { id: 't1', sequence: 1, role: 'thinking', content: 'Looking at the tests', toolName: null, toolParameters: null, attachments: [] },
      { id: 't2', sequence: 2, role: 'tool', content: null, toolName: 'read_file', toolParameters: { path: 'src/a.ts', range: [1, 40], recursive: false }, attachments: null },
      { id: 't3', sequence: 3, role: 'assistant', content: 'Done', attachments: [
        { type: 'file', name: 'report.html', url: 'https://files.example/r.html', mimeType: 'text/html' },
        { type: 'linear_issue', identifier: 'ENG-12', title: 'Flaky login', url: 'https://linear.example/ENG-12' },
        { weird: { nested: [1, 2] } },
      ] },
      { id: 't4', sequence: 4, role: 'system', content: 'Sandbox ready' },
      { id: 't5', sequence: 5, role: 'error', content: 'Tool failed' },
      { id: 't6', sequence: 6, role: 'reviewer', content: 'unknown role' },
    ];
    const out = parseAgent({ agentId: 'a', history });
    assert.deepEqual(out.history?.map((m) => m.role), ['thinking', 'tool', 'assistant', 'system', 'error', 'reviewer']);
    assert.deepEqual(out.history?.[1], { id: 't2', sequence: 2, role: 'tool', toolName: 'read_file', toolParameters: { path: 'src/a.ts', range: [1, 40], recursive: false } });
    assert.deepEqual(out.history?.[2]?.attachments, history[2].attachments);
    assert.deepEqual(out.history?.[0], { id: 't1', sequence: 1, role: 'thinking', content: 'Looking at the tests', attachments: [] });
  });

  it('skips history elements that are not objects and keeps the order of the rest', () => {
    const out = parseAgent({ agentId: 'a', history: [null, 'x', 3, [], { id: 'm2', sequence: 2 }, true, { id: 'm1', sequence: 1 }] });
    assert.deepEqual(out.history, [{ id: 'm2', sequence: 2 }, { id: 'm1', sequence: 1 }]);
  });

  it('drops wrong-typed lifecycle fields but keeps the rest of the lifecycle', () => {
    const out = parseAgent({ agentId: 'a', lifecycle: { conversationState: 5, queuedTurnCount: '2', sandboxState: 'ok' } });
    assert.deepEqual(out.lifecycle, { sandboxState: 'ok' });
  });

  it('parses a huge history without trouble', () => {
    const history = Array.from({ length: 20_000 }, (_, i) => ({ id: `m${i}`, sequence: i, role: i % 2 ? 'assistant' : 'user', content: 'x'.repeat(50), extra: { nested: [i] } }));
    const started = Date.now();
    const out = parseAgent({ agentId: 'a', history });
    assert.equal(out.history?.length, 20_000);
    assert.deepEqual(out.history?.[19_999], { id: 'm19999', sequence: 19_999, role: 'assistant', content: 'x'.repeat(50) });
    assert.ok(Date.now() - started < 5_000);
  });

  it('fails only without a usable agentId, or when not an object', () => {
    invalidResponse(() => parseAgent({ status: 'running' }), /had no agentId/);
    invalidResponse(() => parseAgent({ agentId: '' }), /had an invalid agentId/);
    invalidResponse(() => parseAgent({ agentId: 12 }), /had an invalid agentId/);
    invalidResponse(() => parseAgent(null), /not a JSON object/);
    invalidResponse(() => parseAgent([fullAgent]), /not a JSON object/);
    invalidResponse(() => parseAgent('ag_1'), /not a JSON object/);
  });

  it('returns a value that round-trips through JSON (stored data)', () => {
    const once: Agent = parseAgent(fullAgent);
    assert.deepEqual(parseAgent(JSON.parse(JSON.stringify(once))), once);
  });
});

describe('api: parse of POST responses', () => {
  it('parseAgentStarted keeps the documented fields and ignores the rest', () => {
    assert.deepEqual(
      parseAgentStarted({ agentId: 'ag', kind: 'agent', status: 'queued', appId: 'app', projectId: 'p', createdAt: 5, more: 1 }),
      { agentId: 'ag', kind: 'agent', status: 'queued', appId: 'app', projectId: 'p', createdAt: 5 },
    );
  });

  it('parseAgentStarted takes a missing status to be queued and keeps unknown statuses', () => {
    assert.deepEqual(parseAgentStarted({ agentId: 'ag' }), { agentId: 'ag', status: 'queued' });
    assert.equal(parseAgentStarted({ agentId: 'ag', status: 'scheduled' }).status, 'scheduled');
    assert.equal(parseAgentStarted({ agentId: 'ag', status: 5 }).status, 'queued');
  });

  it('parseAgentStarted fails without agentId', () => {
    invalidResponse(() => parseAgentStarted({ status: 'queued', appId: 'a' }), /start response had no agentId/);
  });

  it('parseFollowUpAck', () => {
    assert.deepEqual(parseFollowUpAck({ agentId: 'ag', kind: 'agent', status: 'running', x: 1 }), { agentId: 'ag', kind: 'agent', status: 'running' });
    assert.deepEqual(parseFollowUpAck({ agentId: 'ag', kind: null }), { agentId: 'ag', status: 'queued' });
    invalidResponse(() => parseFollowUpAck({ status: 'queued' }), /follow-up response had no agentId/);
  });

  it('parseTestGroupCreated needs a groupId', () => {
    assert.deepEqual(parseTestGroupCreated({ groupId: 'g1', name: 'ignored' }), { groupId: 'g1' });
    invalidResponse(() => parseTestGroupCreated({ id: 'g1' }), /had no groupId/);
    invalidResponse(() => parseTestGroupCreated({ groupId: 3 }), /had an invalid groupId/);
  });
});

describe('api: parseCompletionWebhookPayload', () => {
  it('parses the documented payload and keeps unknown events', () => {
    assert.deepEqual(parseCompletionWebhookPayload({ event: 'agent.completed', agent: { agentId: 'a', status: 'completed', extra: 1 } }), {
      event: 'agent.completed', agent: { agentId: 'a', status: 'completed' },
    });
    assert.equal(parseCompletionWebhookPayload({ event: 'automation.completed', agent: { agentId: 'a' } }).event, 'automation.completed');
  });

  it('fails without event or agent', () => {
    invalidResponse(() => parseCompletionWebhookPayload({ agent: { agentId: 'a' } }), /had no event/);
    invalidResponse(() => parseCompletionWebhookPayload({ event: 'agent.completed' }), /had no agent/);
    invalidResponse(() => parseCompletionWebhookPayload({ event: 'agent.completed', agent: {} }), /had no agentId/);
    invalidResponse(() => parseCompletionWebhookPayload('x'), /not a JSON object/);
  });
});

describe('api: parseServiceSchemaInfo', () => {
  it('parses stored schema info tolerantly', () => {
    assert.deepEqual(parseServiceSchemaInfo({ models: ['a', 1, 'b'], version: '1.0', fingerprint: 'sha256:x' }), { models: ['a', 'b'], version: '1.0', fingerprint: 'sha256:x' });
    assert.deepEqual(parseServiceSchemaInfo({ models: 'a', fingerprint: 'f' }), { models: [], fingerprint: 'f' });
    invalidResponse(() => parseServiceSchemaInfo({ models: [] }), /had no fingerprint/);
  });
});
