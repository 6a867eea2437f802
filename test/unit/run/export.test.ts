import * as assert from 'node:assert/strict';
import type { Agent } from '../../../src/api/types';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentMessage } from '../../../src/api/types';
import { messageToMarkdown, toJson, toMarkdown, writeJson, writeMarkdown, type ExportSink, type ExportTranscript } from '../../../src/run/common/export/export';
import { writeExportFile } from '../../../src/run/common/export/exportFile';
import { Transcript } from '../../../src/run/common/transcript/transcript';
import { TranscriptFiles } from '../../../src/run/common/transcript/transcriptFiles';

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

  describe('streamed from disk', () => {
    const many = (n: number): AgentMessage[] =>
      Array.from({ length: n }, (_, i) => ({ id: `m${i + 1}`, sequence: i + 1, role: i % 2 ? 'user' : 'assistant', content: i % 7 ? `line ${i}\n\n\n\nmore` : 'x  ', createdAt: T0 + i, ...(i % 5 ? {} : { toolName: 't', toolParameters: '{"a":1}' }) }));
    const chunked = (t: Transcript): ExportTranscript => {
      const s = t.snapshot();
      return {
        ...s,
        chunks: async function* (size: number) {
          for (let i = 0; i < s.entries.length; i += size) {
            yield await Promise.resolve(s.entries.slice(i, i + size).map((e) => e.message));
          }
        },
      };
    };
    const collect = (): ExportSink & { parts: string[] } => {
      const parts: string[] = [];
      return { parts, write: (text) => Promise.resolve(void parts.push(text)) };
    };

    it('writes, a chunk at a time, exactly what toMarkdown and toJson write', async () => {
      const { agent } = fixture();
      for (const n of [0, 1, 1_234]) {
        const t = new Transcript();
        t.merge(many(n));
        const md = collect();
        assert.equal(await writeMarkdown(md, agent, chunked(t), { now: T0 }), n);
        assert.equal(md.parts.join(''), toMarkdown(agent, t.snapshot(), { now: T0 }), `Markdown of ${n}`);
        const json = collect();
        await writeJson(json, agent, chunked(t), { now: T0 });
        assert.equal(json.parts.join(''), toJson(agent, t.snapshot(), { now: T0 }), `JSON of ${n}`);
        assert.equal((JSON.parse(json.parts.join('')) as { transcript: { messages: unknown[] } }).transcript.messages.length, n);
        if (n > 1_000) {
          assert.ok(json.parts.length >= 4 && md.parts.length >= 4, 'written in one piece, not streamed');
        }
      }
    });

    it('exports every message of the journal once, latest copy, in order, yielding between chunks; says when it was pruned', async () => {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-runs-export-'));
      const files = new TranscriptFiles({ fsPath: root }, { info: () => undefined, warn: () => undefined }, 'https://svc.example/api/public/v1', { saveDelayMs: 60_000 });
      try {
        const all = many(3_000);
        // Polled newest first in windows, the last message streamed twice.
        for (let end = 3_000; end > 0; end -= 500) {
          files.merge('run-1', all.slice(end - 500, end).reverse());
          await files.flush();
        }
        files.merge('run-1', [{ ...all[2_999], content: 'final words' }]);
        const out = path.join(root, 'run.json');
        let ticks = 0;
        const ticker = setInterval(() => ticks++, 0);
        const source = await files.exportSource('run-1');
        const started = ticks;
        const n = await writeExportFile(out, 'json', { agentId: 'run-1' }, source, { now: T0 });
        clearInterval(ticker);
        assert.equal(n, 3_000);
        assert.ok(ticks - started >= 3, `the event loop did not run during the export (${ticks - started} ticks)`);
        const doc = JSON.parse(fs.readFileSync(out, 'utf8')) as { transcript: { messages: AgentMessage[]; droppedMessageCount: number } };
        assert.deepEqual(doc.transcript.messages.map((m) => m.sequence), all.map((m) => m.sequence));
        assert.equal(doc.transcript.messages[2_999].content, 'final words');
        const dir = path.dirname(fs.readdirSync(path.join(root, 'transcripts'), { recursive: true, encoding: 'utf8' }).map((f) => path.join(root, 'transcripts', f)).find((f) => f.endsWith('.jsonl')) ?? '');
        fs.writeFileSync(path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.jsonl'))?.replace('.jsonl', '.pruned') ?? ''), JSON.stringify({ agentId: 'run-1', at: T0, messages: 40 }));
        const md = path.join(root, 'run.md');
        await writeExportFile(md, 'markdown', { agentId: 'run-1' }, await files.exportSource('run-1'), { now: T0 });
        const text = fs.readFileSync(md, 'utf8');
        assert.ok(text.includes(`The saved transcript was pruned on ${new Date(T0).toISOString()}`), 'no pruned line');
        assert.ok(text.includes('40 older messages were dropped'));
      } finally {
        files.dispose();
        fs.rmSync(root, { recursive: true, force: true });
      }
    });

    it('a cancelled export leaves no partial file', async () => {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-runs-export-'));
      try {
        const t = new Transcript();
        t.merge(many(2_000));
        const out = path.join(root, 'run.md');
        let writes = 0;
        await assert.rejects(writeExportFile(out, 'markdown', { agentId: 'x' }, chunked(t), { cancelled: () => ++writes > 2 }), { name: 'ExportCancelled' });
        assert.equal(fs.existsSync(out), false);
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    });
  });
});

