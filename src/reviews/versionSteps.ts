/**
 * The code review form's branch and version steps: `GET /versions` read page by page (newest
 * first, "Load more…" while the service has a `nextCursor`), narrowed to a branch with
 * `version=`, each version with its label, date and sync stage; "Enter a version ID…" takes an
 * id as typed. The pages read are kept for the whole form, so Back and Edit do not read them again.
 */
import * as vscode from 'vscode';
import type { AgentRunsApi } from '../api/contract';
import type { AppVersion } from '../api/reviewTypes';
import type { StepOutcome, ValueItem } from '../launch/formSteps';
import type { PickUpdate } from '../launch/quickInput';
import { checkVersion, versionShown, type ReviewForm } from '../core/reviews/form';
import { addVersionPage, branchesOf, defaultVersion, versionRow, type VersionList } from '../core/reviews/versions';
import type { ReviewHost } from './startFlow';

const l10n = vscode.l10n;

/** The versions read so far, per app and branch. A page that failed is read again on the next visit. */
export class VersionLists {
  private readonly lists = new Map<string, { promise: Promise<VersionList>; value?: VersionList }>();

  constructor(private readonly client: Pick<AgentRunsApi, 'listVersions'>) {}

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

  private read(appId: string, branch: string, before: VersionList | undefined): Promise<VersionList> {
    const key = VersionLists.key(appId, branch);
    const query = { ...(branch.trim() !== '' ? { version: branch.trim() } : {}), ...(before?.nextCursor !== undefined ? { cursor: before.nextCursor } : {}) };
    const entry: { promise: Promise<VersionList>; value?: VersionList } = {
      promise: this.client.listVersions(appId.trim(), query).then((page) => {
        entry.value = addVersionPage(before, page);
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

type VersionChoice = { kind: 'version'; version: AppVersion } | { kind: 'more' } | { kind: 'enter' } | { kind: 'none' };
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

export async function versionStep(host: ReviewHost, which: 'from' | 'to', state: VersionStepState): Promise<StepOutcome> {
  const f = host.form;
  const lists = host.versions;
  const current = which === 'from' ? f.fromVersion : f.toVersion;
  const enter: VersionItem = { label: `$(edit) ${l10n.t('Enter a version ID…')}`, value: { kind: 'enter' }, alwaysShow: true };
  const toItems = (list: VersionList): VersionItem[] => {
    const shown = list.versions.filter((v) => which === 'from' || v.versionId !== f.fromVersion.trim());
    const items: VersionItem[] = shown.map((v) => {
      const row = versionRow(v, l10n, (ms) => new Date(ms).toLocaleString());
      return { label: `${stageIcon(v)} ${row.label}`, description: row.description, detail: row.detail, value: { kind: 'version', version: v } };
    });
    if (list.nextCursor !== undefined) items.push({ label: `$(chevron-down) ${l10n.t('Load more…')}`, description: l10n.t('older versions'), value: { kind: 'more' }, alwaysShow: true });
    if (shown.length === 0) items.unshift({ label: l10n.t('No versions listed'), description: f.branch.trim() !== '' ? l10n.t('on {0}', f.branch.trim()) : '', value: { kind: 'none' } });
    items.push(enter);
    return items;
  };
  const active = (items: readonly VersionItem[]): VersionItem | undefined => {
    const idOf = (i: VersionItem): string | undefined => (i.value.kind === 'version' ? i.value.version.versionId : undefined);
    const versions = items.flatMap((i) => (i.value.kind === 'version' ? [i.value.version] : []));
    const added = state.added;
    state.added = undefined;
    const wanted = [added, current.trim(), defaultVersion(versions, which, f.fromVersion)];
    for (const id of wanted) {
      const found = id !== undefined && id !== '' ? items.find((i) => idOf(i) === id) : undefined;
      if (found) return found;
    }
    return items[0];
  };
  const loaded = lists.peek(f.appId, f.branch);
  // Nothing to accept while the list is read: Enter then would take an item about to be replaced.
  const items = loaded ? toItems(loaded) : [];
  const placeholder = which === 'from'
    ? l10n.t('The version the compared changes start from (newest first)')
    : l10n.t('The version the compared changes end at (newest first)');
  const update = loaded ? undefined : lists.get(f.appId, f.branch).then(
    (list): PickUpdate<VersionItem> => {
      const fresh = toItems(list);
      return { items: fresh, active: active(fresh) };
    },
    (err: unknown): PickUpdate<VersionItem> => ({ items: [enter], active: enter, placeholder: l10n.t('The versions could not be read: {0}', host.describeError(err)) }),
  );
  const r = await host.parts.showPick<VersionItem>({
    ...host.common(which === 'from' ? l10n.t('From version') : l10n.t('To version')),
    placeholder, items, active: active(items), matchOnDescription: true, matchOnDetail: true, update,
  });
  const plain = host.plain(r);
  if (plain) return plain;
  if (r.kind !== 'accept') return { kind: 'stay' };
  const choice = r.value.value;
  switch (choice.kind) {
    case 'none':
      return { kind: 'stay' };
    case 'more': {
      const before = new Set(lists.peek(f.appId, f.branch)?.versions.map((v) => v.versionId));
      try {
        const list = await lists.more(f.appId, f.branch);
        state.added = list.versions.find((v) => !before.has(v.versionId))?.versionId;
      } catch (err) {
        void vscode.window.showWarningMessage(l10n.t('More versions could not be read: {0}', host.describeError(err)));
      }
      return { kind: 'stay' };
    }
    case 'enter':
      return enterVersion(host, which);
    case 'version':
      setVersion(f, which, choice.version.versionId, versionShown(choice.version.versionId, choice.version.versionDisplay));
      return { kind: 'next' };
  }
}

function setVersion(f: ReviewForm, which: 'from' | 'to', id: string, label: string | undefined): void {
  if (which === 'from') {
    f.fromVersion = id;
    f.fromVersionLabel = label;
  } else {
    f.toVersion = id;
    f.toVersionLabel = label;
  }
}

/** "Enter a version ID…": Back returns to the list. */
async function enterVersion(host: ReviewHost, which: 'from' | 'to'): Promise<StepOutcome> {
  const f = host.form;
  const label = which === 'from' ? l10n.t('From version') : l10n.t('To version');
  const current = which === 'from' ? f.fromVersion : f.toVersion;
  const r = await host.parts.showInput({
    ...host.common(label),
    value: current,
    prompt: l10n.t('A version ID (versionId) of the app, as the service lists it.'),
    placeholder: 'ver_…',
    validate: (v) => checkVersion(v, which, l10n),
  });
  if (r.kind === 'back') return { kind: 'stay' };
  const plain = host.plain(r);
  if (plain) return plain;
  if (r.kind !== 'accept') return { kind: 'stay' };
  setVersion(f, which, r.value.trim(), undefined);
  return { kind: 'next' };
}

/** The branch the version lists are narrowed to: every branch, one the versions show, or one typed. */
export async function branchStep(host: ReviewHost): Promise<StepOutcome> {
  const f = host.form;
  const all: ValueItem<string> = { label: `$(list-flat) ${l10n.t('All branches')}`, description: l10n.t('versions of every branch'), value: '' };
  const toItems = (list: VersionList | undefined): Array<ValueItem<string>> => {
    const branches = branchesOf(list?.versions ?? []);
    if (f.branch.trim() !== '' && !branches.includes(f.branch.trim())) branches.unshift(f.branch.trim());
    return [all, ...branches.map((b) => ({ label: `$(git-branch) ${b}`, value: b }))];
  };
  const pick = (items: ReadonlyArray<ValueItem<string>>): ValueItem<string> | undefined => items.find((i) => i.value === f.branch.trim());
  const loaded = host.versions.peek(f.appId, '');
  const items = toItems(loaded);
  const update = loaded ? undefined : host.versions.get(f.appId, '').then(
    (list): PickUpdate<ValueItem<string>> => {
      const fresh = toItems(list);
      return { items: fresh, active: pick(fresh) };
    },
    (err: unknown): PickUpdate<ValueItem<string>> => ({ items, placeholder: l10n.t('The versions could not be read: {0}', host.describeError(err)) }),
  );
  const r = await host.parts.showPick<ValueItem<string>>({
    ...host.common(l10n.t('Branch')),
    placeholder: l10n.t('Narrow the versions to a branch (optional), or type a branch ID or label'),
    items, active: pick(items), update,
    typedItem: (value) => (/\s/.test(value) ? undefined : { label: `$(git-branch) ${value}`, description: l10n.t('Use this branch'), value, alwaysShow: true }),
  });
  const plain = host.plain(r);
  if (plain) return plain;
  if (r.kind !== 'accept') return { kind: 'stay' };
  f.branch = r.value.value;
  return { kind: 'next' };
}
