import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TranscriptFiles, type TranscriptLog } from '../../../src/run/common/transcript/transcriptFiles';
import { appendJournal, headerLine, parseJournal, recordLines, rewriteJournal } from '../../../src/run/common/transcript/journal';
import { chooseEvictions, type JournalFile } from '../../../src/run/common/transcript/diskLimit';
import { hash } from '../../../src/run/common/transcript/runJournal';
import { BASE, T0, message, range } from '../fixtures/transcriptMessages';


class Log implements TranscriptLog {
  readonly infos: string[] = [];
  readonly warnings: string[] = [];
  info(m: string): void {
    this.infos.push(m);
  }
  warn(m: string): void {
    this.warnings.push(m);
  }
}

describe('transcript journal: append-only, crash-safe', () => {
  let root: string;
  const opened: TranscriptFiles[] = [];
  const files = (options: ConstructorParameters<typeof TranscriptFiles>[3] = {}, log: TranscriptLog = new Log()) => {
    const f = new TranscriptFiles({ fsPath: root }, log, BASE, { saveDelayMs: 60_000, isLive: () => false, ...options });
    opened.push(f);
    return f;
  };
  const dir = () => path.join(root, 'transcripts', hash(BASE));
  const journalOf = (agentId: string) => path.join(dir(), `${hash(agentId)}.jsonl`);

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-runs-journal-'));
  });

  afterEach(() => {
    for (const f of opened.splice(0)) {
      f.dispose();
    }
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('keeps every message the service ever returned, across polls of a recent window and reloads', async () => {
    const first = files();
    // A service that returns only the latest 100 messages, polled as the run writes 5,000.
    for (let end = 100; end <= 5_000; end += 100) {
      first.merge('run-1', range(Math.max(1, end - 99), end + 1));
      await first.flush();
    }
    first.dispose();
    const t = await files().load('run-1');
    assert.equal(t.size, 5_000);
    assert.equal(t.snapshot().entries[0].message.content, 'message 1');
    assert.equal(t.snapshot().droppedMessageCount, 0);
  });

  it('appends only what changed: the bytes already written are never rewritten', async () => {
    const f = files();
    f.merge('run-1', range(1, 4));
    await f.flush();
    const before = fs.readFileSync(journalOf('run-1'));
    f.merge('run-1', [message(3, { content: 'message 3, finished' }), message(4)]);
    await f.flush();
    const after = fs.readFileSync(journalOf('run-1'));
    assert.ok(after.subarray(0, before.length).equals(before), 'earlier bytes changed');
    const appended = after.subarray(before.length).toString('utf8').trim().split('\n');
    assert.equal(appended.length, 2, 'appended more than the two changed messages');
    const journal = parseJournal(after.toString('utf8'), 'run-1');
    assert.deepEqual(journal.entries.map((e) => e.message.content), ['message 1', 'message 2', 'message 3, finished', 'message 4']);
  });

  it('ignores a torn last record at any byte, and the next append starts on a fresh line', async () => {
    const lines = headerLine('run-1') + recordLines(range(1, 4).map((m) => ({ key: `id:${m.id}`, message: m })));
    const lastStart = lines.lastIndexOf('\n', lines.length - 2) + 1;
    for (let cut = lastStart; cut < lines.length; cut++) {
      const journal = parseJournal(lines.slice(0, cut), 'run-1');
      assert.equal(journal.valid, true);
      assert.deepEqual(journal.entries.map((e) => e.message.id), ['m1', 'm2'], `cut at byte ${cut}`);
    }
    // A write killed in the middle of the third record.
    fs.mkdirSync(dir(), { recursive: true });
    fs.writeFileSync(journalOf('run-1'), lines.slice(0, lastStart + 17));
    const f = files();
    assert.deepEqual((await f.load('run-1')).snapshot().entries.map((e) => e.message.id), ['m1', 'm2']);
    f.merge('run-1', [message(3), message(4)]);
    await f.flush();
    const journal = parseJournal(fs.readFileSync(journalOf('run-1'), 'utf8'), 'run-1');
    assert.deepEqual(journal.entries.map((e) => e.message.id), ['m1', 'm2', 'm3', 'm4']);
  });

  it('reads a long journal newest part first, then the whole; what memory changed meanwhile wins and is appended once', async () => {
    fs.mkdirSync(dir(), { recursive: true });
    const long = range(1, 12_001).map((m) => ({ ...m, content: `${m.content} ${'x'.repeat(200)}` }));
    fs.writeFileSync(journalOf('run-1'), headerLine('run-1') + recordLines(long.map((m) => ({ key: `id:${m.id}`, message: m }))));
    const f = files();
    f.setInUse('run-1', true);
    const first = await f.load('run-1');
    const firstSize = first.size;
    assert.ok(firstSize > 1_000 && firstSize < 12_000, `first read: ${firstSize} messages`);
    assert.equal(first.last()?.message.id, 'm12000');
    assert.equal(f.isLoaded('run-1'), false, 'said loaded with part of the journal');
    // Polled meanwhile: an old message changed (it is not in the newest part) and a new one.
    f.merge('run-1', [message(5, { content: 'edited' }), message(12_001)]);
    const t = await f.load('run-1');
    assert.equal(f.isLoaded('run-1'), true);
    assert.equal(t, first);
    assert.equal(t.size, 12_001);
    assert.equal(t.get('id:m5')?.message.content, 'edited', 'the journal\'s older copy won over memory');
    assert.equal(t.snapshot().entries[0].message.id, 'm1');
    await f.flush();
    const journal = parseJournal(fs.readFileSync(journalOf('run-1'), 'utf8'), 'run-1');
    assert.equal(journal.records, 12_002, 'appended more than the two changes');
    assert.equal(journal.entries.find((e) => e.key === 'id:m5')?.message.content, 'edited');
    assert.ok(f.reads.some((r) => r.agentId === 'run-1' && r.messages === 12_000 && r.firstMessages === firstSize));
  });

  it('compacts a journal made mostly of superseded copies (written to a new file, then renamed)', async () => {
    const f = files();
    f.setInUse('run-1', true);
    await f.load('run-1');
    // A streamed message: its content grows with each poll, each copy appended.
    for (let i = 1; i <= 1_200; i++) {
      f.merge('run-1', [message(1), message(2, { content: 'x'.repeat(i) })]);
      await f.flush();
    }
    assert.equal(parseJournal(fs.readFileSync(journalOf('run-1'), 'utf8'), 'run-1').records, 1_201);
    f.setInUse('run-1', false);
    await f.flush();
    const again = files();
    const t = await again.load('run-1');
    assert.equal(t.size, 2);
    const journal = parseJournal(fs.readFileSync(journalOf('run-1'), 'utf8'), 'run-1');
    assert.equal(journal.records, 2, 'not compacted');
    assert.equal(journal.entries[1].message.content, 'x'.repeat(1_200));
    assert.deepEqual(fs.readdirSync(dir()).filter((n) => n.endsWith('.tmp')), []);
  });

  it('a compaction never replaces a journal that grew meanwhile', async () => {
    fs.mkdirSync(dir(), { recursive: true });
    const file = journalOf('run-1');
    await appendJournal(file, 'run-1', recordLines([{ key: 'id:m1', message: message(1) }]));
    const size = fs.statSync(file).size;
    await appendJournal(file, 'run-1', recordLines([{ key: 'id:m2', message: message(2) }]));
    const replaced = await rewriteJournal(file, `${file}.tmp`, 'run-1', [{ key: 'id:m1', message: message(1) }], size, () => false);
    assert.equal(replaced, undefined);
    assert.equal(parseJournal(fs.readFileSync(file, 'utf8'), 'run-1').records, 2);
    assert.equal(fs.existsSync(`${file}.tmp`), false);
  });

  it('reads a transcript saved before journals (one JSON file) and writes it as a journal', async () => {
    fs.mkdirSync(dir(), { recursive: true });
    const legacy = path.join(dir(), `${hash('run-1')}.json`);
    fs.writeFileSync(legacy, JSON.stringify({ version: 1, agentId: 'run-1', savedAt: T0, messages: range(1, 4) }));
    const f = files();
    f.merge('run-1', [message(4)]);
    await f.flush();
    assert.equal(fs.existsSync(legacy), false);
    assert.deepEqual(parseJournal(fs.readFileSync(journalOf('run-1'), 'utf8'), 'run-1').entries.map((e) => e.message.id), ['m1', 'm2', 'm3', 'm4']);
  });
});

