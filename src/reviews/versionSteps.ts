/**
 * The code review form's source and target steps: a branch (the service lists none: run/branches.ts),
 * then the branch itself, one of its versions, a typed ID or "Sync branch". Versions A and B compare
 * version IDs only, so there the newest ready version comes first; pages read are kept for the form.
 */
import * as vscode from 'vscode';
import type { AgentRunsApi } from '../api/contract';
import type { AppVersion, VersionPage } from '../api/reviewTypes';
import type { StepOutcome, ValueItem } from '../run/formSteps';
import type { PickUpdate } from '../base/quickInput';
import { branchShown, isMainBranch, type KnownBranch } from '../run/common/branches/known';
import { checkBranch, checkVersionId, type ReviewForm } from './common/form';
import { versionShown } from '../run/common/reviews';
import { addVersionPage, isReady, versionRow, type VersionList } from '../run/common/branches/versions';
import type { BranchSyncResult } from '../run/branches';
import type { ReviewHost } from './startFlow';

const l10n = vscode.l10n;

/** The versions read so far, per app and branch. A page that failed is read again on the next visit. */
export class VersionLists {
  private readonly lists = new Map<string, { promise: Promise<VersionList>; value?: VersionList }>();

  /** `onPage`: each page read (the branches it names are remembered). */
  constructor(private readonly client: Pick<AgentRunsApi, 'listVersions'>, private readonly onPage: (appId: string, page: VersionPage) => void = () => undefined) {}

  private static key(appId: string, branch: string): string {
    return `${appId.trim()}\n${branch.trim()}`;
  }

  /** The list as read now, if its first page is in. */
  peek(appId: string, branch: string): VersionList | undefined {
    return this.lists.get(VersionLists.key(appId, branch))?.value;
  }

  /** The first page, read once. */
  get(appId: string, branch: string): Promise<VersionList> {
    return this.lists.get(VersionLists.key(appId, branch))?.promise ?? this.read(appId, branch, undefined);
  }

  /** The next page, added to what was read. */
  more(appId: string, branch: string): Promise<VersionList> {
    const list = this.peek(appId, branch);
    return list?.nextCursor === undefined ? this.get(appId, branch) : this.read(appId, branch, list);
  }

  /** Read again on the next visit (the branch was synced). */
  forget(appId: string, branch: string): void {
    this.lists.delete(VersionLists.key(appId, branch));
  }

  private read(appId: string, branch: string, before: VersionList | undefined): Promise<VersionList> {
    const key = VersionLists.key(appId, branch);
    // Always with the branch: version C refuses `GET /versions` without one.
    const query = { version: branch.trim(), ...(before?.nextCursor !== undefined ? { cursor: before.nextCursor } : {}) };
    const entry: { promise: Promise<VersionList>; value?: VersionList } = {
      promise: this.client.listVersions(appId.trim(), query).then((page) => {
        entry.value = addVersionPage(before, page);
        this.onPage(appId.trim(), page);
        return entry.value;
      }, (err: unknown) => {
        // Asked again on the next visit; what was read before stays.
        if (before) this.lists.set(key, { promise: Promise.resolve(before), value: before });
        else this.lists.delete(key);
        throw err;
      }),
    };
    this.lists.set(key, entry);
    return entry.promise;
  }
}

type Which = 'from' | 'to';

const branchOf = (f: ReviewForm, which: Which): string => (which === 'from' ? f.fromBranch : f.toBranch).trim();

function setVersion(f: ReviewForm, which: Which, value: string, label: string | undefined): void {
  if (which === 'from') {
    f.fromVersion = value;
    f.fromVersionLabel = label;
  } else {
    f.toVersion = value;
    f.toVersionLabel = label;
  }
}

// ------------------------------------------------------------ branch

const SOURCE_WORDS = (): Record<KnownBranch['sources'][number], string> => ({
  used: l10n.t('used before'),
  settings: l10n.t('from settings (agentRuns.branches)'),
  versions: l10n.t('has synced versions'),
  reviews: l10n.t('named by a code review'),
  testRuns: l10n.t('tests ran on it'),
});

