/**
 * "Start Code Review…" registered at activation; its body is the code reviews bundle
 * (dist/reviews.js, src/reviews/startReview.ts), which borrows the launch form's parts from
 * dist/launch.js (src/launch/reviewParts.ts). Both load on the first call.
 */
import * as vscode from 'vscode';
import { guarded } from '../launch/register';
import { loadLaunch } from '../launch/load';
import type { Deps } from '../run/deps';
import { loadReviews } from './load';

export function registerStartCodeReview(context: vscode.ExtensionContext, deps: Deps): void {
  context.subscriptions.push(vscode.commands.registerCommand('agentRuns.startCodeReview',
    guarded(deps, vscode.l10n.t('Start Code Review'), (arg) => loadReviews().startCodeReviewCommand(deps, arg, loadLaunch().reviewParts))),
  // A review's conversation in the run panel, the review above it (src/reviews/openReview.ts).
  vscode.commands.registerCommand('agentRuns.openCodeReview', (arg?: unknown) => loadReviews().openCodeReviewCommand(deps, arg)),
  // A review listed without its ID (version C): src/reviews/trackReview.ts.
  vscode.commands.registerCommand('agentRuns.trackCodeReview', (arg?: unknown) => loadReviews().trackCodeReviewCommand(deps, arg)));
}
