/**
 * The per-run transcript caches, kept across reloads in files under `globalStorageUri`
 * (not globalState: transcripts can be large, and globalState is loaded whole at startup).
 * One folder per base URL, one file per run, bounded in runs, messages and size; written a
 * moment after the last change, read only when a run's transcript is first needed.
 */
import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { AgentMessage } from '../api/types';
import { TranscriptStore, normalizeMessage, type MergeResult, type Transcript } from '../webview/transcript';
import { Disposable } from '../util/disposable';

const MAX_CACHED_RUNS = 50;
/** Files kept per base URL; the least recently written go first. */
const MAX_FILES = 100;
/** Per file: the newest messages only, and no more than this many characters. */
const MAX_SAVED_MESSAGES = 2_000;
const MAX_SAVED_CHARS = 4_000_000;
const SAVE_DELAY_MS = 2_000;

interface SavedTranscript {
  version: 1;
  agentId: string;
  savedAt: number;
  messages: AgentMessage[];
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

export class TranscriptCache extends Disposable {
  private store = new TranscriptStore(MAX_CACHED_RUNS);
  private readonly loading = new Map<string, Promise<Transcript>>();
  private readonly loaded = new Set<string>();
  private readonly dirty = new Set<string>();
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private dir: vscode.Uri | undefined;
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly root: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    baseUrl: string | undefined,
  ) {
    super();
    this.dir = this.dirFor(baseUrl);
    this._register({ dispose: () => void this.flush() });
  }

  /** The in-memory store (shared with the run panel). */
  get transcripts(): TranscriptStore {
    return this.store;
  }

  switchBaseUrl(baseUrl: string | undefined): void {
    void this.flush();
    this.store = new TranscriptStore(MAX_CACHED_RUNS);
    this.loading.clear();
    this.loaded.clear();
    this.dir = this.dirFor(baseUrl);
  }

  isLoaded(agentId: string): boolean {
    return this.loaded.has(agentId) && this.store.has(agentId);
  }

  /** The run's transcript, with what was saved before the last reload merged in. */
  load(agentId: string): Promise<Transcript> {
    if (this.loaded.has(agentId) && this.store.has(agentId)) {
      return Promise.resolve(this.store.get(agentId));
    }
    let p = this.loading.get(agentId);
    if (!p) {
      p = this.read(agentId).then((messages) => {
        const t = this.store.get(agentId);
        if (messages.length > 0) {
          t.merge(messages);
        }
        this.loaded.add(agentId);
        this.loading.delete(agentId);
        return t;
      });
      this.loading.set(agentId, p);
    }
    return p;
  }

  /** Folds a polled history in; saved a little later when anything changed. */
  merge(agentId: string, history: readonly unknown[] | undefined): MergeResult {
    const result = this.store.get(agentId).merge(history);
    if (result.added.length > 0 || result.changed.length > 0) {
      this.markDirty(agentId);
    }
    if (!this.loaded.has(agentId)) {
      // Older messages from disk join later; the transcript orders them itself.
      void this.load(agentId);
    }
    return result;
  }

  markDirty(agentId: string): void {
    this.dirty.add(agentId);
    if (this.saveTimer === undefined) {
      this.saveTimer = setTimeout(() => {
        this.saveTimer = undefined;
        void this.flush();
      }, SAVE_DELAY_MS);
    }
  }

  async remove(agentIds: readonly string[]): Promise<void> {
    for (const id of agentIds) {
      this.store.delete(id);
      this.loaded.delete(id);
      this.dirty.delete(id);
      const file = this.fileFor(id);
      if (file) {
        try {
          await vscode.workspace.fs.delete(file);
        } catch {
          // Never saved.
        }
      }
    }
  }

  /** Writes every changed transcript now. */
  flush(): Promise<void> {
    if (this.saveTimer !== undefined) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
    }
    const ids = [...this.dirty];
    this.dirty.clear();
    const dir = this.dir;
    if (ids.length === 0 || !dir) {
      return this.writes;
    }
    const snapshots = ids.filter((id) => this.store.has(id)).map((id) => ({ id, saved: this.toSaved(id) }));
    this.writes = this.writes.then(async () => {
      try {
        await vscode.workspace.fs.createDirectory(dir);
        for (const { id, saved } of snapshots) {
          await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(dir, `${hash(id)}.json`), Buffer.from(JSON.stringify(saved), 'utf8'));
        }
        await this.prune(dir);
      } catch (e) {
        this.log.warn(`Could not save transcripts: ${e instanceof Error ? e.message : String(e)}`);
      }
    });
    return this.writes;
  }

  private toSaved(agentId: string): SavedTranscript {
    const entries = this.store.get(agentId).snapshot().entries;
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
    return { version: 1, agentId, savedAt: Date.now(), messages };
  }

  private async read(agentId: string): Promise<AgentMessage[]> {
    const file = this.fileFor(agentId);
    if (!file) {
      return [];
    }
    let raw: Uint8Array;
    try {
      raw = await vscode.workspace.fs.readFile(file);
    } catch {
      return [];
    }
    try {
      const parsed = JSON.parse(Buffer.from(raw).toString('utf8')) as Partial<SavedTranscript>;
      if (parsed.version !== 1 || parsed.agentId !== agentId || !Array.isArray(parsed.messages)) {
        return [];
      }
      return parsed.messages.map(normalizeMessage).filter((m): m is AgentMessage => m !== undefined);
    } catch {
      this.log.warn(`A saved transcript was unreadable and is ignored (run ${agentId}).`);
      return [];
    }
  }

  private async prune(dir: vscode.Uri): Promise<void> {
    const entries = (await vscode.workspace.fs.readDirectory(dir)).filter(([name, type]) => type === vscode.FileType.File && name.endsWith('.json'));
    if (entries.length <= MAX_FILES) {
      return;
    }
    const withTimes = await Promise.all(entries.map(async ([name]) => {
      const uri = vscode.Uri.joinPath(dir, name);
      const stat = await vscode.workspace.fs.stat(uri);
      return { uri, mtime: stat.mtime };
    }));
    withTimes.sort((a, b) => a.mtime - b.mtime);
    for (const { uri } of withTimes.slice(0, withTimes.length - MAX_FILES)) {
      await vscode.workspace.fs.delete(uri);
    }
  }

  private dirFor(baseUrl: string | undefined): vscode.Uri | undefined {
    return baseUrl ? vscode.Uri.joinPath(this.root, 'transcripts', hash(baseUrl)) : undefined;
  }

  private fileFor(agentId: string): vscode.Uri | undefined {
    return this.dir ? vscode.Uri.joinPath(this.dir, `${hash(agentId)}.json`) : undefined;
  }
}
