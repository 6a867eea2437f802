/**
 * "Track Code Review by ID…": version C lists code reviews without their ID, so a review not started
 * here opens from its row only once its `reviewId` is remembered (src/run/knownReviews.ts). An ID
 * whose review contradicts the row is remembered as itself, not tied to that row.
 */
import * as vscode from 'vscode';
import { runOwnCommand } from '../connection/ownCommands';
import { knownFromDetail, trackedMatchesRow, type KnownReview } from '../run/common/reviews';
import type { Deps } from '../run/deps';
import { rememberKnownReview } from '../run/knownReviews';
import { askForId, showReadReview } from './openReview';

const l10n = vscode.l10n;

/** A review row whose ID is not known (reviews/common/nodes.ts `trackArgs`). */
interface RowArgs {
  appId: string;
  sequence?: number;
  mergeId?: string;
  title?: string;
  fromRow: boolean;
}

function rowOf(arg: unknown): RowArgs | undefined {
  if (typeof arg !== 'object' || arg === null) return undefined;
  const o = arg as Record<string, unknown>;
  // A review row itself (its context menu) or the arguments its click passes.
  const src = typeof o.trackArgs === 'function' ? (o as { trackArgs(): unknown }).trackArgs() as Record<string, unknown> : o;
  if (typeof src.appId !== 'string' || src.appId.trim() === '') return undefined;
  const out: RowArgs = { appId: src.appId.trim(), fromRow: src.fromRow === true };
  if (typeof src.sequence === 'number' && Number.isSafeInteger(src.sequence)) out.sequence = src.sequence;
  if (typeof src.mergeId === 'string' && src.mergeId !== '') out.mergeId = src.mergeId;
  if (typeof src.title === 'string' && src.title.trim() !== '') out.title = src.title.trim();
  return out;
}

function rowName(row: RowArgs): string {
  const number = row.sequence !== undefined ? `#${row.sequence}` : l10n.t('This code review');
  return row.title !== undefined ? `${number} “${row.title}”` : number;
}

export async function trackCodeReviewCommand(deps: Deps, arg?: unknown): Promise<boolean> {
  const row = rowOf(arg);
  if (row?.fromRow === true) {
    const track = l10n.t('Track Code Review by ID…');
    const answer = await vscode.window.showInformationMessage(
      l10n.t('{0} of {1} cannot be opened here: the service lists code reviews without their ID, and this one was not started or tracked in this editor. If you know its review ID (the service shows it), track it by ID.', rowName(row), row.appId),
      track,
    );
    if (answer !== track) return false;
  }
  const asked = await askForId(l10n.t('Track Code Review by ID'));
  if (!asked) return false;
  const client = await deps.getClient();
  if (!client) return false;
  const ledger = deps.ledger();
  try {
    const detail = await vscode.window.withProgress(
      { location: { viewId: 'agentRuns.runs' }, title: l10n.t('Reading code review {0}…', asked.reviewId) },
      () => client.getCodeReview(asked.reviewId, { historyLimit: 1 }),
    );
    const read = knownFromDetail(detail, row?.appId);
    let known: KnownReview = read;
    if (row !== undefined) {
      if (trackedMatchesRow(read, row) && (read.appId === undefined || read.appId === row.appId)) {
        // The person tied this ID to that row; the read did not contradict it.
        known = { ...read, appId: row.appId, sequence: read.sequence ?? row.sequence, mergeId: read.mergeId ?? row.mergeId };
      } else {
        void vscode.window.showWarningMessage(l10n.t('Code review {0} is {1}, not the row {2}: it is tracked as itself, and that row stays without an ID.',
          detail.reviewId, detail.review.sequence !== undefined ? `#${detail.review.sequence}` : l10n.t('another review'), rowName(row)));
      }
    }
    await rememberKnownReview(deps.globalState, client.baseUrl, known);
    if (known.appId !== undefined) void runOwnCommand('agentRuns.refreshCodeReviews', { appId: known.appId });
    return await showReadReview(deps, ledger, detail, { appId: known.appId, title: row?.title });
  } catch (e) {
    const retry = l10n.t('Try Again');
    if ((await deps.showApiError(e, [retry])) === retry) return trackCodeReviewCommand(deps, row !== undefined ? { ...row, fromRow: false } : undefined);
    return false;
  }
}
