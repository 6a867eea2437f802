/**
 * The run panel as its own bundle (`dist/panel.js`): the panel manager, the webview protocol
 * (zod/mini), exports. Loaded on first use (see `src/panel/host/load.ts`): when a panel is opened
 * or restored.
 *
 * The host, the log, the transcript store and the other live objects of dist/extension.js
 * come in as parameters; this bundle creates its own objects only (one manager).
 */
import type * as vscode from 'vscode';
import { RunPanelManager, type RunPanelHost, type RunPanelManagerOptions } from './manager';

export { followUpNotSent } from './followUpNotSent';
export { openExternalLink, readCodeReview } from './hostBodies';

/** The panel manager, for a caller that registered the webview serializer itself. */
export function createRunPanelManager(extensionUri: vscode.Uri, host: RunPanelHost, options: RunPanelManagerOptions): RunPanelManager {
  return new RunPanelManager(extensionUri, host, { ...options, registerSerializer: false });
}

