/**
 * The versions a code review compares, as the form lists them: the pages of `GET /versions`
 * read so far (newest first, each version once) and how one version
 * reads in a list (the code review form), and which are ready (a service test's branch). Pure.
 */
import type { AppVersion, VersionPage } from '../../../api/reviewTypes';
import type { L10n } from '../../../base/common/l10n';

/** The versions read so far for one app and branch; `nextCursor` while there are more. */
export interface VersionList {
  versions: AppVersion[];
  nextCursor?: string;
}

/** Adds a page: versions not seen yet, newest first (a version without a time keeps its place after those with one). */
export function addVersionPage(list: VersionList | undefined, page: VersionPage): VersionList {
  const merged = [...(list?.versions ?? [])];
  const seen = new Set(merged.map((v) => v.versionId));
  for (const v of page.versions) {
    if (!seen.has(v.versionId)) merged.push(v);
    seen.add(v.versionId);
  }
  const order = new Map(merged.map((v, i) => [v.versionId, i]));
  merged.sort((a, b) => (b.createdAt ?? -Infinity) - (a.createdAt ?? -Infinity) || (order.get(a.versionId) ?? 0) - (order.get(b.versionId) ?? 0));
  return page.nextCursor !== undefined ? { versions: merged, nextCursor: page.nextCursor } : { versions: merged };
}

/** How a version is named: its `versionDisplay`, else its branch, else its id. */
export function versionName(v: AppVersion): string {
  return [v.versionDisplay, v.version, v.versionId].find((s): s is string => typeof s === 'string' && s.trim() !== '')?.trim() ?? v.versionId;
}

/** A version as a list row: its name; its date and sync stage; its last change and id. `date` formats a time. */
export function versionRow(v: AppVersion, l10n: L10n, date: (ms: number) => string): { label: string; description: string; detail: string } {
  const when = v.createdAt ?? v.syncedAt;
  const stage = v.stage ?? l10n.t('stage unknown');
  const description = [when !== undefined ? date(when) : undefined, v.stage === 'failed' && v.errorMessage ? `${stage}: ${v.errorMessage}` : stage]
    .filter((s): s is string => s !== undefined).join(' · ');
  // Version C sends `lastChange` as a number (a time, by its size), earlier versions as text.
  const change = typeof v.lastChange === 'number' ? date(v.lastChange) : v.lastChange?.trim() || undefined;
  const detail = [change, v.versionId].filter((s): s is string => s !== undefined).join(' · ');
  return { label: versionName(v), description, detail };
}

/** A version a review can compare: synced and indexed (or of a stage the service did not say). */
export function isReady(v: AppVersion): boolean {
  return v.stage === undefined || v.stage === 'completed';
}
