import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentMessage } from '../../../src/api/types';
import { parseJournal } from '../../../src/run/common/transcript/journal';
import { hash, journalName } from '../../../src/run/common/transcript/runJournal';
import { TranscriptFiles } from '../../../src/run/common/transcript/transcriptFiles';
import { BASE, message, range } from '../fixtures/transcriptMessages';

const log = { info: () => undefined, warn: () => undefined };
const RUN = 'run-1';

describe('transcript files: what a read of the journal costs', () => {
  let root: string;
  const journal = () => path.join(root, 'transcripts', hash(BASE), journalName(RUN, 'jsonl'));
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-runs-journal-reads-'));
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('background reads of a run with no panel read its journal once, then only append what it lacks', async () => {
    const before = new TranscriptFiles({ fsPath: root }, log, BASE, { saveDelayMs: 60_000 });
    before.merge(RUN, range(1, 301));
    await before.flush();
    before.dispose();
    const size = fs.statSync(journal()).size;

    const files = new TranscriptFiles({ fsPath: root }, log, BASE, { saveDelayMs: 60_000 });
    try {
      const written: AgentMessage[] = range(1, 301);
      // Four background reads, seconds apart (each saved and dropped from memory in between):
      // a small window of the newest messages, new ones, and the newest one still streaming.
      for (let read = 0; read < 4; read++) {
        const next = written.length + 1;
        written.push(message(next, { content: 'stream' }));
        if (read > 0) written[next - 2] = message(next - 1, { content: 'stream, finished' });
        files.merge(RUN, written.slice(-3));
        await files.flush();
        assert.equal(files.store.has(RUN), false, 'dropped from memory after the save');
      }
      assert.deepEqual(files.reads.map((r) => r.bytes), [size], 'the journal is parsed at the first read only');
      const saved = parseJournal(fs.readFileSync(journal(), 'utf8'), RUN);
      assert.equal(saved.entries.length, 304);
      assert.equal(saved.records, 300 + 4 + 3, 'each new message once, each change once');
      assert.deepEqual(saved.entries.slice(-4).map((e) => e.message.content), ['stream, finished', 'stream, finished', 'stream, finished', 'stream']);
      // A panel opening now reads the whole journal, with everything in it.
      files.setInUse(RUN, true);
      const t = await files.load(RUN);
      assert.equal(t.size, 304);
      assert.equal(files.isLoaded(RUN), true);
      assert.equal(t.snapshotInfo().missingMessageCount, 0);
    } finally {
      files.dispose();
    }
  });

  it('a journal another window appended to meanwhile is read again before anything is appended', async () => {
    const files = new TranscriptFiles({ fsPath: root }, log, BASE, { saveDelayMs: 60_000 });
    try {
      files.merge(RUN, range(1, 11));
      await files.flush();
      files.merge(RUN, range(9, 12));
      await files.flush();
      const other = new TranscriptFiles({ fsPath: root }, log, BASE, { saveDelayMs: 60_000 });
      other.merge(RUN, [message(11, { content: 'edited elsewhere' }), message(12)]);
      await other.flush();
      other.dispose();
      const reads = files.reads.length;
      files.merge(RUN, [message(11, { content: 'edited elsewhere' }), message(12), message(13)]);
      await files.flush();
      assert.equal(files.reads.length, reads + 1, 'read again: its size changed');
      const saved = parseJournal(fs.readFileSync(journal(), 'utf8'), RUN);
      assert.deepEqual(saved.entries.map((e) => e.message.sequence), range(1, 14).map((m) => m.sequence));
      assert.equal(saved.entries[10].message.content, 'edited elsewhere');
    } finally {
      files.dispose();
    }
  });

  it('opening a long run parses its journal from the end backwards only as far as memory keeps', async () => {
    const cap = 2_000;
    const options = { saveDelayMs: 60_000, maxMessages: cap };
    const before = new TranscriptFiles({ fsPath: root }, log, BASE, options);
    const body = 'x'.repeat(400);
    for (let from = 1; from <= 8_000; from += 1_000) {
      before.merge(RUN, range(from, from + 1_000).map((m) => ({ ...m, content: `${m.content} ${body}` })));
      await before.flush();
    }
    before.dispose();
    const size = fs.statSync(journal()).size;
    const files = new TranscriptFiles({ fsPath: root }, log, BASE, options);
    const read = await countBytesRead();
    try {
      files.setInUse(RUN, true);
      await files.load(RUN);
      assert.equal(files.isLoaded(RUN), false, 'a long journal: its newest part first');
      const first = read.bytes();
      const t = await files.load(RUN);
      assert.equal(files.isLoaded(RUN), true);
      const rest = read.bytes() - first;
      assert.ok(rest < size / 2, `the second step read ${rest} of ${size} bytes`);
      assert.equal(t.size, cap);
      assert.deepEqual([t.snapshot().entries[0].sequence, t.last()?.sequence], [6_001, 8_000]);
      const info = t.snapshotInfo();
      assert.equal(info.missingMessageCount, 0, 'what was left unread is no gap');
      assert.ok(Math.abs(info.droppedMessageCount - 6_000) <= 120, `about 6,000 older messages counted as dropped: ${info.droppedMessageCount}`);
    } finally {
      read.restore();
      files.dispose();
    }
  });
});

/** Counts the bytes node:fs hands out through readFile and file handles' read. */
async function countBytesRead(): Promise<{ bytes(): number; restore(): void }> {
  let total = 0;
  const promises = fs.promises as { readFile: typeof fs.promises.readFile };
  const readFile = promises.readFile;
  const probe = await fs.promises.open(__filename, 'r');
  const handleProto = Object.getPrototypeOf(probe) as { read: (...args: unknown[]) => Promise<{ bytesRead: number }> };
  await probe.close();
  const read = handleProto.read;
  promises.readFile = (async (...args: Parameters<typeof fs.promises.readFile>) => {
    const out = await readFile(...args);
    total += out.length;
    return out;
  }) as typeof fs.promises.readFile;
  handleProto.read = async function (this: unknown, ...args: unknown[]) {
    const out = await read.apply(this, args);
    total += out.bytesRead;
    return out;
  };
  return {
    bytes: () => total,
    restore: () => {
      promises.readFile = readFile;
      handleProto.read = read;
    },
  };
}
