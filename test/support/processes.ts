// Child processes and everything else a test run must release, whatever way it ends:
// normally, by an exception, by Ctrl+C (SIGINT) or SIGTERM/SIGHUP.
//
// Processes are stopped by PID and process tree, never by name. code-server starts an
// extension host and a pty host; when code-server dies first they are re-parented, so the
// tree is collected *before* anything is signalled. Each managed process also leads its
// own process group (detached), and the group is signalled too.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

type Cleanup = () => Promise<void> | void;

const cleanups = new Map<number, { label: string; run: Cleanup }>();
let nextCleanupId = 1;
const managed = new Set<ManagedProcess>();
let handlersInstalled = false;
let cleaningUp: Promise<void> | undefined;
let interrupted: NodeJS.Signals | undefined;

/** The signal that is stopping this run, if any: launchers then skip their failure reports. */
export function interruptedBy(): NodeJS.Signals | undefined {
  return interrupted;
}

/**
 * Registers something to release at the end of the run (or on a signal). Cleanups run
 * in reverse order of registration. Returns a function that unregisters it.
 */
export function registerCleanup(label: string, run: Cleanup): () => void {
  const id = nextCleanupId++;
  cleanups.set(id, { label, run });
  return () => {
    cleanups.delete(id);
  };
}

/** Runs every registered cleanup once (reverse order), logging failures instead of throwing. */
export function runCleanups(): Promise<void> {
  cleaningUp ??= (async () => {
    while (cleanups.size > 0) {
      const ids = [...cleanups.keys()];
      const id = ids[ids.length - 1];
      const entry = cleanups.get(id)!;
      cleanups.delete(id);
      try {
        await entry.run();
      } catch (error) {
        process.stderr.write(`[cleanup] ${entry.label}: ${String(error)}\n`);
      }
    }
  })().finally(() => {
    cleaningUp = undefined;
  });
  return cleaningUp;
}

/**
 * On SIGINT/SIGTERM/SIGHUP: release everything, then exit 128+signal. On any exit: SIGKILL
 * whatever managed process is still alive (synchronous: nothing async runs then).
 */
export function installCleanupHandlers(): void {
  if (handlersInstalled) {
    return;
  }
  handlersInstalled = true;
  const onSignal = (signal: NodeJS.Signals, code: number) => {
    interrupted = signal;
    process.stderr.write(`\n[harness] ${signal}: stopping everything\n`);
    // A second signal while stopping means "now".
    process.once(signal, () => {
      killAllNow();
      process.exit(code);
    });
    void runCleanups().finally(() => process.exit(code));
  };
  process.once('SIGINT', () => onSignal('SIGINT', 130));
  process.once('SIGTERM', () => onSignal('SIGTERM', 143));
  process.once('SIGHUP', () => onSignal('SIGHUP', 129));
  process.on('exit', () => killAllNow());
}

/** SIGKILLs every managed process tree still alive. Synchronous, for the 'exit' event. */
export function killAllNow(): void {
  for (const proc of managed) {
    proc.killNow();
  }
}

interface ProcInfo {
  readonly ppid: number;
  readonly pgid: number;
  readonly state: string;
  /** Start time in clock ticks since boot. */
  readonly started: number;
}

/** A snapshot of /proc: pid -> parent, group and state. Linux only. */
function readProcessTable(): Map<number, ProcInfo> {
  const table = new Map<number, ProcInfo>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) {
      continue;
    }
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Field 22 of stat (the 20th after the command) is the start time.
    table.set(Number(name), { state: fields[0], ppid: Number(fields[1]), pgid: Number(fields[2]), started: Number(fields[19]) });
  }
  return table;
}

/** The process, its descendants and the members of the given process groups. */
function collectTree(rootPids: readonly number[], groups: readonly number[]): Set<number> {
  const table = readProcessTable();
  const result = new Set<number>();
  const queue = rootPids.filter((pid) => table.has(pid));
  for (const [pid, info] of table) {
    if (groups.includes(info.pgid)) {
      queue.push(pid);
    }
  }
  while (queue.length > 0) {
    const pid = queue.pop()!;
    if (result.has(pid)) {
      continue;
    }
    result.add(pid);
    for (const [child, info] of table) {
      if (info.ppid === pid) {
        queue.push(child);
      }
    }
  }
  return result;
}

/**
 * The live descendants of `rootPid` whose command line matches `pattern`, oldest first (e.g.
 * code-server's extension hosts: `/--type=extensionHost/`).
 */
export function descendantsMatching(rootPid: number, pattern: RegExp): number[] {
  const table = readProcessTable();
  const found: number[] = [];
  for (const pid of collectTree([rootPid], [])) {
    if (pid === rootPid || table.get(pid)?.state === 'Z') {
      continue;
    }
    try {
      if (pattern.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '))) {
        found.push(pid);
      }
    } catch {
      // Exited meanwhile.
    }
  }
  return found.sort((a, b) => (table.get(a)?.started ?? 0) - (table.get(b)?.started ?? 0));
}

/** Stops these processes and their children (SIGTERM, SIGKILL after `graceMs`); waits until they are gone. */
export function stopProcesses(pids: readonly number[], graceMs = 5_000): Promise<void> {
  return stopTree(pids, [], graceMs);
}

function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** Resolves when `condition` is true, polling; rejects with `message` after `timeoutMs`. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  message: string,
  intervalMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms: ${message}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Stops a set of processes: SIGTERM to the tree and groups, wait until they are gone,
 * then SIGKILL what is left (including children spawned meanwhile).
 */
