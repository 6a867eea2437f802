/**
 * Whether the service serves code reviews (the `agentRuns.codeReviews` context key), decided
 * from the paths its `/openapi.json` listed the last time the extension read it, remembered per
 * base URL. Pure: no `vscode` (src/reviews/gate.ts keeps the key).
 */
import { servesPath } from '../../api/types';

export const CODE_REVIEWS_PATH = '/code-reviews';

/** The global-state key of the paths last read from a base URL's `/openapi.json`. */
export function servedPathsKey(baseUrl: string): string {
  return `agentRuns.servedPaths.v1:${baseUrl}`;
}

/** The stored paths, or undefined when nothing usable is stored (nothing known of this service). */
export function reviveServedPaths(raw: unknown): string[] | undefined {
  return Array.isArray(raw) ? raw.filter((p): p is string => typeof p === 'string') : undefined;
}

/** The key for a service: on only when the paths last read list `/code-reviews` (off while nothing is known). */
export function codeReviewsServed(paths: string[] | undefined): boolean {
  return servesPath({ paths }, CODE_REVIEWS_PATH);
}

export interface ProbeState {
  /** The Runs view is visible. */
  visible: boolean;
  signedIn: boolean;
  baseUrl: string | undefined;
  /** Paths are stored for this base URL. */
  known: boolean;
  /** This session already asked this base URL once. */
  probed: boolean;
}

/**
 * Whether to read `/openapi.json` just to learn the key: once per session and base URL, only
 * while someone looks at the Runs view with a token and nothing is known yet. Every other read
 * of the schema (launch form, tools, history windows) teaches the key on the way.
 */
export function shouldProbe(s: ProbeState): boolean {
  return s.visible && s.signedIn && s.baseUrl !== undefined && !s.known && !s.probed;
}
