/**
 * Extension-host heap in a real extension host (code-server): Agent Runs follows 200 runs of
 * 500 messages each, through its own "Track Run by ID" command (read over HTTP from the
 * emulator, put in the run list, transcript cached, run panel opened), then every panel is
 * closed. The observer extension drives it from inside the same extension host and samples
 * process.memoryUsage().heapUsed after forced garbage collection (v8 --expose-gc at runtime),
 * waiting each time until the heap has settled. The runs are finished ones: following them
 * costs one read each, and the heap figures are not blurred by polling in flight.
 *
 * Before those, one long run: a finished run whose saved transcript (its journal, written into
 * the profile before the editor starts) holds 50,000 messages while the service returns only
 * its last 50. Tracking it opens its panel, which reads the journal; the extension reports how
 * long that read took, and the heap is sampled before, while open and after the panel closed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createClient } from '../src/api/index';
import { normalizeBaseUrl } from '../src/api/baseUrl';
import { headerLine, recordLines } from '../src/run/common/transcript/journal';
import { hash } from '../src/run/common/transcript/runJournal';
import { startEmulator, type Emulator } from '../test/emulator/index';
import { assertCodeServerInstalled, createProfile, installTestHooks, installVsix } from '../test/support/codeServer';
import { extensionId } from '../test/support/paths';
import { makeTempDir, registerCleanup } from '../test/support/processes';
import { codeServerVersion } from './activation';
import type { Build } from './build';
import { coldStart } from './codeServerRun';
import { buildBenchExtensions } from './extensions';
import { benchMessage, benchMessages } from './fixtures';
import { OBSERVER_MARKER_FILE, type BigRunProbe, type HeapSample, type MemoryRuns } from './probe/protocol';
import type { Report } from './report';
import { MB } from './stats';

export const RUNS = 200;
export const MESSAGES_PER_RUN = 500;
export const HEAP_RETURN_BUDGET_MB = 10;
export const BIG_RUN_MESSAGES = 50_000;
/** The service's window of the long run: its newest messages only. */
const BIG_RUN_WINDOW = 50;
export const BIG_READ_BUDGET_MS = 200;
export const BIG_HEAP_RETURN_BUDGET_MB = 5;

/** A finished run whose history on the service is the last 50 of its 50,000 messages. */
async function seedBigRun(emulator: Emulator): Promise<{ id: string; end: number }> {
  const client = createClient({ baseUrl: emulator.baseUrl, token: emulator.tokens.default });
  let id: string;
  try {
    id = (await client.startAgent({ appId: 'app_todo', prompt: 'Memory bench: a long run', model: 'hosted/auto' })).agentId;
  } finally {
    await client.dispose();
  }
  await emulator.advance(60_000);
  const record = emulator.state.agents.get(id);
  if (!record || (record.status !== 'completed' && record.status !== 'error')) {
    throw new Error(`the long run ${id} did not finish on the emulator (${record?.status ?? 'missing'})`);
  }
  const end = record.updatedAt + BIG_RUN_MESSAGES * 1_000;
  record.history = benchMessages(BIG_RUN_WINDOW, end, BIG_RUN_MESSAGES - BIG_RUN_WINDOW + 1);
  record.updatedAt = end;
  return { id, end };
}

/** The long run's journal, where the extension keeps it in the profile (see src/run/common/transcript/transcriptFiles.ts). */
function writeBigJournal(userDataDir: string, baseUrl: string, agentId: string, end: number): number {
  const dir = path.join(userDataDir, 'User', 'globalStorage', extensionId().toLowerCase(), 'transcripts', hash(normalizeBaseUrl(baseUrl)));
  fs.mkdirSync(dir, { recursive: true });
  const messages = benchMessages(BIG_RUN_MESSAGES, end).map((m) => ({ key: `id:${m.id}`, message: m }));
  const file = path.join(dir, `${hash(agentId)}.jsonl`);
  fs.writeFileSync(file, headerLine(agentId) + recordLines(messages));
  return fs.statSync(file).size;
}

