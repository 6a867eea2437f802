import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentMessage } from '../../src/api/types';
import { parseJournal } from '../../src/core/transcript/journal';
import { hash, journalName } from '../../src/core/transcript/runJournal';
import { TranscriptFiles } from '../../src/core/transcript/transcriptFiles';
import { BASE, message, range } from './fixtures/transcriptMessages';

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
});
