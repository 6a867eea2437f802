/**
 * The Runs view's code review rows (dist/reviews.js), read when expanded, refreshed, or when a review
 * of the app starts or ends. Every change re-renders the whole tree: re-rendering one element while
 * VS Code still reads its rows registers them twice (see runs/common/nodes.ts).
 */
import * as vscode from 'vscode';
import { isApiError } from '../api/errors';
import { describeError } from '../connection/showApiError';
import { describeNoClient } from '../connection/common/describeNoClient';
import { AppRowReads } from '../run/common/appRowReads';
import { Disposable } from '../base/common/disposable';
import { isFinishedRun } from '../run/common/ledger/runState';
import {
  ReviewsMessageNode, ReviewsNode, knownChildren, reviewsAppIdOf, type ReviewGroupNode, type ReviewNode, type ReviewTreeNode,
} from './common/nodes';
import type { AppRef } from '../run/common/rows';
import { REVIEW_LIST_LIMIT, bucketText, conversationPhase, groupDescription, presentReview } from './common/presentation';
import { branchesFromReviews } from '../run/common/branches/known';
import { noteBranches } from '../run/branches';
import { knownReviewsForList } from '../run/knownReviews';
import type { AppRows } from '../run/appRows';
import { runTooltip } from '../run/rowTooltip';
import type { CodeReviewsBase } from './gate';

/** Why there is no client, as a failure of the read. */
class NoClient extends Error {}

export class ReviewRows extends Disposable implements AppRows<ReviewTreeNode> {
  private readonly lists: AppRowReads<ReviewsNode>;
  /** Reviews started here that a read did not find in their app's list: read again for them once, not on every change. */
  private readonly missedOnce = new Set<string>();

  /**
   * `b`: the connection, token store, run list and 401 gate; `refresh` re-renders the whole Runs
   * tree (runsTree.ts `refreshAll`).
   */
  constructor(
    private readonly b: CodeReviewsBase,
    private readonly refreshTree: () => void,
    private readonly log: Pick<vscode.LogOutputChannel, 'warn' | 'info'>,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.lists = new AppRowReads({ make: (app) => new ReviewsNode(app), read: (node) => this.read(node), refreshTree: () => this.refreshTree() });
    this._register(b.conn.onDidChange(() => this.lists.forgetAll()));
    this._register(b.auth.onDidChange((e) => {
      if (e.baseUrl === b.conn.current.baseUrl) {
        this.lists.forgetAll();
      }
    }));
    this._register(b.ledgers.onDidChangeRuns((c) => this.onRunsChanged(c.agentIds)));
  }

  /** The app's "Code reviews" row: one element per app key for the session. */
  root(app: AppRef): ReviewsNode {
    return this.lists.root(app);
  }

  children(node: ReviewTreeNode): ReviewTreeNode[] | Promise<ReviewTreeNode[]> {
    const read = node.kind === 'codeReviews' ? this.lists.pending(node) : undefined;
    if (read) {
      return read.then(() => knownChildren(node));
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
    await this.lists.refresh(reviewsAppIdOf(arg));
  }

  /** Reads the app's list; what takes the answer (or the failure) in. */
  private async read(node: ReviewsNode): Promise<() => void> {
    try {
      const client = await this.b.conn.getClient({ quiet: true });
      if (!client) {
        throw new NoClient(describeNoClient(this.b.conn.current, vscode.l10n));
      }
      const lists = await client.listCodeReviews(node.appId, { limit: REVIEW_LIST_LIMIT });
      // Version C lists reviews without their ID: those started or tracked here are matched by number.
      const known = await knownReviewsForList(this.b.globalState, client, node.appId, lists, this.b.ledgers.current.all(), this.log);
      // The branches the reviews compare are offered when a branch is asked for.
      await noteBranches(this.b.globalState, client.baseUrl, node.appId, branchesFromReviews(lists));
      return () => node.take(lists, known);
    } catch (e) {
      if (isApiError(e) && e.kind === 'unauthorized') {
        this.b.gate.report(e);
      }
      const problem = e instanceof NoClient ? e.message : describeError(this.b.conn, e);
      this.log.warn(`The code reviews of ${node.appId} could not be listed: ${problem}`);
      return () => {
        node.state = { kind: 'failed', message: new ReviewsMessageNode(node, problem) };
      };
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
      const node = r?.reviewId !== undefined && r.appId !== undefined ? this.lists.apps.get(r.appId) : undefined;
      if (!r?.reviewId || !node || node.state.kind === 'unread' || node.state.kind === 'failed') {
        continue;
      }
      const listed = node.review(r.reviewId);
      const phase = listed ? conversationPhase(listed.item) : undefined;
      const missed = !listed && !this.missedOnce.has(r.reviewId);
      if (missed) this.missedOnce.add(r.reviewId);
      if (node.state.kind === 'loading' || missed || (isFinishedRun(r) && (phase === 'starting' || phase === 'working'))) {
        again.add(node);
      }
    }
    for (const node of again) {
      void this.lists.reload(node);
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
    const p = presentReview(node.item, this.now(), vscode.l10n, node.reviewId);
    const item = new vscode.TreeItem(p.label, vscode.TreeItemCollapsibleState.None);
    item.id = `codeReview:${node.appId}:${node.key}`;
    item.description = p.description;
    item.iconPath = new vscode.ThemeIcon(p.icon.id, p.icon.color ? new vscode.ThemeColor(p.icon.color) : undefined);
    item.contextValue = p.contextValue;
    item.tooltip = runTooltip(p.label, p.details, p.warnings);
    const open = node.openArgs();
    // A review whose ID is not known here: the click says so and offers to track it by ID.
    item.command = open !== undefined
      ? { command: 'agentRuns.openCodeReview', title: vscode.l10n.t('Open Code Review'), arguments: [open] }
      : { command: 'agentRuns.trackCodeReview', title: vscode.l10n.t('Track Code Review by ID…'), arguments: [node.trackArgs()] };
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
