import type * as vscode from 'vscode';

export function activate(_context: vscode.ExtensionContext): void {
  // Wired up by the extension glue (issue 4).
}

export function deactivate(): void {
  // Nothing to release yet.
}
