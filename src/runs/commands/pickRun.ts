// Which run a command is about: its argument, the active panel's, or one the person picks.
import * as vscode from 'vscode';
import { runOwnCommand } from '../../connection/ownCommands';
import type { Deps } from '../../run/deps';
import { agentIdOf } from '../common/nodes';
import { presentRun } from '../common/presentation';

interface RunPick extends vscode.QuickPickItem {
  agentId: string;
}

/** Lets the user pick a run from the list (palette use of run commands). */
export async function pickRun(deps: Deps, title: string): Promise<string | undefined> {
  const now = Date.now();
  const items: RunPick[] = deps.ledger().all().map((r) => {
    const p = presentRun(r, now, vscode.l10n);
    return {
      agentId: r.agentId,
      label: p.label,
      // A pick has the room the tree row lacks: the status in words too, to filter by.
      description: `${p.status} · ${p.description}`,
      detail: r.appId ? `${r.appId} · ${r.agentId}` : r.agentId,
      iconPath: new vscode.ThemeIcon(p.icon.id.replace('~spin', ''), p.icon.color ? new vscode.ThemeColor(p.icon.color) : undefined),
    };
  });
  if (items.length === 0) {
    const track = vscode.l10n.t('Track Run by ID');
    const pick = await vscode.window.showInformationMessage(vscode.l10n.t('There are no runs in the list yet.'), track);
    if (pick === track) {
      await runOwnCommand('agentRuns.trackRun');
    }
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(items, { title, placeHolder: vscode.l10n.t('Pick a run'), matchOnDescription: true, matchOnDetail: true });
  return pick?.agentId;
}

/** The run a one-run command acts on: its argument, else the active run panel's, else the one the person picks. */
export async function resolveRunHere(deps: Deps, arg: unknown, title: string): Promise<string | undefined> {
  return agentIdOf(arg) ?? deps.activeRun() ?? pickRun(deps, title);
}

/** The run a command is about: from its argument, else picked by the user (Open Run: any run, also the one shown). */
export async function resolveRun(deps: Deps, arg: unknown, title: string): Promise<string | undefined> {
  return agentIdOf(arg) ?? pickRun(deps, title);
}

/** Every run a tree command applies to: the clicked one, or the whole multi-selection. */
export function selectedRunIds(arg: unknown, selection: unknown): string[] {
  if (Array.isArray(selection) && selection.length > 0) {
    const ids = selection.map(agentIdOf).filter((id): id is string => id !== undefined);
    if (ids.length > 0) {
      return [...new Set(ids)];
    }
  }
  const id = agentIdOf(arg);
  return id ? [id] : [];
}
