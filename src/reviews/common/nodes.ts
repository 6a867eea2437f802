/**
 * The Runs view's code review rows under an app, pure (src/reviews/rows.ts is the VS Code side).
 * Elements keep their identity as in runs/common/nodes.ts; runsTree.ts tells them apart from its
 * own rows by `kind` only, so these classes stay out of the activation bundle.
 */
import type { CodeReviewListItem, CodeReviewLists } from '../../api/reviewTypes';
import { groupReviews, reviewIdOf, reviewKey, type KnownReview, type ReviewBucket } from '../../run/common/reviews';
import type { AppRef } from '../../run/common/rows';

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

  /** The review IDs listed now (empty unless listed); reviews listed without a known ID are not among them. */
  listedIds(): ReadonlySet<string> {
    return new Set(this.state.kind === 'listed' ? [...this.reviews.values()].flatMap((n) => (n.reviewId !== undefined ? [n.reviewId] : [])) : []);
  }

  /** A review listed now, by its review ID. */
  review(reviewId: string): ReviewNode | undefined {
    return this.state.kind === 'listed' ? [...this.reviews.values()].find((n) => n.reviewId === reviewId) : undefined;
  }

  /**
   * Takes a service answer in, reusing the nodes of groups and reviews already there. `known`:
   * the reviews whose ID is known here, for list items that come without one (version C).
   */
  take(lists: CodeReviewLists, known: readonly KnownReview[] = []): void {
    const keep = new Set<string>();
    const groups = groupReviews(lists).map(({ status, reviews }) => {
      let group = this.groups.get(status);
      if (!group) {
        group = new ReviewGroupNode(this, status);
        this.groups.set(status, group);
      }
      const g = group;
      group.reviews = reviews.map((item, i) => {
        // An item with nothing that tells it apart keeps its place in its group as its key.
        const key = reviewKey(item) ?? `at:${status}:${i}`;
        keep.add(key);
        let node = this.reviews.get(key);
        if (!node) {
          node = new ReviewNode(g, item, key);
          this.reviews.set(key, node);
        }
        node.parent = g;
        node.item = item;
        node.reviewId = reviewIdOf(item, this.appId, known);
        return node;
      });
      return group;
    });
    for (const key of [...this.reviews.keys()]) {
      if (!keep.has(key)) {
        this.reviews.delete(key);
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
 * One review. Carries what `agentRuns.openCodeReview` and `agentRuns.trackCodeReview` read
 * (`reviewId` when known, `appId`, `title`, `sequence`, `mergeId`), so the node itself can be a
 * command's argument (context menus).
 */
export class ReviewNode {
  readonly kind = 'codeReview';
  /** Known from the list (A, B) or matched to a review started or tracked here; else undefined. */
  reviewId: string | undefined;
  constructor(
    public parent: ReviewGroupNode,
    public item: CodeReviewListItem,
    /** What keeps it apart from the app's other reviews (run/common/reviews.ts `reviewKey`). */
    readonly key: string = item.id ?? '',
  ) {
    this.reviewId = item.id;
  }

  get sequence(): number | undefined {
    return this.item.sequence;
  }

  get mergeId(): string | undefined {
    return this.item.mergeId;
  }

  get appId(): string {
    return this.parent.parent.appId;
  }

  get title(): string | undefined {
    return this.item.title;
  }

  /** What the row's command passes to `agentRuns.openCodeReview`; undefined while its review ID is not known. */
  openArgs(): { reviewId: string; appId: string; title?: string } | undefined {
    if (this.reviewId === undefined) return undefined;
    return this.title === undefined ? { reviewId: this.reviewId, appId: this.appId } : { reviewId: this.reviewId, appId: this.appId, title: this.title };
  }

  /** What the row passes to `agentRuns.trackCodeReview` while its review ID is not known. */
  trackArgs(): { appId: string; sequence?: number; mergeId?: string; title?: string; fromRow: true } {
    const out: { appId: string; sequence?: number; mergeId?: string; title?: string; fromRow: true } = { appId: this.appId, fromRow: true };
    if (this.sequence !== undefined) out.sequence = this.sequence;
    if (this.mergeId !== undefined) out.mergeId = this.mergeId;
    if (this.title !== undefined) out.title = this.title;
    return out;
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
