// Code reviews' lazy bundle (dist/reviews.js): the start flow, opening a review, the Runs view's review rows; contribution.ts loads it on first use.
export const REVIEWS_BUNDLE = 'reviews';
// The Runs view's review rows and their Copy Review ID (src/reviews/rows.ts; runsTree.ts delegates).
export { ReviewRows, copyReviewId } from './rows';
export { startCodeReviewCommand } from './startReview';
export { openCodeReviewCommand } from './openReview';
export { trackCodeReviewCommand } from './trackReview';
