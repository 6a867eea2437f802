/**
 * The typed client of the agent, code review and test group service. Bundled on its own
 * (`dist/api.js`) and loaded on first use: undici lives here and nowhere else.
 */
export * from './types';
export type * from './reviewTypes';
export type * from './testTypes';
export * from './errors';
export * from './contract';
export { createClient, DEFAULT_TIMEOUTS, DEFAULT_USER_AGENT, MAX_REDIRECTS, MAX_RESPONSE_BYTES } from './client';
export { normalizeBaseUrl, isLoopbackHost, isInsecureRemote, BASE_PATH_SUFFIX, BASE_URL_EXAMPLE } from './baseUrl';
export {
  validateStartAgentRequest, validateFollowUpRequest, validateCreateTestGroupRequest, validateAgentId,
  isEmailAddress, isHttpUrl, type ValidateOptions, type NormalizedStartAgentRequest,
} from './validate';
export {
  parseAgent, parseAgentStarted, parseFollowUpAck, parseTestGroupCreated, parseCompletionWebhookPayload,
  parseServiceSchemaInfo,
} from './parse';
export { parseCodeReviewLists, parseCodeReviewDetail, parseCodeReviewStarted, parseVersionPage, parseVersionSync } from './parseReviews';
export {
  validateStartCodeReviewRequest, validateReviewId, codeReviewListQuery, codeReviewQuery, versionListQuery,
  validateSyncVersionRequest, versionStatusQuery,
} from './validateReviews';
export { extractSchemaInfo, extractModelIds, extractPaths, extractOperations, schemaFingerprint, canonicalJson } from './schemaInfo';
export { parseAppTests, parseAppTestDetail, parseServiceTestGroups, parseServiceTestGroupDetail } from './parseTests';
export { parseTestRunStarted, parseTestGroupRunStarted, parseTestRunDetail, parseTestGroupRunDetail } from './parseTestRuns';
export { parseAutomations, parseAutomationRunQueued } from './parseAutomations';
export { runStatusOf, stepStatusOf } from './parseTestFields';
export {
  validateStartTestRunRequest, validateStartTestGroupRunRequest, validateUpdateTestGroupRequest, validateTestPathId,
} from './validateTests';
export { describeApiError, parseRetryAfter, formatDelay } from './describe';
export { sanitizeServerText, redactSecrets } from './sanitize';
export { storedTokens, watchStoredTokens, noteTokenChange, TOKEN_BASE_URLS_KEY } from './storedTokens';
