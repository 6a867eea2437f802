/**
 * Whether the service serves code reviews, as the review features ask it: from the paths of a
 * schema just read (the `agentRuns.codeReviews` context key itself is one of the capabilities
 * of ./capabilities.ts, kept by src/connection/capabilities.ts). Pure: no `vscode`.
 */
import { servesPath } from '../../api/types';

export { servedPathsKey, reviveServedList as reviveServedPaths, shouldProbe, type ProbeState } from './capabilities';

export const CODE_REVIEWS_PATH = '/code-reviews';

/** On only when the paths read list `/code-reviews` (off while nothing is known). */
export function codeReviewsServed(paths: string[] | undefined): boolean {
  return servesPath({ paths }, CODE_REVIEWS_PATH);
}
