import type * as ReviewsEntry from './entry';

/** The code reviews bundle (`dist/reviews.js`): `src/reviews/entry.ts`. */
export type ReviewsModule = typeof ReviewsEntry;

let loaded: ReviewsModule | undefined;

/** Loaded on the first use of a code review command or row. Like `loadApi`: esbuild leaves this require alone. */
export function loadReviews(): ReviewsModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('./reviews.js') as ReviewsModule;
  return loaded;
}
