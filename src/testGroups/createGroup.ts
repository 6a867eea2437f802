/**
 * "Create Test Group from File(s)": files → test IDs → inputs → `POST /test-groups`, never retried
 * on its own; an unfinished attempt's inputs are kept for the same files.
 */
import * as vscode from 'vscode';
import { runOwnCommand } from '../connection/ownCommands';
import type { CreateTestGroupRequest, TestGroupCreated } from '../api/types';
import { defaultGroupName } from './common/testIds';
import type { Deps } from '../run/deps';
import { copyGroupId } from './copyId';
import { createFailureActions, unauthorizedReport, type CreateFailureAction } from './common/failure';
import { BACK, checkAppId, inputText, pickAppId, pickTestIds, type StepFrame } from './inputs';
import { noIdsMessage } from './notes';
import { scanForCommand, type ScanOutcome } from './scan';
import { resolveTargets, type TargetSet } from './targets';
import { defaultAppId, showWithOpenSetting } from './settings';
import type { TestGroupStore } from '../run/common/testGroupStore';
import { isTestItemsArgument } from '../base/common/testItems';
import { outcomeForTestItems } from './testItems';
import { checkTestIds, type IdCheckDeps } from './checkIds';

const RECENT_APPS_KEY = 'agentRuns.testGroups.recentAppIds';
const MAX_RECENT_APPS = 8;

interface Draft {
  ids?: string[];
  name?: string;
  description?: string;
  appId?: string;
}

/** What the command resolves to (tests and other commands use it). */
export interface CreateResult {
  groupId: string;
  name: string;
  appId: string;
  testIds: string[];
}

export class CreateTestGroupFlow {
  /** Inputs of the last unfinished attempt, by the set of files it was about. */
  private readonly drafts = new Map<string, Draft>();

  /** `check`: the IDs checked against the app's tests before the POST (src/testGroups/checkIds.ts). */
  constructor(private readonly deps: Deps, private readonly store: TestGroupStore, private readonly check?: IdCheckDeps) {}

  async run(args: readonly unknown[]): Promise<CreateResult | undefined> {
    // Test Explorer items (src/testing): their lines, or their labels, instead of whole files.
    if (isTestItemsArgument(args[0])) {
      const got = await outcomeForTestItems(args[0], this.deps.log);
      if (!got) return undefined;
      if (got.outcome.merged.ids.length === 0) {
        showWithOpenSetting('warning', noIdsMessage(got.outcome.files), 'agentRuns.testIds');
        return undefined;
      }
      return this.collectAndSend(got.outcome, got.key);
    }
    const set = await resolveTargets(args);
    if (set.targets.length === 0) {
      void vscode.window.showInformationMessage(set.skippedFolders.length > 0
        ? vscode.l10n.t('Select test files, not folders, to create a test group.')
        : vscode.l10n.t('Open a test file, or select test files in the Explorer, to create a test group.'));
      return undefined;
    }
    const outcome = await this.scan(set);
    if (!outcome) return undefined;
    const key = set.targets.map((t) => `${t.uri.toString()}#${t.selections?.map((s) => `${s.start}-${s.end}`).join(',') ?? ''}`).join('|');
    return this.collectAndSend(outcome, key);
  }

  private async collectAndSend(outcome: ScanOutcome, key: string): Promise<CreateResult | undefined> {
    const labels = outcome.files.map((f) => f.label);
    const draft: Draft = { ...this.drafts.get(key) };
    this.drafts.set(key, draft);

    for (;;) {
      const request = await this.collect(outcome, labels, draft);
      if (!request) return undefined;
      const ids = this.check ? await checkTestIds(this.check, request.appId, request.testIds ?? []) : request.testIds;
      // Cancelled: the draft keeps every input for the next try.
      if (!ids) return undefined;
      request.testIds = draft.ids = ids;
      const result = await this.send(request, outcome);
      if (result === 'edit') continue;
      if (result) this.drafts.delete(key);
      return result;
    }
  }

  /** Scans the files; shows the message and returns undefined when there is nothing to pick. */
  private async scan(set: TargetSet): Promise<ScanOutcome | undefined> {
    const outcome = await scanForCommand(set.targets, this.deps.log);
    if (!outcome) return undefined;
    if (set.skippedFolders.length > 0 || set.leftOut > 0) {
      const parts: string[] = [];
      if (set.skippedFolders.length > 0) parts.push(vscode.l10n.t('{0} folder(s) skipped.', set.skippedFolders.length));
      if (set.leftOut > 0) parts.push(vscode.l10n.t('{0} more file(s) left out: at most 100 files at a time.', set.leftOut));
      void vscode.window.showInformationMessage(parts.join(' '));
    }
    if (outcome.merged.ids.length === 0) {
      showWithOpenSetting('warning', noIdsMessage(outcome.files), 'agentRuns.testIds');
      return undefined;
    }
    return outcome;
  }

