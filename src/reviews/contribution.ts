// Code reviews' commands and the Runs view's review rows, registered at activation; their code is dist/reviews.js.
import * as vscode from 'vscode';
import { lazyBundle } from '../base/common/lazyBundle';
import { guarded } from '../base/guarded';
import type { Capabilities } from '../connection/capabilities';
import type { Deps } from '../run/deps';
import type { AppRowsHost } from '../run/appRows';
import type * as ReviewsBundle from './bundle';
import type { ReviewParts } from './startFlow';
import { codeReviewsFlag, type CodeReviewsBase, type ReviewsGate } from './gate';

/** The start flow, opening a review, the review rows (./bundle.ts): the first use of one of them. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const reviewsBundle = lazyBundle(() => require('./reviews.js') as typeof ReviewsBundle);

/** "Start Code Review…", opening and tracking a review; `parts`: what the form borrows from dist/launch.js (src/extension.ts passes it). */
export function registerStartCodeReview(context: vscode.ExtensionContext, deps: Deps, parts: () => ReviewParts): void {
  context.subscriptions.push(vscode.commands.registerCommand('agentRuns.startCodeReview',
    guarded(deps.log, vscode.l10n.t('Start Code Review'), (arg) => reviewsBundle().startCodeReviewCommand(deps, arg, parts()))),
  // A review's conversation in the run panel, the review above it (src/reviews/openReview.ts).
  vscode.commands.registerCommand('agentRuns.openCodeReview', (arg?: unknown) => reviewsBundle().openCodeReviewCommand(deps, arg)),
  // A review listed without its ID (version C): src/reviews/trackReview.ts.
  vscode.commands.registerCommand('agentRuns.trackCodeReview', (arg?: unknown) => reviewsBundle().trackCodeReviewCommand(deps, arg)));
}

/** The gate and the commands of the Runs view's review rows; `view()` builds the view (and the run model). */
export function registerCodeReviews(context: vscode.ExtensionContext, view: () => { readonly provider: AppRowsHost }, caps: Capabilities): ReviewsGate {
  const gate = codeReviewsFlag(caps);
  context.subscriptions.push(
    gate,
    vscode.commands.registerCommand('agentRuns.refreshCodeReviews', (arg?: unknown) => view().provider.rowsOf('codeReview')?.refresh(arg)),
    vscode.commands.registerCommand('agentRuns.copyReviewId', (arg?: unknown) => reviewsBundle().copyReviewId(arg)),
  );
  return gate;
}

/** The Runs view's review rows, from when the view is built (dist/reviews.js loads when they first show). */
export function showReviewRows(view: { readonly provider: AppRowsHost }, gate: ReviewsGate, b: CodeReviewsBase, log: vscode.LogOutputChannel): void {
  const provider = view.provider;
  provider.showRows('codeReview', gate, () => new (reviewsBundle().ReviewRows)(b, () => provider.refreshAll(), log));
}
