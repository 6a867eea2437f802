/**
 * The branches of an app the extension knows: the service lists none (version C requires one on
 * `GET /versions`), so they are gathered from versions, reviews, test runs and the setting, remembered
 * per service and app, and ordered most recently used first. Pure.
 */
import type { AppVersion, CodeReviewLists } from '../../../api/reviewTypes';

/** Where the extension saw a branch. */
export type BranchSource = 'used' | 'settings' | 'versions' | 'reviews' | 'testRuns';

/** A branch as offered: its id (or the name it was seen by) and its label when known. */
export interface KnownBranch {
  name: string;
  label?: string;
  sources: BranchSource[];
  /** When it was last picked (Unix ms). */
  usedAt?: number;
}

/** One sighting of a branch. */
export interface BranchSeen {
  name: string;
  label?: string;
  source: BranchSource;
  usedAt?: number;
}

/** Remembered per service and app, at most (the most recently used and seen kept). */
export const KNOWN_BRANCHES_MAX = 40;
const NAME_MAX = 200;

/** The global-state key of an app's known branches on a service. */
export function knownBranchesKey(baseUrl: string, appId: string): string {
  return `agentRuns.branches.v1:${baseUrl}:${appId}`;
}

const SOURCES: readonly BranchSource[] = ['used', 'settings', 'versions', 'reviews', 'testRuns'];

/** A usable branch name: one line, no more than 200 characters. */
export function branchName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.trim();
  return v !== '' && v.length <= NAME_MAX && !/[\r\n]/.test(v) ? v : undefined;
}

/** The remembered branches from stored JSON; anything malformed is left out. Never throws. */
export function reviveKnownBranches(raw: unknown): KnownBranch[] {
  if (!Array.isArray(raw)) return [];
  const out: KnownBranch[] = [];
  for (const v of raw as unknown[]) {
    if (typeof v !== 'object' || v === null) continue;
    const o = v as Record<string, unknown>;
    const name = branchName(o.name);
    if (name === undefined) continue;
    const b: KnownBranch = { name, sources: Array.isArray(o.sources) ? SOURCES.filter((s) => (o.sources as unknown[]).includes(s)) : [] };
    const label = branchName(o.label);
    if (label !== undefined && label !== name) b.label = label;
    if (typeof o.usedAt === 'number' && Number.isFinite(o.usedAt)) b.usedAt = o.usedAt;
    out.push(b);
  }
  return out;
}

const names = (b: { name: string; label?: string }): string[] => (b.label !== undefined ? [b.name, b.label] : [b.name]);

/**
 * Merges sightings into `known`: one naming a known branch's name or label is that branch; one from
 * versions or with a label names the branch's id, so it renames a branch known only by its label.
 */
export function mergeBranches(known: readonly KnownBranch[], seen: readonly BranchSeen[]): KnownBranch[] {
  const out = known.map((b) => ({ ...b, sources: [...b.sources] }));
  for (const s of seen) {
    const name = branchName(s.name);
    if (name === undefined) continue;
    const label = branchName(s.label);
    const sighting = { name, label: label !== name ? label : undefined };
    const same = out.filter((b) => names(b).some((n) => names(sighting).includes(n)));
    let target = same[0];
    if (target === undefined) {
      target = { name, sources: [] };
      out.push(target);
    } else {
      // Two known entries that turn out to be one branch (its id and its label) become one.
      for (const other of same.slice(1)) {
        target.sources = [...new Set([...target.sources, ...other.sources])];
        target.usedAt = Math.max(target.usedAt ?? -Infinity, other.usedAt ?? -Infinity);
        if (!Number.isFinite(target.usedAt)) delete target.usedAt;
        target.label ??= other.label ?? (other.name !== target.name ? other.name : undefined);
        out.splice(out.indexOf(other), 1);
      }
      if (target.name !== name && (s.source === 'versions' || target.name === sighting.label)) {
        // The versions' `version` is the branch's id, as is a name seen with its label; what was known may have been the label.
        target.label ??= target.name;
        target.name = name;
      }
    }
    if (sighting.label !== undefined && sighting.label !== target.name) target.label = sighting.label;
    if (target.label === target.name) delete target.label;
    if (!target.sources.includes(s.source)) target.sources.push(s.source);
    if (s.usedAt !== undefined && (target.usedAt === undefined || s.usedAt > target.usedAt)) target.usedAt = s.usedAt;
  }
  return out;
}

/**
 * The order branches are offered in: used most recently first, then those of the setting (in
 * its order), then the rest in the order they were first seen. `settings`: the setting's names.
 */
export function orderBranches(branches: readonly KnownBranch[], settings: readonly string[] = []): KnownBranch[] {
  const rank = (b: KnownBranch): number => {
    const i = settings.findIndex((n) => names(b).includes(n.trim()));
    return i < 0 ? settings.length : i;
  };
  return branches.map((b, i) => ({ b, i }))
    .sort((x, y) => (y.b.usedAt ?? -Infinity) - (x.b.usedAt ?? -Infinity) || rank(x.b) - rank(y.b) || x.i - y.i)
    .map((x) => x.b);
}

/** What is stored: the most recently used and then the first seen, bounded. */
export function branchesToRemember(branches: readonly KnownBranch[]): KnownBranch[] {
  const used = branches.filter((b) => b.usedAt !== undefined).sort((a, b) => (b.usedAt ?? 0) - (a.usedAt ?? 0));
  const rest = branches.filter((b) => b.usedAt === undefined);
  const keep = new Set([...used, ...rest].slice(0, KNOWN_BRANCHES_MAX));
  return branches.filter((b) => keep.has(b));
}

/**
 * The branches a page of versions names: `version`, the branch id. Not `versionDisplay`: the
 * documentation leaves open whether it labels the branch or the version ("Main #4").
 */
export function branchesFromVersions(versions: readonly AppVersion[]): BranchSeen[] {
  return versions.flatMap((v) => (v.version !== undefined ? [{ name: v.version, source: 'versions' as const }] : []));
}

/**
 * The branches an app's code reviews name. Version C items (no `id`) keep what was sent, a branch or a
 * version id, with the branch's label: the label is taken, the value only without one and when it is no
 * version id known here. Items of versions A and B compare version ids: they name no branch.
 */
export function branchesFromReviews(lists: CodeReviewLists, versionIds: ReadonlySet<string> = new Set()): BranchSeen[] {
  const out: BranchSeen[] = [];
  for (const r of [...lists.open, ...lists.merged, ...lists.closed]) {
    if (r.id !== undefined) continue;
    for (const [value, label] of [[r.fromVersion, r.fromVersionLabel], [r.toVersion, r.toVersionLabel]] as const) {
      if (label !== undefined) out.push({ name: label, source: 'reviews' });
      else if (value !== undefined && !versionIds.has(value)) out.push({ name: value, source: 'reviews' });
    }
  }
  return out;
}

/** The label a branch is shown with: "label (id)" when both are known. */
export function branchShown(b: { name: string; label?: string }): string {
  return b.label !== undefined && b.label !== b.name ? `${b.label} (${b.name})` : b.name;
}

/** A branch that is the app's main one by its name (for the target a feature branch is compared with). */
export function isMainBranch(b: { name: string; label?: string }): boolean {
  return names(b).some((n) => /^(main|master)$/i.test(n.trim()));
}