async function stopTree(rootPids: readonly number[], groups: readonly number[], graceMs: number): Promise<void> {
  const pids = collectTree(rootPids, groups);
  for (const pid of pids) {
    signalQuietly(pid, 'SIGTERM');
  }
  try {
    await waitUntil(() => [...pids].every((pid) => !isAlive(pid)), graceMs, 'processes to exit');
  } catch {
    const left = collectTree([...pids].filter(isAlive), groups);
    for (const pid of left) {
      signalQuietly(pid, 'SIGKILL');
    }
    await waitUntil(() => [...left].every((pid) => !isAlive(pid)), 5_000, `processes ${[...left].join(', ')} to die`);
  }
}

export interface ManagedSpawnOptions {
  readonly label: string;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Where stdout and stderr are appended; also kept in memory (last 64 KB) for errors. */
  readonly logFile?: string;
  /** Also copy the output to this process's stderr, prefixed with the label. */
  readonly echo?: boolean;
}

/** A child process that is always stopped, with its whole tree, by the cleanup machinery. */
export class ManagedProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly label: string;
  readonly exited: Promise<ExitInfo>;
  private exitInfo: ExitInfo | undefined;
  private output = '';
  private readonly outputListeners = new Set<(text: string) => void>();
  private readonly unregister: () => void;
  private stopping: Promise<void> | undefined;

  constructor(command: string, args: readonly string[], options: ManagedSpawnOptions) {
    installCleanupHandlers();
    this.label = options.label;
    const spawnOptions: SpawnOptions = {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    };
    this.child = spawn(command, args, spawnOptions);
    if (this.child.pid === undefined) {
      // The 'error' event (ENOENT, EACCES) follows; without a listener it would crash the run.
      this.child.once('error', () => undefined);
      throw new Error(`Could not start ${options.label}: ${command} (not found or not executable)`);
    }
    this.pid = this.child.pid;
    const log = options.logFile ? fs.createWriteStream(options.logFile, { flags: 'a' }) : undefined;
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.output = (this.output + text).slice(-65_536);
      log?.write(chunk);
      if (options.echo) {
        process.stderr.write(text.replace(/^(?=.)/gm, `[${this.label}] `));
      }
      for (const listener of this.outputListeners) {
        listener(text);
      }
    };
    this.child.stdout?.on('data', onData);
    this.child.stderr?.on('data', onData);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        log?.end();
        resolve(this.exitInfo);
      });
      this.child.once('error', (error) => {
        this.output += `\n${String(error)}`;
        this.exitInfo = { code: null, signal: null };
        log?.end();
        resolve(this.exitInfo);
      });
    });
    managed.add(this);
    this.unregister = registerCleanup(`stop ${this.label}`, () => this.stop());
  }

  get hasExited(): boolean {
    return this.exitInfo !== undefined;
  }

  /** The last 64 KB of stdout and stderr. */
  get recentOutput(): string {
    return this.output;
  }

  /** Resolves with the first match of `pattern` in the output (past or future). */
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      let seen = this.output;
      const done = (action: () => void) => {
        clearTimeout(timer);
        this.outputListeners.delete(listener);
        action();
      };
      const listener = (text: string) => {
        seen += text;
        const match = pattern.exec(seen);
        if (match) {
          done(() => resolve(match));
        }
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`${this.label}: no output matching ${String(pattern)} within ${timeoutMs} ms.\n${this.output.slice(-4000)}`))),
        timeoutMs,
      );
      const immediate = pattern.exec(seen);
      if (immediate) {
        done(() => resolve(immediate));
        return;
      }
      this.outputListeners.add(listener);
      void this.exited.then((info) => {
        done(() => reject(new Error(`${this.label} exited (code ${info.code}, signal ${info.signal}) before printing ${String(pattern)}.\n${this.output.slice(-4000)}`)));
      });
    });
  }

  /** Stops the process and its whole tree; idempotent. */
  stop(graceMs = 5_000): Promise<void> {
    this.stopping ??= (async () => {
      await stopTree([this.pid], [this.pid], graceMs);
      if (!this.hasExited) {
        await this.exited;
      }
      managed.delete(this);
      this.unregister();
    })();
    return this.stopping;
  }

  /** SIGKILL the tree at once (synchronous). */
  killNow(): void {
    for (const pid of collectTree([this.pid], [this.pid])) {
      signalQuietly(pid, 'SIGKILL');
    }
  }
}

/** Runs a command to completion; rejects with its output when it fails. */
export async function runToCompletion(
  command: string,
  args: readonly string[],
  options: ManagedSpawnOptions & { readonly timeoutMs: number },
): Promise<string> {
  const proc = new ManagedProcess(command, args, options);
  const timer = setTimeout(() => void proc.stop(), options.timeoutMs);
  try {
    const info = await proc.exited;
    if (info.code !== 0) {
      throw new Error(`${options.label} failed (code ${info.code}, signal ${info.signal}):\n${proc.recentOutput}`);
    }
    return proc.recentOutput;
  } finally {
    clearTimeout(timer);
    await proc.stop();
  }
}

/** A fresh temporary folder, removed at cleanup unless AGENT_RUNS_KEEP_TEMP=1. */
export function makeTempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  if (process.env.AGENT_RUNS_KEEP_TEMP !== '1') {
    registerCleanup(`remove ${dir}`, () => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 }));
  } else {
    process.stderr.write(`[harness] keeping ${dir} (AGENT_RUNS_KEEP_TEMP=1)\n`);
  }
  return dir;
}
