/**
 * The Runs view's code review rows (dist/reviews.js): under each app a collapsed "Code reviews"
 * row whose reviews are read (`GET /code-reviews?appId=…`) when it is expanded, when
 * `agentRuns.refreshCodeReviews` asks, and when a review of that app appears in the run list
 * (started here) or its conversation ends, once the person has looked at the list. runsTree.ts
 * only delegates to this; the elements are core/reviews/nodes.ts.
 *
 * Every change here re-renders the whole tree (runsTree.ts `refreshAll`): re-rendering one
 * element while VS Code still reads its rows registers them twice (see core/runs/nodes.ts), and
 * these reads are rare. An expanded "Code reviews" row waits on its read (VS Code shows progress).
 */
import * as vscode from 'vscode';
import { isApiError } from '../api/errors';
import { describeError } from '../connection/showApiError';
import { whyNoClient } from '../core/connection/whyNoClient';
import { Disposable } from '../core/disposable';
import { isFinishedRun } from '../core/ledger/runState';
import {
  ReviewsMessageNode, ReviewsNode, knownChildren, reviewsAppIdOf, type AppRef, type ReviewGroupNode, type ReviewNode, type ReviewTreeNode,
} from '../core/reviews/nodes';
import { REVIEW_LIST_LIMIT, bucketText, conversationPhase, groupDescription, presentReview } from '../core/reviews/presentation';
import type { ReviewRows as TreeReviewRows } from '../runs/runsTree';
import { runTooltip } from '../runs/tooltip';
import type { CodeReviewsBase } from './gate';

/** Why there is no client, as a failure of the read. */
class NoClient extends Error {}

export class ReviewRows extends Disposable implements TreeReviewRows {
  private readonly apps = new Map<string, ReviewsNode>();
  /** Bumped when another service or token makes what was read meaningless. */
  private generation = 0;

  /**
   * `b`: the connection, token store, run list and 401 gate; `refresh` re-renders the whole Runs
   * tree (runsTree.ts `refreshAll`).
   */
  constructor(
    private readonly b: CodeReviewsBase,
    private readonly refreshTree: () => void,
    private readonly log: Pick<vscode.LogOutputChannel, 'warn'>,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this._register(b.conn.onDidChange(() => this.forgetAll()));
    this._register(b.auth.onDidChange((e) => {
      if (e.baseUrl === b.conn.current.baseUrl) {
        this.forgetAll();
      }
    }));
    this._register(b.ledgers.onDidChangeRuns((c) => this.onRunsChanged(c.agentIds)));
  }

  /** The app's "Code reviews" row: one element per app key for the session. */
  root(app: AppRef): ReviewsNode {
    let node = this.apps.get(app.key);
    if (!node) {
      node = new ReviewsNode(app);
      this.apps.set(app.key, node);
    }
    // The app's row is a new element when the app left the list and came back.
    node.parent = app;
    return node;
  }

  children(node: ReviewTreeNode): ReviewTreeNode[] | Promise<ReviewTreeNode[]> {
    if (node.kind === 'codeReviews' && (node.state.kind === 'unread' || node.state.kind === 'loading')) {
      return this.load(node).then(() => knownChildren(node));
    }
    return knownChildren(node);
  }

