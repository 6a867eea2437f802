import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentMessage } from '../../../src/api/types';
import { parseJournal } from '../../../src/run/common/transcript/journal';
import { journalName } from '../../../src/run/common/transcript/runJournal';
import { Transcript } from '../../../src/run/common/transcript/transcript';
import { TranscriptFiles } from '../../../src/run/common/transcript/transcriptFiles';
import { BASE, message, range } from '../fixtures/transcriptMessages';
import { hash } from '../../../src/run/common/transcript/runJournal';

const log = { info: () => undefined, warn: () => undefined };
/** Two different messages the service returns under one id. */
const first = message(5, { id: 'dup', content: 'the first message' });
const second = message(6, { id: 'dup', content: 'another message, same id' });

describe('transcript: two messages under one id', () => {
  it('keeps both, claims no gap, and a poll that returns the same again changes nothing', () => {
    const t = new Transcript();
    const history: AgentMessage[] = [...range(1, 5), first, second, ...range(7, 9)];
    const r = t.merge(history);
    assert.equal(t.size, 8);
    assert.deepEqual(t.snapshot().entries.map((e) => e.message.content).slice(3, 6), ['message 4', 'the first message', 'another message, same id']);
    assert.equal(r.missingMessageCount, 0, 'no earlier message unavailable');
    for (let poll = 0; poll < 3; poll++) {
      const again = t.merge(history);
      assert.deepEqual([again.added.length, again.changed.length, again.gapsChanged], [0, 0, false], `poll ${poll}`);
    }
  });

  it('either may stream: each is updated in place, the other left alone', () => {
    const t = new Transcript();
    t.merge([first, second]);
    const r = t.merge([first, { ...second, content: 'another message, same id, and more' }]);
    assert.equal(r.added.length, 0);
    assert.deepEqual(r.changed.map((e) => e.message.content), ['another message, same id, and more']);
    const s = t.merge([{ ...first, content: 'the first message, longer' }, { ...second, content: 'another message, same id, and more' }]);
    assert.deepEqual(s.changed.map((e) => e.message.content), ['the first message, longer']);
    assert.equal(t.size, 2);
  });

  it('a known id at another sequence outside the read is another message; inside a read that no longer has it there, the same one moved', () => {
    const t = new Transcript();
    t.merge([...range(1, 5), first]);
    // A window of the newest messages: 5 lies before it.
    t.merge([second, message(7)]);
    assert.deepEqual(t.snapshot().entries.map((e) => e.message.content).slice(4), ['the first message', 'another message, same id', 'message 7']);
    const moved = new Transcript();
    moved.merge([...range(1, 5), first]);
    const r = moved.merge([...range(1, 5), { ...first, sequence: 6 }]);
    assert.equal(moved.size, 5, 'the read reaches back to 5 and has no "dup" there: it moved');
    assert.deepEqual(r.changed.map((e) => e.sequence), [6]);
  });

  it('in the journal: one record each, none again per poll, and the same two (with their keys) after a reload, whatever order they came in', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-runs-dup-'));
    try {
      const files = new TranscriptFiles({ fsPath: root }, log, BASE, { saveDelayMs: 60_000 });
      files.setInUse('run-1', true);
      // Newest first, as a service may list them.
      const history = [message(8), message(7), second, first, ...range(1, 5).reverse()];
      files.merge('run-1', history);
      await files.flush();
      const keys = (await files.load('run-1')).snapshot().entries.map((e) => e.key);
      for (let poll = 0; poll < 3; poll++) {
        files.merge('run-1', history);
        await files.flush();
      }
      files.dispose();
      const file = path.join(root, 'transcripts', hash(BASE), journalName('run-1', 'jsonl'));
      const journal = parseJournal(fs.readFileSync(file, 'utf8'), 'run-1');
      assert.equal(journal.records, 8, 'one record per message, none repeated per poll');
      const again = new TranscriptFiles({ fsPath: root }, log, BASE, { saveDelayMs: 60_000 });
      try {
        const t = await again.load('run-1');
        assert.equal(t.size, 8);
        assert.deepEqual(t.snapshot().entries.map((e) => e.key), keys);
        assert.equal(t.snapshotInfo().missingMessageCount, 0);
      } finally {
        again.dispose();
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('a journal read after a service read that keyed them the other way round loses neither', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-runs-dup-'));
    try {
      const before = new TranscriptFiles({ fsPath: root }, log, BASE, { saveDelayMs: 60_000 });
      before.merge('run-1', [...range(1, 5), first, second]);
      await before.flush();
      before.dispose();
      // Next session: a window holding only the second is merged before the journal is read.
      const files = new TranscriptFiles({ fsPath: root }, log, BASE, { saveDelayMs: 60_000 });
      files.merge('run-1', [second, message(7)]);
      await files.flush();
      files.dispose();
      const after = new TranscriptFiles({ fsPath: root }, log, BASE, { saveDelayMs: 60_000 });
      try {
        const t = await after.load('run-1');
        assert.deepEqual(t.snapshot().entries.map((e) => e.message.content).slice(4), ['the first message', 'another message, same id', 'message 7']);
      } finally {
        after.dispose();
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
