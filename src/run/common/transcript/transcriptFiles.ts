/**
 * Every run's transcript on disk, an append-only journal per run under global storage (not globalState,
 * loaded whole at startup); memory holds one only while a panel shows it or until saved. node:fs, not
 * vscode.workspace.fs: that needs the workbench's channel, closed before `deactivate()` writes what is left.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Transcript, MergeResult } from './transcript';
import type { TranscriptStore } from './store';
import { Disposable } from '../../../base/common/disposable';
import { DiskLimit, readPruned, type PrunedInfo } from './diskLimit';
import {
  IN_MEMORY, errorText, exportSourceOf, hash, journalName, trackingStore, removeJournals, writeAllSync, writeRun, type ExportSource, type ReadContext,
  type StorageRoot, type TranscriptFilesOptions, type TranscriptLog, type TranscriptRead,
} from './runJournal';
import { keepMark, loadRun, writeWindow, type BaseUrlFiles, type JournalReadHost } from './baseUrlFiles';

export type { ExportSource } from './runJournal';
export type { PrunedInfo } from './diskLimit';
export type { StorageRoot, TranscriptFilesOptions, TranscriptLog, TranscriptRead } from './runJournal';

const SAVE_DELAY_MS = 2_000;
const DEFAULT_MAX_DISK_BYTES = 200 * 1024 * 1024;
const KEPT_READS = 20;

export class TranscriptFiles extends Disposable {
  private files: BaseUrlFiles;
  /** The files of former base URLs whose last changes are still being written. */
  private readonly retired = new Set<BaseUrlFiles>();
  private readonly inUse = new Set<string>();
  private readonly root: string;
  private readonly saveDelayMs: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writes: Promise<void> = Promise.resolve();
  private changes = 0;
  private temps = 0;
  private closed = false;
  private readonly readLog: TranscriptRead[] = [];
  /** How a run's journal is read into its base URL's files (baseUrlFiles.ts) from here. */
  private readonly reader: JournalReadHost = {
    readContext: (tailBytes) => this.readContext(tailBytes),
    logRead: (read) => this.logRead(read),
    markDirty: (files, agentId) => this.markDirtyIn(files, agentId),
    readClean: (files, agentId) => {
      if (!this.inUse.has(agentId) && files === this.files) {
        this.schedule();
      }
    },
  };

  constructor(
    root: StorageRoot,
    private readonly log: TranscriptLog,
    baseUrl: string | undefined,
    private readonly options: TranscriptFilesOptions = {},
  ) {
    super();
    this.root = root.fsPath;
    this.saveDelayMs = options.saveDelayMs ?? SAVE_DELAY_MS;
    this.files = this.filesFor(baseUrl);
  }

  /** The in-memory store (shared with the run panel). */
  get store(): TranscriptStore {
    return this.files.store;
  }

  /** The latest reads of a journal into memory, newest last. */
  get reads(): readonly TranscriptRead[] {
    return this.readLog;
  }

  switchBaseUrl(baseUrl: string | undefined): void {
    const old = this.files;
    this.files = this.filesFor(baseUrl);
    this.retired.add(old);
    void this.save(old).then(() => this.retired.delete(old));
  }

  /**
   * Whether a panel shows the run: its transcript then stays in memory (and is read now if it
   * is not yet) and its journal counts as just used; otherwise it goes a moment after it was saved.
   */
  setInUse(agentId: string, inUse: boolean): void {
    if (inUse) {
      this.inUse.add(agentId);
      this.files.limit?.touch(hash(agentId));
      if (!this.isLoaded(agentId)) {
        void this.load(agentId);
      }
    } else if (this.inUse.delete(agentId) && this.files.store.has(agentId)) {
      this.schedule();
    }
  }

  /** Whether the run's whole journal is merged into its transcript in memory. */
  isLoaded(agentId: string): boolean {
    const disk = this.files.disk.get(agentId);
    return disk !== undefined && !disk.partial && !disk.window && this.files.store.has(agentId);
  }

  /**
   * Where the next read should reach back to when this session's first read of the journal is behind the run
   * list (the window closed between their saves), until `resumed()`; reads the journal when not read yet.
   */
  resumeAfter(agentId: string): number | undefined | Promise<number | undefined> {
    const files = this.files;
    const mark = files.marks.get(agentId);
    if (mark || !files.dir) {
      return mark?.resumeAfter;
    }
    return this.loadIn(files, agentId).then(() => files.marks.get(agentId)?.resumeAfter);
  }

  /** A read of the service reached back to `resumeAfter()`: the journal's point is spent. */
  resumed(agentId: string): void {
    const mark = this.files.marks.get(agentId);
    if (mark) {
      delete mark.resumeAfter;
    }
  }

  /** The run's transcript, with what its journal holds merged in. */
  load(agentId: string): Promise<Transcript> {
    return this.loadIn(this.files, agentId);
  }

  /** Folds a polled history in; saved a little later when anything changed. */
  merge(agentId: string, history: readonly unknown[] | undefined): MergeResult {
    const result = this.files.store.get(agentId).merge(history);
    if (result.added.length > 0 || result.changed.length > 0) {
      this.markDirty(agentId);
    }
    if (!this.files.disk.has(agentId)) {
      if (this.files.marks.get(agentId)?.records && !this.inUse.has(agentId)) {
        // Read this session and marked: this read is saved against the mark, the journal not read again.
        this.files.disk.set(agentId, { written: 0, pending: new Set(), valid: true, window: true });
      } else {
        // What the journal holds joins before anything is appended (see write()).
        void this.load(agentId);
      }
    }
    return result;
  }

  markDirty(agentId: string): void {
    this.files.dirty.set(agentId, ++this.changes);
    this.schedule();
  }

  /** Whether (and when) the run's saved transcript was pruned to stay under the disk limit. */
  pruned(agentId: string): Promise<PrunedInfo | undefined> {
    const dir = this.files.dir;
    return dir ? readPruned(dir, hash(agentId), agentId) : Promise.resolve(undefined);
  }

  /** Deletes the runs' journals; a write under way does not bring one back. */
  async remove(agentIds: readonly string[]): Promise<void> {
    const files = this.files;
    for (const id of agentIds) {
      this.forget(files, id);
      files.marks.delete(id);
      files.dirty.delete(id);
    }
    const dir = files.dir;
    if (!dir) {
      return;
    }
    const job = this.writes.then(() => removeJournals(dir, agentIds, (m) => this.warn(m)));
    this.writes = job;
    await job;
  }

  /**
   * The run's transcript for an export: its journal read in chunks after every change was
   * appended, or (without a base URL) what memory holds.
   */
  async exportSource(agentId: string): Promise<ExportSource> {
    const files = this.files;
    await this.save(files);
    const memory = files.store.has(agentId) ? files.store.get(agentId).snapshot() : undefined;
    return exportSourceOf(files.dir, agentId, memory);
  }

  /**
   * Appends every change now, then drops from memory every transcript no panel shows. Never
   * rejects: failures are logged, and a transcript that could not be written stays in memory
   * and is tried again with the next save.
   */
  flush(): Promise<void> {
    this.clearTimer();
    return this.save(this.files);
  }

  /** The last write: synchronous (VS Code may end the process soon after `deactivate()`), no log. */
  override dispose(): void {
    if (this.closed) {
      return;
    }
    this.closed = true;
    this.clearTimer();
    for (const files of [...this.retired, this.files]) {
      this.writeSync(files);
    }
    super.dispose();
  }

  // ---------------------------------------------------------------- internals

  private filesFor(baseUrl: string | undefined): BaseUrlFiles {
    const dir = baseUrl ? path.join(this.root, 'transcripts', hash(baseUrl)) : undefined;
    const store = trackingStore((id) => {
      if (!this.inUse.has(id) && files === this.files) {
        this.schedule();
      }
    }, this.options.maxMessages);
    const limit = dir
      ? new DiskLimit(dir, {
          maxBytes: () => this.options.maxDiskBytes?.() ?? DEFAULT_MAX_DISK_BYTES,
          isProtected: (id) => this.inUse.has(id) || files.dirty.has(id) || files.loading.has(id) || (this.options.isLive?.(id) ?? true),
          log: this.log,
          closed: () => this.closed,
        })
      : undefined;
    const files: BaseUrlFiles = { dir, store, loading: new Map(), disk: new Map(), marks: new Map(), dirty: new Map(), limit };
    return files;
  }

  /** The run's transcript in these files, with its journal read in (see loadRun, baseUrlFiles.ts). */
  private loadIn(files: BaseUrlFiles, agentId: string): Promise<Transcript> {
    return loadRun(files, agentId, this.reader);
  }

  private readContext(tailBytes: number | undefined): ReadContext {
    return { tailBytes, cap: this.options.maxMessages ?? IN_MEMORY.maxMessages, tempFor: (file) => this.tempFor(file), closed: () => this.closed, warn: (message) => this.warn(message) };
  }

  private logRead(read: TranscriptRead): void {
    this.readLog.push({
      agentId: read.agentId, messages: read.messages, bytes: read.bytes, ms: read.ms, parseMs: read.parseMs, mergeMs: read.mergeMs,
      ...(read.firstMs === undefined ? {} : { firstMs: read.firstMs, firstMessages: read.firstMessages }),
    });
    this.readLog.splice(0, this.readLog.length - KEPT_READS);
  }

  private markDirtyIn(files: BaseUrlFiles, agentId: string): void {
    if (files.store.get(agentId).size > 0) {
      files.dirty.set(agentId, ++this.changes);
    }
    this.schedule();
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

  private save(files: BaseUrlFiles): Promise<void> {
    const job = this.writes
      .then(() => this.write(files))
      .then(() => this.sweep(files))
      .then(async () => {
        // Only the current service's: which runs are live is known for it alone.
        if (!this.closed && files === this.files) {
          await files.limit?.checkSoon();
        }
      })
      .catch((e: unknown) => this.warn(`Could not save transcripts: ${errorText(e)}`));
    this.writes = job;
    return job;
  }

  private async write(files: BaseUrlFiles): Promise<void> {
    const dir = files.dir;
    if (!dir) {
      files.dirty.clear();
      return;
    }
    if (this.closed || files.dirty.size === 0) {
      return;
    }
    // The journal is read first (or its read under way awaited): only what it lacks is appended.
    const reads = [...files.dirty.keys()].filter((id) => !files.disk.has(id) && files.store.has(id)).map((id) => this.loadIn(files, id));
    if (reads.length > 0) {
      await Promise.all(reads);
    }
    try {
      await fs.promises.mkdir(dir, { recursive: true });
      for (const [id, change] of [...files.dirty]) {
        if (this.closed) {
          return;
        }
        let disk = files.disk.get(id);
        if (!files.store.has(id) || !disk) {
          files.dirty.delete(id);
          continue;
        }
        const file = path.join(dir, journalName(id, 'jsonl'));
        if (disk.window) {
          const done = await writeWindow(files, id, disk, file, this.reader);
          disk = files.disk.get(id);
          if (done || !disk) {
            if (files.dirty.get(id) === change) files.dirty.delete(id);
            continue;
          }
        }
        const bytes = await writeRun(dir, id, files.store.get(id), disk, this.tempFor(file), () => this.closed || files.dirty.get(id) === undefined);
        files.limit?.wrote(bytes ?? 0);
        if (files.dirty.get(id) === change) {
          files.dirty.delete(id);
        }
      }
    } catch (e) {
      this.warn(`Could not save transcripts: ${errorText(e)}`);
    }
  }

  /** Drops every transcript no panel shows that is saved (or has nothing to save). */
  private sweep(files: BaseUrlFiles): void {
    if (files !== this.files) {
      return;
    }
    for (const id of files.store.ids()) {
      if (!this.inUse.has(id) && !files.dirty.has(id) && !files.loading.has(id)) {
        this.forget(files, id);
      }
    }
  }

  private forget(files: BaseUrlFiles, agentId: string): void {
    keepMark(files, agentId, this.options.isLive?.(agentId) ?? true);
    files.loading.delete(agentId);
    files.store.delete(agentId);
    files.disk.delete(agentId);
  }

  private writeSync(files: BaseUrlFiles): void {
    if (files.dir && files.dirty.size > 0) {
      writeAllSync(files.dir, [...files.dirty.keys()].filter((id) => files.store.has(id)).map((id) => ({ id, t: files.store.get(id), disk: files.disk.get(id), mark: files.marks.get(id) })));
      files.dirty.clear();
    }
  }

  private tempFor(file: string): string {
    return `${file}.${process.pid}-${++this.temps}.tmp`;
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


// What dist/transcripts.js also offers the activation side (src/run/transcripts.ts): the export writer.
export { writeExportFile, ExportCancelled } from '../export/exportFile';
export { exportLabels } from '../export/export';
