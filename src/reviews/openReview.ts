/**
 * "Open Code Review": a review's conversation in the run panel, the review above it. A review whose
 * conversation is not listed yet is read once, listed as tracked and remembered as known, so its row
 * (version C lists reviews without IDs) can open it.
 */
import * as vscode from 'vscode';
import type { CodeReviewDetail } from '../api/reviewTypes';
import { knownFromDetail, reviewPrompt } from '../run/common/reviews';
import type { Deps } from '../run/deps';
import { rememberKnownReview } from '../run/knownReviews';

interface OpenArgs {
  reviewId: string;
  appId?: string;
  agentId?: string;
  title?: string;
}

export const ID = /^[A-Za-z0-9._:-]{1,200}$/;

function argsOf(arg: unknown): OpenArgs | undefined {
  if (typeof arg === 'string') return ID.test(arg.trim()) ? { reviewId: arg.trim() } : undefined;
  if (arg === null || typeof arg !== 'object') return undefined;
  const o = arg as Record<string, unknown>;
  const s = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
  const reviewId = s(o.reviewId);
  if (reviewId === undefined || !ID.test(reviewId)) return undefined;
  const out: OpenArgs = { reviewId };
  const appId = s(o.appId);
  const agentId = s(o.agentId);
  const title = s(o.title);
  if (appId !== undefined) out.appId = appId;
  if (agentId !== undefined && ID.test(agentId)) out.agentId = agentId;
  if (title !== undefined) out.title = title;
  return out;
}

export async function askForId(title = vscode.l10n.t('Open Code Review')): Promise<OpenArgs | undefined> {
  const value = await vscode.window.showInputBox({
    title,
    prompt: vscode.l10n.t('The ID of a code review of this service (reviewId), as the Runs view or the service shows it.'),
    placeHolder: 'rev_…',
    ignoreFocusOut: true,
    validateInput: (v) => (ID.test(v.trim()) ? undefined : vscode.l10n.t('A review ID has letters, digits, "-", "_", "." or ":", and no spaces.')),
  });
  return value === undefined ? undefined : argsOf(value);
}

/** The conversation the review's `agentId` names, listed (if it was not) and opened. */
export async function openCodeReviewCommand(deps: Deps, arg?: unknown): Promise<boolean | undefined> {
  const args = argsOf(arg) ?? (arg === undefined ? await askForId() : undefined);
  if (!args) {
    if (arg !== undefined) void vscode.window.showWarningMessage(vscode.l10n.t('That is not a code review: open one from the Runs view, or give its review ID.'));
    return undefined;
  }
  const ledger = deps.ledger();
  const listed = ledger.all().find((r) => r.reviewId === args.reviewId || (args.agentId !== undefined && r.agentId === args.agentId));
  if (listed) {
    await deps.openRun(listed.agentId);
    return true;
  }
  const client = await deps.getClient();
  if (!client) return false;
  try {
    const detail = await vscode.window.withProgress(
      { location: { viewId: 'agentRuns.runs' }, title: vscode.l10n.t('Reading code review {0}…', args.reviewId) },
      () => client.getCodeReview(args.reviewId, { historyLimit: 1 }),
    );
    await rememberKnownReview(deps.globalState, client.baseUrl, knownFromDetail(detail, args.appId));
    return await showReadReview(deps, ledger, detail, args);
  } catch (e) {
    const retry = vscode.l10n.t('Try Again');
    if ((await deps.showApiError(e, [retry])) === retry) return openCodeReviewCommand(deps, args);
    return false;
  }
}

/** A review just read: its conversation listed as a tracked code review (unless it is) and opened. */
export async function showReadReview(deps: Deps, ledger: ReturnType<Deps['ledger']>, detail: CodeReviewDetail, args: { appId?: string; title?: string }): Promise<boolean> {
  const agent = detail.agent;
  if (!agent) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Code review {0} has no conversation to show yet. Try again in a moment.', detail.reviewId));
    return false;
  }
  if (deps.ledger() !== ledger) return false; // the base URL changed meanwhile
  const listed = ledger.all().find((r) => r.reviewId === detail.reviewId || r.agentId === agent.agentId);
  if (!listed) {
    const r = detail.review;
    ledger.upsert({
      agentId: agent.agentId,
      source: 'tracked',
      status: agent.status ?? 'queued',
      kind: 'code_review',
      reviewId: detail.reviewId,
      appId: agent.appId ?? args.appId,
      prompt: reviewPrompt({ ...r, title: r.title ?? args.title }, vscode.l10n),
      ...(r.model !== undefined ? { model: r.model } : {}),
    });
    ledger.applyAgent({ ...agent, kind: agent.kind ?? 'code_review', reviewId: agent.reviewId ?? detail.reviewId });
  }
  await deps.openRun(listed?.agentId ?? agent.agentId);
  return true;
}
