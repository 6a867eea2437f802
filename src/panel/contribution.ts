// The run panel at activation: its host and the webview serializer; the panel itself is dist/panel.js.
import type * as vscode from 'vscode';
import { lazyBundle } from '../base/common/lazyBundle';
import type * as PanelBundle from './host/bundle';
import { PanelHost } from './host/host';
import type { RunPanelManagerOptions } from './host/manager';
import { LazyRunPanels } from './host/panels';

/** The panel manager, its protocol and exports (./host/bundle.ts): a panel opened or restored. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const panelBundle = lazyBundle(() => require('./panel.js') as typeof PanelBundle);

/**
 * The host before the deps it serves (`host.attach`), and the serializer VS Code restores panels
 * into after a reload. `ready` builds what the panels read, before the first panel.
 */
export function registerRunPanels(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, options: RunPanelManagerOptions, ready: () => void): { host: PanelHost; panels: LazyRunPanels } {
  const host = new PanelHost(log, panelBundle);
  const panels = new LazyRunPanels(context.extensionUri, host, options, () => {
    ready();
    return panelBundle();
  });
  context.subscriptions.push(host, panels);
  return { host, panels };
}
