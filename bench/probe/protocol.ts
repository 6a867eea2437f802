/**
 * What the bench's observer extension (observer.ts, running inside the extension host)
 * reports to the bench (through the file named by AGENT_RUNS_BENCH_OUT). Types only.
 */

/** Environment variables the bench gives code-server, and so the extension host. */
export const PROBE_ENV = {
  /** Where the observer writes its ProbeReport (JSON). */
  out: 'AGENT_RUNS_BENCH_OUT',
  /** The extension to watch, `publisher.name`. */
  target: 'AGENT_RUNS_BENCH_TARGET',
  /** `activation` (default) or `memory`. */
  mode: 'AGENT_RUNS_BENCH_MODE',
  /** memory: a JSON file holding the agent IDs to follow (`MemoryRuns`). */
  runs: 'AGENT_RUNS_BENCH_RUNS',
  /** memory: a folder for a heap snapshot at each sample (`--heap-snapshots`). */
  heapSnapshots: 'AGENT_RUNS_BENCH_HEAP_SNAPSHOTS',
} as const;

/** The workspace file whose presence activates the observer early (workspaceContains). */
export const OBSERVER_MARKER_FILE = '.agent-runs-bench';

/** VS Code's own performance marks for the target (Unix ms, as the extension host takes them: Date.now()). */
export interface ProbeMarks {
  willLoadExtensionCode?: number;
  didLoadExtensionCode?: number;
  willActivateExtension?: number;
  didActivateExtension?: number;
}

export interface ProbeModule {
  /** Relative to the extension's folder. */
  readonly file: string;
  readonly bytes: number;
}

export interface ActivationProbe {
  readonly target: string;
  readonly extensionHostPid: number;
  readonly marks: ProbeMarks;
  /** `activationMs` from the target's exports (its own performance.now() around activate()), if it reports one. */
  readonly selfReportedMs?: number;
  /** JavaScript files of the target's folder in the module cache when activation was seen done. */
  readonly modules: readonly ProbeModule[];
}

export interface HeapSample {
  readonly label: string;
  /** process.memoryUsage().heapUsed after forced garbage collection. */
  readonly heapUsed: number;
  readonly external: number;
  readonly at: number;
}

/** What the memory mode follows: many runs, and one whose saved transcript is long. */
export interface MemoryRuns {
  readonly ids: readonly string[];
  /** A finished run whose journal holds `bigMessages` messages (written before start). */
  readonly big: string;
  readonly bigMessages: number;
}

/** Opening the long run's panel: its transcript read from disk, then the heap once closed. */
export interface BigRunProbe {
  /** The extension's own measure: the whole journal read and merged into memory (ms). */
  readonly readMs: number;
  /** Its newest part in memory, what the panel shows first (ms), and how many messages that was. */
  readonly firstMs: number;
  readonly firstMessages: number;
  /** Of which parsing the journal and merging it into memory (the rest is waiting: the file read, other work). */
  readonly parseMs: number;
  readonly mergeMs: number;
  readonly messages: number;
  readonly bytes: number;
  /** From the open command to the transcript in memory (ms). */
  readonly openMs: number;
  readonly before: HeapSample;
  readonly open: HeapSample;
  readonly closed: HeapSample;
}

export interface MemoryProbe {
  readonly big?: BigRunProbe;
  readonly samples: readonly HeapSample[];
  readonly runsFollowed: number;
  readonly runsInList: number;
  readonly panelsOpened: number;
  readonly tabsAfterClose: number;
  readonly followMs: number;
  readonly notes: readonly string[];
}

export interface ProbeReport {
  readonly activation?: ActivationProbe;
  readonly memory?: MemoryProbe;
  readonly error?: string;
}
