/**
 * When the panel of a code review's conversation reads the review: page ready, a run read that
 * changed it (at most once per `minGapMs`), once after the run ended, and on request. Never
 * otherwise, so an idle review costs nothing; a failed read keeps the last good review.
 */
import type { CodeReviewDetail } from '../../api/reviewTypes';
import { buildReviewView, type ReviewView } from './reviewView';

export const REVIEW_READ_GAP_MS = 10_000;

export interface ReviewFeedDeps {
  read(reviewId: string): Promise<CodeReviewDetail>;
  post(message: { type: 'review'; review?: ReviewView; problem?: string }): void;
  describe(error: unknown): string;
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export class ReviewFeed {
  private review: ReviewView | undefined;
  private problem: string | undefined;
  private lastReadAt = Number.NEGATIVE_INFINITY;
  private timer: unknown;
  private reading: Promise<void> | undefined;
  private again = false;
  private seen: string | undefined;
  private endedRead = false;
  private disposed = false;

  constructor(private readonly reviewId: string, private readonly deps: ReviewFeedDeps, private readonly minGapMs = REVIEW_READ_GAP_MS) {}

  /** The page was (re)built: it gets what is known at once, then a fresh read. */
  ready(): void {
    if (this.review !== undefined || this.problem !== undefined) this.post();
    void this.readNow();
  }

  /** A read of the run: `signature` changes with its messages and status. */
  runChanged(signature: string, ended: boolean): void {
    if (signature === this.seen) return;
    const first = this.seen === undefined;
    this.seen = signature;
    if (first) return; // what the page was built with: `ready` reads it
    if (ended && !this.endedRead) {
      this.endedRead = true;
      this.clearTimer();
      void this.readNow();
      return;
    }
    if (this.timer !== undefined) return;
    const wait = Math.max(0, this.lastReadAt + this.minGapMs - this.deps.now());
    this.timer = this.deps.setTimeout(() => {
      this.timer = undefined;
      void this.readNow();
    }, wait);
  }

  /** The person asked (Refresh in the section). */
  refresh(): Promise<void> {
    this.clearTimer();
    return this.readNow();
  }

  dispose(): void {
    this.disposed = true;
    this.clearTimer();
  }

  private readNow(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.lastReadAt = this.deps.now();
    this.reading = this.deps.read(this.reviewId).then(
      (d) => {
        this.review = buildReviewView(d);
        this.problem = undefined;
      },
      (e: unknown) => {
        this.problem = this.deps.describe(e);
      },
    ).then(() => {
      this.reading = undefined;
      if (this.disposed) return;
      this.post();
      if (this.again) {
        this.again = false;
        void this.readNow();
      }
    });
    return this.reading;
  }

  private post(): void {
    this.deps.post({ type: 'review', ...(this.review ? { review: this.review } : {}), ...(this.problem !== undefined ? { problem: this.problem } : {}) });
  }

  private clearTimer(): void {
    if (this.timer !== undefined) {
      this.deps.clearTimeout(this.timer);
      this.timer = undefined;
    }
  }
}
