// A transcript write killed mid-way: a child process appends a run's messages to its journal
// through the extension's own TranscriptFiles and is killed (SIGKILL) at a random moment, or the
// journal is cut at a random byte inside its last record (what a write cut short leaves). After
// each, the transcript must read back with every message the writer had reported saved, and a
// new writer must be able to carry on after the torn tail.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TranscriptFiles } from '../../../src/core/transcript/transcriptFiles';
import { parseJournal } from '../../../src/core/transcript/journal';
import { hash } from '../../../src/core/transcript/runJournal';
import { scenario } from '../registry';

const BASE = 'https://faults.example/api/public/v1';
const RUN = 'run-killed';
const FILES_MODULE = require.resolve('../../../src/core/transcript/transcriptFiles');

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
async function readBack(root: string): Promise<{ sequences: number[]; warnings: string[] }> {
  const warnings: string[] = [];
  const files = new TranscriptFiles({ fsPath: root }, { info: () => undefined, warn: (m) => warnings.push(m) }, BASE, { saveDelayMs: 3_600_000 });
  try {
    // A long journal is read newest part first (load() resolves then); load() again waits for the whole.
    let t = await files.load(RUN);
    for (let i = 0; i < 3 && !files.isLoaded(RUN); i++) {
      t = await files.load(RUN);
    }
    assert.ok(files.isLoaded(RUN), 'the whole journal was read');
    return { sequences: t.snapshot().entries.map((e) => e.message.sequence ?? -1), warnings };
  } finally {
    files.dispose();
  }
}

function assertComplete(sequences: readonly number[], upTo: number, what: string): void {
  assert.ok(sequences.length >= upTo, `${what}: ${sequences.length} messages read back, ${upTo} were reported saved`);
  for (let i = 0; i < upTo; i++) {
    assert.equal(sequences[i], i + 1, `${what}: message ${i + 1} missing or out of order`);
  }
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
        assert.ok(parseJournal(text, RUN).valid, 'the journal lost its header');
        const back = await readBack(root);
        assert.deepEqual(back.warnings, [], 'the transcript was reported unreadable');
        // Everything reported saved reads back, but for the one record a cut went through.
        assertComplete(back.sequences, killed.saved - (cut ? 1 : 0), `round ${round}`);
        s.note(`round ${round}: writer reported ${killed.saved} saved, ${back.sequences.length} read back${cut ? ' after a cut inside the last record' : ''}`);
        // The next writer's first poll starts right after what reads back (as a service would return it).
        next = back.sequences.length + 50;
      }
      const back = await readBack(root);
      assertComplete(back.sequences, back.sequences.length, 'at the end');
      s.note(`${tornTails} torn tails (${cuts} cut on purpose) left behind by 8 killed writers; ${back.sequences.length} messages read back, in order, none missing`);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
