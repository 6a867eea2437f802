/** Code reviews and versions of the deployed service (service-api-wider.md §2, §7), tolerant like ./types. */
import type { Agent, Open, RunStatus } from './types';

/** A review's place in `GET /code-reviews`. */
export type CodeReviewStatus = Open<'open' | 'merged' | 'closed'>;

/** The provider of a review's model: versions A and C list four, version B adds `cursor`. */
export type ReviewProvider = Open<'claude' | 'openai' | 'gemini' | 'opencode' | 'cursor'>;

/**
 * An element of the `open`, `merged` or `closed` list of `GET /code-reviews`, and a detail's
 * `review`. Version C sends no `id` (the review is then known by `sequence` and `mergeId`; its
 * `reviewId` only from `POST /code-reviews` or a detail read).
 */
export interface CodeReviewListItem {
  /** Versions A and B only. */
  id?: string;
  /** Per project. */
  sequence?: number;
  mergeId?: string;
  status?: CodeReviewStatus;
  title?: string;
  description?: string;
  /** What was compared: a version id (see {@link AppVersion.versionId}) or, since C, a branch id or label. */
  fromVersion?: string;
  toVersion?: string;
  fromVersionLabel?: string;
  toVersionLabel?: string;
  requestedByName?: string;
  requestedByEmail?: string;
  requestedByImage?: string;
  linearIssueId?: string;
  linearIssueIdentifier?: string;
  provider?: ReviewProvider;
  model?: string;
  /** As an agent's `lifecycle.conversationState`. */
  conversationStatus?: string;
  conversationErrorCode?: string;
  createdAt?: number;
  updatedAt?: number;
  completedAt?: number;
  mergedAt?: number;
  closedAt?: number;
}

/** Response of `GET /code-reviews?appId=…`: newest first in each list. A missing list is empty. */
export interface CodeReviewLists {
  open: CodeReviewListItem[];
  merged: CodeReviewListItem[];
  closed: CodeReviewListItem[];
}

/** An element of a review's `changes`, `comments` or `tests`. */
export interface ReviewItem {
  id: string;
  type?: Open<'change' | 'comment' | 'test'>;
  title?: string;
  description?: string;
  /** Absent when the service sent `null` (no priority). */
  priority?: Open<'high' | 'medium' | 'low'>;
  state?: Open<'open' | 'completed'>;
  createdBy?: Open<'ai' | 'user'>;
  createdByEmail?: string;
  createdAt?: number;
  updatedAt?: number;
  completedAt?: number;
}

/** An element of a review's discussion thread (`reviewComments`). */
export interface ReviewComment {
  id: string;
  parentId?: string;
  authorName?: string;
  authorEmail?: string;
  authorImage?: string;
  /** Absent when the comment was deleted (the service sends `null`). */
  body?: string;
  imageUrls?: string[];
  isDeleted?: boolean;
  editedAt?: number;
  createdAt?: number;
}

/** Response of `GET /code-reviews/{reviewId}`. */
export interface CodeReviewDetail {
  reviewId: string;
  /** The list item's fields; empty when the service sent no usable `review`. */
  review: CodeReviewListItem;
  changes: ReviewItem[];
  comments: ReviewItem[];
  tests: ReviewItem[];
  reviewComments: ReviewComment[];
  /** The review agent's state as `GET /agents/{id}` returns it; absent when none with an `agentId` came. */
  agent?: Agent;
}

/** Response of `POST /code-reviews` (202). */
export interface CodeReviewStarted {
  reviewId: string;
  /** The review agent's conversation (kind `code_review`), read at `GET /agents/{agentId}`. */
  agentId: string;
  kind?: string;
  /** `queued` when the service sent none. */
  status: RunStatus;
  createdAt?: number;
}

/** Body of `POST /code-reviews`. */
export interface StartCodeReviewRequest {
  appId: string;
  /**
   * The source and the target compared: version ids (versions A and B), or since C also a
   * branch id or label (the branch's newest completed version when the review starts).
   */
  fromVersion: string;
  toVersion: string;
  model?: string;
  title?: string;
  description?: string;
  focusAreas?: string;
  completionWebhookUrl?: string;
  userEmail?: string;
}

export interface ListCodeReviewsQuery {
  /** Per list (open, merged, closed); the service documents no default or bound. */
  limit?: number;
}

export interface GetCodeReviewQuery {
  /** The most recent N messages of the review agent's history. */
  historyLimit?: number;
}

export interface ListVersionsQuery {
  /** A branch id or label: required since version C (optional in A and B; always sent here). */
  version: string;
  /** `nextCursor` of the page before. */
  cursor?: string;
  limit?: number;
}

/** The sync stage of a version. */
export type VersionStage = Open<'pending' | 'stored' | 'indexing' | 'completed' | 'failed'>;

/**
 * An element of `GET /versions`. The service sends each time twice, as an ISO string
 * (`createdAt`) and in milliseconds (`createdAtMs`); either one is read, and kept here as
 * Unix milliseconds.
 */
export interface AppVersion {
  versionId: string;
  /** The branch's id (`appVersion` is read as an alias). */
  version?: string;
  versionDisplay?: string;
  stage?: VersionStage;
  syncSource?: Open<'manual' | 'automatic'>;
  /** A number since version C (its meaning is not documented), text before. */
  lastChange?: number | string;
  createdAt?: number;
  syncedAt?: number;
  completedAt?: number;
  errorMessage?: string;
  fileSha256?: string;
  fileSizeBytes?: number;
}

/** Response of `GET /versions`: one page, in the service's order; `nextCursor` absent on the last page. */
export interface VersionPage {
  versions: AppVersion[];
  nextCursor?: string;
}

/** Body of `POST /versions/sync`: store the branch's current state as a new version. */
export interface SyncVersionRequest {
  appId: string;
  /** A branch id or label. */
  version: string;
}

/** Where a sync stands: `in_progress` while it runs (the service answered 202). */
export type VersionSyncStatus = Open<'in_progress' | 'completed' | 'failed'>;

/** Response of `POST /versions/sync` and `GET /versions/status`. */
export interface VersionSync {
  ok?: boolean;
  /** Absent when the service sent none (then `stage` and the HTTP status tell). */
  status?: VersionSyncStatus;
  stage?: VersionStage;
  /** The version this sync creates: what `GET /versions/status` is asked about. */
  versionId?: string;
  /** The branch's id (`appVersion` is read as an alias). */
  version?: string;
  message?: string;
  /** Why it failed. */
  error?: string;
  /** 200 (done or failed within the service's wait) or 202 (still running). */
  httpStatus?: number;
  /** The service's `Retry-After`, in milliseconds, when it sent one. */
  retryAfterMs?: number;
}
