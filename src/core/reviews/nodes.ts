/**
 * The Runs view's code review rows under an app, without `vscode` (unit-tested in plain mocha;
 * src/reviews/rows.ts is the VS Code side).
 *
 * As in core/runs/nodes.ts, elements keep their identity: one `ReviewsNode` per app key for the
 * session, one `ReviewNode` per review as long as it is listed (its item updated in place).
 * runsTree.ts tells them apart from its own rows by `kind` only, so these classes stay out of
 * the activation bundle.
 */
import type { CodeReviewListItem, CodeReviewLists } from '../../api/reviewTypes';
import { groupReviews, type ReviewBucket } from './presentation';

/** The app row a "Code reviews" row sits under (core/runs/nodes.ts `AppNode`). */
export interface AppRef {
  readonly key: string;
}

/** What is known of an app's reviews. */
export type ReviewsState =
  /** Not asked yet (asked when the row is expanded or refreshed). */
  | { kind: 'unread' }
  | { kind: 'loading'; promise: Promise<void> }
  | { kind: 'listed'; groups: ReviewGroupNode[] }
  | { kind: 'failed'; message: ReviewsMessageNode };

/** The collapsed "Code reviews" row of an app. */
export class ReviewsNode {
  readonly kind = 'codeReviews';
  state: ReviewsState = { kind: 'unread' };
  /** Set when the list was asked again while a read was under way: read once more after it. */
  stale = false;
  private readonly reviews = new Map<string, ReviewNode>();
  private readonly groups = new Map<ReviewBucket, ReviewGroupNode>();
  /** "No code reviews yet". */
  readonly none = new ReviewsMessageNode(this);
  constructor(public parent: AppRef) {}

  get appId(): string {
    return this.parent.key;
  }

  /** The review IDs listed now (empty unless listed). */
  listedIds(): ReadonlySet<string> {
    return new Set(this.state.kind === 'listed' ? this.reviews.keys() : []);
  }

  /** A review listed now, by ID. */
  review(reviewId: string): ReviewNode | undefined {
    return this.state.kind === 'listed' ? this.reviews.get(reviewId) : undefined;
  }

  /** Takes a service answer in, reusing the nodes of groups and reviews already there. */
  take(lists: CodeReviewLists): void {
    const keep = new Set<string>();
    const groups = groupReviews(lists).map(({ status, reviews }) => {
      let group = this.groups.get(status);
      if (!group) {
        group = new ReviewGroupNode(this, status);
        this.groups.set(status, group);
      }
      group.reviews = reviews.map((item) => {
        keep.add(item.id);
        let node = this.reviews.get(item.id);
        if (!node) {
          node = new ReviewNode(group, item);
          this.reviews.set(item.id, node);
        }
        node.parent = group;
        node.item = item;
        return node;
      });
      return group;
    });
    for (const id of [...this.reviews.keys()]) {
      if (!keep.has(id)) {
        this.reviews.delete(id);
      }
    }
    this.state = { kind: 'listed', groups };
  }

  /** Forgets what was listed (another service or token): read again when next shown. */
  forget(): void {
    this.state = { kind: 'unread' };
    this.stale = false;
    this.reviews.clear();
    this.groups.clear();
  }
}

/** Open, Merged or Closed. */
export class ReviewGroupNode {
  readonly kind = 'codeReviewGroup';
  reviews: ReviewNode[] = [];
  constructor(
    readonly parent: ReviewsNode,
    readonly status: ReviewBucket,
  ) {}
}

/**
 * One review. Carries what `agentRuns.openCodeReview` reads (`reviewId`, `appId`, `title`), so
 * the node itself can be a command's argument (context menus).
 */
export class ReviewNode {
  readonly kind = 'codeReview';
  constructor(
    public parent: ReviewGroupNode,
    public item: CodeReviewListItem,
  ) {}

  get reviewId(): string {
    return this.item.id;
  }

  get appId(): string {
    return this.parent.parent.appId;
  }

  get title(): string | undefined {
    return this.item.title;
  }

  /** What the row's command passes to `agentRuns.openCodeReview`. */
  openArgs(): { reviewId: string; appId: string; title?: string } {
    return this.title === undefined ? { reviewId: this.reviewId, appId: this.appId } : { reviewId: this.reviewId, appId: this.appId, title: this.title };
  }
}

/** The one row shown instead of reviews: the read failed (with a retry), or there are none. */
export class ReviewsMessageNode {
  readonly kind = 'codeReviewsMessage';
  constructor(
    readonly parent: ReviewsNode,
    /** What went wrong (user-facing); undefined for "No code reviews yet". */
    readonly problem?: string,
  ) {}
}

export type ReviewTreeNode = ReviewsNode | ReviewGroupNode | ReviewNode | ReviewsMessageNode;

/** The children of a review element as they are known now (a `ReviewsNode` not listed yet has none). */
export function knownChildren(node: ReviewTreeNode): ReviewTreeNode[] {
  switch (node.kind) {
    case 'codeReviews':
      if (node.state.kind === 'listed') {
        return node.state.groups.length > 0 ? node.state.groups : [node.none];
      }
      return node.state.kind === 'failed' ? [node.state.message] : [];
    case 'codeReviewGroup':
      return node.reviews;
    default:
      return [];
  }
}

/** The app ID a command was invoked with: a review element, an app row, `{ appId }` or the ID itself. */
export function reviewsAppIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') {
    return arg.trim() === '' ? undefined : arg.trim();
  }
  if (typeof arg !== 'object' || arg === null) {
    return undefined;
  }
  const node = arg as { kind?: unknown; key?: unknown; appId?: unknown };
  if (node.kind === 'app' && typeof node.key === 'string') {
    return node.key === '' ? undefined : node.key;
  }
  return typeof node.appId === 'string' && node.appId.trim() !== '' ? node.appId.trim() : undefined;
}
