import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TranscriptFiles, type TranscriptLog } from '../../../src/run/common/transcript/transcriptFiles';
import { parseJournal } from '../../../src/run/common/transcript/journal';
import { BASE, message, range } from '../fixtures/transcriptMessages';


class RecordingLog implements TranscriptLog {
  readonly warnings: string[] = [];
  readonly infos: string[] = [];
  closed = false;
  info(message: string): void {
    this.infos.push(message);
  }
  warn(message: string): void {
    if (this.closed) {
      throw new Error('Channel has been closed');
    }
    this.warnings.push(message);
  }
}

/** The saved files under `root` (one base URL's folder). */
function savedFiles(root: string): string[] {
  const dir = path.join(root, 'transcripts');
  if (!fs.existsSync(dir)) {
    return [];
  }
  return fs.readdirSync(dir).flatMap((d) => fs.readdirSync(path.join(dir, d)).map((f) => path.join(dir, d, f)));
}

/** What each journal holds (its header's run, the latest copy of each message). */
function savedMessages(root: string): Array<{ agentId: string; records: number; contents: string[] }> {
  return savedFiles(root)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => {
      const text = fs.readFileSync(f, 'utf8');
      const agentId = (JSON.parse(text.slice(0, text.indexOf('\n'))) as { agentId: string }).agentId;
      const journal = parseJournal(text, agentId);
      assert.ok(journal.valid, `unreadable journal ${f}`);
      return { agentId, records: journal.records, contents: journal.entries.map((e) => e.message.content ?? '') };
    });
}

