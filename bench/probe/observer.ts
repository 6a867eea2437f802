/**
 * The bench's observer: a tiny extension installed next to the one being measured (Agent
 * Runs, or the empty floor extension) and activated early (workspaceContains, before
 * onStartupFinished). It never touches the target; it waits until the extension host says
 * the target is active, then reports, through the file named by AGENT_RUNS_BENCH_OUT:
 * - VS Code's own performance marks for the target (code/extHost/willLoadExtensionCode/<id>,
 *   didLoadExtensionCode, willActivateExtension, didActivateExtension: the extension host
 *   takes them with Date.now(), so they have millisecond resolution);
 * - the target's self-reported activate() time, when its exports carry `activationMs`;
 * - which of the target's JavaScript files the module cache holds at that moment (the
 *   activation path: a lazily required file that activation pulled in shows up here).
 * In `memory` mode it then follows runs through the target's own commands and samples the
 * extension host's heap after forced garbage collection.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import * as vscode from 'vscode';
import { PROBE_ENV, type ActivationProbe, type BigRunProbe, type HeapSample, type MemoryProbe, type MemoryRuns, type ProbeMarks, type ProbeReport } from './protocol';

interface PerformanceMark {
  readonly name: string;
  readonly startTime: number;
}

interface MonacoMarks {
  getMarks(): PerformanceMark[];
}

const POLL_MS = 10;

function write(file: string, report: ProbeReport): void {
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(report));
  fs.renameSync(tmp, file);
}

function message(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

async function until(condition: () => boolean, timeoutMs: number, what: string, intervalMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

function marksOf(id: string): ProbeMarks {
  const holder = globalThis as { MonacoPerformanceMarks?: MonacoMarks };
  const marks: ProbeMarks = {};
  for (const mark of holder.MonacoPerformanceMarks?.getMarks() ?? []) {
    const match = /^code\/extHost\/(willLoadExtensionCode|didLoadExtensionCode|willActivateExtension|didActivateExtension)\/(.+)$/.exec(mark.name);
    if (match && match[2].toLowerCase() === id.toLowerCase()) {
      marks[match[1] as keyof ProbeMarks] = mark.startTime;
    }
  }
  return marks;
}

function activationProbe(ext: vscode.Extension<unknown>): ActivationProbe {
  const root = `${path.resolve(ext.extensionPath)}${path.sep}`;
  const modules = Object.keys(require.cache)
    .filter((file) => file.startsWith(root) && /\.[cm]?js$/.test(file))
    .map((file) => ({ file: path.relative(root, file), bytes: fs.statSync(file).size }));
  const exports: unknown = ext.exports;
  const self = typeof exports === 'object' && exports !== null ? (exports as { activationMs?: unknown }).activationMs : undefined;
  return {
    target: ext.id,
    extensionHostPid: process.pid,
    marks: marksOf(ext.id),
    ...(typeof self === 'number' ? { selfReportedMs: self } : {}),
    modules,
  };
}

/** Waits until the extension host has activated `id` (polled, so the target is never activated by us). */
function whenActive(id: string, timeoutMs: number): Promise<vscode.Extension<unknown>> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + timeoutMs;
    const timer = setInterval(() => {
      const ext = vscode.extensions.getExtension(id);
      if (ext?.isActive) {
        clearInterval(timer);
        resolve(ext);
      } else if (Date.now() > deadline) {
        clearInterval(timer);
        reject(new Error(`${id} was not activated within ${timeoutMs / 1000} s (${ext ? 'installed' : 'not installed'})`));
      }
    }, POLL_MS);
  });
}

// ---------------------------------------------------------------- memory

interface TargetApi {
  connection(): { signedIn: boolean };
  ledger(): { all(): readonly unknown[] };
  flush(): Promise<void>;
  transcriptReads?(): readonly { agentId: string; messages: number; bytes: number; ms: number; parseMs: number; mergeMs: number; firstMs?: number; firstMessages?: number }[];
}

function targetApi(exports: unknown): TargetApi {
  const api = exports as Partial<Record<keyof TargetApi, unknown>> | undefined;
  if (!api || typeof api.connection !== 'function' || typeof api.ledger !== 'function' || typeof api.flush !== 'function') {
    throw new Error('the target does not return the test API (connection, ledger, flush) from activate()');
  }
  return api as TargetApi;
}

let collect: (() => void) | undefined;

function gc(): void {
  if (!collect) {
    v8.setFlagsFromString('--expose-gc');
    collect = vm.runInNewContext('gc') as () => void;
  }
  collect();
}

async function heap(label: string): Promise<HeapSample> {
  // Twice, with a turn of the event loop between: finalizers and weak callbacks run in between.
  gc();
  await new Promise((resolve) => setTimeout(resolve, 0));
  gc();
  const m = process.memoryUsage();
  return { label, heapUsed: m.heapUsed, external: m.external, at: Date.now() };
}

/** Samples until two successive samples differ by less than 256 KB (work still under way settles). */
let snapshots = 0;

