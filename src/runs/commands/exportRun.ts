// "Export Run…": a run's transcript to a Markdown or JSON file, never with the token.
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Deps } from '../../run/deps';
import { runState } from '../../run/common/ledger/runState';
import { resolveRunHere } from './pickRun';

type Format = 'markdown' | 'json';

interface FormatPick extends vscode.QuickPickItem {
  format: Format;
}

function isFormat(v: unknown): v is Format {
  return v === 'markdown' || v === 'json';
}

async function pickFormat(): Promise<Format | undefined> {
  const items: FormatPick[] = [
    { label: vscode.l10n.t('Markdown'), description: '.md', format: 'markdown' },
    { label: vscode.l10n.t('JSON'), description: '.json', format: 'json' },
  ];
  return (await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Export Run'), placeHolder: vscode.l10n.t('Export as') }))?.format;
}

async function askTarget(agentId: string, format: Format): Promise<vscode.Uri | undefined> {
  const safeId = agentId.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'run';
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const name = `agent-run-${safeId}.${format === 'markdown' ? 'md' : 'json'}`;
  return vscode.window.showSaveDialog({
    defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
    filters: format === 'markdown' ? { Markdown: ['md'] } : { JSON: ['json'] },
    saveLabel: vscode.l10n.t('Export'),
    title: vscode.l10n.t('Export run {0}', agentId),
  });
}

/**
 * Export Run…: the run and its whole saved transcript, streamed from disk. Only documented fields
 * and messages are written, never the token; a non-local target gets the finished file copied.
 */
export async function exportRunCommand(deps: Deps, arg?: unknown, formatArg?: unknown): Promise<void> {
  const agentId = await resolveRunHere(deps, arg, vscode.l10n.t('Export Run'));
  if (!agentId) {
    return;
  }
  const format = isFormat(formatArg) ? formatArg : await pickFormat();
  if (!format) {
    return;
  }
  const target = await askTarget(agentId, format);
  if (!target) {
    return;
  }
  const record = deps.ledger().get(agentId);
  const run = record ? { ...runState(record), agentId } : { agentId };
  const local = target.scheme === 'file';
  const file = local ? target.fsPath : path.join(os.tmpdir(), `agent-runs-export-${process.pid}-${Date.now()}`);
  let count: number;
  try {
    count = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Exporting run {0}…', agentId), cancellable: true },
      async (_progress, token) => {
        const n = await deps.transcripts.exportTo(agentId, file, format, run, () => token.isCancellationRequested);
        if (!local) {
          await vscode.workspace.fs.copy(vscode.Uri.file(file), target, { overwrite: true });
        }
        return n;
      },
    );
  } catch (e) {
    if (e instanceof Error && e.name === 'ExportCancelled') {
      return;
    }
    const msg = e instanceof Error ? e.message : String(e);
    deps.log.warn(`Export of run ${agentId} failed: ${msg}`);
    void vscode.window.showErrorMessage(vscode.l10n.t('The run could not be exported: {0}', msg));
    return;
  } finally {
    if (!local) {
      void vscode.workspace.fs.delete(vscode.Uri.file(file)).then(undefined, () => undefined);
    }
  }
  deps.log.info(`Exported run ${agentId} (${count} messages, ${format}).`);
  const open = vscode.l10n.t('Open');
  const choice = await vscode.window.showInformationMessage(vscode.l10n.t('Run exported to {0}.', local ? target.fsPath : target.toString()), open);
  if (choice === open) {
    await vscode.window.showTextDocument(target);
  }
}
