/** The client's code review, version and sync calls (service-api-wider.md §2, §7), under ./client's policy (a POST sent at most once). */
import type { AgentRunsApi, RequestOptions } from './contract';
import { parseCodeReviewDetail, parseCodeReviewLists, parseCodeReviewStarted, parseVersionPage, parseVersionSync } from './parseReviews';
import type { CodeReviewDetail, CodeReviewLists, CodeReviewStarted, VersionPage, VersionSync } from './reviewTypes';
import {
  codeReviewListQuery, codeReviewQuery, validateReviewId, validateStartCodeReviewRequest, validateSyncVersionRequest, versionListQuery,
  versionStatusQuery,
} from './validateReviews';

type Method = 'GET' | 'POST';

/** What ./client's `call` takes (its `CallSpec`). */
export interface ReviewCallSpec {
  method: Method;
  path: string;
  body?: unknown;
  signal?: AbortSignal;
  userEmail?: string;
  model?: string;
  /** Told the HTTP status and `Retry-After` of a 2xx answer. */
  onAnswer?: (answer: { status: number; retryAfterMs?: number }) => void;
}

export type ReviewCalls = Pick<AgentRunsApi, 'startCodeReview' | 'listCodeReviews' | 'getCodeReview' | 'listVersions' | 'syncVersion' | 'getVersionStatus'>;

function withQuery(path: string, query: URLSearchParams): string {
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** The calls, given the client's one exchange (`call`) and its parser wrapper (`parsed`). */
export function reviewCalls(
  call: (spec: ReviewCallSpec) => Promise<unknown>,
  parsed: <T>(method: Method, path: string, json: unknown, parse: (j: unknown) => T) => T,
): ReviewCalls {
  return {
    async startCodeReview(req, opts?: RequestOptions): Promise<CodeReviewStarted> {
      const body = validateStartCodeReviewRequest(req);
      const json = await call({ method: 'POST', path: '/code-reviews', body, signal: opts?.signal, userEmail: body.userEmail, model: body.model });
      return parsed('POST', '/code-reviews', json, parseCodeReviewStarted);
    },

    async listCodeReviews(appId, query, opts?: RequestOptions): Promise<CodeReviewLists> {
      const path = withQuery('/code-reviews', codeReviewListQuery(appId, query));
      const json = await call({ method: 'GET', path, signal: opts?.signal });
      return parsed('GET', '/code-reviews', json, parseCodeReviewLists);
    },

    async getCodeReview(reviewId, query, opts?: RequestOptions): Promise<CodeReviewDetail> {
      const path = `/code-reviews/${encodeURIComponent(validateReviewId(reviewId))}`;
      const json = await call({ method: 'GET', path: withQuery(path, codeReviewQuery(query?.historyLimit)), signal: opts?.signal });
      return parsed('GET', path, json, parseCodeReviewDetail);
    },

    async listVersions(appId, query, opts?: RequestOptions): Promise<VersionPage> {
      const path = withQuery('/versions', versionListQuery(appId, query));
      const json = await call({ method: 'GET', path, signal: opts?.signal });
      return parsed('GET', '/versions', json, parseVersionPage);
    },

    async syncVersion(req, opts?: RequestOptions): Promise<VersionSync> {
      const body = validateSyncVersionRequest(req);
      let answer: { httpStatus?: number; retryAfterMs?: number } = {};
      const json = await call({ method: 'POST', path: '/versions/sync', body, signal: opts?.signal, onAnswer: (a) => { answer = { httpStatus: a.status, retryAfterMs: a.retryAfterMs }; } });
      return parsed('POST', '/versions/sync', json, (j) => parseVersionSync(j, answer));
    },

    async getVersionStatus(appId, versionId, opts?: RequestOptions): Promise<VersionSync> {
      const path = withQuery('/versions/status', versionStatusQuery(appId, versionId));
      let answer: { httpStatus?: number; retryAfterMs?: number } = {};
      const json = await call({ method: 'GET', path, signal: opts?.signal, onAnswer: (a) => { answer = { httpStatus: a.status, retryAfterMs: a.retryAfterMs }; } });
      return parsed('GET', '/versions/status', json, (j) => parseVersionSync(j, answer));
    },
  };
}