async function settledHeap(label: string, timeoutMs = 20_000): Promise<HeapSample> {
  const deadline = Date.now() + timeoutMs;
  let last = await heap(label);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const next = await heap(label);
    if (Math.abs(next.heapUsed - last.heapUsed) < 256 * 1024 || Date.now() > deadline) {
      const dir = process.env[PROBE_ENV.heapSnapshots];
      if (dir) {
        // For finding what a FAIL retains (Chrome DevTools, Memory tab, "Load"); after the sample.
        fs.mkdirSync(dir, { recursive: true });
        v8.writeHeapSnapshot(path.join(dir, `${++snapshots}-${label.replace(/[^a-z0-9]+/gi, '-')}.heapsnapshot`));
      }
      return next;
    }
    last = next;
  }
}

function webviewTabs(): number {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview).length;
}

async function closeAllPanels(api: TargetApi): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  await until(() => webviewTabs() === 0, 30_000, 'every panel to close');
  await api.flush();
}

/** Opens the run whose saved transcript is long (tracking it opens its panel), then closes it. */
async function bigRun(api: TargetApi, runs: MemoryRuns): Promise<BigRunProbe> {
  const reads = api.transcriptReads?.bind(api);
  if (!reads) {
    throw new Error('the target does not report transcript reads (transcriptReads) from activate()');
  }
  const before = await settledHeap('before the long run');
  const t0 = Date.now();
  if ((await vscode.commands.executeCommand<unknown>('agentRuns.trackRun', runs.big)) !== true) {
    throw new Error(`agentRuns.trackRun ${runs.big} did not succeed`);
  }
  await until(() => reads().some((r) => r.agentId === runs.big), 60_000, 'the long transcript to be read', 5);
  const openMs = Date.now() - t0;
  const read = [...reads()].reverse().find((r) => r.agentId === runs.big);
  if (!read) {
    throw new Error('no read of the long transcript');
  }
  await until(() => webviewTabs() > 0, 30_000, 'the long run\'s panel');
  const open = await settledHeap('long run open');
  await closeAllPanels(api);
  const closed = await settledHeap('long run closed');
  return { readMs: read.ms, firstMs: read.firstMs ?? read.ms, firstMessages: read.firstMessages ?? read.messages, parseMs: read.parseMs, mergeMs: read.mergeMs, messages: read.messages, bytes: read.bytes, openMs, before, open, closed };
}

async function memory(ext: vscode.Extension<unknown>, runsFile: string): Promise<MemoryProbe> {
  const runs = JSON.parse(fs.readFileSync(runsFile, 'utf8')) as MemoryRuns;
  const ids = runs.ids;
  const api = targetApi(ext.exports);
  const notes: string[] = [];
  await until(() => api.connection().signedIn, 60_000, 'the seeded token to be stored');
  const samples: HeapSample[] = [await settledHeap('start')];

  // One run first: what the first use costs once (the HTTP stack in dist/api.js, its schemas).
  if ((await vscode.commands.executeCommand<unknown>('agentRuns.trackRun', ids[0])) !== true) {
    throw new Error(`agentRuns.trackRun ${ids[0]} did not succeed`);
  }
  await closeAllPanels(api);
  samples.push(await settledHeap('one run followed, its panel closed'));
  const big = await bigRun(api, runs);

  const t0 = Date.now();
  let followed = 0;
  let maxTabs = 0;
  for (const id of ids) {
    const ok = await vscode.commands.executeCommand<unknown>('agentRuns.trackRun', id);
    if (ok === true) {
      followed++;
    }
    maxTabs = Math.max(maxTabs, webviewTabs());
  }
  await until(() => api.ledger().all().length >= ids.length, 60_000, `${ids.length} runs in the list`);
  const followMs = Date.now() - t0;
  await api.flush();
  samples.push(await settledHeap('followed, panels open'));
  const panelsOpened = webviewTabs();
  await closeAllPanels(api);
  samples.push(await settledHeap('panels closed'));
  const tabsAfterClose = webviewTabs();
  const runsInList = api.ledger().all().length;

  // Not part of the budget: whether what is left is held by the run list and its caches.
  await vscode.commands.executeCommand('agentRuns.clearFinished');
  await until(() => api.ledger().all().length === 0, 30_000, 'the run list to be cleared');
  await api.flush();
  samples.push(await settledHeap('runs cleared'));
  notes.push(`most webview tabs open at once: ${maxTabs}`);
  return { big, samples, runsFollowed: followed, runsInList, panelsOpened, tabsAfterClose, followMs, notes };
}

// ---------------------------------------------------------------- entry

export function activate(): void {
  const out = process.env[PROBE_ENV.out];
  const target = process.env[PROBE_ENV.target];
  if (!out || !target) {
    return;
  }
  const mode = process.env[PROBE_ENV.mode] ?? 'activation';
  void (async () => {
    try {
      const ext = await whenActive(target, 180_000);
      const activation = activationProbe(ext);
      if (mode === 'memory') {
        const runsFile = process.env[PROBE_ENV.runs];
        if (!runsFile) {
          throw new Error(`${PROBE_ENV.runs} is not set`);
        }
        write(out, { activation, memory: await memory(ext, runsFile) });
      } else {
        write(out, { activation });
      }
    } catch (error) {
      write(out, { error: message(error) });
    }
  })();
}

export function deactivate(): void {
  // nothing to release
}