describe('transcript journal: the disk limit', () => {
  const file = (agentId: string, size: number, mtimeMs: number): JournalFile => ({ name: `${agentId}.jsonl`, size, mtimeMs, agentId });

  it('evicts the least recently used whole journals until the rest fits, never a protected one', () => {
    const files = [file('old-live', 40, 1), file('old', 30, 2), file('open', 30, 3), file('mid', 20, 4), file('new', 30, 5)];
    const protectedIds = new Set(['old-live', 'open']);
    const out = chooseEvictions(files, 100, (id) => protectedIds.has(id));
    assert.deepEqual(out.map((f) => f.agentId), ['old', 'mid']);
    assert.deepEqual(chooseEvictions(files, 150, () => false), [], 'evicted under the limit');
    assert.deepEqual(chooseEvictions(files, 0, () => true), [], 'evicted a protected run');
    assert.deepEqual(chooseEvictions([{ ...file('x', 500, 1), agentId: undefined }], 10, () => false), [], 'evicted a journal whose run it cannot check');
  });

  describe('in use', () => {
    let root: string;
    let f: TranscriptFiles | undefined;
    beforeEach(() => {
      root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-runs-limit-'));
    });
    afterEach(() => {
      f?.dispose();
      fs.rmSync(root, { recursive: true, force: true });
    });

    it('never prunes the journals of a former base URL (which of its runs are live is not known there)', async () => {
      f = new TranscriptFiles({ fsPath: root }, new Log(), BASE, { saveDelayMs: 60_000, maxDiskBytes: () => 1, isLive: () => false });
      f.merge('run-1', range(1, 50));
      f.switchBaseUrl('https://other.example/api/public/v1');
      await f.flush();
      assert.ok(fs.existsSync(path.join(root, 'transcripts', hash(BASE), `${hash('run-1')}.jsonl`)), 'pruned a run of the former service');
    });

    it('prunes finished runs least recently used first, keeps live and shown ones, logs it, and the run says so', async () => {
      const log = new Log();
      const live = new Set(['live']);
      let max = Number.MAX_SAFE_INTEGER;
      f = new TranscriptFiles({ fsPath: root }, log, BASE, { saveDelayMs: 60_000, maxDiskBytes: () => max, isLive: (id) => live.has(id) });
      const dir = path.join(root, 'transcripts', hash(BASE));
      const big = range(1, 200);
      for (const id of ['live', 'oldest', 'shown', 'older', 'newer']) {
        f.merge(id, big);
        await f.flush();
      }
      // Least recently used first: modification times in the order written, 'shown' oldest of all.
      const at = (id: string, s: number) => fs.utimesSync(path.join(dir, `${hash(id)}.jsonl`), s, s);
      [['shown', 1], ['live', 2], ['oldest', 3], ['older', 4], ['newer', 5]].forEach(([id, s]) => at(id as string, s as number));
      f.setInUse('shown', true);
      await f.load('shown');
      at('shown', 1);
      const size = fs.statSync(path.join(dir, `${hash('newer')}.jsonl`)).size;
      max = size * 3 + 1_000;
      f.merge('newer', [message(500)]);
      await f.flush();
      const left = fs.readdirSync(dir).filter((n) => n.endsWith('.jsonl')).sort();
      assert.deepEqual(left, ['live', 'shown', 'newer'].map((id) => `${hash(id)}.jsonl`).sort());
      assert.equal(log.infos.filter((m) => m.startsWith('Pruned the saved transcript of run ')).length, 2);
      assert.ok(log.infos.some((m) => m.includes('run oldest (199 messages')), log.infos.join('\n'));
      const pruned = await f.pruned('older');
      assert.equal(pruned?.messages, 199);
      assert.equal(await f.pruned('newer'), undefined);
      const t = await f.load('older');
      assert.equal(t.snapshot().droppedMessageCount, 199, 'the panel is not told the transcript was pruned');
    });
  });
});
