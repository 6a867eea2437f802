/**
 * The branch a person runs an app's tests on: asked once per service and app, then remembered
 * (`agentRuns.testBranch.v1:<baseUrl>:<appId>`); "Run on Another Branch…" asks again. "live"
 * runs against the live app with its live test user, so it is confirmed every time it is picked.
 */
import * as vscode from 'vscode';
import { branchesOf } from '../core/reviews/versions';
import { branchKey, isLive, reviveBranch } from '../core/serviceTests/start';
import type { ServiceTestsDeps } from './types';

const l10n = vscode.l10n;

export function rememberedBranch(deps: Pick<ServiceTestsDeps, 'globalState'>, baseUrl: string, appId: string): string | undefined {
  return reviveBranch(deps.globalState.get<unknown>(branchKey(baseUrl, appId)));
}

/** Asks for the branch (the remembered one first); undefined when the person backed out. */
export async function pickBranch(deps: Pick<ServiceTestsDeps, 'globalState' | 'getClient' | 'log'>, baseUrl: string, appId: string): Promise<string | undefined> {
  const before = rememberedBranch(deps, baseUrl, appId);
  const known = await branchesOfApp(deps, appId);
  const qp = vscode.window.createQuickPick();
  qp.title = l10n.t('Run the tests of {0} on which branch?', appId);
  qp.placeholder = l10n.t('Type a branch ID or name, or pick one');
  qp.ignoreFocusOut = true;
  const fixed: vscode.QuickPickItem[] = [
    ...(before && !isLive(before) ? [{ label: before, description: l10n.t('last used') }] : []),
    ...known.filter((b) => b !== before && !isLive(b)).map((b) => ({ label: b, description: l10n.t('branch with synced versions') })),
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
  await deps.globalState.update(branchKey(baseUrl, appId), picked);
  return picked;
}

/** The branches the app's versions name (`GET /versions`, one page), newest first; none when it cannot be read. */
async function branchesOfApp(deps: Pick<ServiceTestsDeps, 'getClient' | 'log'>, appId: string): Promise<string[]> {
  try {
    const client = await deps.getClient({ quiet: true });
    return client ? branchesOf((await client.listVersions(appId, {})).versions) : [];
  } catch (e) {
    deps.log.info(`The branches of ${appId} could not be read from its versions: ${e instanceof Error ? e.message : String(e)}`);
    return [];
  }
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
export async function branchFor(deps: Pick<ServiceTestsDeps, 'globalState' | 'getClient' | 'log'>, baseUrl: string, appId: string, again: boolean): Promise<string | undefined> {
  const known = again ? undefined : rememberedBranch(deps, baseUrl, appId);
  if (known === undefined) return pickBranch(deps, baseUrl, appId);
  return isLive(known) && !await confirmLive(appId) ? undefined : known;
}