  item(node: ReviewTreeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'codeReviews':
        return this.reviewsItem(node);
      case 'codeReviewGroup':
        return groupItem(node);
      case 'codeReview':
        return this.reviewItem(node);
      default:
        return messageItem(node);
    }
  }

  /**
   * `agentRuns.refreshCodeReviews`: reads the reviews of the app the argument names (a review
   * row, an app row, `{ appId }`, the ID), or of every app whose list was read, again now.
   */
  async refresh(arg?: unknown): Promise<void> {
    const appId = reviewsAppIdOf(arg);
    const named = appId === undefined ? undefined : this.apps.get(appId);
    const nodes = appId === undefined ? [...this.apps.values()].filter((n) => n.state.kind !== 'unread') : named ? [named] : [];
    await Promise.all(nodes.map((n) => this.reload(n)));
  }

  private reload(node: ReviewsNode): Promise<void> {
    if (node.state.kind === 'loading') {
      // It may have left before what changed: read once more when it is back.
      node.stale = true;
      return node.state.promise;
    }
    const read = this.load(node);
    // An expanded row asks for its children again and waits on this read.
    this.refreshTree();
    return read;
  }

  private load(node: ReviewsNode): Promise<void> {
    if (node.state.kind === 'loading') {
      return node.state.promise;
    }
    const promise = this.read(node);
    node.state = { kind: 'loading', promise };
    return promise;
  }

  private async read(node: ReviewsNode): Promise<void> {
    const generation = this.generation;
    let settle: () => void;
    try {
      const client = await this.b.conn.getClient({ quiet: true });
      if (!client) {
        throw new NoClient(whyNoClient(this.b.conn.current, vscode.l10n));
      }
      const lists = await client.listCodeReviews(node.appId, { limit: REVIEW_LIST_LIMIT });
      settle = () => node.take(lists);
    } catch (e) {
      if (isApiError(e) && e.kind === 'unauthorized') {
        this.b.gate.report(e);
      }
      const problem = e instanceof NoClient ? e.message : describeError(this.b.conn, e);
      this.log.warn(`The code reviews of ${node.appId} could not be listed: ${problem}`);
      settle = () => {
        node.state = { kind: 'failed', message: new ReviewsMessageNode(node, problem) };
      };
    }
    if (generation !== this.generation) {
      // Read from the service or token before: the node was forgotten meanwhile.
      return;
    }
    settle();
    if (node.stale) {
      node.stale = false;
      void this.reload(node);
    }
  }

  /** Another service or token: nothing listed holds any more; an expanded row reads again. */
  private forgetAll(): void {
    this.generation++;
    const shown = [...this.apps.values()].some((n) => n.state.kind !== 'unread');
    for (const node of this.apps.values()) {
      node.forget();
    }
    if (shown) {
      this.refreshTree();
    }
  }

  /**
   * A review of an app whose list was read appears in the run list (started or opened here), or
   * its conversation ended while the list says it is under way: the list is read again.
   */
  private onRunsChanged(agentIds: readonly string[]): void {
    const again = new Set<ReviewsNode>();
    for (const id of agentIds) {
      const r = this.b.ledgers.current.get(id);
      const node = r?.reviewId !== undefined && r.appId !== undefined ? this.apps.get(r.appId) : undefined;
      if (!r?.reviewId || !node || node.state.kind === 'unread' || node.state.kind === 'failed') {
        continue;
      }
      const listed = node.review(r.reviewId);
      const phase = listed ? conversationPhase(listed.item) : undefined;
      if (node.state.kind === 'loading' || !listed || (isFinishedRun(r) && (phase === 'starting' || phase === 'working'))) {
        again.add(node);
      }
    }
    for (const node of again) {
      void this.reload(node);
    }
  }

  private reviewsItem(node: ReviewsNode): vscode.TreeItem {
    const item = new vscode.TreeItem(vscode.l10n.t('Code reviews'), vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `codeReviews:${node.appId}`;
    item.iconPath = new vscode.ThemeIcon('git-pull-request');
    item.contextValue = 'codeReviews';
    if (node.state.kind === 'listed') {
      const open = node.state.groups.find((g) => g.status === 'open')?.reviews.length ?? 0;
      item.description = vscode.l10n.t('{0} open', open);
    }
    item.tooltip = vscode.l10n.t('Code reviews of {0}, read from the service when expanded', node.appId);
    return item;
  }

  private reviewItem(node: ReviewNode): vscode.TreeItem {
    const p = presentReview(node.item, this.now(), vscode.l10n);
    const item = new vscode.TreeItem(p.label, vscode.TreeItemCollapsibleState.None);
    item.id = `codeReview:${node.reviewId}`;
    item.description = p.description;
    item.iconPath = new vscode.ThemeIcon(p.icon.id, p.icon.color ? new vscode.ThemeColor(p.icon.color) : undefined);
    item.contextValue = p.contextValue;
    item.tooltip = runTooltip(p.label, p.details, p.warnings);
    item.command = { command: 'agentRuns.openCodeReview', title: vscode.l10n.t('Open Code Review'), arguments: [node.openArgs()] };
    item.accessibilityInformation = { label: vscode.l10n.t('Code review {0}, {1}, {2}', p.label, bucketText(node.parent.status, vscode.l10n), p.description) };
    return item;
  }
}

function groupItem(node: ReviewGroupNode): vscode.TreeItem {
  const item = new vscode.TreeItem(bucketText(node.status, vscode.l10n), vscode.TreeItemCollapsibleState.Expanded);
  item.id = `codeReviews.${node.status}:${node.parent.appId}`;
  item.description = groupDescription(node.reviews.length, vscode.l10n);
  item.contextValue = 'codeReviewGroup';
  return item;
}

function messageItem(node: ReviewsMessageNode): vscode.TreeItem {
  const failed = node.problem !== undefined;
  const item = new vscode.TreeItem(failed ? vscode.l10n.t('Could not list the code reviews') : vscode.l10n.t('No code reviews yet'), vscode.TreeItemCollapsibleState.None);
  item.id = `codeReviews.message:${node.parent.appId}`;
  if (failed) {
    item.description = node.problem;
    item.tooltip = vscode.l10n.t('{0} Click to try again.', node.problem);
    item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
    item.contextValue = 'codeReviewsError';
    item.command = { command: 'agentRuns.refreshCodeReviews', title: vscode.l10n.t('Try Again'), arguments: [node.parent] };
  } else {
    item.contextValue = 'codeReviewsEmpty';
  }
  return item;
}

/** `agentRuns.copyReviewId`: a review row (or `{ reviewId }`) to the clipboard. */
export async function copyReviewId(arg?: unknown): Promise<void> {
  const id = typeof arg === 'object' && arg !== null ? (arg as { reviewId?: unknown }).reviewId : undefined;
  if (typeof id !== 'string' || id === '') {
    return;
  }
  await vscode.env.clipboard.writeText(id);
  void vscode.window.setStatusBarMessage(vscode.l10n.t('$(check) Review ID copied'), 3000);
}
