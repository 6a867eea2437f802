/**
 * `@agent-runs /reviews`: an app's code reviews or one review, in the read tools' words as
 * Markdown with every service text escaped. A service that lists no `/code-reviews` gets
 * "Not done: …" and no review request.
 */
import * as vscode from 'vscode';
import type { AgentRunsApi } from '../api/contract';
import type { Deps } from '../run/deps';
import { escapeMarkdown } from './common/format';
import { DEFAULT_REVIEW_TEXT_BOUNDS, blocksAsMarkdown, fitBlocks, reviewBlocks, reviewListBlocks, type TextBlock } from './common/reviewText';
import { DEFAULT_REVIEW_LIST_LIMIT } from './common/schemas';
import { reviewLabel } from '../run/common/reviews';
import { Refusal, clientOrRefuse, setting, signalOf } from './common';
import { requireCodeReviews, reviewIdsFor, reviewOfRun } from './reviewReads';

/** The panel helper's command; its argument as the Runs view's review rows pass it. */
export const OPEN_CODE_REVIEW = 'agentRuns.openCodeReview';
/** Reviews of a list offered as buttons at most (the newest open ones first). */
const MAX_BUTTONS = 5;

function openButton(stream: vscode.ChatResponseStream, reviewId: string, appId: string | undefined, title: string): void {
  stream.button({ command: OPEN_CODE_REVIEW, arguments: [appId !== undefined ? { reviewId, appId } : { reviewId }], title });
}

function write(stream: vscode.ChatResponseStream, blocks: readonly TextBlock[]): void {
  for (const part of blocksAsMarkdown(fitBlocks(blocks, DEFAULT_REVIEW_TEXT_BOUNDS.maxChars, vscode.l10n))) stream.markdown(`${part}\n\n`);
}

async function list(deps: Deps, client: AgentRunsApi, appId: string, stream: vscode.ChatResponseStream, signal: AbortSignal): Promise<void> {
  const limit = DEFAULT_REVIEW_LIST_LIMIT;
  // One more than shown: a list that brings it says that it had more.
  const lists = await client.listCodeReviews(appId, { limit: limit + 1 }, { signal });
  const idOf = await reviewIdsFor(deps, client, appId, lists, signal);
  const { blocks, shown } = reviewListBlocks(appId, lists, limit, vscode.l10n, idOf);
  write(stream, blocks);
  if (shown.length === 0) return;
  stream.markdown(escapeMarkdown(vscode.l10n.t('Read one here with /reviews <review ID>, or open it:')));
  for (const r of shown.slice(0, MAX_BUTTONS)) openButton(stream, r.reviewId, appId, vscode.l10n.t('Open “{0}”', reviewLabel(r.item, vscode.l10n)));
}

async function read(deps: Deps, client: AgentRunsApi, named: string, stream: vscode.ChatResponseStream, signal: AbortSignal): Promise<void> {
  // A listed run's ID names its review; anything else is taken as a review ID.
  const of = deps.ledger().get(named)
    ? await reviewOfRun(deps, client, named, signal)
    : { reviewId: deps.api().validateReviewId(named), appId: deps.ledger().all().find((r) => r.reviewId === named)?.appId };
  const detail = await client.getCodeReview(of.reviewId, { historyLimit: 1 }, { signal });
  const appId = detail.agent?.appId ?? of.appId;
  write(stream, reviewBlocks(detail, { appId }, DEFAULT_REVIEW_TEXT_BOUNDS, vscode.l10n));
  openButton(stream, detail.reviewId, appId, vscode.l10n.t('Open Code Review'));
}

export async function reviews(deps: Deps, request: vscode.ChatRequest, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<void> {
  const [named = ''] = request.prompt.trim().split(/\s+/);
  const appId = setting('appId');
  if (named === '' && appId === '') {
    stream.markdown(escapeMarkdown(vscode.l10n.t('Set agentRuns.appId to list its code reviews here, or name one: /reviews <review ID>.')));
    return;
  }
  const abort = signalOf(token);
  try {
    const client = await clientOrRefuse(deps);
    try {
      await requireCodeReviews(client, abort.signal);
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      stream.markdown(escapeMarkdown(vscode.l10n.t('Not done: {0}', e.message)));
      return;
    }
    await (named === '' ? list(deps, client, appId, stream, abort.signal) : read(deps, client, named, stream, abort.signal));
  } finally {
    abort.dispose();
  }
}