/** The branch of a side: one known here (last used first), or one typed. */
export async function branchStep(host: ReviewHost, which: Which): Promise<StepOutcome> {
  const f = host.form;
  const words = SOURCE_WORDS();
  const known = host.branches(f.appId);
  const current = branchOf(f, which);
  const items: Array<ValueItem<KnownBranch>> = known.map((b) => ({
    label: `$(git-branch) ${b.name}`,
    description: [b.label, ...b.sources.map((s) => words[s])].filter((s): s is string => s !== undefined).join(' · '),
    value: b,
  }));
  if (current !== '' && !known.some((b) => b.name === current || b.label === current)) {
    items.unshift({ label: `$(git-branch) ${current}`, description: l10n.t('current'), value: { name: current, sources: [] } });
  }
  const other = which === 'to' ? f.fromBranch.trim() : '';
  const active = items.find((i) => i.value.name === current || i.value.label === current)
    ?? (which === 'to' ? items.find((i) => isMainBranch(i.value) && i.value.name !== other) ?? items.find((i) => i.value.name !== other) : items.find((i) => !isMainBranch(i.value)))
    ?? items[0];
  const placeholder = which === 'from'
    ? l10n.t('Source: the branch with the changes. Pick one, or type a branch ID or label')
    : l10n.t('Target: the branch the source is compared with (e.g. main). Pick one, or type a branch ID or label');
  const r = await host.parts.showPick<ValueItem<KnownBranch>>({
    ...host.common(which === 'from' ? l10n.t('Source branch') : l10n.t('Target branch')),
    placeholder: items.length > 0 ? placeholder : l10n.t('Type a branch ID or label (the service has no list of branches), then press Enter'),
    items, active, matchOnDescription: true,
    // A known branch typed is that branch's own entry, not a second one.
    typedItem: (value) => (checkBranch(value, which, l10n) !== undefined || items.some((i) => i.value.name === value || i.value.label === value)
      ? undefined
      : { label: `$(git-branch) ${value}`, description: l10n.t('Use this branch'), value: { name: value, sources: [] }, alwaysShow: true }),
  });
  const plain = host.plain(r);
  if (plain) return plain;
  if (r.kind !== 'accept') return { kind: 'stay' };
  const picked = r.value.value.name;
  if (picked !== current) {
    if (which === 'from') f.fromBranch = picked;
    else f.toBranch = picked;
    setVersion(f, which, '', undefined);
  }
  return { kind: 'next' };
}

// ------------------------------------------------------------ version

type VersionChoice =
  | { kind: 'branch' }
  | { kind: 'version'; version: AppVersion }
  | { kind: 'more' }
  | { kind: 'sync' }
  | { kind: 'enter' }
  | { kind: 'none' };
type VersionItem = ValueItem<VersionChoice>;

function stageIcon(v: AppVersion): string {
  if (v.stage === undefined || v.stage === 'completed') return '$(git-commit)';
  return v.stage === 'failed' ? '$(error)' : '$(sync)';
}

/** Across visits of the version steps: where the list opens after "Load more…". */
export interface VersionStepState {
  /** The newest of the versions the last "Load more…" added. */
  added?: string;
}

/** The label of a side's branch: its known label (a code review's), else its name. */
function branchLabel(host: ReviewHost, branch: string): string {
  const known = host.branches(host.form.appId).find((b) => b.name === branch || b.label === branch);
  return known?.label ?? branch;
}