  /** The steps; resolves to the request, or undefined when cancelled (the draft keeps what was typed). */
  private async collect(outcome: ScanOutcome, labels: string[], draft: Draft): Promise<CreateTestGroupRequest | undefined> {
    const title = outcome.files.length === 1
      ? vscode.l10n.t('Create Test Group from {0}', labels[0] ?? '')
      : vscode.l10n.t('Create Test Group from {0} Files', outcome.files.length);
    const frame = (step: number): StepFrame => ({ step, total: 4, title });
    let step = 1;
    while (step >= 1 && step <= 4) {
      if (step === 1) {
        const ids = await pickTestIds(outcome, frame(1), draft.ids);
        if (ids === undefined || ids === BACK) return undefined;
        draft.ids = ids;
        step = 2;
      } else if (step === 2) {
        const name = await inputText({
          frame: frame(2),
          value: draft.name ?? defaultGroupName(labels),
          prompt: vscode.l10n.t('Name of the test group ({0} tests)', draft.ids?.length ?? 0),
          validate: (v) => (v.trim() === '' ? vscode.l10n.t('Give the test group a name.') : undefined),
        });
        if (name === undefined) return undefined;
        if (name === BACK) {
          step = 1;
          continue;
        }
        draft.name = name.trim();
        step = 3;
      } else if (step === 3) {
        const description = await inputText({
          frame: frame(3),
          value: draft.description ?? '',
          prompt: vscode.l10n.t('Description (optional): press Enter to leave it empty'),
          placeholder: vscode.l10n.t('No description'),
        });
        if (description === undefined) return undefined;
        if (description === BACK) {
          step = 2;
          continue;
        }
        draft.description = description;
        step = 4;
      } else {
        const appId = await pickAppId(frame(4), draft.appId ?? defaultAppId(), this.knownApps());
        if (appId === undefined) return undefined;
        if (appId === BACK) {
          step = 3;
          continue;
        }
        draft.appId = appId;
        step = 5;
      }
    }
    const description = (draft.description ?? '').trim();
    return {
      appId: draft.appId ?? '',
      name: draft.name ?? '',
      description: description === '' ? null : description,
      testIds: [...(draft.ids ?? [])],
    };
  }

  /** App IDs to offer: the setting, then recent ones (ours, then the runs'). */
  private knownApps(): { appId: string; detail: string }[] {
    const out: { appId: string; detail: string }[] = [];
    const add = (appId: string, detail: string): void => {
      if (appId !== '' && checkAppId(appId) === undefined && !out.some((o) => o.appId === appId)) out.push({ appId, detail });
    };
    add(defaultAppId(), vscode.l10n.t('default (agentRuns.appId)'));
    const recent = this.deps.globalState.get<unknown>(RECENT_APPS_KEY);
    if (Array.isArray(recent)) for (const r of recent) if (typeof r === 'string') add(r, vscode.l10n.t('recent'));
    for (const g of this.store.list()) add(g.appId, vscode.l10n.t('recent'));
    try {
      for (const r of this.deps.ledger().all()) if (r.appId) add(r.appId, vscode.l10n.t('used by a run'));
    } catch {
      // No ledger yet (no base URL): nothing to add.
    }
    return out.slice(0, 20);
  }

  private async rememberApp(appId: string): Promise<void> {
    const recent = this.deps.globalState.get<unknown>(RECENT_APPS_KEY);
    const list = Array.isArray(recent) ? recent.filter((r): r is string => typeof r === 'string' && r !== appId) : [];
    await this.deps.globalState.update(RECENT_APPS_KEY, [appId, ...list].slice(0, MAX_RECENT_APPS));
  }

