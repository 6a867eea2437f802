/**
 * The per-run transcript caches, kept across reloads in files under the extension's global
 * storage folder (not globalState: transcripts can be large, and globalState is loaded whole
 * at startup). One folder per base URL, one file per run, bounded in runs, messages and size.
 *
 * Memory holds only what is in use: the transcript of a run whose panel is shown
 * (`setInUse`), and any other one only until it is saved. A moment after a change (or on
 * `flush()`) every changed transcript is written and every transcript no panel shows is
 * dropped; it is read again from its file when needed (`load`, or the next merge of a polled
 * history, which reads the file before writing it back).
 *
 * Files are written with node:fs, not vscode.workspace.fs. When the window closes or reloads,
 * the extension host closes its channel to the workbench before calling `deactivate()`, and
 * vscode.workspace.fs asks the workbench even for a `file:` URI, so a final write through it
 * fails ("Channel has been closed"). `dispose()`, which VS Code calls right after
 * `deactivate()`, writes what is left synchronously instead; nothing is logged after that
 * (the log channel is closed too).
 *
 * No `vscode` import: unit-tested in plain mocha.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentMessage } from '../../api/types';
import { Transcript, TranscriptStore, normalizeMessage, type MergeResult } from './transcript';
import { Disposable } from '../disposable';

/** Files kept per base URL; the least recently written go first (never one a panel shows). */
const MAX_FILES = 100;
/** Per file: the newest messages only, and no more than this many characters. */
const MAX_SAVED_MESSAGES = 2_000;
const MAX_SAVED_CHARS = 4_000_000;
const SAVE_DELAY_MS = 2_000;
/** A temporary file this old is what a write cut short left behind. */
const STALE_TEMP_MS = 60_000;

interface SavedTranscript {
  version: 1;
  agentId: string;
  savedAt: number;
  messages: AgentMessage[];
}

/** Where the files go: the extension's global storage (`ExtensionContext.globalStorageUri`). */
export interface StorageRoot {
  readonly fsPath: string;
}

/** The part of the log channel used here. */
export interface TranscriptLog {
  warn(message: string): void;
}

export interface TranscriptCacheOptions {
  /** How long after a change (or after a transcript stopped being used) it is saved and dropped. Default 2 s. */
  saveDelayMs?: number;
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * The shared store, which also tells which runs it holds: the run panel creates transcripts in
 * it too (`transcripts`), and those must be dropped like the others. No bound of its own: the
 * cache decides what stays.
 */
class HeldTranscripts extends TranscriptStore {
  private readonly held = new Map<string, Transcript>();

  constructor(private readonly onNew: (agentId: string) => void) {
    super(Number.MAX_SAFE_INTEGER);
  }

  override get(agentId: string): Transcript {
    let t = this.held.get(agentId);
    if (!t) {
      t = new Transcript();
      this.held.set(agentId, t);
      this.onNew(agentId);
    }
    return t;
  }

  override has(agentId: string): boolean {
    return this.held.has(agentId);
  }

  override delete(agentId: string): void {
    this.held.delete(agentId);
  }

  ids(): string[] {
    return [...this.held.keys()];
  }
}

/** Everything of one base URL. */
interface Space {
  /** Undefined without a base URL: nothing is saved. */
  readonly dir: string | undefined;
  readonly store: HeldTranscripts;
  readonly loading: Map<string, Promise<Transcript>>;
  /** Runs whose file was read into the transcript held now. */
  readonly loaded: Set<string>;
  /** Runs changed since they were last written, with the number of their latest change. */
  readonly dirty: Map<string, number>;
  /** Digest of the messages in each run's file as last read or written (an unchanged transcript is not written again). */
  readonly onDisk: Map<string, string>;
}

export class TranscriptCache extends Disposable {
  private space: Space;
  /** Spaces of former base URLs whose last changes are still being written. */
  private readonly retired = new Set<Space>();
  private readonly inUse = new Set<string>();
  private readonly root: string;
  private readonly saveDelayMs: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writes: Promise<void> = Promise.resolve();
  private changes = 0;
  private temps = 0;
  private closed = false;

