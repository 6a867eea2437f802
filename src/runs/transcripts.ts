/**
 * The transcript cache as activation sees it. The cache itself (core/transcript, with the
 * transcript store) is its own bundle, dist/transcripts.js; it is created on first real use,
 * which comes after a read of a run (dist/api.js loaded) or with a panel. Until then there is
 * nothing in it to save, and nothing to say about it.
 */
import type * as vscode from 'vscode';
import type * as TranscriptFiles from '../core/transcript/transcriptFiles';
import type { MergeResult, Transcript, TranscriptStore } from '../core/transcript/transcript';
import type { TranscriptCache } from '../core/transcript/transcriptFiles';

/** What the rest of the extension uses of the transcript cache. */
export type Transcripts = Pick<
  TranscriptCache,
  'transcripts' | 'switchBaseUrl' | 'setInUse' | 'isLoaded' | 'load' | 'merge' | 'markDirty' | 'remove' | 'flush' | 'dispose'
>;

export class LazyTranscriptCache implements Transcripts {
  private cache: TranscriptCache | undefined;
  private baseUrl: string | undefined;

  constructor(
    private readonly root: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    baseUrl: string | undefined,
  ) {
    this.baseUrl = baseUrl;
  }

  /** The in-memory store (shared with the run panel). */
  get transcripts(): TranscriptStore {
    return this.real().transcripts;
  }

  switchBaseUrl(baseUrl: string | undefined): void {
    this.baseUrl = baseUrl;
    this.cache?.switchBaseUrl(baseUrl);
  }

  /** A panel shows the run (true) or stopped showing it (false): see TranscriptCache.setInUse. */
  setInUse(agentId: string, inUse: boolean): void {
    if (inUse) {
      this.real().setInUse(agentId, true);
    } else {
      this.cache?.setInUse(agentId, false);
    }
  }

  isLoaded(agentId: string): boolean {
    return this.cache?.isLoaded(agentId) ?? false;
  }

  load(agentId: string): Promise<Transcript> {
    return this.real().load(agentId);
  }

  merge(agentId: string, history: readonly unknown[] | undefined): MergeResult {
    return this.real().merge(agentId, history);
  }

  markDirty(agentId: string): void {
    this.real().markDirty(agentId);
  }

  /** Also deletes the saved files of runs never read in this session, so it loads the cache. */
  remove(agentIds: readonly string[]): Promise<void> {
    return this.real().remove(agentIds);
  }

  flush(): Promise<void> {
    return this.cache?.flush() ?? Promise.resolve();
  }

  /** Writes what is left synchronously (see TranscriptCache.dispose). */
  dispose(): void {
    this.cache?.dispose();
  }

  private real(): TranscriptCache {
    this.cache ??= new (loadTranscriptFiles().TranscriptCache)(this.root, this.log, this.baseUrl);
    return this.cache;
  }
}

let loaded: typeof TranscriptFiles | undefined;

/** dist/transcripts.js (src/core/transcript/transcriptFiles.ts); esbuild leaves this require alone (see esbuild.js). */
function loadTranscriptFiles(): typeof TranscriptFiles {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('./transcripts.js') as typeof TranscriptFiles;
  return loaded;
}
