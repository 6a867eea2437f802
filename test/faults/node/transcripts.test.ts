// A transcript write killed mid-way: a child process appends a run's messages to its journal
// through the extension's own TranscriptFiles and is killed (SIGKILL) at a random moment, or the
// journal is cut at a random byte inside its last record (what a write cut short leaves). After
// each, the journal must hold every message the writer had reported saved, the transcript must
// read back from it (the newest, in order: past its size bound the oldest are left on disk, and
// it says how many), and a new writer must be able to carry on after the torn tail. The
// messages are 2 to 3 KB each: a fast writer passes the bound (32 million characters, about
// 12,000 of them) within the 8 rounds.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TranscriptFiles } from '../../../src/run/common/transcript/transcriptFiles';
import { parseJournal } from '../../../src/run/common/transcript/journal';
import { hash } from '../../../src/run/common/transcript/runJournal';
import { scenario } from '../registry';

const BASE = 'https://faults.example/api/public/v1';
const RUN = 'run-killed';
const FILES_MODULE = require.resolve('../../../src/run/common/transcript/transcriptFiles');

/** The writer: polls of a 50-message window, 2 KB each, saved one after another; prints "saved <n>" after each save. */
const WRITER = `
const { TranscriptFiles } = require(process.argv[2]);
const [root, base, run, from] = process.argv.slice(3);
const files = new TranscriptFiles({ fsPath: root }, { info() {}, warn(m) { process.stderr.write(m + '\\n'); } }, base, { saveDelayMs: 3600000, isLive: () => true });
(async () => {
  for (let n = Number(from); ; n += 50) {
    const window = [];
    for (let i = Math.max(1, n - 49); i <= n; i++) {
      window.push({ id: 'm' + i, sequence: i, role: i % 2 ? 'assistant' : 'user', content: ('message ' + i + ' ').repeat(200), createdAt: 1.7e12 + i });
    }
    files.merge(run, window);
    await files.flush();
    process.stdout.write('saved ' + n + '\\n');
  }
})();
`;

interface Killed {
  saved: number;
  stderr: string;
}

/** Runs the writer from message `from` on and kills it after `afterMs`; what it said it saved. */
function writeUntilKilled(root: string, script: string, from: number, afterMs: number): Promise<Killed> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, FILES_MODULE, root, BASE, RUN, String(from)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const started = setInterval(() => {
      // Killed only once it wrote something, at a random moment after that.
      if (/saved \d+/.test(out)) {
        clearInterval(started);
        setTimeout(() => child.kill('SIGKILL'), afterMs);
      }
    }, 5);
    child.on('error', reject);
    child.on('exit', () => {
      clearInterval(started);
      const saved = [...out.matchAll(/saved (\d+)/g)].map((m) => Number(m[1]));
      resolve({ saved: saved.length > 0 ? Math.max(...saved) : 0, stderr });
    });
  });
}

/** Reads the run back as the extension would after a restart. */
async function readBack(root: string): Promise<{ sequences: number[]; dropped: number; earlier: boolean; warnings: string[] }> {
  const warnings: string[] = [];
  const files = new TranscriptFiles({ fsPath: root }, { info: () => undefined, warn: (m) => warnings.push(m) }, BASE, { saveDelayMs: 3_600_000 });
  try {
    // A long journal is read newest part first (load() resolves then); load() again waits for the whole.
    let t = await files.load(RUN);
    for (let i = 0; i < 3 && !files.isLoaded(RUN); i++) {
      t = await files.load(RUN);
    }
    assert.ok(files.isLoaded(RUN), 'the whole journal was read');
    const snapshot = t.snapshot();
    return { sequences: snapshot.entries.map((e) => e.message.sequence ?? -1), dropped: snapshot.droppedMessageCount, earlier: snapshot.earlierMessagesUnavailable, warnings };
  } finally {
    files.dispose();
  }
}

/** Every message from 1 to `upTo` is there, in order (more may follow). */
function assertComplete(sequences: readonly number[], upTo: number, what: string): void {
  assert.ok(sequences.length >= upTo, `${what}: ${sequences.length} messages, ${upTo} were reported saved`);
  for (let i = 0; i < upTo; i++) {
    assert.equal(sequences[i], i + 1, `${what}: message ${i + 1} missing or out of order`);
  }
}