  constructor(
    root: StorageRoot,
    private readonly log: TranscriptLog,
    baseUrl: string | undefined,
    options: TranscriptCacheOptions = {},
  ) {
    super();
    this.root = root.fsPath;
    this.saveDelayMs = options.saveDelayMs ?? SAVE_DELAY_MS;
    this.space = this.newSpace(baseUrl);
  }

  /** The in-memory store (shared with the run panel). */
  get transcripts(): TranscriptStore {
    return this.space.store;
  }

  switchBaseUrl(baseUrl: string | undefined): void {
    const old = this.space;
    this.space = this.newSpace(baseUrl);
    this.retired.add(old);
    void this.save(old).then(() => this.retired.delete(old));
  }

  /**
   * Whether a panel shows the run: its transcript then stays in memory (and is read now if it
   * is not yet); otherwise it goes a moment after it was saved.
   */
  setInUse(agentId: string, inUse: boolean): void {
    if (inUse) {
      this.inUse.add(agentId);
      if (!this.isLoaded(agentId)) {
        void this.load(agentId);
      }
    } else if (this.inUse.delete(agentId) && this.space.store.has(agentId)) {
      this.schedule();
    }
  }

  isLoaded(agentId: string): boolean {
    return this.space.loaded.has(agentId) && this.space.store.has(agentId);
  }

  /** The run's transcript, with what was saved before merged in. */
  load(agentId: string): Promise<Transcript> {
    return this.loadIn(this.space, agentId);
  }

  /** Folds a polled history in; saved a little later when anything changed. */
  merge(agentId: string, history: readonly unknown[] | undefined): MergeResult {
    const space = this.space;
    const result = space.store.get(agentId).merge(history);
    if (result.added.length > 0 || result.changed.length > 0) {
      this.markDirty(agentId);
    }
    if (!space.loaded.has(agentId)) {
      // What the file holds joins before anything is written (see write()).
      void this.load(agentId);
    }
    return result;
  }

  markDirty(agentId: string): void {
    this.space.dirty.set(agentId, ++this.changes);
    this.schedule();
  }

  async remove(agentIds: readonly string[]): Promise<void> {
    const space = this.space;
    for (const id of agentIds) {
      this.forget(space, id);
      space.dirty.delete(id);
      const file = fileFor(space, id);
      if (file) {
        try {
          await fs.promises.rm(file, { force: true });
        } catch (e) {
          this.warn(`Could not delete a saved transcript (run ${id}): ${errorText(e)}`);
        }
      }
    }
  }

  /**
   * Writes every changed transcript now, then drops from memory every transcript no panel
   * shows. Resolves when done (it never rejects: failures are logged, and a transcript that
   * could not be written stays in memory and is tried again with the next save).
   */
  flush(): Promise<void> {
    this.clearTimer();
    return this.save(this.space);
  }

  /**
   * The last write: synchronous, because VS Code disposes the extension's subscriptions right
   * after calling `deactivate()` and may end the process soon after; no log (the channel is
   * closed by then).
   */
  override dispose(): void {
    if (this.closed) {
      return;
    }
    this.closed = true;
    this.clearTimer();
    for (const space of [...this.retired, this.space]) {
      this.writeSync(space);
    }
    super.dispose();
  }

  // ---------------------------------------------------------------- internals

  private newSpace(baseUrl: string | undefined): Space {
    const space: Space = {
      dir: baseUrl ? path.join(this.root, 'transcripts', hash(baseUrl)) : undefined,
      store: new HeldTranscripts((id) => {
        if (!this.inUse.has(id) && space === this.space) {
          this.schedule();
        }
      }),
      loading: new Map(),
      loaded: new Set(),
      dirty: new Map(),
      onDisk: new Map(),
    };
    return space;
  }

  private loadIn(space: Space, agentId: string): Promise<Transcript> {
    if (space.loaded.has(agentId) && space.store.has(agentId)) {
      return Promise.resolve(space.store.get(agentId));
    }
    let p = space.loading.get(agentId);
    if (!p) {
      const reading: Promise<Transcript> = this.read(space, agentId).then((saved) => {
        if (space.loading.get(agentId) !== reading) {
          // Removed while its file was read: it does not come back into memory.
          const detached = new Transcript();
          mergeSaved(detached, saved);
          return detached;
        }
        const t = space.store.get(agentId);
        mergeSaved(t, saved);
        space.loaded.add(agentId);
        space.loading.delete(agentId);
        if (!this.inUse.has(agentId) && space === this.space) {
          this.schedule();
        }
        return t;
      });
      space.loading.set(agentId, reading);
      p = reading;
    }
    return p;
  }

