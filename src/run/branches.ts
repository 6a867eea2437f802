/**
 * An app's branches for a code review or a test run: those known per service and app
 * (common/branches/known.ts), and "Sync branch" under a progress notification (common/branches/sync.ts).
 */
import * as vscode from 'vscode';
import type { AgentRunsApi } from '../api/contract';
import { isApiError } from '../api/errors';
import { describeError } from '../connection/showApiError';
import {
  branchesToRemember, knownBranchesKey, mergeBranches, orderBranches, reviveKnownBranches, type BranchSeen, type KnownBranch,
} from './common/branches/known';
import { followSync, syncFailureText } from './common/branches/sync';
import type { MementoLike } from '../base/common/serialStore';
import { uncertainText } from './common/sends/uncertainText';
import { branchKey, isLive, reviveBranch } from './common/branches/testBranch';
import type { Deps } from './deps';

const l10n = vscode.l10n;

/** `agentRuns.branches`: branch IDs or labels offered first wherever a branch is asked for. */
export function branchSetting(): string[] {
  const v = vscode.workspace.getConfiguration('agentRuns').get<unknown>('branches');
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s.trim() !== '').map((s) => s.trim()) : [];
}

/** The app's branches known here, in the order they are offered (the live app is not a branch). */
export function knownBranches(globalState: Pick<MementoLike, 'get'>, baseUrl: string, appId: string): KnownBranch[] {
  const settings = branchSetting();
  const stored = reviveKnownBranches(globalState.get<unknown>(knownBranchesKey(baseUrl, appId)));
  const testBranch = reviveBranch(globalState.get<unknown>(branchKey(baseUrl, appId)));
  const seen: BranchSeen[] = [
    ...settings.map((name) => ({ name, source: 'settings' as const })),
    ...(testBranch !== undefined && !isLive(testBranch) ? [{ name: testBranch, source: 'testRuns' as const }] : []),
  ];
  return orderBranches(mergeBranches(stored, seen).filter((b) => !isLive(b.name)), settings);
}

/** Remembers branches seen (read in versions or reviews, used for a review or a test run). */
export async function noteBranches(globalState: MementoLike, baseUrl: string, appId: string, seen: readonly BranchSeen[]): Promise<void> {
  if (seen.length === 0) return;
  const key = knownBranchesKey(baseUrl, appId);
  const stored = reviveKnownBranches(globalState.get<unknown>(key));
  const next = branchesToRemember(mergeBranches(stored, seen.filter((s) => !isLive(s.name))));
  // Most list reads see nothing new: no write then.
  if (JSON.stringify(next) !== JSON.stringify(stored)) await globalState.update(key, next);
}

export type BranchSyncResult = { kind: 'completed'; versionId?: string; version?: string } | { kind: 'notDone' };

/**
 * "Sync branch": the POST once, then its status read until it ends, with progress the person can stop
 * (the sync goes on at the service); a POST whose answer was lost is never sent again on its own.
 */
export async function syncBranch(deps: Pick<Deps, 'sender' | 'api' | 'log' | 'globalState'>, client: AgentRunsApi, appId: string, branch: string, from: string): Promise<BranchSyncResult> {
  return vscode.window.withProgress({
    location: vscode.ProgressLocation.Notification,
    title: l10n.t('Syncing branch {0} of {1}', branch, appId),
    cancellable: true,
  }, async (progress, token): Promise<BranchSyncResult> => {
    progress.report({ message: l10n.t('asking the service…') });
    const sent = await deps.sender.syncVersion({ appId, version: branch }, { from, client });
    if (sent.kind === 'notConnected') return { kind: 'notDone' };
    if (sent.kind === 'busy') {
      void vscode.window.showInformationMessage(l10n.t('Branch {0} is already being synced from this window.', branch));
      return { kind: 'notDone' };
    }
    if (sent.kind === 'uncertain') {
      void vscode.window.showWarningMessage(uncertainText(l10n.t('a sync of branch {0}', branch), sent.since, l10n));
      return { kind: 'notDone' };
    }
    if (sent.kind === 'failed') {
      if (sent.mayHaveArrived) {
        void vscode.window.showWarningMessage(l10n.t('The sync of branch {0} may have reached the service, but its answer was lost ({1}). It was not sent again: look for a new version of the branch in a moment before syncing it again.', branch, describeError(deps, sent.error)));
      } else {
        void vscode.window.showErrorMessage(l10n.t('Branch {0} was not synced: {1}', branch, describeError(deps, sent.error)));
      }
      return { kind: 'notDone' };
    }
    const outcome = await followSync(sent.sync, {
      read: (versionId) => client.getVersionStatus(appId, versionId),
      now: () => Date.now(),
      sleep: (ms) => new Promise<boolean>((resolve) => {
        if (token.isCancellationRequested) return resolve(false);
        const timer = setTimeout(() => {
          sub.dispose();
          resolve(true);
        }, ms);
        const sub = token.onCancellationRequested(() => {
          clearTimeout(timer);
          sub.dispose();
          resolve(false);
        });
      }),
      progress: (s) => progress.report({ message: s.stage ?? s.status ?? '' }),
      retryAfterOf: (e) => (isApiError(e) ? e.retryAfterMs : undefined),
    });
    const stage = outcome.sync.stage ?? outcome.sync.status ?? l10n.t('unknown');
    switch (outcome.kind) {
      case 'completed':
        deps.log.info(`Branch ${branch} of ${appId} synced: version ${outcome.sync.versionId ?? '(not named)'}.`);
        if (outcome.sync.version !== undefined) await noteBranches(deps.globalState, client.baseUrl, appId, [{ name: outcome.sync.version, label: outcome.sync.version !== branch ? branch : undefined, source: 'versions' }]);
        return { kind: 'completed', versionId: outcome.sync.versionId, version: outcome.sync.version };
      case 'failed':
        void vscode.window.showErrorMessage(syncFailureText(branch, outcome.sync, l10n));
        return { kind: 'notDone' };
      case 'stopped':
        void vscode.window.showInformationMessage(l10n.t('Stopped waiting for the sync of branch {0}; it goes on at the service.', branch));
        return { kind: 'notDone' };
      case 'stillRunning':
        void vscode.window.showWarningMessage(l10n.t('Branch {0} is still syncing at the service ({1}). Pick it again in a while.', branch, stage));
        return { kind: 'notDone' };
      case 'readFailed':
        void vscode.window.showWarningMessage(l10n.t('The sync of branch {0} was started, but its progress could not be read: {1}. Pick the branch again in a while.', branch, describeError(deps, outcome.error)));
        return { kind: 'notDone' };
      case 'unknown':
        void vscode.window.showWarningMessage(l10n.t('The service answered the sync of branch {0} without saying whether it runs ({1}). Pick the branch again in a while.', branch, stage));
        return { kind: 'notDone' };
    }
  });
}
