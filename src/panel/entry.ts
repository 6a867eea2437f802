/**
 * The run panel as its own bundle (`dist/panel.js`): the panel manager, the webview protocol
 * (zod/mini), the transcript store and its persisting cache, exports. Loaded on first use
 * (see `src/util/lazyPanel.ts`): when a panel is opened or restored, or when a read of a run
 * brings transcript content to merge.
 *
 * The host, the log and the other live objects of dist/extension.js come in as parameters;
 * this bundle creates its own objects only (one manager, one transcript cache).
 */
import type * as vscode from 'vscode';
import { TranscriptCache } from '../glue/transcripts';
import { RunPanelManager, type RunPanelHost, type RunPanelManagerOptions } from './panel';

/** The panel manager, for a caller that registered the webview serializer itself. */
export function createRunPanelManager(extensionUri: vscode.Uri, host: RunPanelHost, options: RunPanelManagerOptions): RunPanelManager {
  return new RunPanelManager(extensionUri, host, { ...options, registerSerializer: false });
}

/** The per-run transcript caches saved under `root` (see glue/transcripts.ts). */
export function createTranscriptCache(root: vscode.Uri, log: vscode.LogOutputChannel, baseUrl: string | undefined): TranscriptCache {
  return new TranscriptCache(root, log, baseUrl);
}