describe('export: the deployed service\'s shapes', () => {
  const params = { path: 'src/a.ts', edits: [{ line: 3, insert: 'x' }], options: { dryRun: false, mode: null } };
  const file = { type: 'file', name: 'report.pdf', url: 'https://files.example/r.pdf', mimeType: 'application/pdf' };
  const issue = { identifier: 'ENG-42', title: 'Checkout fails', url: 'https://linear.example/ENG-42' };
  const weird = { weird: { deep: [1, 2] } };
  const deployed = (): Transcript => {
    const t = new Transcript();
    t.merge([
      { id: 'd1', sequence: 1, role: 'user', content: 'fix it', attachments: [file, issue, weird, 'notes.txt'], createdAt: T0 },
      { id: 'd2', sequence: 2, role: 'thinking', content: 'First the tests.', createdAt: T0 + 1 },
      { id: 'd3', sequence: 3, role: 'tool', content: null, toolName: 'edit_file', toolParameters: params, createdAt: T0 + 2 },
      { id: 'd4', sequence: 4, role: 'error', content: 'The tool failed.', createdAt: T0 + 3 },
    ]);
    return t;
  };
  type Doc = { transcript: { messages: Record<string, unknown>[] } };

  it('keeps tool parameters and attachments as the JSON objects they are, in memory and streamed from disk', async () => {
    const t = deployed();
    const s = t.snapshot();
    const doc = JSON.parse(toJson({ agentId: 'x' }, s, { now: T0 })) as Doc;
    const [m1, m2, m3, m4] = doc.transcript.messages;
    assert.deepEqual(m1.attachments, [file, issue, weird, 'notes.txt']);
    assert.deepEqual(m3.toolParameters, params, 'an object, not a string');
    assert.equal('content' in m3, false, 'no content, not "null" or ""');
    assert.deepEqual([m1.role, m2.role, m3.role, m4.role], ['user', 'thinking', 'tool', 'error']);
    const parts: string[] = [];
    const chunks = async function* (): AsyncGenerator<readonly AgentMessage[]> {
      yield await Promise.resolve(s.entries.map((e) => e.message));
    };
    await writeJson({ write: (text) => Promise.resolve(void parts.push(text)) }, { agentId: 'x' }, { ...s, chunks }, { now: T0 });
    assert.deepEqual(JSON.parse(parts.join('')), doc);
  });

  it('writes them in Markdown (and "open in editor") as indented JSON and one line per attachment, roles named', () => {
    const t = deployed();
    const md = toMarkdown({ agentId: 'x' }, t.snapshot(), { now: T0 });
    const fencedParams = '```json\n' + JSON.stringify(params, null, 2) + '\n```';
    assert.ok(md.includes(fencedParams), md);
    for (const line of [
      '- report.pdf (file) \\<https://files.example/r.pdf\\>',
      '- ENG-42 — Checkout fails \\<https://linear.example/ENG-42\\>',
      '- {"weird":{"deep":\\[1,2\\]}}',
      '- notes.txt',
      `### thinking · ${new Date(T0 + 1).toISOString()} · \\#2`,
      `### error · ${new Date(T0 + 3).toISOString()} · \\#4`,
    ]) {
      assert.ok(md.includes(line), `${line}\n---\n${md}`);
    }
    assert.ok(!/\bnull\b|undefined|\[object Object\]/.test(md.replace(fencedParams, '')), 'nothing of an absent content');
    const one = messageToMarkdown(t.snapshot().entries[2].message);
    assert.ok(one.includes(fencedParams) && one.includes('**Tool call:** `edit_file`'), one);
    const chips = messageToMarkdown(t.snapshot().entries[0].message);
    assert.ok(chips.includes('- ENG-42 — Checkout fails \\<https://linear.example/ENG-42\\>'), chips);
  });
});
