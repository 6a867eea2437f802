// The run panels as activation sees them: the serializer is registered at once, since VS Code
// restores panels only into a serializer that exists when it asks; the manager loads on first use.
import * as vscode from 'vscode';
import type * as PanelBundle from './bundle';
import type { RunPanelHost, RunPanelManager, RunPanelManagerOptions } from './manager';
import { RUN_PANEL_VIEW_TYPE } from '../common/viewType';

export class LazyRunPanels implements vscode.Disposable {
  private manager: RunPanelManager | undefined;
  private readonly serializer: vscode.Disposable;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly host: RunPanelHost,
    private readonly options: RunPanelManagerOptions,
    private readonly bundle: () => typeof PanelBundle,
  ) {
    this.serializer = vscode.window.registerWebviewPanelSerializer(RUN_PANEL_VIEW_TYPE, {
      // async: a failure to load the panel code rejects (VS Code logs it) instead of throwing.
      deserializeWebviewPanel: async (panel, state) => this.get().restore(panel, state),
    });
  }

  /** Opens the panel of a run, or reveals it when it is already open. */
  open(agentId: string): void {
    this.get().open(agentId);
  }

  /** The run whose panel is the active editor; none before a panel was ever opened. */
  activeRun(): string | undefined {
    return this.manager?.activeRun();
  }

  dispose(): void {
    this.manager?.dispose();
    this.serializer.dispose();
  }

  private get(): RunPanelManager {
    this.manager ??= this.bundle().createRunPanelManager(this.extensionUri, this.host, this.options);
    return this.manager;
  }
}