describe('transcript files: memory holds only what panels show', () => {
  let root: string;
  const caches: TranscriptFiles[] = [];
  const cache = (log: TranscriptLog = new RecordingLog(), options: { baseUrl?: string; saveDelayMs?: number } = {}) => {
    const baseUrl = 'baseUrl' in options ? options.baseUrl : BASE;
    const c = new TranscriptFiles({ fsPath: root }, log, baseUrl, { saveDelayMs: options.saveDelayMs ?? 60_000 });
    caches.push(c);
    return c;
  };

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-runs-transcripts-'));
  });

  afterEach(() => {
    for (const c of caches.splice(0)) {
      c.dispose();
    }
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('saves a merged transcript and drops it from memory when no panel shows it; reads it back on demand', async () => {
    const c = cache();
    c.merge('run-1', range(1, 6));
    assert.equal(c.store.has('run-1'), true);
    await c.flush();
    assert.equal(c.store.has('run-1'), false, 'kept in memory after it was saved');
    assert.equal(c.isLoaded('run-1'), false);
    assert.deepEqual(savedMessages(root).map((s) => s.contents.length), [5]);
    const t = await c.load('run-1');
    assert.equal(t.size, 5);
    assert.equal(c.isLoaded('run-1'), true);
    await c.flush();
    assert.equal(c.store.has('run-1'), false, 'a transcript read again for a look goes again');
  });

  it('keeps the transcript of a shown run in memory until its panel stops showing it', async () => {
    const c = cache();
    c.setInUse('run-1', true);
    c.merge('run-1', range(1, 4));
    await c.flush();
    assert.equal(c.store.has('run-1'), true);
    assert.equal(c.isLoaded('run-1'), true);
    c.merge('run-1', range(1, 8));
    await c.flush();
    assert.equal(c.store.get('run-1').size, 7);
    c.setInUse('run-1', false);
    await c.flush();
    assert.equal(c.store.has('run-1'), false);
    assert.deepEqual(savedMessages(root).map((s) => s.contents.length), [7]);
  });

  it('drops, after the save delay, what no panel shows, also transcripts the panel created in the shared store', async () => {
    const c = cache(new RecordingLog(), { saveDelayMs: 20 });
    c.merge('run-1', range(1, 3));
    // The run panel reads and merges through the shared store directly.
    c.store.get('run-2').merge(range(1, 2));
    c.setInUse('run-3', true);
    c.store.get('run-3').merge(range(1, 2));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await c.flush();
    assert.equal(c.store.has('run-1'), false);
    assert.equal(c.store.has('run-2'), false);
    assert.equal(c.store.has('run-3'), true, 'a shown run was dropped');
  });

  it('merges what the file holds before writing, and a newer copy of a message from the service wins over the saved one', async () => {
    const first = cache();
    first.merge('run-1', [...range(1, 4), message(4, { content: 'partial' })]);
    first.dispose();
    // After a reload: the service now returns the finished message 4 and only the recent part.
    const c = cache();
    c.merge('run-1', [message(4, { content: 'finished' }), message(5)]);
    await c.flush();
    const [saved] = savedMessages(root);
    assert.deepEqual(saved.contents, ['message 1', 'message 2', 'message 3', 'finished', 'message 5']);
    const t = await c.load('run-1');
    assert.deepEqual(t.snapshot().entries.map((e) => e.message.content), saved.contents);
  });

  it('does not write a transcript again when the service returned nothing new', async () => {
    const first = cache();
    first.merge('run-1', range(1, 6));
    await first.flush();
    const before = savedMessages(root)[0].records;
    const c = cache();
    await new Promise((resolve) => setTimeout(resolve, 5));
    c.merge('run-1', range(3, 6));
    await c.flush();
    assert.equal(savedMessages(root)[0].records, before, 'appended what the journal already held');
    assert.equal(c.store.has('run-1'), false);
  });

  it('writes what changed since the last save synchronously on dispose (deactivate), and logs nothing after', async () => {
    const log = new RecordingLog();
    const c = cache(log);
    c.merge('run-1', range(1, 3));
    await c.flush();
    c.setInUse('run-1', true);
    await c.load('run-1');
    c.merge('run-1', range(1, 6));
    c.merge('run-2', range(1, 2));
    // deactivate(): an async flush is started, then VS Code closes the log channel and disposes the subscriptions at once.
    const flushed = c.flush();
    log.closed = true;
    c.dispose();
    const saved = new Map(savedMessages(root).map((s) => [s.agentId, s.contents.length]));
    assert.equal(saved.get('run-1'), 5, 'the last changes were lost');
    assert.equal(saved.get('run-2'), 1, 'a run whose file was never read was not written');
    await flushed;
    assert.equal(new Map(savedMessages(root).map((s) => [s.agentId, s.contents.length])).get('run-1'), 5);
    assert.deepEqual(savedFiles(root).filter((f) => f.endsWith('.tmp')), []);
    assert.deepEqual(log.warnings, []);
  });

  it('keeps what the file holds when disposed before the file was read', () => {
    const first = cache();
    first.merge('run-1', range(1, 5));
    first.dispose();
    const c = cache();
    c.merge('run-1', range(5, 7));
    c.dispose();
    assert.deepEqual(savedMessages(root)[0].contents, range(1, 7).map((m) => m.content));
  });

  it('a log channel that throws after it was closed cannot make a save fail', async () => {
    const log = new RecordingLog();
    const c = cache(log);
    fs.writeFileSync(path.join(root, 'transcripts'), 'a file where the folder should be');
    log.closed = true;
    c.merge('run-1', range(1, 3));
    await c.flush();
    assert.equal(c.store.has('run-1'), true, 'a transcript that could not be saved was dropped');
  });

  it('removes saved transcripts, and a write under way does not bring one back', async () => {
    const c = cache();
    c.merge('run-1', range(1, 3));
    c.merge('run-2', range(1, 3));
    await c.flush();
    c.merge('run-1', range(1, 5));
    const writing = c.flush();
    await c.remove(['run-1']);
    await writing;
    assert.deepEqual(savedMessages(root).map((s) => s.agentId), ['run-2']);
    assert.equal(c.store.has('run-1'), false);
  });

  it('saves the former base URL\'s changes when it switches, and keeps the two apart', async () => {
    const c = cache();
    c.merge('run-1', range(1, 3));
    c.switchBaseUrl('https://other.example/api/public/v1');
    assert.equal(c.store.has('run-1'), false);
    await c.flush();
    assert.equal(savedMessages(root).length, 1);
    assert.equal((await c.load('run-1')).size, 0);
    c.switchBaseUrl(BASE);
    assert.equal((await c.load('run-1')).size, 2);
  });

  it('without a base URL nothing is saved and nothing stays', async () => {
    const c = cache(new RecordingLog(), { baseUrl: undefined });
    c.merge('run-1', range(1, 3));
    await c.flush();
    assert.equal(c.store.has('run-1'), false);
    c.dispose();
    assert.deepEqual(savedFiles(root), []);
  });
});