/** What of the side's branch is compared: the branch itself, one of its versions, a typed ID, or a sync first. */
export async function versionStep(host: ReviewHost, which: Which, state: VersionStepState): Promise<StepOutcome> {
  const f = host.form;
  const lists = host.versions;
  const branch = branchOf(f, which);
  if (branch === '') return { kind: 'back' };
  const current = (which === 'from' ? f.fromVersion : f.toVersion).trim();
  const otherSide = (which === 'from' ? f.toVersion : f.fromVersion).trim();
  const enter: VersionItem = { label: `$(edit) ${l10n.t('Enter a version ID…')}`, value: { kind: 'enter' }, alwaysShow: true };
  const toItems = (list: VersionList): VersionItem[] => {
    const ready = list.versions.some(isReady);
    const items: VersionItem[] = [];
    if (ready && branch !== otherSide) {
      items.push({ label: `$(git-branch) ${branchShown({ name: branch, label: branchLabel(host, branch) })}`, description: l10n.t('the branch: its newest synced version when the review starts'), value: { kind: 'branch' } });
    }
    for (const v of list.versions.filter((x) => x.versionId !== otherSide)) {
      const row = versionRow(v, l10n, (ms) => new Date(ms).toLocaleString());
      items.push({ label: `${stageIcon(v)} ${row.label}`, description: row.description, detail: row.detail, value: { kind: 'version', version: v } });
    }
    if (list.nextCursor !== undefined) items.push({ label: `$(chevron-down) ${l10n.t('Load more…')}`, description: l10n.t('older versions'), value: { kind: 'more' }, alwaysShow: true });
    if (list.versions.length === 0) items.push({ label: l10n.t('No synced versions'), description: l10n.t('on {0}', branch), value: { kind: 'none' } });
    items.push({
      label: `$(sync) ${l10n.t('Sync branch {0}', branch)}`,
      description: ready ? l10n.t('store its current state as a new version, then compare that') : l10n.t('it has no synced version yet: store its current state, then compare that'),
      value: { kind: 'sync' }, alwaysShow: true,
    });
    items.push(enter);
    return items;
  };
  const active = (items: readonly VersionItem[], list: VersionList | undefined): VersionItem | undefined => {
    const added = state.added;
    state.added = undefined;
    const byId = (id: string | undefined): VersionItem | undefined => (id === undefined || id === '' ? undefined
      : items.find((i) => i.value.kind === 'version' && i.value.version.versionId === id));
    const newestReady = items.find((i) => i.value.kind === 'version' && isReady(i.value.version));
    // Versions A and B compare version IDs only; their version items carry the file fields C dropped.
    const idsOnly = list?.versions.some((v) => v.fileSha256 !== undefined || v.fileSizeBytes !== undefined) === true;
    return byId(added)
      ?? (current === branch ? items.find((i) => i.value.kind === 'branch') : byId(current))
      ?? (idsOnly ? newestReady : undefined)
      ?? items.find((i) => i.value.kind === 'branch')
      ?? items.find((i) => i.value.kind === 'sync')
      ?? items[0];
  };
  const loaded = lists.peek(f.appId, branch);
  // Nothing to accept while the list is read: Enter then would take an item about to be replaced.
  const items = loaded ? toItems(loaded) : [];
  const placeholder = which === 'from'
    ? l10n.t('Source on {0}: the branch itself, or one of its versions (newest first)', branch)
    : l10n.t('Target on {0}: the branch itself, or one of its versions (newest first)', branch);
  const update = loaded ? undefined : lists.get(f.appId, branch).then(
    (list): PickUpdate<VersionItem> => {
      const fresh = toItems(list);
      return { items: fresh, active: active(fresh, list) };
    },
    (err: unknown): PickUpdate<VersionItem> => ({ items: [enter], active: enter, placeholder: l10n.t('The versions of {0} could not be read: {1}', branch, host.describeError(err)) }),
  );
  const r = await host.parts.showPick<VersionItem>({
    ...host.common(which === 'from' ? l10n.t('Source') : l10n.t('Target')),
    placeholder, items, active: active(items, loaded), matchOnDescription: true, matchOnDetail: true, update,
  });
  const plain = host.plain(r);
  if (plain) return plain;
  if (r.kind !== 'accept') return { kind: 'stay' };
  const choice = r.value.value;
  switch (choice.kind) {
    case 'none':
      return { kind: 'stay' };
    case 'more': {
      const before = new Set(lists.peek(f.appId, branch)?.versions.map((v) => v.versionId));
      try {
        const list = await lists.more(f.appId, branch);
        state.added = list.versions.find((v) => !before.has(v.versionId))?.versionId;
      } catch (err) {
        void vscode.window.showWarningMessage(l10n.t('More versions could not be read: {0}', host.describeError(err)));
      }
      return { kind: 'stay' };
    }
    case 'sync':
      return syncThen(host, which, branch, await host.syncBranch(f.appId, branch));
    case 'enter':
      return enterVersion(host, which);
    case 'branch':
      setVersion(f, which, branch, branchLabel(host, branch));
      return { kind: 'next' };
    case 'version':
      setVersion(f, which, choice.version.versionId, versionShown(choice.version.versionId, choice.version.versionDisplay));
      return { kind: 'next' };
  }
}

/**
 * After "Sync branch": the versions are read again; a completed sync's new version is what this
 * side compares, and the form goes on. Otherwise (said to the person already) the step stays.
 */
function syncThen(host: ReviewHost, which: Which, branch: string, result: BranchSyncResult): StepOutcome {
  const f = host.form;
  host.versions.forget(f.appId, branch);
  if (result.kind !== 'completed') return { kind: 'stay' };
  if (result.versionId === undefined) return { kind: 'stay' };
  setVersion(f, which, result.versionId, l10n.t('{0} (synced now)', branchLabel(host, branch)));
  return { kind: 'next' };
}

/** "Enter a version ID…": Back returns to the list. */
async function enterVersion(host: ReviewHost, which: Which): Promise<StepOutcome> {
  const f = host.form;
  const label = which === 'from' ? l10n.t('Source') : l10n.t('Target');
  const current = which === 'from' ? f.fromVersion : f.toVersion;
  const r = await host.parts.showInput({
    ...host.common(label),
    value: current,
    prompt: l10n.t('A version ID (versionId) of the app, as the service lists it.'),
    placeholder: 'ver_…',
    validate: (v) => checkVersionId(v, which, l10n),
  });
  if (r.kind === 'back') return { kind: 'stay' };
  const plain = host.plain(r);
  if (plain) return plain;
  if (r.kind !== 'accept') return { kind: 'stay' };
  setVersion(f, which, r.value.trim(), undefined);
  return { kind: 'next' };
}
