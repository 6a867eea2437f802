/**
 * The branch an app's tests run on, remembered per service and app. "live" is confirmed each time
 * (the live app, its live test user); a branch without a synced version is offered a sync first.
 */
import * as vscode from 'vscode';
import { branchesFromVersions } from '../run/common/branches/known';
import { isReady } from '../run/common/branches/versions';
import { branchKey, isLive, reviveBranch } from '../run/common/branches/testBranch';
import { knownBranches, noteBranches, syncBranch } from '../run/branches';
import type { ServiceTestsDeps } from './types';

type BranchDeps = Pick<ServiceTestsDeps, 'globalState' | 'getClient' | 'log' | 'sender' | 'api'>;

const l10n = vscode.l10n;

export function rememberedBranch(deps: Pick<ServiceTestsDeps, 'globalState'>, baseUrl: string, appId: string): string | undefined {
  return reviveBranch(deps.globalState.get<unknown>(branchKey(baseUrl, appId)));
}

/** Asks for the branch (the remembered one first); undefined when the person backed out. */
export async function pickBranch(deps: BranchDeps, baseUrl: string, appId: string): Promise<string | undefined> {
  const before = rememberedBranch(deps, baseUrl, appId);
  const known = knownBranches(deps.globalState, baseUrl, appId).map((b) => b.name);
  const qp = vscode.window.createQuickPick();
  qp.title = l10n.t('Run the tests of {0} on which branch?', appId);
  qp.placeholder = l10n.t('Type a branch ID or name, or pick one');
  qp.ignoreFocusOut = true;
  const fixed: vscode.QuickPickItem[] = [
    ...(before && !isLive(before) ? [{ label: before, description: l10n.t('last used') }] : []),
    ...known.filter((b) => b !== before && !isLive(b)).map((b) => ({ label: b, description: l10n.t('known branch') })),
    { label: 'live', description: l10n.t('the live app, with its live test user (asks to confirm)') },
  ];
  const refresh = (): void => {
    const typed = qp.value.trim();
    qp.items = typed !== '' && !fixed.some((i) => i.label === typed) ? [{ label: typed, description: l10n.t('branch') }, ...fixed] : fixed;
  };
  refresh();
  const picked = await new Promise<string | undefined>((resolve) => {
    qp.onDidChangeValue(refresh);
    qp.onDidAccept(() => {
      resolve(qp.selectedItems[0]?.label ?? (qp.value.trim() || undefined));
      qp.hide();
    });
    qp.onDidHide(() => resolve(undefined));
    qp.show();
  });
  qp.dispose();
  if (picked === undefined || (isLive(picked) && !await confirmLive(appId))) return undefined;
  if (!isLive(picked) && !await syncedOrSync(deps, appId, picked)) return undefined;
  await deps.globalState.update(branchKey(baseUrl, appId), picked);
  if (!isLive(picked)) await noteBranches(deps.globalState, baseUrl, appId, [{ name: picked, source: 'used', usedAt: Date.now() }]);
  return picked;
}

/**
 * Whether to go on with `branch`: it has a synced version (one read of its newest versions), or
 * the person synced it now, or chose to run without. A read that fails does not stop the run
 * (the service says what it needs when the run starts).
 */
async function syncedOrSync(deps: BranchDeps, appId: string, branch: string): Promise<boolean> {
  const client = await deps.getClient({ quiet: true });
  if (!client) return true;
  try {
    const page = await client.listVersions(appId, { version: branch, limit: 5 });
    await noteBranches(deps.globalState, client.baseUrl, appId, branchesFromVersions(page.versions));
    if (page.versions.some(isReady)) return true;
  } catch (e) {
    deps.log.info(`The versions of branch ${branch} of ${appId} could not be read: ${e instanceof Error ? e.message : String(e)}`);
    return true;
  }
  const sync = l10n.t('Sync Branch');
  const run = l10n.t('Run Without Syncing');
  const answer = await vscode.window.showWarningMessage(
    l10n.t('Branch {0} of {1} has no synced version yet.', branch, appId),
    { modal: true, detail: l10n.t('Sync it first to store its current state, or run the tests without syncing.') },
    sync, run,
  );
  if (answer === run) return true;
  if (answer !== sync) return false;
  return (await syncBranch(deps, client, appId, branch, 'Test Explorer')).kind === 'completed';
}

async function confirmLive(appId: string): Promise<boolean> {
  const go = l10n.t('Run on Live');
  const answer = await vscode.window.showWarningMessage(
    l10n.t('Run the tests of {0} against the live app?', appId),
    { modal: true, detail: l10n.t('They run with the app’s live test user on live data.') },
    go,
  );
  return answer === go;
}

/** The remembered branch (live confirmed again), else asked; `again`: always ask. */
export async function branchFor(deps: BranchDeps, baseUrl: string, appId: string, again: boolean): Promise<string | undefined> {
  const known = again ? undefined : rememberedBranch(deps, baseUrl, appId);
  if (known === undefined) return pickBranch(deps, baseUrl, appId);
  return isLive(known) && !await confirmLive(appId) ? undefined : known;
}