  private schedule(): void {
    if (this.timer !== undefined || this.closed) {
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.saveDelayMs);
  }

  private clearTimer(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private save(space: Space): Promise<void> {
    const job = this.writes
      .then(() => this.write(space))
      .then(() => this.sweep(space))
      .catch((e: unknown) => this.warn(`Could not save transcripts: ${errorText(e)}`));
    this.writes = job;
    return job;
  }

  private async write(space: Space): Promise<void> {
    const dir = space.dir;
    if (!dir) {
      space.dirty.clear();
      return;
    }
    if (this.closed || space.dirty.size === 0) {
      return;
    }
    // The file is read first (or its read under way awaited): its older messages belong in what is written.
    const reads = [...space.dirty.keys()].filter((id) => !space.loaded.has(id) && space.store.has(id)).map((id) => this.loadIn(space, id));
    if (reads.length > 0) {
      await Promise.all(reads);
    }
    try {
      await fs.promises.mkdir(dir, { recursive: true });
      for (const [id, change] of [...space.dirty]) {
        if (this.closed) {
          return;
        }
        if (!space.store.has(id)) {
          space.dirty.delete(id);
          continue;
        }
        const out = serialize(space, id);
        if (out) {
          const file = path.join(dir, `${hash(id)}.json`);
          const temp = this.tempFor(file);
          await fs.promises.writeFile(temp, out.json, 'utf8');
          // Removed meanwhile, or written by dispose(): this one is out of date.
          if (this.closed || space.dirty.get(id) === undefined) {
            await fs.promises.rm(temp, { force: true });
            continue;
          }
          // Synchronous, so no later write (or dispose's) can land before this one.
          fs.renameSync(temp, file);
          space.onDisk.set(id, out.digest);
        }
        if (space.dirty.get(id) === change) {
          space.dirty.delete(id);
        }
      }
      await this.prune(dir);
    } catch (e) {
      this.warn(`Could not save transcripts: ${errorText(e)}`);
    }
  }

  /** Drops every transcript no panel shows that is saved (or has nothing to save). */
  private sweep(space: Space): void {
    if (space !== this.space) {
      return;
    }
    for (const id of space.store.ids()) {
      if (!this.inUse.has(id) && !space.dirty.has(id) && !space.loading.has(id)) {
        this.forget(space, id);
      }
    }
  }

  private forget(space: Space, agentId: string): void {
    space.loading.delete(agentId);
    space.store.delete(agentId);
    space.loaded.delete(agentId);
    space.onDisk.delete(agentId);
  }

  private writeSync(space: Space): void {
    const dir = space.dir;
    if (!dir || space.dirty.size === 0) {
      return;
    }
    try {
      fs.mkdirSync(dir, { recursive: true });
    } catch {
      return;
    }
    for (const id of space.dirty.keys()) {
      if (!space.store.has(id)) {
        continue;
      }
      const file = path.join(dir, `${hash(id)}.json`);
      try {
        if (!space.loaded.has(id)) {
          // Its file was not read yet: what it holds must not be lost.
          let text: string | undefined;
          try {
            text = fs.readFileSync(file, 'utf8');
          } catch {
            // Never saved.
          }
          if (text !== undefined) {
            mergeSaved(space.store.get(id), this.parse(text, id));
          }
          space.loaded.add(id);
        }
        const out = serialize(space, id);
        if (out) {
          const temp = this.tempFor(file);
          fs.writeFileSync(temp, out.json, 'utf8');
          fs.renameSync(temp, file);
        }
      } catch {
        // Nothing to tell any more: the window is going away.
      }
    }
    space.dirty.clear();
  }

  private tempFor(file: string): string {
    return `${file}.${process.pid}-${++this.temps}.tmp`;
  }

  private async read(space: Space, agentId: string): Promise<AgentMessage[]> {
    const file = fileFor(space, agentId);
    if (!file) {
      return [];
    }
    let text: string;
    try {
      text = await fs.promises.readFile(file, 'utf8');
    } catch {
      return [];
    }
    const messages = this.parse(text, agentId);
    space.onDisk.set(agentId, hash(JSON.stringify(messages)));
    return messages;
  }

  private parse(text: string, agentId: string): AgentMessage[] {
    try {
      const parsed = JSON.parse(text) as Partial<SavedTranscript>;
      if (parsed.version !== 1 || parsed.agentId !== agentId || !Array.isArray(parsed.messages)) {
        return [];
      }
      return parsed.messages.map(normalizeMessage).filter((m): m is AgentMessage => m !== undefined);
    } catch {
      this.warn(`A saved transcript was unreadable and is ignored (run ${agentId}).`);
      return [];
    }
  }

  private async prune(dir: string): Promise<void> {
    const names = await fs.promises.readdir(dir);
    const now = Date.now();
    const stat = async (name: string) => {
      const file = path.join(dir, name);
      try {
        return { file, name, mtime: (await fs.promises.stat(file)).mtimeMs };
      } catch {
        return undefined;
      }
    };
    for (const name of names.filter((n) => n.endsWith('.tmp'))) {
      const s = await stat(name);
      if (s && now - s.mtime > STALE_TEMP_MS) {
        await fs.promises.rm(s.file, { force: true });
      }
    }
    const files = names.filter((n) => n.endsWith('.json'));
    if (files.length <= MAX_FILES) {
      return;
    }
    const shown = new Set([...this.inUse].map((id) => `${hash(id)}.json`));
    const withTimes = (await Promise.all(files.map(stat))).filter((s) => s !== undefined);
    withTimes.sort((a, b) => a.mtime - b.mtime);
    let excess = withTimes.length - MAX_FILES;
    for (const s of withTimes) {
      if (excess <= 0) {
        break;
      }
      if (shown.has(s.name)) {
        continue;
      }
      await fs.promises.rm(s.file, { force: true });
      excess--;
    }
  }

  /** The log channel is closed after deactivate(); a message then is dropped, never thrown. */
  private warn(message: string): void {
    if (this.closed) {
      return;
    }
    try {
      this.log.warn(message);
    } catch {
      // The channel was closed.
    }
  }
}

function fileFor(space: Space, agentId: string): string | undefined {
  return space.dir ? path.join(space.dir, `${hash(agentId)}.json`) : undefined;
}

/**
 * Merges saved messages into a transcript that may already hold newer copies of some of them
 * (merged from a read of the service while the file was being read): those win.
 */
function mergeSaved(t: Transcript, saved: readonly AgentMessage[]): void {
  if (saved.length === 0) {
    return;
  }
  const newer = t.size > 0 ? t.snapshot().entries.map((e) => e.message) : [];
  t.merge(saved);
  if (newer.length > 0) {
    t.merge(newer);
  }
}

/** The file's text, or undefined when its messages are those already on disk. */
function serialize(space: Space, agentId: string): { json: string; digest: string } | undefined {
  const entries = space.store.get(agentId).snapshot().entries;
  const messages: AgentMessage[] = [];
  let chars = 0;
  for (let i = entries.length - 1; i >= 0 && messages.length < MAX_SAVED_MESSAGES; i--) {
    const m = entries[i].message;
    chars += (m.content?.length ?? 0) + (m.toolParameters?.length ?? 0);
    if (chars > MAX_SAVED_CHARS && messages.length > 0) {
      break;
    }
    messages.push(m);
  }
  messages.reverse();
  const list = JSON.stringify(messages);
  const digest = hash(list);
  if (space.onDisk.get(agentId) === digest) {
    return undefined;
  }
  const head: Omit<SavedTranscript, 'messages'> = { version: 1, agentId, savedAt: Date.now() };
  // The same text as JSON.stringify({ ...head, messages }), without serializing the messages twice.
  return { json: `${JSON.stringify(head).slice(0, -1)},"messages":${list}}`, digest };
}
