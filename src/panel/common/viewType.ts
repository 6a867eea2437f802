/** The run panel's webview view type (package.json `onWebviewPanel:agentRuns.run`). */
export const RUN_PANEL_VIEW_TYPE = 'agentRuns.run';