/** 200 finished runs on the emulator, each with exactly 500 messages. */
async function seedRuns(emulator: Emulator): Promise<string[]> {
  const workspace = emulator.state.workspaces.get('ws_acme');
  if (!workspace) {
    throw new Error('the emulator seed has no ws_acme');
  }
  workspace.paidCredits = 1_000_000;
  const client = createClient({ baseUrl: emulator.baseUrl, token: emulator.tokens.default });
  const ids: string[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const run = await client.startAgent({ appId: 'app_todo', prompt: `Memory bench run ${i + 1}`, model: 'hosted/auto' });
      ids.push(run.agentId);
    }
  } finally {
    await client.dispose();
  }
  await emulator.advance(60_000);
  for (const id of ids) {
    const record = emulator.state.agents.get(id);
    if (!record || (record.status !== 'completed' && record.status !== 'error')) {
      throw new Error(`run ${id} did not finish on the emulator (${record?.status ?? 'missing'})`);
    }
    let sequence = Math.max(0, ...record.history.map((m) => m.sequence));
    let createdAt = Math.max(record.createdAt, ...record.history.map((m) => m.createdAt));
    for (let n = record.history.length + 1; record.history.length < MESSAGES_PER_RUN; n++) {
      sequence++;
      createdAt += 1_000;
      const m = benchMessage(n, createdAt);
      record.history.push({ ...m, id: `bench-${n}`, sequence });
    }
    record.updatedAt = createdAt;
  }
  return ids;
}

function mb(bytes: number): number {
  return bytes / MB;
}

function find(samples: readonly HeapSample[], label: string): HeapSample {
  const s = samples.find((x) => x.label === label);
  if (!s) {
    throw new Error(`no heap sample "${label}"`);
  }
  return s;
}

/** Returns code-server's version. */
export async function measureMemory(report: Report, build: Build, options: { heapSnapshots?: string } = {}): Promise<string> {
  assertCodeServerInstalled();
  const work = makeTempDir('agent-runs-bench-memory');
  const { observer } = await buildBenchExtensions(work);
  const emulator = await startEmulator({ port: 0, clock: 'manual', stepMs: 1000 });
  registerCleanup('stop the memory emulator', () => emulator.close());
  try {
    const big = await seedBigRun(emulator);
    const ids = await seedRuns(emulator);
    const runsFile = path.join(work, 'runs.json');
    const runs: MemoryRuns = { ids, big: big.id, bigMessages: BIG_RUN_MESSAGES };
    fs.writeFileSync(runsFile, JSON.stringify(runs));
    const profile = createProfile(path.join(work, 'profile'), {
      settings: { 'agentRuns.baseUrl': emulator.baseUrl },
      workspaceFiles: { [OBSERVER_MARKER_FILE]: '' },
    });
    const journalBytes = writeBigJournal(profile.userDataDir, emulator.baseUrl, big.id, big.end);
    const id = extensionId();
    installTestHooks(await installVsix(profile, build.vsix, id), build.vsix);
    await installVsix(profile, observer.vsix, observer.id);
    const run = await coldStart({
      profile,
      target: id,
      emulator,
      outFile: path.join(work, 'report-memory.json'),
      seedTokenFile: path.join(work, 'seed-token'),
      mode: 'memory',
      runsFile,
      ...(options.heapSnapshots ? { heapSnapshots: options.heapSnapshots } : {}),
      timeoutMs: options.heapSnapshots ? 15 * 60_000 : 8 * 60_000,
    });
    const m = run.report.memory;
    if (run.report.error || !m) {
      throw new Error(run.report.error ?? 'the observer sent no memory report');
    }
    const start = find(m.samples, 'start');
    const warm = find(m.samples, 'one run followed, its panel closed');
    const cleared = find(m.samples, 'runs cleared');
    const followed = find(m.samples, 'followed, panels open');
    const closed = find(m.samples, 'panels closed');
    const reads = emulator.requests.filter((r) => r.method === 'GET' && /\/agents\/[^/?]+$/.test(r.path)).length;
    report.add('memory', {
      name: 'Extension-host heap at start (signed in, no runs)',
      value: mb(start.heapUsed),
      unit: 'MB',
      note: 'process.memoryUsage().heapUsed after forced GC, the whole extension host (VS Code\'s own modules and built-in extensions included)',
    });
    report.add('memory', {
      name: `Heap after following ${RUNS} runs × ${MESSAGES_PER_RUN} messages, panels open`,
      value: mb(followed.heapUsed),
      unit: 'MB',
      note: `+${mb(followed.heapUsed - start.heapUsed).toFixed(1)} MB over the start; ${m.runsFollowed} of ${ids.length} runs tracked through agentRuns.trackRun (${m.runsInList} in the list, ${reads} reads) in ${(m.followMs / 1000).toFixed(1)} s; ${m.panelsOpened} panel tab(s) open when sampled; ${m.notes.join('; ')}`,
    });
    report.add('memory', {
      name: 'Heap growth after closing the panels (vs start)',
      value: mb(closed.heapUsed - start.heapUsed),
      unit: 'MB',
      budget: { op: '<=', limit: HEAP_RETURN_BUDGET_MB },
      note: `${mb(closed.heapUsed).toFixed(1)} MB after closing every panel (${m.tabsAfterClose} tab(s) left); the ${m.runsInList} runs stay in the list (finished runs, not polled)`,
    });
    report.add('memory', {
      name: 'Heap growth after the first run only (followed, panel closed)',
      value: mb(warm.heapUsed - start.heapUsed),
      unit: 'MB',
      note: 'what the first use costs once: dist/api.js (HTTP stack, schemas) loaded, one transcript cached',
    });
    report.add('memory', {
      name: 'Heap growth after also clearing the runs from the list',
      value: mb(cleared.heapUsed - start.heapUsed),
      unit: 'MB',
      note: 'agentRuns.clearFinished after the panels were closed: what the run list and transcript caches held',
    });
    addBigRunRows(report, m.big, journalBytes);
    if (options.heapSnapshots) {
      report.notes.push(`Memory: heap snapshots of each sample are in ${path.relative(process.cwd(), options.heapSnapshots)}/ (open them in Chrome DevTools, Memory tab; compare "panels closed" with "one run followed").`);
    }
    if (m.runsFollowed !== ids.length) {
      report.notes.push(`Memory: only ${m.runsFollowed} of ${ids.length} runs were tracked.`);
    }
    return codeServerVersion();
  } finally {
    await emulator.close();
  }
}