/**
 * The transcript read back: the newest messages in order with none missing between, up to at
 * least `upTo`; it starts after message 1 only when its size bound left the oldest on disk, and
 * then it says that earlier ones are not shown (a dropped count, or earlier messages unavailable).
 */
function assertReadBack(back: { sequences: readonly number[]; dropped: number; earlier: boolean }, upTo: number, what: string): void {
  const first = back.sequences[0] ?? 1;
  back.sequences.forEach((n, i) => assert.equal(n, first + i, `${what}: message ${first + i} missing or out of order`));
  assert.ok(first + back.sequences.length - 1 >= upTo, `${what}: read back up to ${first + back.sequences.length - 1}, ${upTo} were reported saved`);
  assert.ok(first === 1 || back.dropped > 0 || back.earlier, `${what}: the read-back starts at message ${first} and says nothing of the earlier ones`);
}

/** The journal's messages by sequence, in order. */
function sequencesOf(entries: readonly { message: object }[]): number[] {
  return entries.map((e) => (e.message as { sequence?: number }).sequence ?? -1).sort((a, b) => a - b);
}

describe('faults: transcript writes cut short', function () {
  this.timeout(120_000);

  scenario('persistence', 'a transcript write killed mid-way leaves a readable transcript (a killed writer, and a journal cut inside its last record)', async (s) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-runs-faults-journal-'));
    const script = path.join(root, 'writer.js');
    fs.writeFileSync(script, WRITER);
    const journal = path.join(root, 'transcripts', hash(BASE), `${hash(RUN)}.jsonl`);
    try {
      let next = 50;
      let tornTails = 0;
      let cuts = 0;
      for (let round = 1; round <= 8; round++) {
        const killed = await writeUntilKilled(root, script, next, Math.floor(Math.random() * 150));
        assert.equal(killed.stderr, '', `the writer complained: ${killed.stderr}`);
        const cut = round % 2 === 0;
        if (cut) {
          // A write cut short inside the last record, at a random byte: that record is lost.
          const bytes = fs.readFileSync(journal);
          const lastStart = bytes.lastIndexOf(0x0a, bytes.length - 2) + 1;
          fs.truncateSync(journal, lastStart + 1 + Math.floor(Math.random() * (bytes.length - lastStart - 2)));
          cuts++;
        }
        const text = fs.readFileSync(journal, 'utf8');
        tornTails += text.endsWith('\n') ? 0 : 1;
        const onDisk = parseJournal(text, RUN);
        assert.ok(onDisk.valid, 'the journal lost its header');
        // Everything reported saved is in the journal, but for the one record a cut went through.
        const upTo = killed.saved - (cut ? 1 : 0);
        assertComplete(sequencesOf(onDisk.entries), upTo, `round ${round}, the journal`);
        const back = await readBack(root);
        assert.deepEqual(back.warnings, [], 'the transcript was reported unreadable');
        assertReadBack(back, upTo, `round ${round}, read back`);
        const newest = (back.sequences[0] ?? 1) + back.sequences.length - 1;
        s.note(`round ${round}: writer reported ${killed.saved} saved, ${onDisk.entries.length} in the journal, ${back.sequences.length} read back${back.dropped > 0 ? ` (the oldest ${back.dropped} left on disk by the size bound)` : ''}${cut ? ' after a cut inside the last record' : ''}`);
        // The next writer's first poll starts right after what reads back (as a service would return it).
        next = newest + 50;
      }
      const onDisk = parseJournal(fs.readFileSync(journal, 'utf8'), RUN);
      const all = sequencesOf(onDisk.entries);
      assertComplete(all, all.length, 'at the end, the journal');
      const back = await readBack(root);
      assertReadBack(back, all.length, 'at the end, read back');
      s.note(`${tornTails} torn tails (${cuts} cut on purpose) left behind by 8 killed writers; ${all.length} messages in the journal, in order, none missing; ${back.sequences.length} read back`);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
