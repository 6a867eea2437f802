import * as assert from 'node:assert/strict';
import type { Agent } from '../../src/api/types';
import { messageToMarkdown, toJson, toMarkdown } from '../../src/core/panel/export';
import { Transcript } from '../../src/core/transcript/transcript';

const T0 = Date.UTC(2025, 0, 1, 9, 0, 0);
const TOKEN = 'svc_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0';

function fixture(): { agent: Agent; transcript: Transcript } {
  // Things an Agent object might carry besides the documented fields: never exported.
  const extra = { token: TOKEN, authorization: `Bearer ${TOKEN}`, headers: { Authorization: `Bearer ${TOKEN}` }, secretNote: TOKEN };
  const agent = {
    agentId: 'agent-123',
    kind: 'agent',
    status: 'completed',
    appId: 'my-app',
    projectId: 'p-1',
    projectName: 'My | Project',
    model: 'model-x',
    reasoningEffort: 'high',
    permission: 'allow_edits',
    permittedBranches: ['main', 'release/1.0'],
    createdAt: T0,
    updatedAt: T0 + 60_000,
    completedAt: T0 + 120_000,
    lastError: 'boom ``` fence',
    lifecycle: { conversationState: 'idle', sandboxState: 'stopped', queuedTurnCount: 0, lastLifecycleEventAt: T0 + 119_000, [`x${TOKEN}`]: 1 },
    history: [],
    ...extra,
  } as Agent;
  const transcript = new Transcript();
  transcript.merge([
    { id: 'm1', sequence: 1, role: 'user', content: 'Fix the **tests**', createdAt: T0, ...{ apiKey: TOKEN } },
    { id: 'm2', sequence: 2, role: 'assistant', content: 'Running them.', toolName: 'shell', toolParameters: '{"cmd":"npm test","note":"```"}', createdAt: T0 + 1_000 },
    { id: 'm3', sequence: 3, role: 'assistant', content: 'Done.', attachments: ['https://ok.example/log.txt', 'a|b'], createdAt: T0 + 2_000 },
  ]);
  return { agent, transcript };
}

describe('export', () => {
  it('writes a Markdown document with the run fields and the transcript in order', () => {
    const { agent, transcript } = fixture();
    const md = toMarkdown(agent, transcript.snapshot(), { now: T0 + 200_000 });
    assert.ok(md.startsWith('# Agent run agent-123\n'));
    assert.ok(md.includes('| Status | completed |'));
    assert.ok(md.includes('| Project | My \\| Project |'), 'table cells escaped');
    assert.ok(md.includes('| Permitted branches | main, release/1.0 |'));
    assert.ok(md.includes(`| Created | ${new Date(T0).toISOString()} |`));
    assert.ok(md.includes('````\nboom ``` fence\n````'), 'a fence longer than any inside');
    assert.ok(md.indexOf('Fix the **tests**') < md.indexOf('Running them.'));
    assert.ok(md.indexOf('Running them.') < md.indexOf('Done.'));
    assert.ok(md.includes('**Tool call:** `shell`'));
    assert.ok(md.includes('````json\n{\n  "cmd": "npm test",\n  "note": "```"\n}\n````'));
    assert.ok(md.includes('- https://ok.example/log.txt'));
    assert.ok(md.includes('- a\\|b'));
  });

  it('writes JSON with documented fields only', () => {
    const { agent, transcript } = fixture();
    const doc = JSON.parse(toJson(agent, transcript.snapshot(), { now: T0 })) as {
      format: string;
      run: Record<string, unknown>;
      transcript: { messages: Record<string, unknown>[]; earlierMessagesUnavailable: boolean };
    };
    assert.equal(doc.format, 'agent-runs.run-export');
    assert.deepEqual(Object.keys(doc.run).sort(), [
      'agentId', 'appId', 'completedAt', 'createdAt', 'kind', 'lastError', 'lifecycle', 'model', 'permission',
      'permittedBranches', 'projectId', 'projectName', 'reasoningEffort', 'status', 'updatedAt',
    ]);
    assert.deepEqual(Object.keys(doc.run.lifecycle as object).sort(), ['conversationState', 'lastLifecycleEventAt', 'queuedTurnCount', 'sandboxState']);
    assert.equal(doc.transcript.messages.length, 3);
    assert.deepEqual(Object.keys(doc.transcript.messages[0]).sort(), ['content', 'createdAt', 'id', 'role', 'sequence']);
    assert.equal(doc.transcript.earlierMessagesUnavailable, false);
  });

  it('never emits anything but run data (no token, whatever the Agent object carries)', () => {
    const { agent, transcript } = fixture();
    for (const text of [toMarkdown(agent, transcript.snapshot()), toJson(agent, transcript.snapshot())]) {
      assert.ok(!text.includes(TOKEN), 'token-looking value not exported');
      assert.ok(!/authorization|bearer|apiKey|secretNote/i.test(text));
    }
  });

  it('notes missing and dropped messages', () => {
    const t = new Transcript({ maxMessages: 2 });
    t.merge([{ id: 'a', sequence: 5 }, { id: 'b', sequence: 6 }, { id: 'c', sequence: 7 }]);
    const md = toMarkdown({ agentId: 'x' }, t.snapshot());
    assert.ok(md.includes('about 4 are missing'));
    assert.ok(md.includes('1 older messages were dropped'));
    assert.ok(toMarkdown({ agentId: 'y' }, new Transcript().snapshot()).includes('No messages.'));
  });

  it('says where messages are missing, in Markdown and JSON', () => {
    const t = new Transcript();
    t.merge([{ id: 'a', sequence: 1, role: 'user', content: 'start' }, { id: 'b', sequence: 9, role: 'assistant', content: 'after the gap' }]);
    const md = toMarkdown({ agentId: 'x' }, t.snapshot());
    const gapLine = md.indexOf('About 7 messages here are no longer available');
    assert.ok(gapLine > md.indexOf('start') && gapLine < md.indexOf('after the gap'), md);
    assert.ok(!md.includes('Earlier messages were no longer available'), 'the gap is said where it is, not only globally');
    const json = JSON.parse(toJson({ agentId: 'x' }, t.snapshot())) as { transcript: { messages: { sequence: number; gapBefore?: number }[] } };
    assert.deepEqual(json.transcript.messages.map((m) => [m.sequence, m.gapBefore]), [[1, undefined], [9, 7]]);
  });

  it('writes one full message for "open in editor"', () => {
    const long = 'x'.repeat(100_000);
    const text = messageToMarkdown({ role: 'assistant', sequence: 9, createdAt: T0, content: long, toolName: 't', toolParameters: 'not json' });
    assert.ok(text.includes(long), 'never cut');
    assert.ok(text.startsWith(`<!-- assistant · ${new Date(T0).toISOString()} · #9 -->`));
    assert.ok(text.includes('```\nnot json\n```'));
  });
});
