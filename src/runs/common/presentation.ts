/** How a run looks in the tree, as plain data so it is unit-tested without `vscode`; runsTree.ts makes the TreeItem. */
import { runState, runTime, type LedgerEntry } from '../../run/common/ledger/ledger';
import type { L10n } from '../../base/common/l10n';
import { LABEL_MAX, plain, statusText, type IconSpec, type RowPresentation } from '../../run/common/rows';
import { formatAge, formatDuration, formatTimestamp } from '../../base/common/time';

/** A run's row: the description short, so a narrow side bar shows the label (the run's title) whole. */
export interface RunRowPresentation extends RowPresentation {
  /** The status in words, for screen readers and picks (on the row, the icon says it). */
  status: string;
}

/** The first non-empty line of the prompt, shortened; falls back to the agent ID. */
export function runLabel(r: LedgerEntry, l10n: L10n, max = LABEL_MAX): string {
  const line = (r.prompt ?? '').split(/\r?\n/).map((s) => plain(s, Number.MAX_SAFE_INTEGER)).find((s) => s.length > 0);
  if (!line) {
    return l10n.t('Run {0}', plain(r.agentId, max));
  }
  return line.length > max ? `${cutAt(line, max - 1).trimEnd()}…` : line;
}

export function statusIcon(status: string): IconSpec {
  switch (status) {
    case 'queued':
      return { id: 'clock', color: 'charts.yellow' };
    case 'running':
      return { id: 'loading~spin' };
    case 'completed':
      return { id: 'pass', color: 'testing.iconPassed' };
    case 'error':
      return { id: 'error', color: 'testing.iconFailed' };
    default:
      return { id: 'question' };
  }
}

/**
 * Capability tokens matched by the menus' regex `when` clauses, e.g.
 * `run;active;followup;` or `run;terminal;followup;unread;`.
 */
export function runContextValue(r: LedgerEntry): string {
  const state = runState(r);
  let v = 'run;';
  v += state.finished ? 'terminal;' : 'active;';
  // The service takes follow-ups for any REST-created run, finished or not; not for a code review's.
  if (state.takesFollowUps) {
    v += 'followup;';
  }
  // A code review's conversation: its listed prompt is our name for the review, nothing to clone.
  if (state.codeReview) {
    v += 'review;';
  }
  if (r.unread) {
    v += 'unread;';
  }
  if (r.pollError !== undefined) {
    v += 'stale;';
  }
  return v;
}

export function presentRun(r: LedgerEntry, now: number, l10n: L10n): RunRowPresentation {
  // The run's one state (runState.ts): an unsettled follow-up outranks a stale `completed`.
  const state = runState(r);
  // The row's room goes to the label (the run's title): the description is the age, and the
  // status only where the icon does not tell it. Model, app and the rest are in the tooltip.
  const status = statusText(state.status, l10n);
  const parts: string[] = [];
  if (state.codeReview) {
    parts.push(l10n.t('code review'));
  }
  if (statusIcon(state.status).id === 'question') {
    parts.push(status);
  }
  parts.push(formatAge(runTime(r), now, l10n));
  // Unread shows as a badge at the row's edge (runDecorations.ts), not here.
  let description = parts.join(' · ');
  if (r.pollError !== undefined) {
    description += ` · ${l10n.t('stale')}`;
  }

  const details: Array<[string, string]> = [];
  const add = (label: string, value: string | number | undefined): void => {
    const text = value === undefined ? '' : plain(String(value));
    if (text !== '') {
      details.push([label, text]);
    }
  };
  add(l10n.t('Status'), status);
  if (state.codeReview) {
    add(l10n.t('Kind'), l10n.t('code review (takes no follow-ups)'));
    add(l10n.t('Review'), r.reviewId);
  }
  if (state.followUp) {
    add(l10n.t('Follow-up'), state.followUp.arrived ? l10n.t('arrived; waiting for its turn to end') : l10n.t('sent; the service does not show it yet'));
  }
  add(l10n.t('App'), r.projectName ? `${r.projectName} (${r.appId ?? '?'})` : r.appId);
  add(l10n.t('Model'), r.model);
  add(l10n.t('Reasoning effort'), r.reasoningEffort);
  add(l10n.t('Permission'), r.permission === 'allow_edits' ? l10n.t('allow edits') : r.permission === 'read_only' ? l10n.t('read only') : r.permission);
  add(l10n.t('Branches'), r.permittedBranches && r.permittedBranches.length > 0 ? r.permittedBranches.join(', ') : undefined);
  add(l10n.t('Conversation'), r.conversationState);
  add(l10n.t('Sandbox'), r.sandboxState);
  add(l10n.t('Queued turns'), r.queuedTurnCount);
  add(l10n.t('Created'), r.createdAt !== undefined ? formatTimestamp(r.createdAt) : undefined);
  add(l10n.t('Updated'), r.updatedAt !== undefined ? formatTimestamp(r.updatedAt) : undefined);
  if (state.completedAt !== undefined) {
    const took = r.createdAt !== undefined ? ` (${formatDuration(state.completedAt - r.createdAt, l10n)})` : '';
    add(l10n.t('Finished'), formatTimestamp(state.completedAt) + took);
  }
  add(l10n.t('Last checked'), r.lastCheckedAt !== undefined ? formatTimestamp(r.lastCheckedAt) : undefined);
  add(l10n.t('Agent ID'), r.agentId);

  const warnings: string[] = [];
  if (r.lastError && !state.followUp) {
    warnings.push(l10n.t('Last error: {0}', plain(r.lastError)));
  }
  if (r.pollError !== undefined) {
    warnings.push(
      r.lastCheckedAt !== undefined
        ? l10n.t('Could not refresh (shown as of {0}): {1}', formatTimestamp(r.lastCheckedAt), plain(r.pollError))
        : l10n.t('Could not refresh: {0}', plain(r.pollError)),
    );
  }

  return {
    label: runLabel(r, l10n),
    description,
    status,
    icon: statusIcon(state.status),
    contextValue: runContextValue(r),
    details,
    warnings,
  };
}

export interface AppGroup {
  /** `appId`, or '' for runs whose app is not known yet. */
  key: string;
  label: string;
  description?: string;
  runs: LedgerEntry[];
}

/**
 * Groups runs by app, newest first. `alwaysApp` (the configured app, while code reviews are
 * served) gets a group even with no run, last, so its reviews can be found.
 */
export function groupByApp(runs: readonly LedgerEntry[], l10n: L10n, alwaysApp?: string): AppGroup[] {
  const groups = new Map<string, AppGroup>();
  const sorted = [...runs].sort((a, b) => runTime(b) - runTime(a));
  for (const r of sorted) {
    const key = r.appId ?? '';
    let g = groups.get(key);
    if (!g) {
      g = { key, label: key === '' ? l10n.t('Unknown app') : plain(key, LABEL_MAX), runs: [] };
      groups.set(key, g);
    }
    if (r.projectName && g.description === undefined && key !== '') {
      g.label = plain(r.projectName, LABEL_MAX);
      g.description = plain(key, LABEL_MAX);
    }
    g.runs.push(r);
  }
  if (alwaysApp && !groups.has(alwaysApp)) {
    groups.set(alwaysApp, { key: alwaysApp, label: plain(alwaysApp, LABEL_MAX), runs: [] });
  }
  return [...groups.values()];
}

/** The first `n` UTF-16 units of `text`, without cutting a surrogate pair in half. */
function cutAt(text: string, n: number): string {
  const code = text.charCodeAt(n - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}
