/** The language model tools' names (package.json `contributes.languageModelTools`), apart from their schemas so activation loads only these. */
export const TOOL_START = 'agentRuns_startRun';
export const TOOL_READ = 'agentRuns_readRun';
export const TOOL_FOLLOW_UP = 'agentRuns_sendFollowUp';
export const TOOL_TEST_GROUP = 'agentRuns_createTestGroup';
/** Offered only where the service serves code reviews (package.json `when`: agentRuns.codeReviews). */
export const TOOL_START_REVIEW = 'agentRuns_startCodeReview';
/** Read-only, offered under the same `when`: one review's summary, and an app's reviews. */
export const TOOL_READ_REVIEW = 'agentRuns_readCodeReview';
export const TOOL_LIST_REVIEWS = 'agentRuns_listCodeReviews';
/** The app's tests and automations (issue 22), each offered only when its capability key is on (package.json `when`). */
export const TOOL_LIST_TESTS = 'agentRuns_listAppTests';
export const TOOL_RUN_TEST = 'agentRuns_runAppTest';
export const TOOL_READ_TEST_RUN = 'agentRuns_readTestRun';
export const TOOL_RUN_AUTOMATION = 'agentRuns_runAutomation';
export const TOOL_NAMES = [
  TOOL_START, TOOL_READ, TOOL_FOLLOW_UP, TOOL_TEST_GROUP, TOOL_START_REVIEW, TOOL_READ_REVIEW, TOOL_LIST_REVIEWS,
  TOOL_LIST_TESTS, TOOL_RUN_TEST, TOOL_READ_TEST_RUN, TOOL_RUN_AUTOMATION,
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];
