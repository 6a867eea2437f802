/**
 * Code reviews (service-api-wider.md §2 and §7) as their own bundle (`dist/reviews.js`), loaded
 * on first use (see `src/reviews/load.ts`): the start flow, opening a review, the Runs view's
 * review rows. Nothing of it is in the activation bundle but the few lines that register the
 * commands and ask this bundle for the rows.
 */
export const REVIEWS_BUNDLE = 'reviews';
// The Runs view's review rows and their Copy Review ID (src/reviews/rows.ts; runsTree.ts delegates).
export { ReviewRows, copyReviewId } from './rows';
export { startCodeReviewCommand } from './startReview';
export { openCodeReviewCommand } from './openReview';
export { trackCodeReviewCommand } from './trackReview';
