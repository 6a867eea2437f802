/**
 * The saved transcripts as activation sees them: the journals are their own bundle (dist/transcripts.js),
 * loaded on first real use (a run's first read, a panel, an export); until then nothing needs saving.
 */
import * as vscode from 'vscode';
import { lazyBundle } from '../base/common/lazyBundle';
import type * as TranscriptFilesModule from './common/transcript/transcriptFiles';
import type { MergeResult, Transcript } from './common/transcript/transcript';
import type { TranscriptStore } from './common/transcript/store';
import type { ExportSource, PrunedInfo, TranscriptFiles, TranscriptRead } from './common/transcript/transcriptFiles';
import type { Agent, RunStatus } from '../api/types';
import { isFinishedRun } from './common/ledger/runState';
import type { ExportFormat } from './common/export/exportFile';

const DEFAULT_MAX_DISK_MB = 200;

/** Whether a run may still change: not known to be finished (a run not in the list is not followed). */
export interface RunStatuses {
  get(agentId: string): { status: RunStatus } | undefined;
}

function maxDiskBytes(): number {
  const mb = vscode.workspace.getConfiguration('agentRuns').get<number>('transcripts.maxDiskMB', DEFAULT_MAX_DISK_MB);
  return (Number.isFinite(mb) && mb > 0 ? mb : DEFAULT_MAX_DISK_MB) * 1024 * 1024;
}

export class Transcripts implements vscode.Disposable {
  private files: TranscriptFiles | undefined;
  private baseUrl: string | undefined;

  constructor(
    private readonly root: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    baseUrl: string | undefined,
    private readonly runs: () => RunStatuses,
  ) {
    this.baseUrl = baseUrl;
  }

  /** The in-memory store (shared with the run panel). */
  get store(): TranscriptStore {
    return this.real().store;
  }

  /** The latest reads of a journal into memory (for the test API and the bench). */
  get reads(): readonly TranscriptRead[] {
    return this.files?.reads ?? [];
  }

  switchBaseUrl(baseUrl: string | undefined): void {
    this.baseUrl = baseUrl;
    this.files?.switchBaseUrl(baseUrl);
  }

  /** A panel shows the run (true) or stopped showing it (false): see TranscriptFiles.setInUse. */
  setInUse(agentId: string, inUse: boolean): void {
    if (inUse) {
      this.real().setInUse(agentId, true);
    } else {
      this.files?.setInUse(agentId, false);
    }
  }

  isLoaded(agentId: string): boolean {
    return this.files?.isLoaded(agentId) ?? false;
  }

  load(agentId: string): Promise<Transcript> {
    return this.real().load(agentId);
  }

  /** See TranscriptFiles.resumeAfter: the journals load with a run's first read, panel or not. */
  resumeAfter(agentId: string): number | undefined | Promise<number | undefined> {
    return this.real().resumeAfter(agentId);
  }

  resumed(agentId: string): void {
    this.files?.resumed(agentId);
  }

  merge(agentId: string, history: readonly unknown[] | undefined): MergeResult {
    return this.real().merge(agentId, history);
  }

  markDirty(agentId: string): void {
    this.real().markDirty(agentId);
  }

  /** Whether the run's saved transcript was pruned to stay under `agentRuns.transcripts.maxDiskMB`. */
  pruned(agentId: string): Promise<PrunedInfo | undefined> {
    return this.real().pruned(agentId);
  }

  /** Also deletes the journals of runs never read in this session, so it loads the bundle. */
  remove(agentIds: readonly string[]): Promise<void> {
    return this.real().remove(agentIds);
  }

  /** Streams the run's transcript from its journal into `file` (Markdown or JSON); resolves with the message count. */
  async exportTo(agentId: string, file: string, format: ExportFormat, run: Agent, cancelled: () => boolean): Promise<number> {
    const files = this.real();
    const source: ExportSource = await files.exportSource(agentId);
    const m = loadTranscriptFiles();
    return m.writeExportFile(file, format, run, source, { labels: m.exportLabels(vscode.l10n), cancelled });
  }

  flush(): Promise<void> {
    return this.files?.flush() ?? Promise.resolve();
  }

  /** Writes what is left synchronously (see TranscriptFiles.dispose). */
  dispose(): void {
    this.files?.dispose();
  }

  private real(): TranscriptFiles {
    this.files ??= new (loadTranscriptFiles().TranscriptFiles)(this.root, this.log, this.baseUrl, {
      maxDiskBytes,
      isLive: (id) => {
        const r = this.runs().get(id);
        return r !== undefined && !isFinishedRun(r);
      },
    });
    return this.files;
  }
}

/** dist/transcripts.js (src/run/common/transcript/transcriptFiles.ts). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loadTranscriptFiles = lazyBundle(() => require('./transcripts.js') as typeof TranscriptFilesModule);