function addBigRunRows(report: Report, big: BigRunProbe | undefined, journalBytes: number): void {
  if (!big) {
    throw new Error('the observer did not open the long run');
  }
  const what = `${big.messages.toLocaleString('en-US')} messages, ${mb(journalBytes).toFixed(1)} MB journal`;
  report.add('memory', {
    name: `Opening a ${BIG_RUN_MESSAGES.toLocaleString('en-US')}-message run's panel: transcript read from disk (what the panel shows first)`,
    value: big.firstMs,
    unit: 'ms',
    budget: { op: '<', limit: BIG_READ_BUDGET_MS },
    note: `${what}: its newest ${big.firstMessages.toLocaleString('en-US')} messages read and merged into memory, as the extension measures it (TranscriptFiles.reads); the panel is told then, and again when the rest joined`,
  });
  report.add('memory', {
    name: `… the whole ${BIG_RUN_MESSAGES.toLocaleString('en-US')}-message transcript in memory`,
    value: big.readMs,
    unit: 'ms',
    note: `from the start of the read: the rest of the journal parsed (${big.parseMs.toFixed(0)} ms) and merged into the in-memory transcript (${big.mergeMs.toFixed(0)} ms), after the first part; ${big.openMs} ms from the track command to the whole transcript in memory (HTTP read of the run included)`,
  });
  report.add('memory', {
    name: `Heap after closing the ${BIG_RUN_MESSAGES.toLocaleString('en-US')}-message run's panel (vs before opening it)`,
    value: mb(big.closed.heapUsed - big.before.heapUsed),
    unit: 'MB',
    budget: { op: '<=', limit: BIG_HEAP_RETURN_BUDGET_MB },
    note: `${mb(big.open.heapUsed - big.before.heapUsed).toFixed(1)} MB more while its panel was open; the run stays in the list (finished, not polled)`,
  });
}