  /** One POST (and more only when the person presses Retry). */
  private async send(request: CreateTestGroupRequest, outcome: ScanOutcome): Promise<CreateResult | 'edit' | undefined> {
    for (;;) {
      // The client as the settings and token are now: a Retry after Set API Token uses the new token.
      const client = await this.deps.getClient();
      if (!client) {
        // getClient has told the person what is missing (base URL, token); the draft keeps
        // every input, so running the command again after fixing it starts where they were.
        vscode.window.setStatusBarMessage(vscode.l10n.t('Test group “{0}” not created; your inputs are kept for the next try.', request.name), 8000);
        return undefined;
      }
      const baseUrl = client.baseUrl;
      // Status bar progress, not a notification: a progress notification closing at the
      // moment the next message opens (created, or the failure) keeps that one from showing
      // as a toast (seen in the UI tests after Set API Token and Retry; src/launch does the same).
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Creating test group “{0}” with {1} tests…', request.name, request.testIds?.length ?? 0) },
        () => this.deps.sender.createTestGroup(request, { from: 'test group form', client }),
      );
      if (result.kind !== 'created') {
        // The client was given: "not connected" cannot happen; a failure is worded here.
        const choice = await this.reportFailure(result.kind === 'failed' ? result.error : new Error(vscode.l10n.t('No connection to the service.')), request, baseUrl);
        if (choice === 'retry') continue;
        return choice;
      }
      const created: TestGroupCreated = result.group;
      await this.store.add({
        groupId: created.groupId,
        name: request.name,
        appId: request.appId,
        description: request.description ?? null,
        testCount: request.testIds?.length ?? 0,
        testIds: request.testIds ?? [],
        files: outcome.files.map((f) => f.label),
        createdAt: Date.now(),
      }, baseUrl);
      await this.rememberApp(request.appId);
      void this.announce(created.groupId, request);
      return { groupId: created.groupId, name: request.name, appId: request.appId, testIds: request.testIds ?? [] };
    }
  }

  /**
   * Why the group was not created, with Retry and Edit. A 401 goes to the gate as `prompted`, so
   * this is the one prompt; nothing is sent again until Retry, then with the new token's client.
   */
  private async reportFailure(e: unknown, request: CreateTestGroupRequest, baseUrl: string): Promise<'retry' | 'edit' | undefined> {
    const api = this.deps.api();
    const detail = api.isApiError(e) ? api.describeApiError(e) : e instanceof Error ? e.message : vscode.l10n.t('Unknown error.');
    this.deps.log.warn(`Creating test group failed: ${detail}`);
    const actions = createFailureActions(e);
    if (!actions) return undefined;
    const report = unauthorizedReport(e, baseUrl);
    if (report) this.deps.reportUnauthorized(report);
    let message: string;
    if (api.isApiError(e) && e.kind === 'unauthorized') {
      message = e.status === undefined
        // Found before sending: nothing was refused.
        ? vscode.l10n.t('Test group “{0}” was not created: no API token is set for this service. Set a token, then retry; your inputs are kept.', request.name)
        : vscode.l10n.t('Test group “{0}” was not created: the service refused the API token (401); it is missing, invalid or revoked. Set a valid token, then retry; your inputs are kept.', request.name);
    } else {
      message = vscode.l10n.t('Test group “{0}” was not created. {1}', request.name, detail);
    }
    const labels: Record<CreateFailureAction, string> = {
      setToken: vscode.l10n.t('Set API Token'),
      retry: vscode.l10n.t('Retry'),
      edit: vscode.l10n.t('Edit'),
      showLogs: vscode.l10n.t('Show Logs'),
    };
    const label = await vscode.window.showErrorMessage(message, ...actions.map((a) => labels[a]));
    const choice = actions.find((a) => labels[a] === label);
    if (choice === 'retry' || choice === 'edit') return choice;
    if (choice === 'showLogs') this.deps.log.show(true);
    if (choice === 'setToken') return this.afterSetToken(request, labels);
    return undefined;
  }

  /** Runs "Set API Token", then asks before sending again (never on its own). */
  private async afterSetToken(request: CreateTestGroupRequest, labels: Record<CreateFailureAction, string>): Promise<'retry' | 'edit' | undefined> {
    try {
      await runOwnCommand('agentRuns.setToken');
    } catch (err) {
      this.deps.log.error(`Set API Token failed: ${err instanceof Error ? err.message : 'unknown error'}`);
    }
    const label = await vscode.window.showInformationMessage(
      vscode.l10n.t('Create test group “{0}” now? Your inputs are kept.', request.name),
      labels.retry,
      labels.edit,
    );
    if (label === labels.retry) return 'retry';
    if (label === labels.edit) return 'edit';
    return undefined;
  }

  private async announce(groupId: string, request: CreateTestGroupRequest): Promise<void> {
    const copy = vscode.l10n.t('Copy ID');
    const show = vscode.l10n.t('Show Test Groups');
    const choice = await vscode.window.showInformationMessage(
      vscode.l10n.t('Test group “{0}” created with {1} tests. Group ID: {2}', request.name, request.testIds?.length ?? 0, groupId),
      copy,
      show,
    );
    if (choice === copy) await copyGroupId(groupId);
    else if (choice === show) await runOwnCommand('agentRuns.testGroups.focus');
  }
}
